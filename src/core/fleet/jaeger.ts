// Jaeger as a trace store: v2 (the OTel-collector-based binary) and v1's query service.
//
// A trace by id comes from the v3 API (`/api/v3/traces/{id}`: OTLP JSON, decoded by the OTLP
// decoder exactly as a receiver would), falling back to v1's `/api/traces/{id}` where v3 is not
// served. A request by its id attribute is searched with v1's `/api/traces?service=…&tags=…`, which
// Jaeger v2 serves too: v2's v3 HTTP search ignores attribute filters (Jaeger 1.76's
// cmd/query/app/apiv3/http_gateway.go builds its query with an empty attribute map) and would answer
// every trace of the service. Every service `/api/services` lists is asked, not one fixed name.
import { decodeOtlpJson, OtlpDecodeError } from '../otlp/decode';
import { jaegerSpanToOtlp, type JaegerTrace } from '../otlp/query';
import type { OtlpSpan } from '../otlp/types';
import { FleetError, parseJsonAnswer, StoreHttp } from './http';
import type { ClientOptions, StoreEndpoint, TimeWindow, TraceAnswer, TraceStoreClient } from './model';
import { normaliseTraceId, REQUEST_ID_ATTRIBUTES, traceAttributeValues } from './requestIds';

/** Searches in flight at once (Jaeger answers one service per search). */
export const DEFAULT_PARALLEL_SEARCHES = 4;
/** Services asked in all: a store with hundreds of services is asked for the likeliest first. */
export const DEFAULT_MAX_SERVICES = 30;
/** The whole fan-out's time: no search starts after it (each search has its own bound too). */
export const DEFAULT_FAN_OUT_BUDGET_MS = 60_000;
/** Traces per search: one request is one trace, a retried one a few. */
const TRACES_PER_SEARCH = 20;

/** An engine's, a router's or a gateway's service by its name: asked first when not every service can be. */
const ENGINE_SERVICE = /vllm|sglang|llm|engine|prefill|decode|router|gateway|dynamo|serving|inference|model|lmcache|mooncake|nixl|aibrix/i;

/**
 * The services to ask, at most `max`: engine-like names first (vllm-decode, sglang-router…), then
 * the rest, each group in name order; and how many were left out.
 */
export function servicesToAsk(services: readonly string[], max: number): { ask: string[]; skipped: string[] } {
  const likely = services.filter((s) => ENGINE_SERVICE.test(s));
  const rest = services.filter((s) => !ENGINE_SERVICE.test(s));
  const ordered = [...likely, ...rest];
  return { ask: ordered.slice(0, max), skipped: ordered.slice(max) };
}

/**
 * Runs `jobs` with at most `parallel` in flight, none started after `deadline` (Date.now() ms; its
 * result stays undefined); the first failure ends the run (no new job starts).
 */
async function pool<T>(jobs: ReadonlyArray<() => Promise<T>>, parallel: number, deadline: number): Promise<Array<T | undefined>> {
  const out: Array<T | undefined> = new Array<T | undefined>(jobs.length);
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < jobs.length && Date.now() < deadline) {
      const i = next++;
      try { out[i] = await jobs[i](); } catch (e) { failed = true; throw e; }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, jobs.length)) }, worker));
  return out;
}

export class JaegerClient implements TraceStoreClient {
  private readonly http: StoreHttp;
  private readonly maxServices: number;
  private readonly parallel: number;
  private readonly budgetMs: number;

  constructor(readonly endpoint: StoreEndpoint, opts: ClientOptions = {}) {
    this.http = new StoreHttp(opts);
    this.maxServices = Math.max(1, Math.floor(opts.maxServices ?? DEFAULT_MAX_SERVICES));
    this.parallel = Math.max(1, Math.floor(opts.parallelSearches ?? DEFAULT_PARALLEL_SEARCHES));
    this.budgetMs = Math.max(1, opts.fanOutBudgetMs ?? DEFAULT_FAN_OUT_BUDGET_MS);
  }

  private async getJson(path: string, signal?: AbortSignal): Promise<unknown> {
    const url = `${this.endpoint.baseUrl}${path}`;
    const res = await this.http.request(url, signal);
    return parseJsonAnswer(res, url);
  }

  /** Every service Jaeger has spans of. */
  async services(signal?: AbortSignal): Promise<string[]> {
    const body = await this.getJson('/api/services', signal) as { data?: unknown };
    if (!body || typeof body !== 'object' || !('data' in body)) {
      throw new FleetError('not-json', `${this.endpoint.baseUrl}/api/services is not Jaeger's service list`);
    }
    return Array.isArray(body.data) ? [...new Set(body.data.filter((x): x is string => typeof x === 'string' && x !== ''))].sort() : [];
  }

  async findByTraceId(traceId: string, signal?: AbortSignal): Promise<TraceAnswer> {
    const id = normaliseTraceId(traceId);
    if (!id) throw new FleetError('bad-url', `"${traceId}" is not a trace id (32 hex digits)`);
    const spans = await this.trace(id, undefined, signal);
    return { spans, traceIds: spans.length ? [id] : [], query: `Jaeger at ${this.endpoint.baseUrl}: trace ${id}${spans.length ? '' : ' not found'}` };
  }

  /** One trace's spans: v3 (OTLP), else v1; `[]` when Jaeger has no such trace. */
  private async trace(id: string, v1Copy: JaegerTrace | undefined, signal?: AbortSignal): Promise<OtlpSpan[]> {
    const url = `${this.endpoint.baseUrl}/api/v3/traces/${id}`;
    const res = await this.http.request(url, signal);
    if (res.status === 404 && /^\s*\{/.test(res.text)) return v1Copy ? this.fromV1([v1Copy]) : []; // v3's "No traces found"
    if (res.status === 404 || res.status === 405) return this.traceV1(id, v1Copy, signal); // no v3 route: a v1 query service
    const body = parseJsonAnswer(res, url) as { result?: unknown };
    try {
      return decodeOtlpJson(body && typeof body === 'object' && 'result' in body ? body.result : body).spans;
    } catch (e) {
      if (e instanceof OtlpDecodeError) throw new FleetError('not-json', `Jaeger's trace ${id} is not OTLP JSON: ${e.message}`);
      throw e;
    }
  }

  private async traceV1(id: string, v1Copy: JaegerTrace | undefined, signal?: AbortSignal): Promise<OtlpSpan[]> {
    if (v1Copy) return this.fromV1([v1Copy]);
    const url = `${this.endpoint.baseUrl}/api/traces/${id}`;
    const res = await this.http.request(url, signal);
    if (res.status === 404 && /^\s*\{/.test(res.text)) return [];
    const body = parseJsonAnswer(res, url) as { data?: JaegerTrace[] | null };
    return this.fromV1(Array.isArray(body.data) ? body.data : []);
  }

  private fromV1(traces: JaegerTrace[]): OtlpSpan[] {
    const out: OtlpSpan[] = [];
    for (const t of traces) for (const s of t.spans ?? []) out.push(jaegerSpanToOtlp(s, t.processes ?? {}));
    return out;
  }

  async findByRequestId(requestIds: readonly string[], window: TimeWindow, signal?: AbortSignal): Promise<TraceAnswer> {
    const values = [...new Set(requestIds.flatMap((r) => traceAttributeValues(r)))];
    if (values.length === 0) throw new FleetError('bad-url', 'no request id to look up');
    const services = await this.services(signal);
    const { ask, skipped } = servicesToAsk(services, this.maxServices);
    const searches: Array<{ service: string; attr: string; value: string }> = [];
    for (const service of ask) for (const attr of REQUEST_ID_ATTRIBUTES) for (const value of values) searches.push({ service, attr, value });
    const jobs = searches.map((s) => () => this.search(s.service, s.attr, s.value, window, signal));
    const answers = await pool(jobs, this.parallel, Date.now() + this.budgetMs);
    const found = new Map<string, JaegerTrace>();
    const foundIn = new Set<string>();
    const unfinished = new Set<string>();
    // A plain loop: the searches never started are holes, which forEach would skip.
    for (let j = 0; j < searches.length; j++) {
      const traces = answers[j];
      if (traces === undefined) { unfinished.add(searches[j].service); continue; }
      for (const t of traces) {
        const id = normaliseTraceId(String(t.traceID ?? ''));
        if (id && !found.has(id)) found.set(id, t);
        foundIn.add(`${searches[j].service} (${searches[j].attr})`);
      }
    }
    const spans: OtlpSpan[] = [];
    for (const [id, v1] of found) spans.push(...await this.trace(id, v1, signal));
    const where = services.length
      ? `${skipped.length ? `${ask.length} of ${services.length}` : services.length} service(s): ${ask.join(', ')}`
      : 'no service (Jaeger lists none)';
    const span = `${new Date(window.startMs).toISOString()} – ${new Date(window.endMs).toISOString()}`;
    const some = (names: readonly string[]): string => `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
    const notes: string[] = [];
    if (skipped.length) {
      notes.push(`Jaeger at ${this.endpoint.baseUrl} lists ${services.length} services; the ${ask.length} likeliest were asked for the request id `
        + `(${skipped.length} not asked: ${some(skipped)}). A trace id finds its trace in any service.`);
    }
    if (unfinished.size) {
      notes.push(`Jaeger at ${this.endpoint.baseUrl}: the search stopped after ${Math.round(this.budgetMs / 100) / 10} s; `
        + `${unfinished.size} service(s) not searched through: ${some([...unfinished])}.`);
    }
    return {
      spans, traceIds: [...found.keys()], notes,
      query: `Jaeger at ${this.endpoint.baseUrl}: ${REQUEST_ID_ATTRIBUTES.join(' or ')} = ${values.join(' | ')} in ${where}, ${span}; `
        + (found.size ? `${found.size} trace(s) in ${[...foundIn].join(', ')}` : 'no trace found'),
    };
  }

  private async search(service: string, attr: string, value: string, window: TimeWindow, signal?: AbortSignal): Promise<JaegerTrace[]> {
    const params = new URLSearchParams({
      service, tags: JSON.stringify({ [attr]: value }),
      start: String(Math.floor(window.startMs) * 1000), end: String(Math.ceil(window.endMs) * 1000), limit: String(TRACES_PER_SEARCH),
    });
    const body = await this.getJson(`/api/traces?${params.toString()}`, signal) as { data?: JaegerTrace[] | null; errors?: Array<{ msg?: string }> | null };
    if (body?.errors?.length && !body.data?.length) throw new FleetError('http', `Jaeger: ${body.errors.map((e) => e.msg ?? JSON.stringify(e)).join('; ')}`);
    return Array.isArray(body?.data) ? body.data : [];
  }
}
