// Faint notes on hop lines: at the end, the time since the previous hop of the same request; and
// where VS Code shows no CodeLens (a log over 20 MiB or 300,000 lines with large-file
// optimisations on, see editorLimits.ts), a column before the text that names each line's hop
// (`hop 2`), so hops stand out at a glance and the log text stays aligned. VS Code draws such files
// without injected text (no inlay hints) but keeps decorations; the rest of what a lens says is
// in the hover, with a link to the source, and the `[file:line]` link opens it too. Only the
// visible lines (and a margin) are decorated, so huge logs cost what is on screen: a line's marks
// are kept until the document or the session changes, a scroll that stays inside the decorated
// margin sets nothing, and a request's deltas are read off its raw stamps (forEachEntry), never
// through the tracker's whole description of it (context lines, missing hops).
import * as vscode from 'vscode';
import type { LogSessions } from './logDocuments';
import type { LogSession } from '../../core/session/logSession';
import { SincePrevious, type Delta } from '../../core/logs/requests';
import { hopLabel, hopLabels, hopLabelWidth } from './hopPresentation';
import { ENGINE_IDS } from '../../engines/registry';
import { Disposable } from '../../util/dispose';

const MARGIN_LINES = 200;
/** A scroll that leaves at least this many decorated lines above and below what is visible sets nothing. */
const KEEP_LINES = MARGIN_LINES / 2;

/** One line's marks: the note at its end and the column before it (undefined: none). */
interface LineMarks { delta: vscode.DecorationOptions | undefined; note: vscode.DecorationOptions | undefined }

/** The marks of a document's lines near what is visible, and the state (document version, parse progress) they were made from. */
interface DocumentMarks { state: string; lines: Map<number, LineMarks> }

/** What an editor was last given: from which state, and the line intervals decorated. */
interface EditorMarks { state: string; windows: [number, number][] }

/** Each request's hop entries on the lines being marked: `line\nhop` → sincePrevious of each, in file order. */
type RequestDeltas = Map<string, (Delta | null)[]>;

/** Counts for tests: hop entries read off requests' stamps, lines marked anew. */
export interface DecorationWork { entriesRead: number; linesMarked: number }

export class HopDecorations extends Disposable {
  private readonly delta = this._register(vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('hoplens.hopDelta'), margin: '0 0 0 2em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private readonly lensNote = this._register(vscode.window.createTextEditorDecorationType({
    before: { color: new vscode.ThemeColor('hoplens.hopDelta'), margin: '0 1.5em 0 0' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private pending: NodeJS.Timeout | undefined;
  private readonly documents = new WeakMap<vscode.TextDocument, DocumentMarks>();
  private readonly editors = new WeakMap<vscode.TextEditor, EditorMarks>();
  /** What the last update did (for tests and benchmarks). */
  readonly work: DecorationWork = { entriesRead: 0, linesMarked: 0 };

  constructor(private readonly logs: LogSessions) {
    super();
    this._register(vscode.window.onDidChangeVisibleTextEditors(() => this.schedule()));
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges(() => this.schedule()));
    this._register(logs.onDidChange(() => this.schedule()));
    this._register({ dispose: () => clearTimeout(this.pending) });
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.pending);
    this.pending = setTimeout(() => { for (const e of vscode.window.visibleTextEditors) this.update(e); }, 50);
  }

  update(editor: vscode.TextEditor): void {
    this.work.entriesRead = 0; this.work.linesMarked = 0;
    const doc = editor.document;
    const ann = this.logs.get(doc);
    const session = ann?.session;
    if (!ann || !session || !session.hasHops) {
      this.editors.delete(editor);
      editor.setDecorations(this.delta, []); editor.setDecorations(this.lensNote, []);
      return;
    }
    const noteWidth = ann.noCodeLens ? hopLabelWidth(session.engine ?? ENGINE_IDS[0]) + 1 : 0;
    // Anything a line's marks depend on: the text (version), what is parsed of it, a start-over, the column.
    const state = `${doc.version}|${session.generation}|${session.linesParsed}|${session.bytesParsed}|${session.hopLines}|${noteWidth}`;
    const last = doc.lineCount - 1;
    const before = this.editors.get(editor);
    if (before?.state === state && editor.visibleRanges.every((v) => covered(v.start.line, v.end.line, before.windows, last))) return;
    const windows = editor.visibleRanges.map((v): [number, number] => [Math.max(0, v.start.line - MARGIN_LINES), Math.min(last, v.end.line + MARGIN_LINES)]);
    const old = this.documents.get(doc);
    const kept = old?.state === state ? old.lines : new Map<number, LineMarks>();
    const lines = new Map<number, LineMarks>();
    const todo: number[] = [];
    for (const [from, to] of windows) {
      for (let line = from; line <= to; line++) {
        if (lines.has(line)) continue;
        const marks = kept.get(line);
        if (marks) lines.set(line, marks); else { todo.push(line); lines.set(line, { delta: undefined, note: undefined }); }
      }
    }
    const deltas = this.requestDeltas(session, todo);
    for (const line of todo) lines.set(line, this.marks(doc, session, line, noteWidth, deltas));
    this.work.linesMarked = todo.length;
    this.documents.set(doc, { state, lines });
    this.editors.set(editor, { state, windows });
    const deltaOpts: vscode.DecorationOptions[] = [];
    const noteOpts: vscode.DecorationOptions[] = [];
    for (const m of lines.values()) {
      if (m.delta) deltaOpts.push(m.delta);
      if (m.note) noteOpts.push(m.note);
    }
    editor.setDecorations(this.delta, deltaOpts);
    editor.setDecorations(this.lensNote, noteOpts);
  }

  /** The deltas of every request with a hop on one of `lines` (0-based), for entries on those lines only. */
  private requestDeltas(session: LogSession, lines: number[]): Map<string, RequestDeltas> {
    const out = new Map<string, RequestDeltas>();
    if (lines.length === 0) return out;
    let lo = Infinity, hi = -Infinity;
    for (const line of lines) {
      for (const part of session.hopParts(line)) {
        const rid = session.record(line, part)?.rid;
        if (rid !== null && rid !== undefined) out.set(rid, new Map());
      }
      lo = Math.min(lo, line + 1); hi = Math.max(hi, line + 1);
    }
    for (const [rid, byLine] of out) {
      // The same delta as the tracker's description gives (its SincePrevious rule).
      const since = new SincePrevious();
      session.tracker.forEachEntry(rid, (hop, line, time, res) => {
        this.work.entriesRead++;
        const d = since.next(time, res);
        if (line >= lo && line <= hi) {
          const key = `${line}\n${hop}`;
          const list = byLine.get(key);
          if (list) list.push(d); else byLine.set(key, [d]);
        }
      });
    }
    return out;
  }

  /** One line's note at its end and its hop column. */
  private marks(doc: vscode.TextDocument, session: LogSession, line: number, noteWidth: number, deltas: Map<string, RequestDeltas>): LineMarks {
    // Records pasted onto one line: each hop among them is named.
    const parts = session.hopParts(line);
    let note: vscode.DecorationOptions | undefined;
    if (noteWidth > 0) {
      // Every line gets the column (blank on lines that are no hop), so the text stays aligned.
      const defs = parts.map((p) => session.hop(line, p)).filter((d) => d !== undefined);
      note = { range: new vscode.Range(line, 0, line, 0), renderOptions: { before: { contentText: hopLabels(defs).padEnd(noteWidth, '\u00a0') } } };
    }
    const texts: string[] = [];
    const seen = new Map<string, number>();
    for (const part of parts) {
      const rec = session.record(line, part)!;
      const rid = rec.rid;
      if (rid === null || rec.hop === null) continue;
      // The request's n-th entry of this hop on this line is the line's n-th record of it.
      const key = `${line + 1}\n${rec.hop}`;
      const nth = seen.get(`${rid}\n${key}`) ?? 0;
      seen.set(`${rid}\n${key}`, nth + 1);
      const list = deltas.get(rid)?.get(key);
      if (!list || nth >= list.length) continue;
      const since = list[nth];
      const text = since ? `Δ ${since.text} since previous hop` : 'first hop of this request';
      const def = parts.length > 1 ? session.hop(line, part) : undefined;
      texts.push(def ? `${hopLabel(def)}: ${text}` : text);
    }
    if (texts.length === 0) return { delta: undefined, note };
    const end = doc.lineAt(line).range.end;
    return { delta: { range: new vscode.Range(end, end), renderOptions: { after: { contentText: `  ${texts.join(' · ')}` } } }, note };
  }
}

/** Whether lines `start`–`end` lie inside one decorated interval with KEEP_LINES to spare on each side (or its end at the document's). */
function covered(start: number, end: number, windows: [number, number][], last: number): boolean {
  return windows.some(([from, to]) => start >= from && end <= to && (from === 0 || start - from >= KEEP_LINES) && (to === last || to - end >= KEEP_LINES));
}
