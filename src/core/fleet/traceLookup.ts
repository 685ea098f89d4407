// One request's spans from the tracing backend `hoplens.traces.queryUrl` names (Show Engine
// Timing's lookup), by its request id, through the fleet's clients, the one Jaeger and the one
// Tempo client in the code. Jaeger: every service /api/services lists is searched (or only
// hoplens.traces.queryService), a service that fails is named beside the others' results, each
// trace comes from v3 falling back to v1. Tempo: a TraceQL search (the service, when set, in the
// query), then each trace by id. Which one an address is: auto-detected.
import {
  DEFAULT_TIMEOUT_MS, detectBackend, trimBase, TraceQueryError, type TraceQueryOptions, type TraceQueryResult,
} from '../otlp/query';
import { FleetError } from './http';
import { JaegerClient } from './jaeger';
import { TempoClient } from './tempo';

/** How far back the lookup searches unless told (a request looked up is usually recent, but not always today's). */
const DEFAULT_LOOKBACK_MS = 7 * 24 * 3600 * 1000;

export async function queryRequestSpans(opts: TraceQueryOptions): Promise<TraceQueryResult> {
  const base = trimBase(opts.baseUrl);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (opts.requestId.trim() === '') throw new TraceQueryError('no request id to look up');
  const backend = !opts.backend || opts.backend === 'auto' ? await detectBackend(base, timeoutMs) : opts.backend;
  const service = opts.service?.trim();
  const clientOpts = { timeoutMs, services: service ? [service] : undefined };
  const client = backend === 'tempo'
    ? new TempoClient({ kind: 'tempo', baseUrl: base }, clientOpts)
    : new JaegerClient({ kind: 'jaeger', baseUrl: base }, clientOpts);
  const endMs = Date.now();
  try {
    const a = await client.findByRequestId([opts.requestId.trim()], { startMs: endMs - (opts.lookbackMs ?? DEFAULT_LOOKBACK_MS), endMs });
    return { backend, traceIds: a.traceIds, spans: a.spans, query: a.query, notes: a.notes ?? [] };
  } catch (e) {
    if (e instanceof FleetError) throw new TraceQueryError(e.message);
    throw e;
  }
}

export { detectBackend, TraceQueryError };
export type { TraceQueryOptions, TraceQueryResult };
