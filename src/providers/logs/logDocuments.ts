// Keeps one incremental annotation per open server log: a growing log (`| tee vllm.log`)
// only parses its appended lines; any other edit starts over. Providers read from here and
// never parse themselves.
import * as vscode from 'vscode';
import { LogAnnotator } from '../../core/logs/annotate';
import type { LogRecord } from '../../core/logs/model';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';

/** VS Code hands extensions documents up to 50 MB; beyond that use "Open Large Server Log". */
const MAX_IN_EDITOR_CHARS = 50 * 1024 * 1024;

export interface LogDocumentAnnotation {
  readonly uri: vscode.Uri;
  readonly version: number;
  readonly annotator: LogAnnotator;
  /** record for a 0-based editor line, or undefined */
  record(line: number): LogRecord | undefined;
  readonly hasHops: boolean;
}

class Entry implements LogDocumentAnnotation {
  readonly annotator = new LogAnnotator({ engine: 'auto' });
  version = -1;
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

  constructor(private readonly log: Logger) {
    super();
    this._register(vscode.workspace.onDidChangeTextDocument((e) => {
      if (this.entries.has(e.document.uri.toString()) && e.contentChanges.length > 0) this.refresh(e.document);
    }));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => this.entries.delete(d.uri.toString())));
    this._register(vscode.workspace.onDidOpenTextDocument((d) => { if (this.isCandidate(d)) this.refresh(d); }));
  }

  /** Server logs: the `log` language, a `.log`/`.out`/`.txt` name, or a document the user asked to annotate. */
  isCandidate(doc: vscode.TextDocument): boolean {
    if (this.forced.has(doc.uri.toString())) return true;
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled' && doc.uri.scheme !== 'vscode-remote') return false;
    return doc.languageId === 'log' || /\.(log|out|err)(\.\d+)?$/i.test(doc.fileName);
  }

  /** Annotate a document even if it does not look like a log (the Annotate This Log command). */
  force(doc: vscode.TextDocument): LogDocumentAnnotation | undefined {
    this.forced.add(doc.uri.toString());
    return this.get(doc);
  }

  /** The up-to-date annotation, or undefined for a document that is not a candidate or too big. */
  get(doc: vscode.TextDocument): LogDocumentAnnotation | undefined {
    if (!this.isCandidate(doc)) return undefined;
    const key = doc.uri.toString();
    let entry = this.entries.get(key);
    if (!entry) { entry = new Entry(doc.uri); this.entries.set(key, entry); }
    if (entry.version !== doc.version) this.sync(entry, doc);
    return entry;
  }

  private refresh(doc: vscode.TextDocument): void {
    const before = this.entries.get(doc.uri.toString())?.version;
    const entry = this.get(doc);
    if (entry && entry.version !== before) this.changed.fire(doc.uri);
  }

  private sync(entry: Entry, doc: vscode.TextDocument): void {
    entry.version = doc.version;
    const text = doc.getText();
    if (text.length > MAX_IN_EDITOR_CHARS) {
      entry.annotator.reset();
      return;
    }
    const started = Date.now();
    // The last line without a newline is still a line the user sees: annotate it as complete.
    // If the writer later continues that same line, the text no longer extends what was
    // parsed and syncText starts over, so nothing is mis-parsed.
    const { reset, added } = entry.annotator.syncText(text.length === 0 || text.endsWith('\n') ? text : text + '\n');
    const ms = Date.now() - started;
    if (ms > 50) this.log.warn(`annotating ${doc.uri.fsPath} took ${ms} ms (${added.length} lines${reset ? ', from the start' : ''})`);
  }

  /** The most recently annotated document that has hops (for the Requests view). */
  annotationFor(uri: vscode.Uri): LogDocumentAnnotation | undefined {
    return this.entries.get(uri.toString());
  }
}
