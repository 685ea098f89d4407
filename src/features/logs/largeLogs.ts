// Logs too big for VS Code to hand to extensions (> 50 MB): streamed from disk in slices that
// never block the extension host for long, followed as they grow, and shown as read-only
// slices around a line (the `hoplens-slice:` scheme) instead of the whole file.
import * as vscode from 'vscode';
import { fileSize, readLineSlice } from '../../core/session/logStream';
import { OFFSET_SAMPLE_EVERY, StreamedLogReplica, StreamedLogThread } from '../../core/session/streamedLog';
import { forWorkbench } from '../../core/text/workbench';
import { Disposable } from '../../util/dispose';
import type { RequestLogSource } from './requestsView';

export const SLICE_SCHEME = 'hoplens-slice';
const SLICE_CONTEXT_LINES = 60;

export class LargeLog implements RequestLogSource {
  /**
   * Read on its own thread (dist/streamedLog.js; on this one in slices when the bundle is not
   * there): this thread only applies each slice's requests. Parsing a 210 MB log here in 256 KB
   * slices stalled the extension host up to 100–180 ms, and its major GCs 65–110 ms (issue 14).
   */
  private readonly replica = new StreamedLogReplica();
  private readonly thread: StreamedLogThread;
  constructor(readonly uri: vscode.Uri, workerScript?: string) {
    this.thread = new StreamedLogThread(uri.fsPath, workerScript);
  }
  get label(): string { return `${this.uri.fsPath.split(/[\\/]/).pop()} (streamed)`; }
  get tracker() { return this.replica.tracker; }
  get engine() { return this.replica.engine; }
  get linesRead(): number { return this.replica.linesParsed; }

  /** Reads what was appended; reports progress; stops on cancel. */
  async readAppended(onProgress: (bytes: number) => void, token?: vscode.CancellationToken): Promise<void> {
    const ac = new AbortController();
    const sub = token?.onCancellationRequested(() => ac.abort());
    if (token?.isCancellationRequested) ac.abort();
    try {
      await this.thread.read((d) => { this.replica.apply(d); onProgress(d.bytesParsed); }, ac.signal);
    } finally { sub?.dispose(); }
  }

  /** Text of the lines around `line` (1-based) and the number of the first one. */
  async slice(line: number): Promise<{ firstLine: number; text: string }> {
    const first = Math.max(1, line - SLICE_CONTEXT_LINES);
    // Read from the last offset the session sampled before the slice (every 1024th line), else the top.
    const sample = Math.floor((first - 1) / OFFSET_SAMPLE_EVERY);
    const sampled = this.replica.sampledOffset(sample);
    const from = sampled === undefined ? undefined : { offset: sampled, line: sample * OFFSET_SAMPLE_EVERY + 1 };
    const lines = await readLineSlice(this.uri.fsPath, first, SLICE_CONTEXT_LINES * 2 + 1, from);
    return { firstLine: first, text: lines.join('\n') };
  }

  /** The file's size now (bytes). */
  size(): Promise<number> { return fileSize(this.uri.fsPath); }

  dispose(): void { this.thread.dispose(); }
}

export class LargeLogService extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly logs = new Map<string, LargeLog>();

  /** @param workerScript dist/streamedLog.js (absent: logs are read on this thread, in slices). */
  constructor(private readonly workerScript?: string) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(SLICE_SCHEME, this));
    this._register({ dispose: () => { for (const log of this.logs.values()) log.dispose(); this.logs.clear(); } });
  }

  get(uri: vscode.Uri): LargeLog | undefined { return this.logs.get(uri.toString()); }

  async openFile(uri: vscode.Uri): Promise<LargeLog | undefined> {
    const log = new LargeLog(uri, this.workerScript);
    const progressOptions = { location: vscode.ProgressLocation.Notification, title: `HopLens: reading ${forWorkbench(log.label)}`, cancellable: true };
    const ok = await vscode.window.withProgress(progressOptions, async (progress, token) => {
      const size = await log.size();
      let last = 0;
      await log.readAppended((bytes) => {
        const message = `${(bytes / 1e6).toFixed(0)} of ${(size / 1e6).toFixed(0)} MB, ${log.tracker.requestCount} requests`;
        progress.report({ increment: ((bytes - last) / Math.max(1, size)) * 100, message });
        last = bytes;
      }, token);
      return !token.isCancellationRequested;
    });
    if (!ok) { log.dispose(); return undefined; }
    this.logs.get(uri.toString())?.dispose();
    this.logs.set(uri.toString(), log);
    return log;
  }

  /** Opens a read-only slice of the file around a 1-based line, with that line selected. */
  async reveal(uri: vscode.Uri, line: number): Promise<void> {
    const sliceUri = uri.with({ scheme: SLICE_SCHEME, query: `line=${line}` });
    const doc = await vscode.workspace.openTextDocument(sliceUri);
    const log = this.logs.get(uri.toString());
    const first = log ? Math.max(1, line - SLICE_CONTEXT_LINES) : 1;
    const at = Math.min(doc.lineCount - 1, line - first);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(at, 0, at, 0), preview: true });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const file = uri.with({ scheme: 'file', query: '' });
    const log = this.logs.get(file.toString());
    const line = Number(/line=(\d+)/.exec(uri.query)?.[1] ?? '1');
    if (!log) return `HopLens: ${file.fsPath} is not open as a large log.`;
    return (await log.slice(line)).text;
  }
}
