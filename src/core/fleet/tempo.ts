// Tempo as a trace store: TraceQL search over /api/search (`{ span.gen_ai.request.id = "…" ||
// span.rid = "…" }`, start/end in unix seconds), then each trace by id, /api/v2/traces/{id}
// (`{"trace": TracesData}`), falling back to /api/traces/{id} (TracesData as `batches`) on a Tempo
// older than 2.5. Tempo is AGPL: it is never built or run here; the tests hold this client to the
// response shapes of Tempo's HTTP API documentation.
import { decodeOtlpJson, OtlpDecodeError } from '../otlp/decode';
import type { OtlpSpan } from '../otlp/types';
import { FleetError, parseJsonAnswer, StoreHttp } from './http';
import type { ClientOptions, StoreEndpoint, TimeWindow, TraceAnswer, TraceStoreClient } from './model';
import { normaliseTraceId, REQUEST_ID_ATTRIBUTES, traceAttributeValues } from './requestIds';

const TRACES_PER_SEARCH = 20;

/** A TraceQL string literal: backslash and double quote escaped. */
export function traceqlString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The TraceQL spanset filter that finds a request's spans under any of its id values; with
 * services (hoplens.traces.queryService), only spans whose resource is one of them.
 */
export function requestTraceQl(values: readonly string[], services: readonly string[] = []): string {
  const terms: string[] = [];
  for (const attr of REQUEST_ID_ATTRIBUTES) for (const v of values) terms.push(`span.${attr} = ${traceqlString(v)}`);
  if (services.length === 0) return `{ ${terms.join(' || ')} }`;
  const named = services.map((s) => `resource.service.name = ${traceqlString(s)}`).join(' || ');
  return `{ (${terms.join(' || ')}) && (${named}) }`;
}

export class TempoClient implements TraceStoreClient {
  private readonly http: StoreHttp;
  private readonly services: readonly string[];

  constructor(readonly endpoint: StoreEndpoint, opts: ClientOptions = {}) {
    this.http = new StoreHttp(opts);
    this.services = (opts.services ?? []).map((s) => s.trim()).filter((s) => s !== '');
  }

  async findByRequestId(requestIds: readonly string[], window: TimeWindow, signal?: AbortSignal): Promise<TraceAnswer> {
    const values = [...new Set(requestIds.flatMap((r) => traceAttributeValues(r)))];
    if (values.length === 0) throw new FleetError('bad-url', 'no request id to look up');
    const q = requestTraceQl(values, this.services);
    const params = new URLSearchParams({
      q, start: String(Math.floor(window.startMs / 1000)), end: String(Math.ceil(window.endMs / 1000)), limit: String(TRACES_PER_SEARCH),
    });
    const url = `${this.endpoint.baseUrl}/api/search?${params.toString()}`;
    const body = parseJsonAnswer(await this.http.request(url, signal), url) as { traces?: Array<{ traceID?: unknown }> };
    if (!body || typeof body !== 'object' || (body.traces !== undefined && !Array.isArray(body.traces))) {
      throw new FleetError('not-json', `${this.endpoint.baseUrl}/api/search did not answer Tempo's search result`);
    }
    const ids = [...new Set((body.traces ?? []).map((t) => normaliseTraceId(String(t.traceID ?? ''))).filter((x): x is string => x !== undefined))];
    const spans: OtlpSpan[] = [];
    for (const id of ids) spans.push(...await this.trace(id, window, signal));
    return {
      spans, traceIds: ids,
      query: `Tempo at ${this.endpoint.baseUrl}: ${q}, ${new Date(window.startMs).toISOString()} – ${new Date(window.endMs).toISOString()}; `
        + (ids.length ? `${ids.length} trace(s)` : 'no trace found'),
    };
  }

  async findByTraceId(traceId: string, signal?: AbortSignal): Promise<TraceAnswer> {
    const id = normaliseTraceId(traceId);
    if (!id) throw new FleetError('bad-url', `"${traceId}" is not a trace id (32 hex digits)`);
    const spans = await this.trace(id, undefined, signal);
    return { spans, traceIds: spans.length ? [id] : [], query: `Tempo at ${this.endpoint.baseUrl}: trace ${id}${spans.length ? '' : ' not found'}` };
  }

  private async trace(id: string, window: TimeWindow | undefined, signal?: AbortSignal): Promise<OtlpSpan[]> {
    const range = window ? `?start=${Math.floor(window.startMs / 1000)}&end=${Math.ceil(window.endMs / 1000)}` : '';
    let url = `${this.endpoint.baseUrl}/api/v2/traces/${id}${range}`;
    let res = await this.http.request(url, signal);
    if (res.status === 404 && !/^\s*\{/.test(res.text)) {
      // No v2 route (Tempo before 2.5): the v1 route answers TracesData with `batches`.
      url = `${this.endpoint.baseUrl}/api/traces/${id}${range}`;
      res = await this.http.request(url, signal);
    }
    if (res.status === 404) return [];
    const body = parseJsonAnswer(res, url) as { trace?: unknown };
    try {
      return decodeOtlpJson(body && typeof body === 'object' && 'trace' in body ? body.trace ?? {} : body).spans;
    } catch (e) {
      if (e instanceof OtlpDecodeError) throw new FleetError('not-json', `Tempo's trace ${id} is not OTLP JSON: ${e.message}`);
      throw e;
    }
  }
}
