// One webview panel per request timeline: renders what the core built (timelineHtml.ts) and
// answers the page's messages: open an item (a log line in its log, a call at its definition),
// set or clear a clock's offset (the core builds the timeline again with it), copy Markdown,
// export a Perfetto trace. The panel keeps no timeline logic: loading is injected.
import * as vscode from 'vscode';
import { writeFile } from 'node:fs/promises';
import type { RequestTimeline, TimelineItem } from '../../core/timeline/model';
import { timelineMarkdown, timelinePerfetto } from '../../core/timeline/export';
import { forWorkbench } from '../../core/text/workbench';
import { Disposable } from '../../util/dispose';
import { renderWebview, webviewOptions } from '../shared/webviewHtml';
import { laneReply, timelineBodyHtml, timelinePageModel, timelineViewModel, type TimelineLaneReply, type TimelineViewModel } from './timelineHtml';

/** Builds the request's timeline with these user offsets (ms ahead of the reference, by log path, 'client' or 'otlp'). */
export type TimelineLoad = (userOffsets: ReadonlyMap<string, number>) => Promise<RequestTimeline>;

/** Where a timeline item opens; each goes through the command or service that already does it. */
export interface TimelineOpeners {
  /** A log file at a 1-based line. */
  logLine(path: string, line: number): Promise<void>;
  /** The engine source that printed a log line (0-based line of the log). */
  logSource(path: string, line0: number): Promise<void>;
  /** A traced call's file at a 1-based line (its definition or its call site). */
  code(file: string, line: number): Promise<void>;
}

type PageMessage =
  | { type: 'open' | 'openSource' | 'openCallSite'; item: string }
  | { type: 'setOffset'; clock: string; ms: number }
  | { type: 'resetOffset'; clock: string }
  | { type: 'laneItems'; lane: string; page: number }
  | { type: 'copyMarkdown' | 'exportPerfetto' | 'reload' };

export class RequestTimelinePanel extends Disposable {
  static readonly viewType = 'hoplens.requestTimeline';
  readonly panel: vscode.WebviewPanel;
  private current: RequestTimeline;
  private model: TimelineViewModel;
  /** Offsets the user set, by log path (or 'client' / 'otlp'). */
  private readonly offsets = new Map<string, number>();
  private renders = 0;

  constructor(private readonly extensionUri: vscode.Uri, first: RequestTimeline, private readonly load: TimelineLoad,
    private readonly open: TimelineOpeners) {
    super();
    this.current = first;
    this.model = timelineViewModel(first);
    this.panel = vscode.window.createWebviewPanel(
      RequestTimelinePanel.viewType, `Timeline ${first.key}`, vscode.ViewColumn.Beside, webviewOptions(extensionUri));
    this.panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'hoplens.svg');
    this._register(this.panel.onDidDispose(() => this.dispose()));
    this._register(this.panel.webview.onDidReceiveMessage((m: PageMessage) => { void this.onMessage(m); }));
    this.render();
  }

  /** What the panel shows now: lanes, items, clocks (read-only; tests and other extensions read it). */
  get view(): TimelineViewModel { return this.model; }
  get timeline(): RequestTimeline { return this.current; }
  /** Offsets the user set, by log path or 'client' / 'otlp'. */
  get userOffsets(): ReadonlyMap<string, number> { return this.offsets; }
  /** Times the page was rendered (a new timeline each time). */
  get renderCount(): number { return this.renders; }

  private render(): void {
    this.renders++;
    this.panel.title = `Timeline ${this.current.key}`;
    this.panel.webview.html = renderWebview(this.panel.webview, this.extensionUri, {
      title: `Request timeline ${this.current.key}`,
      // The calls lanes' items stay here until the page asks for them (laneItems).
      bodyHtml: timelineBodyHtml(this.current, this.model, { lazyCalls: true }),
      data: timelinePageModel(this.model, this.renders),
      scripts: ['timeline.js'],
      styles: ['report.css', 'timeline.css'],
    });
  }

  private offsetKey(clock: string): string | undefined {
    const c = this.current.clocks.find((x) => x.id === clock);
    if (!c || clock === this.current.reference) return undefined;
    return c.path ?? c.id;
  }

  /** Sets (a number) or clears (null) a clock's offset and builds the timeline again. */
  async setOffset(clock: string, ms: number | null): Promise<boolean> {
    const key = this.offsetKey(clock);
    if (key === undefined || (ms !== null && !Number.isFinite(ms))) return false;
    if (ms === null) this.offsets.delete(key); else this.offsets.set(key, ms);
    await this.reload();
    return true;
  }

  /** Reads the sources again (a log grew, an offset changed). */
  async reload(): Promise<void> {
    try {
      const t = await this.load(this.offsets);
      if (this.isDisposed) return;
      this.current = t;
      this.model = timelineViewModel(t);
      this.render();
    } catch (e) {
      void vscode.window.showErrorMessage(`HopLens: ${forWorkbench((e as Error).message)}`);
    }
  }

  /** The item a page id names (`<lane index>:<item index>` of the timeline shown). */
  item(id: string): TimelineItem | undefined {
    const m = /^(\d+):(\d+)$/.exec(id);
    return m ? this.current.lanes[Number(m[1])]?.items[Number(m[2])] : undefined;
  }

  /** Opens an item: a log line in its log (or its source), a call at its definition (or its call site). */
  async openItem(id: string, what: 'default' | 'source' | 'callSite' = 'default'): Promise<boolean> {
    const r = this.item(id)?.ref;
    if (!r) return false;
    if (r.type === 'log' && r.line > 0) {
      if (what === 'source') await this.open.logSource(r.path, r.line - 1);
      else await this.open.logLine(r.path, r.line);
      return true;
    }
    if (r.type === 'call') {
      if (what === 'callSite') { if (!r.callSite) return false; await this.open.code(r.callSite.file, r.callSite.line); }
      else await this.open.code(r.file, r.line);
      return true;
    }
    return false;
  }

  /** A lane's items for the page now shown (undefined: another page, or no such lane). */
  laneItems(lane: string, page: number): TimelineLaneReply | undefined {
    return page === this.renders ? laneReply(this.model, lane, page) : undefined;
  }

  private async onMessage(m: PageMessage): Promise<void> {
    switch (m.type) {
      case 'laneItems': {
        const reply = typeof m.lane === 'string' ? this.laneItems(m.lane, Number(m.page)) : undefined;
        if (reply) await this.panel.webview.postMessage(reply);
        break;
      }
      case 'open': await this.openItem(m.item); break;
      case 'openSource': await this.openItem(m.item, 'source'); break;
      case 'openCallSite': await this.openItem(m.item, 'callSite'); break;
      case 'setOffset': await this.setOffset(m.clock, Number(m.ms)); break;
      case 'resetOffset': await this.setOffset(m.clock, null); break;
      case 'reload': await this.reload(); break;
      case 'copyMarkdown':
        await vscode.env.clipboard.writeText(timelineMarkdown(this.current));
        void vscode.window.showInformationMessage(`HopLens: timeline of ${forWorkbench(this.current.key)} copied as Markdown.`);
        break;
      case 'exportPerfetto': {
        const target = await vscode.window.showSaveDialog({ title: 'Export the request as a Perfetto / Chrome trace', filters: { JSON: ['json'] } });
        if (!target) return;
        await writeFile(target.fsPath, JSON.stringify(timelinePerfetto(this.current)));
        void vscode.window.showInformationMessage(`HopLens: wrote ${forWorkbench(target.fsPath)}. Open it in ui.perfetto.dev or chrome://tracing.`);
        break;
      }
    }
  }

  override dispose(): void {
    if (this.isDisposed) return;
    super.dispose();
    this.panel.dispose();
  }
}
