// Keeps one incremental annotation per open server log. A growing log (`| tee vllm.log`) only
// parses its appended text; any other edit starts over. Parsing runs in time-boxed slices so
// the extension host is never blocked for long: providers see what is parsed so far, and
// onDidChange fires as the rest arrives. Providers read from here and never parse themselves.
import * as vscode from 'vscode';
import { LogAnnotator } from '../../core/logs/annotate';
import type { LogRecord } from '../../core/logs/model';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';
import { SLICE_SCHEME } from './largeLogs';
import { NOT_SYNCED_ABOVE_CHARS, mebibytes, vscodeShowsNoCodeLens } from './editorLimits';

/** VS Code hands extensions documents up to 50 MiB; beyond that use "Open Large Server Log". */
const MAX_IN_EDITOR_CHARS = NOT_SYNCED_ABOVE_CHARS;
/** Documents from this many lines on are worth a line in the output channel when they arrive. */
const BIG_LOG_LINES = 5_000;
/** Work on the extension host thread per turn of the event loop. */
const SLICE_BUDGET_MS = 25;
const SLICE_CHARS = 128 * 1024;
const TAIL_PROBE = 256;
const PROGRESS_EVENT_MS = 1000;

export interface LogDocumentAnnotation {
  readonly uri: vscode.Uri;
  readonly annotator: LogAnnotator;
  /** record for a 0-based editor line, or undefined */
  record(line: number): LogRecord | undefined;
  readonly hasHops: boolean;
  /** True while lines of the current version are still being parsed. */
  readonly catchingUp: boolean;
  /** Time spent parsing on this thread so far (the rest of a catch-up is yielding). */
  readonly parseMs: number;
  /** Changes each time annotation starts over (an edit that is not an append). */
  readonly generation: number;
  /** Length of the text when VS Code handed the document over. */
  readonly chars: number;
  /**
   * VS Code shows no CodeLens on this document: it was over 20 MiB or 300,000 lines with
   * `editor.largeFileOptimizations` on when VS Code created it (fixed for the document's life).
   */
  readonly noCodeLens: boolean;
}

/** Names of server logs: `.log`, `.out`, `.err`, with an optional rotation number (`vllm.log.1`). */
export function isLogFileName(name: string): boolean {
  return /\.(log|out|err)(\.\d+)?$/i.test(name);
}

class Entry implements LogDocumentAnnotation {
  readonly annotator = new LogAnnotator({ engine: 'auto' });
  /** Document version whose text is (being) parsed. */
  version = -1;
  /** Characters of the document fed to the annotator, and the last few of them. */
  fed = 0;
  tail = '';
  catchingUp = false;
  parseMs = 0;
  generation = 0;
  chars = -1;
  noCodeLens = false;
  constructor(readonly uri: vscode.Uri) {}
  record(line: number): LogRecord | undefined { return this.annotator.records[line]; }
  get hasHops(): boolean { return this.annotator.tracker.counts.size > 0; }
}

export class LogDocumentService extends Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly forced = new Set<string>();
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  /** Fires after a document's annotation changed (new lines, a reset, forced on). */
  readonly onDidChange = this.changed.event;
  private readonly closed = this._register(new vscode.EventEmitter<vscode.Uri>());
  /** Fires when an annotated document was closed (its annotation is gone). */
  readonly onDidClose = this.closed.event;

  constructor(private readonly log: Logger) {
    super();
    this._register(vscode.workspace.onDidChangeTextDocument((e) => {
      if (this.entries.has(e.document.uri.toString()) && e.contentChanges.length > 0) this.get(e.document);
    }));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => { if (this.entries.delete(d.uri.toString())) this.closed.fire(d.uri); }));
    this._register(vscode.workspace.onDidOpenTextDocument((d) => {
      if (!this.isCandidate(d)) return;
      // When VS Code handed a big log over, in the output channel's timestamps: the time from
      // the text on screen to this line is VS Code's copy of the document, not HopLens's work.
      if (d.lineCount >= BIG_LOG_LINES) this.log.info(`${d.uri.path.split('/').pop()}: VS Code handed over ${d.lineCount} lines`);
      this.get(d);
    }));
  }

  /** Server logs: the `log` language, a `.log`/`.out`/`.err` name, or a document the user asked to annotate. */
  isCandidate(doc: vscode.TextDocument): boolean {
    if (this.forced.has(doc.uri.toString())) return true;
    if (doc.uri.scheme === SLICE_SCHEME) return true; // a slice of a large server log
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled' && doc.uri.scheme !== 'vscode-remote') return false;
    return doc.languageId === 'log' || isLogFileName(doc.fileName);
  }

  /** Annotate a document even if it does not look like a log (the Annotate This Log command). */
  force(doc: vscode.TextDocument): LogDocumentAnnotation | undefined {
    this.forced.add(doc.uri.toString());
    return this.get(doc);
  }

  /** Resolves when every line of the document's current version is parsed. */
  async settled(doc: vscode.TextDocument): Promise<LogDocumentAnnotation | undefined> {
    const entry = this.get(doc) as Entry | undefined;
    while (entry && (entry.catchingUp || entry.version !== doc.version)) {
      await new Promise((r) => setTimeout(r, 10));
      this.get(doc);
    }
    return entry;
  }

  /** The annotation of an open document, if it has one (no parsing starts). */
  find(uri: vscode.Uri): LogDocumentAnnotation | undefined {
    return this.entries.get(uri.toString());
  }

  /** The annotation so far (parsing continues in the background), or undefined for non-logs. */
  get(doc: vscode.TextDocument): LogDocumentAnnotation | undefined {
    if (!this.isCandidate(doc)) return undefined;
    const key = doc.uri.toString();
    let entry = this.entries.get(key);
    if (!entry) { entry = new Entry(doc.uri); this.entries.set(key, entry); }
    if (entry.version !== doc.version && !entry.catchingUp) void this.catchUp(entry, doc);
    return entry;
  }

  private async catchUp(entry: Entry, doc: vscode.TextDocument): Promise<void> {
    entry.catchingUp = true;
    const started = Date.now();
    let lastEvent = started;
    let lines = 0;
    try {
      while (entry.version !== doc.version && this.entries.get(doc.uri.toString()) === entry) {
        entry.version = doc.version;
        let text = doc.getText();
        if (entry.chars < 0) {
          // VS Code decides this once, when it creates the model: so do we, on first sight.
          entry.chars = text.length;
          const optimizations = vscode.workspace.getConfiguration('editor', { uri: doc.uri, languageId: doc.languageId }).get<boolean>('largeFileOptimizations', true);
          entry.noCodeLens = vscodeShowsNoCodeLens(text.length, doc.lineCount, optimizations);
          if (entry.noCodeLens) this.log.info(`${doc.uri.path.split('/').pop()}: ${mebibytes(text.length)}, ${doc.lineCount} lines: VS Code shows no CodeLens on it (editor.largeFileOptimizations); HopLens draws a hop column before the text instead`);
        }
        if (text.length > MAX_IN_EDITOR_CHARS) {
          // VS Code does not hand such documents to extensions; if one arrives, leave it alone.
          entry.annotator.reset(); entry.fed = 0; entry.tail = ''; entry.generation++;
          break;
        }
        // The last line without a newline is still a line the user sees: take it as complete.
        // If the writer later continues that same line, the text no longer extends what was
        // fed, and annotation starts over, so nothing is mis-parsed.
        if (text.length > 0 && !text.endsWith('\n')) text += '\n';
        const grew = text.length >= entry.fed && text.startsWith(entry.tail, entry.fed - entry.tail.length);
        if (!grew) { entry.annotator.reset(); entry.fed = 0; entry.tail = ''; entry.generation++; }
        let pos = entry.fed;
        while (pos < text.length) {
          const sliceStart = Date.now();
          while (pos < text.length && Date.now() - sliceStart < SLICE_BUDGET_MS) {
            const end = Math.min(text.length, pos + SLICE_CHARS);
            lines += entry.annotator.appendText(text.slice(pos, end)).length;
            pos = end;
          }
          entry.parseMs += Date.now() - sliceStart;
          entry.fed = pos;
          entry.tail = text.slice(Math.max(0, pos - TAIL_PROBE), pos);
          if (pos < text.length) {
            // Show what is parsed so far, but not after every slice: each event makes the
            // lens, link and decoration providers run again over the document.
            if (Date.now() - lastEvent > PROGRESS_EVENT_MS) { lastEvent = Date.now(); this.changed.fire(doc.uri); }
            await new Promise<void>((r) => setImmediate(r));
          }
          if (entry.version !== doc.version) break; // edited meanwhile: the outer loop re-checks
        }
      }
    } catch (e) {
      this.log.error(`annotating ${doc.uri.toString()}: ${(e as Error).message}`);
    } finally {
      entry.catchingUp = false;
    }
    if (lines > 20_000) this.log.info(`annotated ${lines} lines of ${doc.uri.fsPath} in ${Date.now() - started} ms (${entry.parseMs} ms of it parsing, in slices of ≤${SLICE_BUDGET_MS} ms)`);
    this.changed.fire(doc.uri);
  }
}
