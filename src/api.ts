// What HopLens offers other extensions (and its own integration tests): read-only views of its
// log sessions, the checkouts lines resolve into, what the Requests view lists, the rows of the
// Call Traces view, the last traced request, and the engine timings received. Built by
// activate() from the services; nothing here holds state, and no service is handed out whole.
import type * as vscode from 'vscode';
import type { Engine } from './engines/types';
import { isEngine } from './engines/registry';
import type { LogSessionView } from './core/session/logSession';
import type { LogFeature } from './features/logs/logFeature';
import type { CallTraceNode, CallTracesViewProvider } from './features/callTraces/callTracesView';
import type { CallRow } from './core/calltrace/types';
import type { TracedRequestCommands } from './features/send/sendTracedRequestCommand';
import type { TracedRequest } from './core/request/index';
import type { EngineTimingService } from './features/traces/engineTimingService';
import type { ClientTimes } from './features/traces/engineTimingHtml';
import type { EngineTimingLine } from './features/logs/requestsView';
import type { BatchSummary, EngineTiming, OtlpSpan, RequestSnapshot } from './core/otlp/types';
import type { SpanStoreStats } from './core/otlp/engineTiming';

export interface CheckoutView {
  readonly root: string;
  /** The commit checked out, when it is a git checkout. */
  readonly head: string | null;
  /** Resolves when its statement index is ready (lines then resolve verified). */
  readonly indexReady: Promise<unknown>;
}

export interface RequestsListed {
  /** The log the Requests view shows (a document, or a large log streamed from disk). */
  readonly uri: vscode.Uri;
  readonly label: string;
  /** The request ids listed, oldest first (the newest 1,000 of `total` that pass the filter). */
  readonly rids: readonly string[];
  readonly total: number;
  readonly filter: string;
}

export interface HopLensLogsApi {
  /** An open server log's session once every line of its current text is read; undefined for other documents. */
  session(doc: vscode.TextDocument): Promise<LogSessionView | undefined>;
  /** The checkout an engine's lines resolve into, once opened (null: none configured or found in the workspace). */
  checkout(engine: Engine): Promise<CheckoutView | null>;
  /** The source one log's lines resolve into: the release it states when that release's source is in use, else its engine's checkout. */
  checkoutFor(doc: vscode.TextDocument): Promise<CheckoutView | null>;
  /** What the Requests view lists now. */
  requests(): RequestsListed | undefined;
}

export function logsApi(feature: LogFeature): HopLensLogsApi {
  return {
    session: async (doc) => (await feature.logs.settled(doc))?.session,
    checkout: async (engine) => {
      const r = await feature.sources.resolver(engine);
      return r && { root: r.checkout.root, head: r.checkout.head, indexReady: r.indexReady };
    },
    checkoutFor: async (doc) => {
      const engine = (await feature.logs.settled(doc))?.session.engine;
      if (!isEngine(engine)) return null;
      await feature.sources.prepareFor(doc.uri);
      const r = await feature.sources.resolverFor(doc.uri, engine);
      return r && { root: r.checkout.root, head: r.checkout.head, indexReady: r.indexReady };
    },
    requests: () => feature.requests.listed(),
  };
}

/**
 * A row of the Call Traces view, as much of it as a reader needs: the node itself (hand it back to
 * the view's commands: Open Call Site, Export as Perfetto, Load More), read-only and without the
 * folder's index, watcher or worker pool.
 */
export type CallTraceRow =
  | { readonly kind: 'folder'; readonly folder: { readonly path: string } }
  | { readonly kind: 'process'; readonly group: { readonly pid: number; readonly role: string } }
  | { readonly kind: 'thread'; readonly thread: { readonly key: string } }
  | { readonly kind: 'call'; readonly row: Readonly<CallRow> }
  | { readonly kind: 'more'; readonly offset: number; readonly total: number }
  | { readonly kind: 'info'; readonly text: string; readonly tooltip?: string };

export interface HopLensCallTracesApi {
  /** The rows under a row as the view lists them (none given: the trace folders); a folder is indexed when first listed. */
  rows(parent?: CallTraceRow): Promise<readonly CallTraceRow[]>;
  /** What a row shows: label, description, tooltip, the command a click runs. */
  item(row: CallTraceRow): vscode.TreeItem;
  /** The functions shown (with their callers) now; empty: every call. Set with `hoplens.callTraces.filter`. */
  readonly filter: readonly string[];
}

export function callTracesApi(view: CallTracesViewProvider): HopLensCallTracesApi {
  return {
    rows: (parent) => view.getChildren(parent as CallTraceNode | undefined),
    item: (row) => view.getTreeItem(row as CallTraceNode),
    get filter() { return view.currentFilter; },
  };
}

export interface HopLensTracedRequestsApi {
  /** The last request Send Traced Request timed, its report page now, and whether it shows the engine's own breakdown yet. */
  last(): { readonly request: TracedRequest; readonly reportHtml: string; readonly reportShowsEngineTiming: boolean } | undefined;
  /** Opens the server log at a traced request's lines (or `line`) and shows it in the Requests view. */
  openLog(request: TracedRequest, line?: number): Promise<void>;
}

export function tracedRequestsApi(commands: TracedRequestCommands): HopLensTracedRequestsApi {
  return {
    last: () => {
      const request = commands.lastResult;
      const report = commands.lastReport;
      return request && { request, reportHtml: report?.panel.webview.html ?? '', reportShowsEngineTiming: report?.hasEngineTiming ?? false };
    },
    openLog: (request, line) => commands.openLog(request, line),
  };
}

export interface HopLensEngineTimingApi {
  /** Whether the trace receiver listens, and where. */
  readonly running: boolean;
  readonly endpoint: string | undefined;
  /** What its status bar item says (undefined while stopped). */
  readonly statusText: string | undefined;
  /** A request's timing from its llm_request span (null: none arrived). */
  timing(rid: string): EngineTiming | null;
  /** The row the Requests view puts first under a request. */
  timingLine(rid: string): EngineTimingLine | null;
  /** The breakdown a traced request's report shows beside the client's times. */
  breakdownHtml(rid: string, client: ClientTimes | null): string | null;
  /** What was received: the spans kept, counts, a request's step snapshots, the scheduler's batches. */
  spans(): readonly OtlpSpan[];
  stats(): Readonly<SpanStoreStats>;
  snapshots(rid: string): readonly RequestSnapshot[];
  batches(): readonly BatchSummary[];
}

export function engineTimingApi(service: EngineTimingService): HopLensEngineTimingApi {
  return {
    get running() { return service.running; },
    get endpoint() { return service.endpoint; },
    get statusText() { return service.statusText; },
    timing: (rid) => service.timing(rid),
    timingLine: (rid) => service.timingLine(rid),
    breakdownHtml: (rid, client) => service.breakdownHtml(rid, client),
    spans: () => service.store.spans(),
    stats: () => service.store.stats(),
    snapshots: (rid) => service.store.snapshots(rid),
    batches: () => service.store.batches(),
  };
}
