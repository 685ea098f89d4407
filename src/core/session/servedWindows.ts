// What a lens, link or hint provider last answered for each document — the line windows it
// covered, how far the annotation had got, which parse of the document — so that it tells VS Code
// "changed" only when a new answer would differ around the screen. Every such event costs a
// round trip, and VS Code's CodeLens restarts its debounce on each one: events sent while a big
// log is still being parsed, or while the user scrolls inside what was answered, only push the
// first lens back. No `vscode` here: the rule is unit-tested in plain Node.

/** Inclusive 0-based line range. */
export type LineWindow = readonly [number, number];

export interface ServedAnswer {
  windows: readonly LineWindow[];
  /** Records parsed when the answer was given. */
  parsedLines: number;
  /** Which parse of the document (it changes when annotation starts over). */
  generation: number;
  /** Lines of the document then. */
  lineCount: number;
}

export class ServedWindows {
  private readonly answers = new Map<string, ServedAnswer>();

  /** @param slackLines how far into an answer's margin a scroll may go before it is renewed */
  constructor(private readonly slackLines: number) {}

  remember(doc: string, answer: ServedAnswer): void { this.answers.set(doc, answer); }

  forget(doc: string): void { this.answers.delete(doc); }

  /** Everything answered may be wrong (a checkout became available, settings changed). */
  clear(): void { this.answers.clear(); }

  has(doc: string): boolean { return this.answers.has(doc); }

  /**
   * The annotation of `doc` changed. Stale when it started over, or when the last answer's
   * windows reached past what was parsed then (so new records fall inside them).
   */
  staleAfterParsing(doc: string, parsedLines: number, generation: number): boolean {
    const a = this.answers.get(doc);
    if (!a) return false; // VS Code has not asked yet; it will
    if (a.generation !== generation) return true;
    if (parsedLines <= a.parsedLines) return false;
    return a.windows.some(([, to]) => to >= a.parsedLines - 1);
  }

  /** The user scrolled: stale when a visible range left the answered windows minus the slack. */
  staleAfterScrolling(doc: string, visible: readonly LineWindow[]): boolean {
    const a = this.answers.get(doc);
    if (!a) return false;
    const last = a.lineCount - 1;
    const inside = ([from, to]: LineWindow) => a.windows.some(([wf, wt]) =>
      (wf === 0 || from >= wf + this.slackLines) && (wt >= last || to <= wt - this.slackLines));
    return !visible.every(inside);
  }
}
