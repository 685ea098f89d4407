// One LogSession (core/session) per open server log. This file only adapts: it hands each
// document's text to its session when VS Code opens or changes it, and says when a session
// changed or its document closed. The session parses only appended text, in time-boxed slices
// (providers see what is parsed so far); providers read sessions and never parse themselves.
import * as vscode from 'vscode';
import { LogSession, type TextRanges, type TextSnapshot } from '../../core/session/logSession';
import type { SourceLocator } from '../../core/source/locate';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';
import { SLICE_SCHEME } from './largeLogs';
import { NOT_SYNCED_ABOVE_CHARS, mebibytes, vscodeShowsNoCodeLens } from '../../core/session/editorLimits';
import { SHARED_THREAD } from '../../core/session/pace';
import { FirstLensTimes } from './firstLensTiming';

/**
 * Work on the extension host thread per turn of the event loop, and the characters parsed between
 * two looks at the clock: at 25 ms and 128 K a slice with a garbage collection in it held the
 * host over 50 ms (issue 28).
 */
const SLICE_BUDGET_MS = SHARED_THREAD.budgetMs;
const SLICE_CHARS = 32 * 1024;
/**
 * While a log is read, providers hear of it at most this often (each event makes every provider
 * of the document run again), except once as soon as its first hop lines are read.
 */
const PROGRESS_EVERY_MS = 1000;

export type { LogDocumentAnnotation, LogSessions, LogDocuments } from '../shared/logSessions';
import { FLEET_SCHEME, type LogDocumentAnnotation, type LogDocuments } from '../shared/logSessions';

/** Names of server logs: `.log`, `.out`, `.err`, with an optional rotation number (`vllm.log.1`). */
export function isLogFileName(name: string): boolean {
  return /\.(log|out|err)(\.\d+)?$/i.test(name);
}

class Entry implements LogDocumentAnnotation {
  readonly session: LogSession;
  chars = -1;
  noCodeLens = false;
  /** The sync under way (it fires onDidChange when done). */
  pending: Promise<void> | null = null;
  /** Each edit since the session last read: the version it made and its lowest offset (undefined: not given). */
  edits: { version: number; from: number | undefined }[] = [];
  /** Whether providers heard of this session's first hop lines; when they last heard of progress. */
  toldHops = false;
  toldAt = 0;
  /** Waiting for the first slice of the current read (resolved by it, or when the read ends). */
  private firstSlice: { promise: Promise<void>; resolve: () => void } | null = null;
  constructor(readonly uri: vscode.Uri, sources: SourceLocator, referenceTime: number | undefined) {
    this.session = new LogSession({ engine: 'auto', sources, key: uri.toString(), referenceTime });
  }

  /** Resolves once the read under way has parsed its first slice (or ended). */
  sliceRead(): Promise<void> {
    if (!this.firstSlice) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => { resolve = r; });
      this.firstSlice = { promise, resolve };
    }
    return this.firstSlice.promise;
  }

  sliceDone(): void {
    this.firstSlice?.resolve();
    this.firstSlice = null;
  }
}

export interface LogDocumentDeps {
  log: Logger;
  /** Where a line's source is: the window's one locator, or each log's own (its release's source). */
  sources: SourceLocator | ((uri: vscode.Uri) => SourceLocator);
  /** VS Code's `editor.largeFileOptimizations` for this document (read when VS Code hands it over). */
  largeFileOptimizations(doc: vscode.TextDocument): boolean;
  /**
   * When the log on disk was last written (its mtime), for the year of vLLM's year-less stamps,
   * as the command line and the timeline's file reader place them; undefined: now.
   */
  referenceTime?(uri: vscode.Uri): number | undefined;
}

/** Edits remembered between two reads of a session, one by one. */
const MAX_EDITS_KEPT = 256;

/**
 * Resolves at the event loop's next turn: the task that handed the document over has ended (and
 * the I/O that was ready with it has run). A second turn on top (until 2026-12-04) delayed the read
 * 13–114 ms after the hand-over of a 10–19 MiB log, against 1–8 ms with one (firstScreen E2E, 3
 * alternating runs each), VS Code's own work of the hand-over done either way.
 */
const afterOneRound = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The lowest offset edited after version `since` (Infinity: none), from the change events seen;
 * undefined when an edit gave no offset or its event has not arrived yet (`version` is ahead).
 */
function editedFrom(entry: Entry, version: number, since: number): number | undefined {
  entry.edits = entry.edits.filter((e) => e.version > since);
  const last = entry.edits.length > 0 ? entry.edits[entry.edits.length - 1].version : since;
  if (last < version) return undefined;
  return lowest(entry.edits);
}

function lowest(edits: readonly { from: number | undefined }[]): number | undefined {
  let from = Infinity;
  for (const e of edits) {
    if (e.from === undefined) return undefined;
    from = Math.min(from, e.from);
  }
  return from;
}

export class LogDocumentService extends Disposable implements LogDocuments {
  private readonly entries = new Map<string, Entry>();
  private readonly forced = new Set<string>();
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  private readonly closed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidClose = this.closed.event;
  /** HopLens's own share of the first lens, in the output channel. */
  readonly times: FirstLensTimes;

  constructor(private readonly deps: LogDocumentDeps) {
    super();
    this.times = new FirstLensTimes(deps.log);
    this._register(vscode.workspace.onDidChangeTextDocument((e) => {
      const entry = this.entries.get(e.document.uri.toString());
      if (!entry || e.contentChanges.length === 0) return;
      // Offsets of the text before this edit: the lowest tells whether the edit is an append.
      let from: number | undefined = Infinity;
      for (const c of e.contentChanges) from = typeof c.rangeOffset === 'number' && from !== undefined ? Math.min(from, c.rangeOffset) : undefined;
      entry.edits.push({ version: e.document.version, from });
      // Not read for long (a sync under way, a document too long to annotate): one edit of them all,
      // its lowest offset, which at worst starts the session over once more than needed.
      if (entry.edits.length > MAX_EDITS_KEPT) entry.edits = [{ version: e.document.version, from: lowest(entry.edits) }];
      this.track(e.document);
    }));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => {
      const entry = this.entries.get(d.uri.toString());
      if (!entry) return;
      entry.session.close();
      entry.sliceDone();
      this.entries.delete(d.uri.toString());
      this.times.closed(d.uri);
      this.closed.fire(d.uri);
    }));
    this._register(vscode.workspace.onDidOpenTextDocument((d) => {
      if (!this.isCandidate(d)) return;
      // When VS Code handed a log over, in the output channel's timestamps: the time from the
      // text on screen to this line is VS Code's copy of the document, not HopLens's work.
      this.times.handedOver(d.uri, d.lineCount);
      this.track(d);
    }));
    // Logs open before HopLens activated (the one that activated it among them).
    for (const d of vscode.workspace.textDocuments) {
      if (this.isCandidate(d) && d.uri.scheme !== SLICE_SCHEME) this.times.handedOver(d.uri, d.lineCount, true);
      this.track(d);
    }
  }

  /**
   * Resolves once the document's session has parsed something of its current version, or at
   * once when it has (or is no log): a provider asked before the read began waits for its first
   * slice (tens of milliseconds, the top of the file) rather than answering nothing and asking
   * VS Code to ask again (a round trip and VS Code's debounce of 250 ms or more).
   */
  async firstRead(doc: vscode.TextDocument): Promise<void> {
    const entry = this.track(doc);
    if (!entry || !entry.pending || entry.session.records.length > 0) return;
    await Promise.race([entry.sliceRead(), entry.pending]);
  }

  /** Server logs: the `log` language, a `.log`/`.out`/`.err` name, or a document the user asked to annotate. */
  isCandidate(doc: vscode.TextDocument): boolean {
    if (this.forced.has(doc.uri.toString())) return true;
    if (doc.uri.scheme === SLICE_SCHEME) return true; // a slice of a large server log
    if (doc.uri.scheme === FLEET_SCHEME) return true; // a pod's lines from a log store
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled' && doc.uri.scheme !== 'vscode-remote') return false;
    return doc.languageId === 'log' || isLogFileName(doc.fileName);
  }

  /** Annotate a document even if it does not look like a log (the Annotate This Log command). */
  force(doc: vscode.TextDocument): LogDocumentAnnotation | undefined {
    this.forced.add(doc.uri.toString());
    return this.track(doc);
  }

  /** Resolves when every line of the document's current version is parsed. */
  async settled(doc: vscode.TextDocument): Promise<LogDocumentAnnotation | undefined> {
    let entry = this.track(doc);
    while (entry && (entry.pending || entry.session.syncedVersion !== doc.version)) {
      await entry.pending;
      if (this.entries.get(doc.uri.toString()) !== entry) return entry; // closed meanwhile
      entry = this.track(doc);
    }
    return entry;
  }

  find(uri: vscode.Uri): LogDocumentAnnotation | undefined {
    return this.entries.get(uri.toString());
  }

  get(doc: vscode.TextDocument): LogDocumentAnnotation | undefined {
    return this.entries.get(doc.uri.toString()) ?? this.track(doc);
  }

  /** The document's entry, with its session brought up to date (in the background). */
  private track(doc: vscode.TextDocument): Entry | undefined {
    const entry = this.entry(doc);
    if (entry && !entry.pending && entry.session.syncedVersion !== doc.version) {
      const run = this.sync(entry, doc).finally(() => { if (entry.pending === run) entry.pending = null; });
      entry.pending = run;
    }
    return entry;
  }

  private entry(doc: vscode.TextDocument): Entry | undefined {
    if (!this.isCandidate(doc)) return undefined;
    const key = doc.uri.toString();
    let entry = this.entries.get(key);
    if (!entry) {
      const { sources } = this.deps;
      entry = new Entry(doc.uri, typeof sources === 'function' ? sources(doc.uri) : sources, this.deps.referenceTime?.(doc.uri));
      this.entries.set(key, entry);
    }
    return entry;
  }

  /**
   * The document as its session reads it; its first text also tells what VS Code decided about it.
   * Read by ranges (only what the session has not read, a slice at a time), never as a whole text
   * again: the extension host joins all lines of a document for getText(), 115–272 ms for 50 MB.
   * With CRLF line ends a slice's end may fall between a \r and its \n: VS Code's positionAt puts
   * such an offset before the \r, so that slice ends before it and the next one starts with it.
   */
  private snapshot(entry: Entry, doc: vscode.TextDocument): TextSnapshot {
    const seen = (chars: number) => { if (entry.chars < 0) this.firstSight(entry, doc, chars); };
    const ranges: TextRanges = {
      length: () => {
        const chars = doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end);
        seen(chars);
        return chars;
      },
      text: (from, to) => doc.getText(new vscode.Range(doc.positionAt(from), doc.positionAt(to))),
      editedFrom: (since) => editedFrom(entry, doc.version, since),
    };
    return {
      get version() { return doc.version; },
      getText: () => {
        const text = doc.getText();
        seen(text.length);
        return text;
      },
      ranges,
    };
  }

  private firstSight(entry: Entry, doc: vscode.TextDocument, chars: number): void {
    // VS Code decides this once, when it creates the model: so do we, on first sight.
    entry.chars = chars;
    entry.noCodeLens = vscodeShowsNoCodeLens(chars, doc.lineCount, this.deps.largeFileOptimizations(doc));
    if (entry.noCodeLens) {
      this.deps.log.info(`${doc.uri.path.split('/').pop()}: ${mebibytes(chars)}, ${doc.lineCount} lines: `
        + 'VS Code shows no CodeLens on it (editor.largeFileOptimizations); HopLens draws a hop column before the text instead');
    }
  }

  private syncOptions(entry: Entry, doc: vscode.TextDocument) {
    return {
      budgetMs: SLICE_BUDGET_MS,
      sliceChars: SLICE_CHARS,
      completeLastLine: true,
      // VS Code does not hand such documents to extensions; if one arrives, leave it alone.
      maxChars: NOT_SYNCED_ABOVE_CHARS,
      // After every slice; providers hear of the first hop lines at once, then once a second.
      progressEveryMs: 0,
      onProgress: () => {
        entry.sliceDone();
        const now = performance.now();
        if (this.toldFirstHops(entry) || now - entry.toldAt >= PROGRESS_EVERY_MS) {
          entry.toldAt = now;
          this.changed.fire(doc.uri);
        }
      },
    };
  }

  /** True the first time the session has hop lines: the first lenses and hop marks can be drawn. */
  private toldFirstHops(entry: Entry): boolean {
    if (entry.toldHops || !entry.session.hasHops) return false;
    entry.toldHops = true;
    this.times.firstHops(entry.uri, entry.session.linesParsed);
    return true;
  }

  private async sync(entry: Entry, doc: vscode.TextDocument): Promise<void> {
    // Not inside the task that handed the document over or its edit (VS Code's copy of a big log
    // is 100–300 ms of its own): at the event loop's next turn.
    await afterOneRound();
    this.times.readBegins(entry.uri);
    entry.toldAt = performance.now();
    try {
      const report = await entry.session.syncText(this.snapshot(entry, doc), this.syncOptions(entry, doc));
      if (report.lines > 20_000) {
        this.deps.log.info(`annotated ${report.lines} lines of ${doc.uri.fsPath} in ${Math.round(report.wallMs)} ms `
          + `(${Math.round(report.parseMs)} ms of it parsing, in slices of ≤${SLICE_BUDGET_MS} ms)`);
      }
    } catch (e) {
      this.deps.log.error(`annotating ${doc.uri.toString()}: ${(e as Error).message}`);
    }
    entry.sliceDone();
    this.toldFirstHops(entry);
    if (this.entries.get(doc.uri.toString()) === entry) this.changed.fire(doc.uri);
  }
}
