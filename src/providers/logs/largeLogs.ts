// Logs too big for VS Code to hand to extensions (> 50 MB): streamed from disk in slices that
// never block the extension host for long, followed as they grow, and shown as read-only
// slices around a line (the `hoplens-slice:` scheme) instead of the whole file.
import * as vscode from 'vscode';
import { LogSession } from '../../core/session/logSession';
import { fileSize, LogFileFeed, readLineSlice } from '../../core/session/logStream';
import { vllmFastPath } from '../../core/logs/fastVllm';
import { forWorkbench } from '../../core/text/workbench';
import { Disposable } from '../../util/dispose';
import type { RequestLogSource } from '../requestsView';

export const SLICE_SCHEME = 'hoplens-slice';
// About 1,300 lines: one slice keeps the extension host's thread well under 50 ms. Measured on a
// 63 MB log, 2 cores, parse alone: 1 MB slices stall 45 ms, 512 KB 25 ms, 256 KB 11 ms, for the same
// total time (in the extension host 1 MB slices stalled it 32–77 ms).
const POLL_BYTES = 256 * 1024;
const SLICE_CONTEXT_LINES = 60;
const OFFSET_SAMPLE_EVERY = 1024;

export class LargeLog implements RequestLogSource {
  /** Only the requests are kept, not a record per line; common vLLM lines take the byte fast path. */
  readonly session = new LogSession({
    engine: 'auto', keepRecords: false, offsetSampleEvery: OFFSET_SAMPLE_EVERY,
    fast: (state, tracker) => vllmFastPath(state, tracker, null),
  });
  private readonly feed: LogFileFeed;
  constructor(readonly uri: vscode.Uri) {
    this.feed = new LogFileFeed(uri.fsPath, this.session);
  }
  get label(): string { return `${this.uri.fsPath.split(/[\\/]/).pop()} (streamed)`; }
  get tracker() { return this.session.tracker; }
  get engine() { return this.session.engine; }
  get linesRead(): number { return this.session.linesParsed; }

  /** Reads what was appended, in slices; reports progress; stops on cancel. */
  async readAppended(onProgress: (bytes: number) => void, token?: vscode.CancellationToken): Promise<void> {
    for (;;) {
      if (token?.isCancellationRequested) return;
      const { bytes } = await this.feed.poll(POLL_BYTES);
      if (bytes === 0) return;
      onProgress(this.session.bytesParsed);
      await new Promise((r) => setImmediate(r)); // let the extension host breathe between slices
    }
  }

  /** Text of the lines around `line` (1-based) and the number of the first one. */
  async slice(line: number): Promise<{ firstLine: number; text: string }> {
    const first = Math.max(1, line - SLICE_CONTEXT_LINES);
    // Read from the last offset the session sampled before the slice (every 1024th line), else the top.
    const sample = Math.floor((first - 1) / OFFSET_SAMPLE_EVERY);
    const sampled = this.session.sampledOffset(sample);
    const from = sampled === undefined ? undefined : { offset: sampled, line: sample * OFFSET_SAMPLE_EVERY + 1 };
    const lines = await readLineSlice(this.uri.fsPath, first, SLICE_CONTEXT_LINES * 2 + 1, from);
    return { firstLine: first, text: lines.join('\n') };
  }

  /** The file's size now (bytes). */
  size(): Promise<number> { return fileSize(this.uri.fsPath); }
}

export class LargeLogService extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly logs = new Map<string, LargeLog>();

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(SLICE_SCHEME, this));
  }

  get(uri: vscode.Uri): LargeLog | undefined { return this.logs.get(uri.toString()); }

  async openFile(uri: vscode.Uri): Promise<LargeLog | undefined> {
    const log = new LargeLog(uri);
    const ok = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `HopLens: reading ${forWorkbench(log.label)}`, cancellable: true }, async (progress, token) => {
      const size = await log.size();
      let last = 0;
      await log.readAppended((bytes) => {
        progress.report({ increment: ((bytes - last) / Math.max(1, size)) * 100, message: `${(bytes / 1e6).toFixed(0)} of ${(size / 1e6).toFixed(0)} MB, ${log.tracker.requestCount} requests` });
        last = bytes;
      }, token);
      return !token.isCancellationRequested;
    });
    if (!ok) return undefined;
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
