// One request's spans from the tracing backend `hoplens.traces.queryUrl` names (Show Engine
// Timing's lookup), by its request id. Jaeger goes through the fleet's Jaeger client, the one in
// the code: every service /api/services lists is searched (or only hoplens.traces.queryService),
// a service that fails is named beside the others' results, each trace comes from v3 falling back
// to v1. Tempo keeps its search by tag (core/otlp/query.ts). Which one an address is: auto-detected.
import {
  DEFAULT_TIMEOUT_MS, detectBackend, queryTempo, trimBase, TraceQueryError, type TraceQueryOptions, type TraceQueryResult,
} from '../otlp/query';
import { FleetError } from './http';
import { JaegerClient } from './jaeger';

/** How far back the lookup searches unless told (a request looked up is usually recent, but not always today's). */
const DEFAULT_LOOKBACK_MS = 7 * 24 * 3600 * 1000;

export async function queryRequestSpans(opts: TraceQueryOptions): Promise<TraceQueryResult> {
  const base = trimBase(opts.baseUrl);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (opts.requestId.trim() === '') throw new TraceQueryError('no request id to look up');
  const backend = !opts.backend || opts.backend === 'auto' ? await detectBackend(base, timeoutMs) : opts.backend;
  if (backend === 'tempo') return queryTempo(base, opts, timeoutMs);
  const service = opts.service?.trim();
  const client = new JaegerClient({ kind: 'jaeger', baseUrl: base }, { timeoutMs, services: service ? [service] : undefined });
  const endMs = Date.now();
  try {
    const a = await client.findByRequestId([opts.requestId.trim()], { startMs: endMs - (opts.lookbackMs ?? DEFAULT_LOOKBACK_MS), endMs });
    return { backend: 'jaeger', traceIds: a.traceIds, spans: a.spans, query: a.query, notes: a.notes ?? [] };
  } catch (e) {
    if (e instanceof FleetError) throw new TraceQueryError(e.message);
    throw e;
  }
}

export { detectBackend, TraceQueryError };
export type { TraceQueryOptions, TraceQueryResult };
