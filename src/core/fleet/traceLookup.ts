// One request's spans from the tracing backend `hoplens.traces.queryUrl` names (Show Engine
// Timing's lookup), by its request id, through the fleet's clients, the one Jaeger and the one
// Tempo client in the code. Jaeger: every service /api/services lists is searched (or only
// hoplens.traces.queryService), a service that fails is named beside the others' results, each
// trace comes from v3 falling back to v1. Tempo: a TraceQL search (the service, when set, in the
// query), then each trace by id. Which one an address is: auto-detected, asking with the same
// credentials and tenant as the search (a Tempo or a proxy that wants them on /api/echo too).
import {
  DEFAULT_TIMEOUT_MS, trimBase, TraceQueryError, type TraceBackend, type TraceQueryOptions, type TraceQueryResult,
} from '../otlp/query';
import { FleetError, statusError, StoreHttp, type FleetCredentials, type HttpResponse, type HttpTransport } from './http';
import { JaegerClient } from './jaeger';
import { TempoClient } from './tempo';

/** How far back the lookup searches unless told (a request looked up is usually recent, but not always today's). */
const DEFAULT_LOOKBACK_MS = 7 * 24 * 3600 * 1000;

/** How an address is asked: the time bound, the credentials and tenant (Tempo's X-Scope-OrgID), the transport. */
export interface BackendCallOptions {
  timeoutMs?: number;
  credentials?: FleetCredentials;
  transport?: HttpTransport;
}

export interface TraceLookupOptions extends TraceQueryOptions, Omit<BackendCallOptions, 'timeoutMs'> {}

/**
 * Tempo answers /api/echo with "echo"; Jaeger answers /api/services with {data:[…]}. An address
 * that refuses both (HTTP 401/403) is an 'auth' error naming it, not "read as Jaeger".
 */
export async function detectBackend(baseUrl: string, opts: BackendCallOptions = {}): Promise<TraceBackend> {
  const base = trimBase(baseUrl);
  const http = new StoreHttp({ timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, credentials: opts.credentials, transport: opts.transport });
  const ask = (path: string): Promise<HttpResponse | FleetError> =>
    http.request(`${base}${path}`).catch((e: unknown) => (e instanceof FleetError ? e : new FleetError('unreachable', (e as Error).message)));
  const echo = await ask('/api/echo');
  if (!(echo instanceof Error) && echo.status === 200 && echo.text.trim() === 'echo') return 'tempo';
  const services = await ask('/api/services');
  if (!(services instanceof Error) && services.status === 200) {
    try {
      const j = JSON.parse(services.text) as { data?: unknown };
      if (Array.isArray(j.data)) return 'jaeger';
    } catch { /* fall through */ }
  }
  const refused = ([['/api/echo', echo], ['/api/services', services]] as const)
    .find(([, r]) => !(r instanceof Error) && (r.status === 401 || r.status === 403));
  if (refused) {
    const [path, r] = refused as [string, HttpResponse];
    throw new TraceQueryError(statusError(r.status, r.contentType, r.text, `${base}${path}`).message, 'auth');
  }
  const reason = echo instanceof Error ? echo.message
    : services instanceof Error ? services.message
      : 'neither /api/echo (Tempo) nor /api/services (Jaeger) answered as expected';
  throw new TraceQueryError(`${base} does not look like Jaeger or Tempo: ${reason}`, echo instanceof Error ? echo.kind : undefined);
}

/** Jaeger takes no tenant: X-Scope-OrgID goes to Tempo only. */
function forBackend(backend: TraceBackend, c: FleetCredentials | undefined): FleetCredentials | undefined {
  if (!c || backend === 'tempo' || c.orgId === undefined) return c;
  const { orgId: _tenant, ...rest } = c;
  return Object.keys(rest).length ? rest : undefined;
}

export async function queryRequestSpans(opts: TraceLookupOptions): Promise<TraceQueryResult> {
  const base = trimBase(opts.baseUrl);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (opts.requestId.trim() === '') throw new TraceQueryError('no request id to look up');
  const call = { timeoutMs, credentials: opts.credentials, transport: opts.transport };
  const backend = !opts.backend || opts.backend === 'auto' ? await detectBackend(base, call) : opts.backend;
  const service = opts.service?.trim();
  const clientOpts = { ...call, credentials: forBackend(backend, opts.credentials), services: service ? [service] : undefined };
  const client = backend === 'tempo'
    ? new TempoClient({ kind: 'tempo', baseUrl: base }, clientOpts)
    : new JaegerClient({ kind: 'jaeger', baseUrl: base }, clientOpts);
  const endMs = Date.now();
  try {
    const a = await client.findByRequestId([opts.requestId.trim()], { startMs: endMs - (opts.lookbackMs ?? DEFAULT_LOOKBACK_MS), endMs });
    return { backend, traceIds: a.traceIds, spans: a.spans, query: a.query, notes: a.notes ?? [] };
  } catch (e) {
    if (e instanceof FleetError) throw new TraceQueryError(e.message, e.kind);
    throw e;
  }
}

export { TraceQueryError };
export type { TraceQueryOptions, TraceQueryResult };
