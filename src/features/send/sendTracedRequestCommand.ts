// HopLens: Send Traced Request — one streaming request timed from the socket, its report,
// and the server log lines of this very request. Also Repeat… and Set API Key.
import * as vscode from 'vscode';
import {
  TracedRequestWorker, aggregateRuns, runsReport, validateOptions, ServerLogReader, serverLogFile, type TraceOptions, type TracedRequest,
} from '../../core/request/index';
import type { HopLensConfig, HopLensSettings } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import { markdownCode, markdownCodeBlock } from '../../core/text/markdown';
import { CommandIds } from '../../commandIds';
import { RequestReportPanel } from './reportPanel';
import { documentLogSource } from '../shared/logSessions';
import type { ReportLogLine } from './reportHtml';
import type { EngineTimingShared, LogsShared } from '../shared/contracts';
import type { Logger } from '../../logging';

const API_KEY_SECRET = 'hoplens.apiKey';

export interface SendOverrides { prompt?: string; maxTokens?: number; interactive?: boolean }

export interface SendDeps {
  context: vscode.ExtensionContext;
  logs: LogsShared;
  engineTiming: Pick<EngineTimingShared, 'running' | 'onDidChange' | 'breakdownHtml'>;
  settings: Pick<HopLensSettings, 'current'>;
  log: Logger;
  /** Runs the requests (default: a warmed-up thread of dist/tracedRequest.js). */
  requests?: Pick<TracedRequestWorker, 'send' | 'dispose'>;
  /** Reads a traced request's lines from the server log (default: waits up to 2 s for them). */
  serverLog?: ServerLogReader;
}

function baseOptions(config: HopLensConfig): TraceOptions {
  const c = config.server;
  return {
    url: c.url, engine: c.engine, api: c.api, model: c.model || undefined, prompt: c.prompt,
    maxTokens: c.maxTokens, temperature: c.temperature, extraBody: c.extraBody,
    timeoutMs: c.requestTimeoutMs, idleTimeoutMs: c.idleTimeoutMs,
  };
}

/** A quick pick to change prompt / max tokens for this request only. */
async function confirmOptions(o: TraceOptions): Promise<TraceOptions | undefined> {
  const opts = { ...o };
  for (;;) {
    const items: (vscode.QuickPickItem & { id: string })[] = [
      { id: 'send', label: '$(debug-start) Send', description: `${forWorkbench(opts.url)} · ${opts.engine} · ${opts.api}` },
      { id: 'prompt', label: '$(edit) Prompt', description: forWorkbench(opts.prompt ?? '') },
      { id: 'max', label: '$(symbol-number) Max tokens', description: String(opts.maxTokens) },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: 'HopLens: Send Traced Request', placeHolder: 'Send, or change the prompt / max tokens for this request only',
    });
    if (!pick) return undefined;
    if (pick.id === 'send') return opts;
    if (pick.id === 'prompt') {
      const v = await vscode.window.showInputBox({ title: 'Prompt for this request', value: opts.prompt });
      if (v !== undefined) opts.prompt = v;
    } else {
      const v = await vscode.window.showInputBox({
        title: 'Max tokens for this request', value: String(opts.maxTokens),
        validateInput: (s) => (/^[1-9]\d*$/.test(s) ? undefined : 'a whole number ≥ 1'),
      });
      if (v !== undefined) opts.maxTokens = Number(v);
    }
  }
}

export class TracedRequestCommands {
  private last: TracedRequest | undefined;
  /** Where the server-log reader found each traced request's first line on disk (1-based). */
  private readonly firstLogLine = new WeakMap<TracedRequest, number>();
  private lastPanel: RequestReportPanel | undefined;
  private readonly serverLog: ServerLogReader;
  constructor(private readonly deps: SendDeps) {
    this.requestThread = deps.requests ?? new TracedRequestWorker(vscode.Uri.joinPath(deps.context.extensionUri, 'dist', 'tracedRequest.js').fsPath);
    this.serverLog = deps.serverLog ?? new ServerLogReader();
  }

  get lastResult(): TracedRequest | undefined { return this.last; }
  get lastReport(): RequestReportPanel | undefined { return this.lastPanel; }

  /** Requests run on their own (warmed-up) thread so the extension host's work cannot delay chunk stamps. */
  private readonly requestThread: Pick<TracedRequestWorker, 'send' | 'dispose'>;

  register(): vscode.Disposable {
    return vscode.Disposable.from(
      { dispose: () => this.requestThread.dispose() },
      vscode.commands.registerCommand(CommandIds.sendTracedRequest, (o?: SendOverrides) => this.send(o)),
      vscode.commands.registerCommand(CommandIds.repeatTracedRequest, (n?: number) => this.repeat(n)),
      vscode.commands.registerCommand(CommandIds.setApiKey, () => this.setApiKey()),
    );
  }

  private async apiKey(): Promise<string | undefined> {
    return (await this.deps.context.secrets.get(API_KEY_SECRET)) || undefined;
  }

  async setApiKey(): Promise<void> {
    const v = await vscode.window.showInputBox({
      title: 'HopLens: API key for the server (stored in VS Code\'s secret storage)', password: true, placeHolder: 'empty to remove the stored key',
    });
    if (v === undefined) return;
    if (v) await this.deps.context.secrets.store(API_KEY_SECRET, v); else await this.deps.context.secrets.delete(API_KEY_SECRET);
    void vscode.window.showInformationMessage(v ? 'HopLens: API key stored.' : 'HopLens: API key removed.');
  }

  async send(overrides: SendOverrides = {}): Promise<TracedRequest | undefined> {
    let opts: TraceOptions | undefined = {
      ...baseOptions(this.deps.settings.current),
      ...(overrides.prompt !== undefined ? { prompt: overrides.prompt } : {}),
      ...(overrides.maxTokens !== undefined ? { maxTokens: overrides.maxTokens } : {}),
    };
    const problems = validateOptions(opts);
    if (problems.length) {
      void vscode.window.showErrorMessage(`HopLens: ${forWorkbench(problems.join('; '))}. Check the hoplens.server.* settings.`);
      return undefined;
    }
    if (overrides.interactive !== false) opts = await confirmOptions(opts);
    if (!opts) return undefined;
    const apiKey = await this.apiKey();
    // Where the server log ends now: this request's lines can only come after it.
    const logPath = this.logPath();
    const sizeBefore = logPath ? await this.serverLog.end(logPath) : undefined;
    const progressOptions = { location: vscode.ProgressLocation.Notification, title: 'HopLens: traced request', cancellable: true };
    const [result] = await vscode.window.withProgress(progressOptions, (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      return this.requestThread.send({ options: { ...opts!, apiKey } }, {
        signal: ac.signal,
        onPhase: (phase) => progress.report({ message: phase }),
        onFrames: (frames) => progress.report({ message: `streaming: ${frames} frames` }),
      });
    });
    this.last = result;
    const { record, metrics } = result;
    this.deps.log.info(`traced ${record.requestId}: HTTP ${record.status ?? '—'}, ${record.frames.length} frames, `
      + `TTFT ${metrics.ttftContentMs?.toFixed(1) ?? 'n/a'} ms${record.error ? `, error: ${record.error.message}` : ''}`);
    const { lines, note } = logPath
      ? await this.serverLog.linesOf(logPath, result.record, sizeBefore)
      : { lines: null, note: 'Set hoplens.serverLog (or open the server log) to see this request\'s server lines here.' };
    if (lines?.length) this.firstLogLine.set(result, lines[0].line);
    const reportLines: ReportLogLine[] | null = lines && lines.map((l) => ({
      line: l.line, text: l.text, sinceRequestStartMs: l.sinceRequestStartMs, resolution: l.resolution ?? 's',
    }));
    const panel = new RequestReportPanel(this.deps.context.extensionUri, result, reportLines, note, {
      sendAgain: () => { void this.send({ prompt: opts!.prompt, maxTokens: opts!.maxTokens, interactive: false }); },
      openLog: (line) => { void this.openLog(result, line); },
      showTimeline: () => { void vscode.commands.executeCommand(CommandIds.showRequestTimeline, record.logRequestId); },
      redactExports: () => !this.deps.settings.current.export.includePromptsAndOutputs,
      usedApiKey: apiKey !== undefined,
    });
    this.lastPanel = panel;
    this.attachEngineTiming(panel, result);
    if (record.error) void vscode.window.showWarningMessage(`HopLens: ${forWorkbench(record.error.message)} ${forWorkbench(record.error.hint)}`);
    return result;
  }

  /**
   * vLLM exports the request's llm_request span when it finishes (batched, every few seconds):
   * show the engine's breakdown in the report as soon as it arrives.
   */
  private attachEngineTiming(panel: RequestReportPanel, r: TracedRequest): void {
    const rid = r.record.logRequestId;
    const client = { ttftContentMs: r.metrics.ttftContentMs, e2eMs: r.metrics.e2eMs };
    const tryShow = () => {
      const html = this.deps.engineTiming.breakdownHtml(rid, client);
      if (html && !panel.hasEngineTiming) panel.setEngineHtml(html);
      return html !== null;
    };
    if (tryShow() || !this.deps.engineTiming.running) return;
    const sub = this.deps.engineTiming.onDidChange(() => { if (tryShow()) sub.dispose(); });
    panel.panel.onDidDispose(() => sub.dispose());
  }

  private logPath(): string | undefined { return serverLogFile(this.deps.settings.current.serverLog); }

  /** Opens the server log at this request's lines and reveals it in the Requests view. */
  async openLog(r: TracedRequest, line?: number): Promise<void> {
    const rid = r.record.logRequestId;
    // An open log whose session has this request (no document text is searched), else the setting.
    const open = vscode.workspace.textDocuments.find((d) => this.deps.logs.logs.find(d.uri)?.session.tracker.brief(rid));
    const path = this.logPath();
    const uri = open?.uri ?? (path ? vscode.Uri.file(path) : undefined);
    if (!uri) { void vscode.window.showInformationMessage('HopLens: no server log is open or set in hoplens.serverLog.'); return; }
    const doc = await vscode.workspace.openTextDocument(uri);
    this.deps.logs.logs.force(doc);
    let ann = await this.deps.logs.logs.settled(doc);
    // The server appends the request's lines to a log VS Code already holds; its document catches
    // up with the file only when VS Code re-reads it, which it does when an editor shows it (a model
    // no editor shows, e.g. after Close All Editors, stays as it was). Show it first, then wait for
    // that (bounded) rather than open the log at another request's line or past its stale end.
    if (line === undefined && !ann?.session.tracker.get(rid)) {
      await vscode.commands.executeCommand(CommandIds.revealLogLine, uri, this.firstLogLine.get(r) ?? 1);
      for (const until = Date.now() + 3000; !ann?.session.tracker.get(rid) && Date.now() < until;) {
        await docChangedOrTimeout(doc, 250);
        ann = await this.deps.logs.logs.settled(doc);
      }
    }
    // The session may not hold the request yet (VS Code re-reads a log the server appended to only
    // when it shows it again): then the line the server-log reader found on disk, not line 1.
    const target = line ?? ann?.session.tracker.get(rid)?.firstLine ?? this.firstLogLine.get(r) ?? 1;
    await vscode.commands.executeCommand(CommandIds.revealLogLine, uri, target);
    if (ann) {
      this.deps.logs.requests.setSource(documentLogSource(uri, ann.session));
      await this.deps.logs.requests.reveal(r.record.logRequestId).catch(() => false);
    }
  }

  async repeat(nArg?: number): Promise<string | undefined> {
    const n = nArg ?? Number(await vscode.window.showInputBox({
      title: 'HopLens: how many requests, in sequence?', value: '10', validateInput: (s) => (/^[1-9]\d{0,3}$/.test(s) ? undefined : '1 to 9999'),
    }));
    if (!n) return undefined;
    const opts = baseOptions(this.deps.settings.current);
    const problems = validateOptions(opts);
    if (problems.length) { void vscode.window.showErrorMessage(`HopLens: ${forWorkbench(problems.join('; '))}`); return undefined; }
    const apiKey = await this.apiKey();
    const progressOptions = { location: vscode.ProgressLocation.Notification, title: `HopLens: ${n} traced requests`, cancellable: true };
    const results = await vscode.window.withProgress(progressOptions, (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      return this.requestThread.send({ options: { ...opts, apiKey }, runs: n }, {
        signal: ac.signal,
        onRun: (i) => progress.report({ increment: 100 / n, message: `${i} of ${n}` }),
      });
    });
    const report = runsReport(aggregateRuns(results));
    const content = `# ${n} traced requests to ${markdownCode(opts.url)}\n\n${markdownCodeBlock(report)}`;
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content });
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
    return report;
  }
}

/** Resolves when VS Code changes this document's text, or after ms. */
function docChangedOrTimeout(doc: vscode.TextDocument, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); sub.dispose(); resolve(); };
    const timer = setTimeout(done, ms);
    const sub = vscode.workspace.onDidChangeTextDocument((e) => { if (e.document === doc) done(); });
  });
}
