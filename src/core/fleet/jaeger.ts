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
import { ENGINE_IDS } from '../../engines/registry';

/** Searches in flight at once (Jaeger answers one service per search). */
export const DEFAULT_PARALLEL_SEARCHES = 4;
/** Services asked in all: a store with hundreds of services is asked for the likeliest first. */
export const DEFAULT_MAX_SERVICES = 30;
/** The whole fan-out's time: no search starts after it (each search has its own bound too). */
export const DEFAULT_FAN_OUT_BUDGET_MS = 60_000;
/** Traces per search: one request is one trace, a retried one a few. */
const TRACES_PER_SEARCH = 20;

/**
 * A router's, a gateway's or a serving stack's service by its name (beside those naming a known
 * engine): asked first when not every service can be. `unknown_service…` is what vLLM files its
 * spans under without OTEL_SERVICE_NAME.
 */
const SERVING_SERVICE = /^unknown_service|llm|engine|prefill|decode|router|gateway|dynamo|serving|inference|model|lmcache|mooncake|nixl|aibrix/i;

/** An engine's, a router's or a gateway's service by its name (vllm-decode, sglang-router…). */
function engineLike(service: string): boolean {
  const lower = service.toLowerCase();
  return SERVING_SERVICE.test(service) || ENGINE_IDS.some((id) => lower.includes(id));
}

/**
 * The services to ask, at most `max`: engine-like names first (vllm-decode, sglang-router…), then
 * the rest, each group in name order; and how many were left out.
 */
export function servicesToAsk(services: readonly string[], max: number): { ask: string[]; skipped: string[] } {
  const likely = services.filter(engineLike);
  const rest = services.filter((s) => !engineLike(s));
  const ordered = [...likely, ...rest];
  return { ask: ordered.slice(0, max), skipped: ordered.slice(max) };
}

/** A job's outcome in the pool: its value, its error, or neither when it never started (past the deadline). */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown } | undefined;

/**
 * Runs `jobs` with at most `parallel` in flight, none started after `deadline` (Date.now() ms; its
 * outcome stays undefined) or once `signal` is aborted. A job's failure is its outcome: the others
 * still run (one service's search failing does not end the fan-out).
 */
async function pool<T>(jobs: ReadonlyArray<() => Promise<T>>, parallel: number, deadline: number, signal?: AbortSignal): Promise<Array<Outcome<T>>> {
  const out: Array<Outcome<T>> = new Array<Outcome<T>>(jobs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!signal?.aborted && next < jobs.length && Date.now() < deadline) {
      const i = next++;
      try { out[i] = { ok: true, value: await jobs[i]() }; } catch (error) { out[i] = { ok: false, error }; }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, jobs.length)) }, worker));
  return out;
}

/** At most five names, then "…". */
function some(names: readonly string[]): string {
  return `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
}

/** An error's words for a note: a FleetError's message, else the error's. */
function reasonOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class JaegerClient implements TraceStoreClient {
  private readonly http: StoreHttp;
  private readonly maxServices: number;
  private readonly parallel: number;
  private readonly budgetMs: number;
  private readonly only: readonly string[] | undefined;

  constructor(readonly endpoint: StoreEndpoint, opts: ClientOptions = {}) {
    this.http = new StoreHttp(opts);
    this.maxServices = Math.max(1, Math.floor(opts.maxServices ?? DEFAULT_MAX_SERVICES));
    this.parallel = Math.max(1, Math.floor(opts.parallelSearches ?? DEFAULT_PARALLEL_SEARCHES));
    this.budgetMs = Math.max(1, opts.fanOutBudgetMs ?? DEFAULT_FAN_OUT_BUDGET_MS);
    const only = [...new Set((opts.services ?? []).map((s) => s.trim()).filter((s) => s !== ''))];
    this.only = only.length ? only : undefined;
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
    const services = this.only ? [...this.only] : await this.services(signal);
    const { ask, skipped } = this.only ? { ask: services, skipped: [] } : servicesToAsk(services, this.maxServices);
    const searches: Array<{ service: string; attr: string; value: string }> = [];
    for (const service of ask) for (const attr of REQUEST_ID_ATTRIBUTES) for (const value of values) searches.push({ service, attr, value });
    // A service whose search failed (down, slow, half an answer) is not asked again: its other searches fail with that reason at once.
    const failed = new Map<string, unknown>();
    const jobs = searches.map((s) => async (): Promise<JaegerTrace[]> => {
      if (failed.has(s.service)) throw failed.get(s.service);
      try {
        return await this.search(s.service, s.attr, s.value, window, signal);
      } catch (e) {
        if (!failed.has(s.service)) failed.set(s.service, e);
        throw e;
      }
    });
    const outcomes = await pool(jobs, this.parallel, Date.now() + this.budgetMs, signal);
    if (signal?.aborted) throw new FleetError('cancelled', `cancelled: Jaeger at ${this.endpoint.baseUrl}`);
    const started = outcomes.filter((o) => o !== undefined);
    if (started.length > 0 && started.every((o) => !o.ok)) throw this.allFailed(ask, failed);
    const found = new Map<string, JaegerTrace>();
    const foundIn = new Set<string>();
    const unfinished = new Set<string>();
    // A plain loop: the searches never started are holes, which forEach would skip.
    for (let j = 0; j < searches.length; j++) {
      const o = outcomes[j];
      if (o === undefined) { if (!failed.has(searches[j].service)) unfinished.add(searches[j].service); continue; }
      if (!o.ok) continue;
      for (const t of o.value) {
        const id = normaliseTraceId(String(t.traceID ?? ''));
        if (id && !found.has(id)) found.set(id, t);
        foundIn.add(`${searches[j].service} (${searches[j].attr})`);
      }
    }
    const spans: OtlpSpan[] = [];
    for (const [id, v1] of found) spans.push(...await this.traceOrCopy(id, v1, signal));
    const where = this.only ? `${ask.length === 1 ? `service "${ask[0]}"` : `services ${ask.join(', ')}`} only (as set)`
      : services.length ? `${skipped.length ? `${ask.length} of ${services.length}` : services.length} service(s): ${ask.join(', ')}`
        : 'no service (Jaeger lists none)';
    const span = `${new Date(window.startMs).toISOString()} – ${new Date(window.endMs).toISOString()}`;
    return {
      spans, traceIds: [...found.keys()], notes: this.fanOutNotes(services.length, ask, skipped, unfinished, failed),
      query: `Jaeger at ${this.endpoint.baseUrl}: ${REQUEST_ID_ATTRIBUTES.join(' or ')} = ${values.join(' | ')} in ${where}, ${span}; `
        + (found.size ? `${found.size} trace(s) in ${[...foundIn].join(', ')}` : 'no trace found'),
    };
  }

  /** A trace found by a search, as OTLP from v3; the search's own (v1) copy when that fetch fails. */
  private async traceOrCopy(id: string, v1: JaegerTrace, signal?: AbortSignal): Promise<OtlpSpan[]> {
    try {
      return await this.trace(id, v1, signal);
    } catch (e) {
      if (signal?.aborted || (e instanceof FleetError && e.kind === 'cancelled')) throw e;
      return this.fromV1([v1]);
    }
  }

  /** The services that failed, grouped by their reason: "reason (svc-a, svc-b)"; at most 5 names per reason. */
  private static failuresText(failed: ReadonlyMap<string, unknown>): string {
    const byReason = new Map<string, string[]>();
    for (const [service, e] of failed) {
      const why = reasonOf(e);
      byReason.set(why, [...(byReason.get(why) ?? []), service]);
    }
    return [...byReason].map(([why, names]) => `${some(names)}: ${why}`).join('; ');
  }

  /** Every search asked failed: one error naming the services and why, of the first failure's kind (auth stays auth). */
  private allFailed(ask: readonly string[], failed: ReadonlyMap<string, unknown>): FleetError {
    const first = failed.values().next().value;
    const kind = first instanceof FleetError ? first.kind : 'http';
    return new FleetError(kind, `the search for the request id failed in every service asked (${ask.length}): ${JaegerClient.failuresText(failed)}`);
  }

  /** What a user should know about how far the fan-out went: services not asked, failed, not searched through. */
  private fanOutNotes(listed: number, ask: readonly string[], skipped: readonly string[], unfinished: ReadonlySet<string>,
    failed: ReadonlyMap<string, unknown>): string[] {
    const base = this.endpoint.baseUrl;
    const notes: string[] = [];
    if (skipped.length) {
      notes.push(`Jaeger at ${base} lists ${listed} services; the ${ask.length} likeliest were asked for the request id `
        + `(${skipped.length} not asked: ${some(skipped)}). A trace id finds its trace in any service.`);
    }
    if (failed.size) {
      notes.push(`Jaeger at ${base}: the search failed in ${failed.size} of ${ask.length} service(s), the others' results are shown: `
        + `${JaegerClient.failuresText(failed)}`);
    }
    if (unfinished.size) {
      notes.push(`Jaeger at ${base}: the search stopped after ${Math.round(this.budgetMs / 100) / 10} s; `
        + `${unfinished.size} service(s) not searched through: ${some([...unfinished])}.`);
    }
    return notes;
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
