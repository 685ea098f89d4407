// The editor's request timelines: builds one with the core (core/timeline/load.ts) from the
// logs chosen (an open log from its session, with its unsaved edits; any other from disk), the
// spans the editor holds (trace receiver, OTLP files), the open call-trace
// folders and the client's measurement when the request was traced here, then shows it in a
// panel. Sources are injected: this file reads no setting or view of its own.
import * as vscode from 'vscode';
import { loadTimeline, TimelineInputError } from '../../core/timeline/load';
import { LogInputError } from '../../core/timeline/requestLogs';
import type { ClientRequest } from '../../core/timeline/clientRequest';
import { SpanStore } from '../../core/otlp/engineTiming';
import type { OtlpSpan } from '../../core/otlp/types';
import type { LogSource } from '../../core/logs/logSource';
import { forWorkbench } from '../../core/text/workbench';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';
import type { LogDocuments } from '../shared/logSessions';
import { RequestTimelinePanel, type TimelineOpeners } from './timelinePanel';

export interface TimelineRequest {
  /** Any id of the request. */
  query: string;
  /** Log files by path (an open one is read from its session). */
  logs: readonly string[];
  /** Logs that are not files: a fleet result's pod documents, each labelled by its pod. */
  sources?: readonly LogSource[];
  /** Spans found for the request beside the editor's own (a fleet result's, from Jaeger or Tempo). */
  spans?: readonly OtlpSpan[];
  client?: ClientRequest | null;
}

export interface TimelineServiceDeps {
  extensionUri: vscode.Uri;
  log: Logger;
  /** The open logs' sessions (brought up to date before a timeline reads them). */
  logs: Pick<LogDocuments, 'settled'>;
  /** Spans the editor holds now (null: none). */
  spans(): SpanStore | null;
  /** Call-trace folders open in the Call Traces view. */
  traceDirs(): readonly string[];
  /** Keep prompts and outputs in the log texts shown and exported. */
  includeText(): boolean;
  open: TimelineOpeners;
}

export class TimelineService extends Disposable {
  private last: RequestTimelinePanel | undefined;

  constructor(private readonly deps: TimelineServiceDeps) {
    super();
    this._register({ dispose: () => this.last?.dispose() });
  }

  /** The panel shown last, while it is open. */
  get current(): RequestTimelinePanel | undefined { return this.last; }

  /** Builds the request's timeline and shows it; undefined when no source has the request (said to the user). */
  async show(req: TimelineRequest): Promise<RequestTimelinePanel | undefined> {
    const { deps } = this;
    const traceDirs = [...deps.traceDirs()];
    const openLog = async (path: string) => {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === path);
      return doc ? (await deps.logs.settled(doc))?.session : undefined;
    };
    const logs = [...req.logs, ...(req.sources ?? [])];
    const spans = (): SpanStore | null => {
      const held = deps.spans();
      if (!req.spans?.length) return held;
      // A copy: the fleet's spans join this timeline, not the editor's receiver.
      const both = new SpanStore();
      if (held) both.add(held.spans());
      both.add([...req.spans]);
      return both;
    };
    const load = (userOffsets: ReadonlyMap<string, number>) => loadTimeline({
      query: req.query, logs, client: req.client ?? null, spans: spans(), traceDirs, userOffsets, includeText: deps.includeText(), openLog,
    }).then((r) => r.timeline);
    let first;
    try {
      const title = `HopLens: timeline of ${forWorkbench(req.query)}`;
      first = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title }, () => load(new Map()));
    } catch (e) {
      if (!(e instanceof LogInputError || e instanceof TimelineInputError)) deps.log.error(`timeline of ${req.query}: ${(e as Error).stack ?? e}`);
      void vscode.window.showErrorMessage(`HopLens: ${forWorkbench((e as Error).message)}`);
      return undefined;
    }
    if (first.lanes.every((l) => l.items.length === 0)) {
      const n = logs.length;
      void vscode.window.showInformationMessage(`HopLens: no line of request ${forWorkbench(req.query)} in ${n} log(s). `
        + "Open the server's logs (or pick them) and try again.");
      return undefined;
    }
    const traceFolders = traceDirs.length ? ` and ${traceDirs.length} trace folder(s)` : '';
    deps.log.info(`timeline of ${first.key}: ${first.lanes.length} lane(s) from ${logs.length} log(s)${traceFolders}`);
    const panel = new RequestTimelinePanel(deps.extensionUri, first, load, deps.open);
    this.last = panel;
    panel.panel.onDidDispose(() => { if (this.last === panel) this.last = undefined; });
    return panel;
  }
}
