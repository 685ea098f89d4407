// `hop 2 · api-server · v1/engine/async_llm.py:439` above every line a request hop printed, and
// `Timeline` beside it on a request's first hop line only (core/timeline/openLogs.ts says which).
// Big logs are served around the visible range. Lenses near the screen come with their titles
// (no resolve round trip, no blank rows while VS Code asks); the rest are resolved as VS Code
// shows them. VS Code hears "changed" only when an answer would differ near the screen.
import * as vscode from 'vscode';
import type { LogSessions } from './logDocuments';
import { hopTitle } from './hopPresentation';
import { CommandIds } from '../../commandIds';
import { Disposable } from '../../util/dispose';
import { aroundVisible, inWindows, isWindowed, visibleLines, WINDOW_MARGIN_LINES, WINDOW_SLACK_LINES } from './visibleWindow';
import { ServedWindows, type LineWindow } from '../../core/session/servedWindows';
import { forWorkbench } from '../../core/text/workbench';
import { timelineRequestAt } from '../../core/timeline/openLogs';
import type { FirstLensTimes } from './firstLensTiming';

/** Up to this many lenses are all resolved when listed; more are resolved near the screen. */
const RESOLVE_EAGERLY_UP_TO = 1000;
/** Lines around the visible ones whose lenses are listed with their titles. */
const TITLED_MARGIN_LINES = 100;

class HopLens extends vscode.CodeLens {
  constructor(range: vscode.Range, readonly doc: vscode.TextDocument, readonly line: number, readonly part = 1) { super(range); }
}

/** Opens the request's timeline; its command is known when listed (nothing to resolve). */
class TimelineLens extends HopLens {
  constructor(range: vscode.Range, doc: vscode.TextDocument, line: number, rid: string) {
    super(range, doc, line);
    this.command = { title: 'Timeline', command: CommandIds.showRequestTimeline, arguments: [rid], tooltip: `Show Request Timeline of ${rid}` };
  }
}

/** What the registered provider needs besides the sessions: the first read to wait for, and where to time the first lens. */
export interface FirstLensDeps {
  /** Resolves once the document's session has read something (at once when it has). */
  firstRead(doc: vscode.TextDocument): Promise<void>;
  times: FirstLensTimes;
}

export class HopCodeLensProvider extends Disposable implements vscode.CodeLensProvider<HopLens> {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly served = new ServedWindows(WINDOW_SLACK_LINES);

  /** @param sourcesChanged fires when a checkout opened or changed: every title may differ */
  constructor(private readonly logs: LogSessions, sourcesChanged: vscode.Event<void>, private readonly first?: FirstLensDeps) {
    super();
    this._register(logs.onDidChange((uri) => {
      const s = logs.find(uri)?.session;
      if (s && this.served.staleAfterParsing(uri.toString(), s.records.length, s.generation)) this.changed.fire();
    }));
    this._register(logs.onDidClose((uri) => this.served.forget(uri.toString())));
    this._register(sourcesChanged(() => { this.served.clear(); this.changed.fire(); }));
    // For big logs the listed window follows scrolling, once the screen nears its edge.
    let timer: NodeJS.Timeout | undefined;
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      const doc = e.textEditor.document;
      if (!isWindowed(doc.lineCount)) return;
      clearTimeout(timer);
      timer = setTimeout(() => { if (this.served.staleAfterScrolling(doc.uri.toString(), visibleLines(doc))) this.changed.fire(); }, 150);
    }));
    this._register({ dispose: () => clearTimeout(timer) });
  }

  /**
   * The provider VS Code is given: asked before the log's read began (VS Code can ask as it hands
   * the document over), it waits for the first slice — the top of the file — instead of answering
   * nothing, which would cost a second ask after VS Code's debounce of 250 ms or more.
   */
  registered(): vscode.CodeLensProvider<HopLens> {
    return {
      onDidChangeCodeLenses: this.onDidChangeCodeLenses,
      provideCodeLenses: async (doc, token) => {
        const askedAt = this.first?.times.asked(doc.uri) ?? 0;
        await this.first?.firstRead(doc);
        if (token.isCancellationRequested) return [];
        const lenses = this.provideCodeLenses(doc);
        this.first?.times.listed(doc.uri, askedAt, lenses.length, lenses.filter((l) => l.command).length);
        return lenses;
      },
      resolveCodeLens: (lens) => {
        this.first?.times.resolved(lens.doc.uri);
        return this.resolveCodeLens(lens);
      },
    };
  }

  provideCodeLenses(doc: vscode.TextDocument): HopLens[] {
    const session = this.logs.get(doc)?.session;
    if (!session) return [];
    const records = session.records;
    // While a big log is still being parsed, its hop count is not known yet: serve by window.
    const windowed = isWindowed(doc.lineCount) && (session.syncing || isWindowed(session.hopLines));
    const windows: LineWindow[] = windowed ? aroundVisible(doc, WINDOW_MARGIN_LINES) : [[0, doc.lineCount - 1]];
    this.served.remember(doc.uri.toString(), { windows, parsedLines: records.length, generation: session.generation, lineCount: doc.lineCount });
    const lenses: HopLens[] = [];
    const seen = new Set<number>();
    for (const [from, to] of windows) {
      const end = Math.min(to, records.length - 1);
      for (let i = from; i <= end; i++) {
        const rec = records[i];
        if (seen.has(i) || (rec.hop === null && !rec.glued)) continue;
        seen.add(i);
        // One lens per hop on the line: records pasted onto one line each get theirs.
        for (const part of session.hopParts(i)) {
          const range = new vscode.Range(i, 0, i, 0);
          lenses.push(new HopLens(range, doc, i, part));
          const rid = timelineRequestAt(session, i, part);
          if (rid !== null) lenses.push(new TimelineLens(range, doc, i, rid));
        }
      }
    }
    // Titles now for what is on screen, so the first screen needs no second round trip.
    const titled = lenses.length <= RESOLVE_EAGERLY_UP_TO ? null : aroundVisible(doc, TITLED_MARGIN_LINES);
    for (const lens of lenses) if (!titled || inWindows(lens.line, titled)) this.resolveCodeLens(lens);
    return lenses;
  }

  resolveCodeLens(lens: HopLens): HopLens {
    if (lens instanceof TimelineLens) return lens;
    const hop = this.logs.get(lens.doc)?.session.hopAt(lens.line, lens.part);
    if (!hop) { lens.command = { title: '', command: '' }; return lens; }
    // A lens title draws `$(name)` as an icon; without a checkout the path is the one the log printed.
    const shown = hopTitle(hop.record, hop.def, hop.source);
    const title = forWorkbench(shown.title);
    const tooltip = shown.tooltip;
    // The click carries the source this lens located, so it opens that without asking the session again
    // (lenses are re-asked when the sources change, so it is never older than the title).
    lens.command = hop.source
      ? { title, command: CommandIds.openSource, arguments: [lens.doc.uri, lens.line, lens.part, hop.source], tooltip }
      : { title, command: '' };
    return lens;
  }
}
