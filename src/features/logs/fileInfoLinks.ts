// A printed `[file.py:123]` (vLLM's own) becomes a link, even on lines that are not hops. An engine
// that prints no file:line (SGLang) has its lines that are not hops linked to the statement the
// checkout's index finds for the text: on the logger name a layout printed, else where its profile
// says its header stands (EngineProfile.headerSpan: SGLang's `[time rank]`).
import * as vscode from 'vscode';
import type { LogSessions } from './logDocuments';
import { sourceTarget } from './sourceService';
import type { LogRecord } from '../../core/logs/model';
import { engineProfile } from '../../engines/registry';
import type { LocatedSource } from '../../core/source/locate';
import { isWindowed, lineWindows, visibleLines, WINDOW_SLACK_LINES } from './visibleWindow';
import { ServedWindows } from '../../core/session/servedWindows';
import { Disposable } from '../../util/dispose';
import { frameFileIn, tracebackFrame } from '../../core/source/tracebackFrames';
import type { Engine } from '../../core/logs/model';

/**
 * Registers the link provider, and registers it again when a new answer would differ near the
 * screen (the user scrolled far in a big log, lines under the last answer were parsed since, a
 * checkout became ready): VS Code has no "links changed" event, and re-registering is what makes
 * it ask again — and drop the links it is computing, so it is not done for nothing.
 */
export class FileInfoLinks extends Disposable {
  private registration: vscode.Disposable | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly selector: vscode.DocumentSelector, private readonly provider: FileInfoLinkProvider,
    sourcesChanged: vscode.Event<void>, logs: LogSessions) {
    super();
    this.register();
    // A checkout or its index became ready; or the provider ran out of time for this pass.
    this._register(sourcesChanged(() => { provider.forget(); this.register(); }));
    provider.onIncomplete = () => this.registerSoon(50);
    this._register(logs.onDidChange((uri) => {
      const s = logs.find(uri)?.session;
      if (s && provider.served.staleAfterParsing(uri.toString(), s.records.length, s.generation)) this.registerSoon(50);
    }));
    this._register(logs.onDidClose((uri) => provider.served.forget(uri.toString())));
    this._register(vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      const doc = e.textEditor.document;
      if (!isWindowed(doc.lineCount)) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => { if (provider.served.staleAfterScrolling(doc.uri.toString(), visibleLines(doc))) this.register(); }, 300);
    }));
    this._register({ dispose: () => { clearTimeout(this.timer); this.registration?.dispose(); } });
  }

  private registerSoon(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.register(), ms);
  }

  private register(): void {
    this.registration?.dispose();
    this.registration = vscode.languages.registerDocumentLinkProvider(this.selector, this.provider);
  }
}

class FileInfoLink extends vscode.DocumentLink {
  /** `part`: the record's place on its line (records pasted onto one line each get their links). */
  constructor(range: vscode.Range, readonly uri: vscode.Uri, readonly line: number, readonly part = 1) { super(range); }
}

/** Time one pass may spend searching the index for lines with no file:line; the rest comes in the next pass. */
const SEARCH_BUDGET_MS = 20;

/** The root of the source a log's lines of an engine resolve in (a checkout, a release's own source), or null. */
export type SourceRootOf = (log: vscode.Uri, engine: Engine) => string | null;

export class FileInfoLinkProvider implements vscode.DocumentLinkProvider<vscode.DocumentLink> {
  /** Called when a pass stopped early; the owner asks VS Code for links again. */
  onIncomplete: (() => void) | undefined;

  /** The windows answered per document, to ask VS Code again only when an answer would differ. */
  readonly served = new ServedWindows(WINDOW_SLACK_LINES);

  /** A traceback frame's file in a source, per printed path and root (a stat per frame, not per pass). */
  private readonly frameFiles = new Map<string, string | null>();

  constructor(private readonly logs: LogSessions, private readonly sourceRootOf: SourceRootOf = () => null) {}

  /** The checkout changed: answers given so far may be wrong. */
  forget(): void { this.served.clear(); this.frameFiles.clear(); }

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    const session = this.logs.get(doc)?.session;
    if (!session) return [];
    const links: vscode.DocumentLink[] = [];
    const records = session.records;
    const windows = lineWindows(doc, doc.lineCount);
    this.served.remember(doc.uri.toString(), { windows, parsedLines: records.length, generation: session.generation, lineCount: doc.lineCount });
    const started = performance.now();
    let incomplete = false;
    for (const [from, to] of windows) for (let i = from; i <= to && i < records.length; i++) {
      const first = records[i];
      const text = doc.lineAt(i).text;
      // A traceback frame in an engine's package, on any line of an engine's log (a bare frame line is no
      // engine's layout; one inside vLLM's header has its [file:line] link too).
      if (session.engine !== null) {
        const frame = this.frameLink(doc, i, text);
        if (frame) links.push(frame);
      }
      if (first.engine === 'other') continue;
      // Records pasted onto one line: each links within the columns it covers.
      for (const { part, record: rec, start, end } of first.glued ? session.lineParts(i, text.length) : [{ part: 1, record: first, start: 0,
        end: text.length }]) {
        if (rec.engine === 'other') continue;
        // No file:line printed (an engine whose own layout prints none, as SGLang's, or a layout that prints the
        // logger's name): the statement found for the text.
        const unplaced = rec.logger !== undefined || engineProfile(rec.engine).resolvesUnplacedLines === true;
        if (unplaced && rec.fileinfo === null && rec.hop === null && !rec.continuation) {
          // A line located before costs nothing; a new one is a search of the index, within the pass's budget.
          let src = session.knownSource(i, part);
          if (src === undefined) {
            if (incomplete || performance.now() - started > SEARCH_BUDGET_MS) { incomplete = true; continue; }
            src = session.source(i, part);
          }
          const link = src ? this.unplacedLink(doc.uri, text.slice(0, end), i, part, start, rec, src) : null;
          if (link) links.push(link);
          continue;
        }
        if (rec.fileinfo === null || rec.lineno === null) continue;
        const needle = `${rec.fileinfo}:${rec.lineno}`;
        const at = text.indexOf(needle, start);
        if (at < 0 || at + needle.length > end) continue;
        links.push(new FileInfoLink(new vscode.Range(i, at, i, at + needle.length), doc.uri, i, part));
      }
    }
    if (incomplete) this.onIncomplete?.();
    return links;
  }

  /**
   * A link on the logger name a layout printed, or where the record's engine says its header stands
   * (nothing when no statement prints it). `text`: the line up to the end of the record's columns,
   * which start at `start`.
   */
  private unplacedLink(uri: vscode.Uri, text: string, i: number, part: number, start: number, rec: LogRecord,
    src: LocatedSource): FileInfoLink | null {
    let span: readonly [number, number] | null = null;
    const at = rec.logger !== undefined ? text.indexOf(rec.logger, start) : -1;
    if (rec.logger !== undefined && at >= 0) span = [at, at + rec.logger.length];
    else if (rec.engine !== 'other') span = engineProfile(rec.engine).headerSpan?.(text, start, rec.message) ?? null;
    if (span === null) return null;
    const link = new FileInfoLink(new vscode.Range(i, span[0], i, span[1]), uri, i, part);
    this.describe(link, src);
    return link;
  }

  private describe(link: FileInfoLink, src: LocatedSource): void {
    link.target = sourceTarget(src);
    link.tooltip = src.file !== null
      ? `${src.location.path}:${src.location.line}${src.location.verified ? '' : ' (not verified)'}`
      : 'Open at the pinned commit (no local checkout)';
  }

  /**
   * A link on a traceback frame's `"path", line N` to that file and line in the source the log's
   * lines resolve in; null when the line has none, or that source has no such file.
   */
  private frameLink(doc: vscode.TextDocument, i: number, text: string): vscode.DocumentLink | null {
    if (!text.includes('File "')) return null;
    const frame = tracebackFrame(text);
    if (!frame) return null;
    const root = this.sourceRootOf(doc.uri, frame.engine);
    if (root === null) return null;
    const key = `${root}\n${frame.file}`;
    let file = this.frameFiles.get(key);
    if (file === undefined) { file = frameFileIn(frame, root); this.frameFiles.set(key, file); }
    if (file === null) return null;
    const link = new vscode.DocumentLink(new vscode.Range(i, frame.start, i, frame.end), vscode.Uri.file(file).with({ fragment: `L${frame.line}` }));
    link.tooltip = `${frame.relative}:${frame.line} in ${root}`;
    return link;
  }

  resolveDocumentLink(link: vscode.DocumentLink): vscode.DocumentLink {
    if (!(link instanceof FileInfoLink)) return link;
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === link.uri.toString());
    const src = doc ? this.logs.get(doc)?.session.source(link.line, link.part) ?? null : null;
    if (src) this.describe(link, src);
    return link;
  }
}
