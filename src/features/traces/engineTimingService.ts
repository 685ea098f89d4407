// OpenTelemetry in the editor: the OTLP/HTTP receiver (127.0.0.1:4318 by default) with its
// status bar item, OTLP JSON files from a Collector's file exporter, and the engine timing
// of a request, joined by request id to the Requests view and to traced requests.
import * as vscode from 'vscode';
import { SpanStore } from '../../core/otlp/engineTiming';
import { startOtlpReceiver, isLoopbackHost, launchHints, type OtlpReceiver } from '../../core/otlp/receiver';
import type { EngineTiming } from '../../core/otlp/types';
import type { HopLensSettings } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import { forTerminal } from '../../core/text/terminal';
import { CommandIds } from '../../commandIds';
import { Disposable } from '../../util/dispose';
import { renderWebview, webviewOptions } from '../shared/webviewHtml';
import { breakdownTableHtml, engineTimingBodyHtml, type ClientTimes } from './engineTimingHtml';
import type { Logger } from '../../logging';

export class EngineTimingService extends Disposable {
  // 50k spans ≈ 30 MB of heap in the extension host; oldest first out, counted.
  readonly store = new SpanStore({ maxSpans: 50_000 });
  private receiver: OtlpReceiver | undefined;
  private readonly status = this._register(vscode.window.createStatusBarItem('hoplens.traceReceiver', vscode.StatusBarAlignment.Right, 9));
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires after spans arrived (from the receiver or a file). */
  readonly onDidChange = this.changed.event;

  constructor(private readonly extensionUri: vscode.Uri, private readonly log: Logger, private readonly settings: Pick<HopLensSettings, 'current'>) {
    super();
    this.status.name = 'HopLens trace receiver';
    this.status.command = CommandIds.stopTraceReceiver;
    const unsubscribe = this.store.onDidChange(() => { this.updateStatus(); this.changed.fire(); });
    this._register({ dispose: () => { unsubscribe(); void this.receiver?.close(); } });
  }

  get running(): boolean { return this.receiver !== undefined; }
  get endpoint(): string | undefined { return this.receiver?.url; }

  private updateStatus(): void {
    if (!this.receiver) { this.status.hide(); return; }
    const st = this.receiver.stats();
    const count = `OTLP :${this.receiver.port} · ${st.spans} span${st.spans === 1 ? '' : 's'}`;
    const counts = `${st.requests} export request(s): ${st.rejected} refused as unreadable` +
      `${st.rejectedSpans ? `, ${st.rejectedSpans} bad span(s) refused` : ''}${st.refused ? `, ${st.refused} answered 503` : ''}.`;
    if (st.sinkFailure) {
      this.status.text = `$(warning) ${count} · refusing`;
      this.status.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
      this.status.tooltip = `HopLens cannot keep the spans it receives: ${forWorkbench(st.sinkFailure)}.\n` +
        `Exporters are answered 503 with Retry-After: ${this.receiver.retryAfterSeconds} s, so they keep their spans and send them again.\n` +
        `${counts}\n\nClick to stop.`;
    } else {
      this.status.text = `$(radio-tower) ${count}`;
      this.status.backgroundColor = undefined;
      const launch = launchHints(this.receiver.url).map((h) => `Launch ${forWorkbench(h.label)} with:\n${forWorkbench(h.line)}\n\n`).join('');
      this.status.tooltip = `HopLens is receiving OpenTelemetry traces at ${forWorkbench(this.receiver.url)}\n${counts}\n${launch}Click to stop.`;
    }
    this.status.show();
  }

  /** What the status bar item says now (tests). */
  get statusText(): string | undefined {
    return this.receiver ? this.status.text : undefined;
  }

  async start(): Promise<OtlpReceiver | undefined> {
    if (this.receiver) return this.receiver;
    const { receiverHost: host, receiverPort: port } = this.settings.current.traces;
    if (!isLoopbackHost(host)) {
      const warning = `HopLens: the trace receiver would listen on ${forWorkbench(host)}, not only on this machine: ` +
        'anyone who can reach it can send spans. Start it anyway?';
      const go = await vscode.window.showWarningMessage(warning, { modal: true }, 'Start');
      if (go !== 'Start') return undefined;
    }
    try {
      this.receiver = await startOtlpReceiver({
        host, port,
        onSpans: (spans) => this.store.add(spans),
        onError: (msg) => this.log.warn(`trace receiver: ${forTerminal(msg)}`),
        onSinkState: (failure) => {
          if (failure) this.log.error(`trace receiver: ${forTerminal(failure)}; answering 503 with Retry-After until spans can be kept again`);
          else this.log.info('trace receiver: keeping spans again');
        },
        onExport: () => this.updateStatus(),
      });
    } catch (e) {
      void vscode.window.showErrorMessage(`HopLens: could not start the trace receiver: ${forWorkbench((e as Error).message)}`);
      return undefined;
    }
    await vscode.commands.executeCommand('setContext', 'hoplens.traceReceiverRunning', true);
    this.updateStatus();
    const hints = launchHints(this.receiver.url);
    this.log.info(`trace receiver listening at ${this.receiver.url}${hints.map((h) => `; launch ${h.label} with: ${h.line}`).join('')}`);
    const url = forWorkbench(this.receiver.url);
    // The words show the endpoint as the workbench shows text; the copied line is the endpoint itself.
    const message = `HopLens: receiving traces at ${url}.${launchHints(url).map((h) => ` Launch ${forWorkbench(h.label)} with ${h.with}.`).join('')}`;
    if (hints.length === 0) { void vscode.window.showInformationMessage(message); return this.receiver; }
    void vscode.window.showInformationMessage(message, 'Copy Launch Line')
      .then((c) => { if (c) void vscode.env.clipboard.writeText(hints.map((h) => h.line).join('\n')); });
    return this.receiver;
  }

  async stop(): Promise<void> {
    const r = this.receiver;
    this.receiver = undefined;
    await r?.close();
    await vscode.commands.executeCommand('setContext', 'hoplens.traceReceiverRunning', false);
    this.updateStatus();
  }

  /** The engine's breakdown as an HTML fragment, for the traced-request report. */
  breakdownHtml(rid: string, client: ClientTimes | null): string | null {
    const t = this.store.timing(rid);
    return t ? breakdownTableHtml(t, client) : null;
  }

  timing(rid: string): EngineTiming | null { return this.store.timing(rid) ?? null; }

  /** One line for the Requests view: the engine's e2e and its parts. */
  timingLine(rid: string): { label: string; description: string; tooltip: string } | null {
    const t = this.store.timing(rid);
    if (!t) return null;
    const f = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`);
    return {
      label: `engine: e2e ${f(t.e2eMs)}`,
      description: `queue ${f(t.queueMs)} · prefill ${f(t.prefillMs)} · decode ${f(t.decodeMs)} · TTFT ${f(t.ttftMs)}`,
      tooltip: `From vLLM's llm_request span (OpenTelemetry). ${t.promptTokens ?? '—'} prompt / ${t.completionTokens ?? '—'} completion tokens. ` +
        "Click for the breakdown beside the client's times.",
    };
  }

  /** A panel with the request's engine breakdown, step snapshots and batch summaries. */
  showPanel(rid: string, client: ClientTimes | null, lookup?: string): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel('hoplens.engineTiming', `Engine ${rid}`, vscode.ViewColumn.Beside, webviewOptions(this.extensionUri));
    const render = () => {
      const timing = this.store.timing(rid) ?? null;
      const snaps = this.store.snapshots(rid);
      const from = timing ? timing.span.startMs : snaps[0]?.timeMs;
      const to = timing ? timing.span.endMs : snaps[snaps.length - 1]?.timeMs;
      const batches = from !== undefined && to !== undefined ? this.store.batches().filter((b) => b.timeMs >= from - 1000 && b.timeMs <= to + 1000) : [];
      const note = (this.receiver ? `Receiving at ${this.receiver.url}` : 'Receiver stopped') + (lookup ? ` · ${lookup}` : '');
      panel.webview.html = renderWebview(panel.webview, this.extensionUri, {
        title: `Engine timing ${rid}`, bodyHtml: engineTimingBodyHtml(rid, timing, client, snaps, batches, note), styles: ['report.css'],
      });
    };
    render();
    const sub = this.onDidChange(render);
    panel.onDidDispose(() => sub.dispose());
    return panel;
  }
}
