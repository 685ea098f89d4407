// Fetch one request's spans from a tracing backend the team already runs (Jaeger or Tempo),
// by gen_ai.request.id, instead of receiving them ourselves (`hoplens.traces.queryUrl`).
import { decodeOtlpJson, intOf, msOfNanos, OtlpDecodeError } from './decode';
import type { AttrValue, OtlpSpan, SpanEvent, SpanLink, SpanStatus } from './types';

export type TraceBackend = 'jaeger' | 'tempo';

export interface TraceQueryOptions {
  /** Base URL of the backend's HTTP API, e.g. http://127.0.0.1:16686 (Jaeger) or http://127.0.0.1:3200 (Tempo). */
  baseUrl: string;
  /** The value of gen_ai.request.id (the external id: chatcmpl-…, cmpl-…-0). */
  requestId: string;
  backend?: TraceBackend | 'auto';
  /**
   * The service the spans were filed under: vLLM's is whatever OTEL_SERVICE_NAME said, and
   * "unknown_service" without it. Empty: every service is searched (Jaeger asks per service).
   */
  service?: string;
  timeoutMs?: number;
  /** How far back Jaeger searches (ms). */
  lookbackMs?: number;
}

export interface TraceQueryResult {
  backend: TraceBackend;
  traceIds: string[];
  spans: OtlpSpan[];
  /** Which query ran, in words, for the view ("Jaeger at …: gen_ai.request.id=… in services …"). */
  query: string;
}

export class TraceQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceQueryError';
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;

async function getText(url: string, timeoutMs: number, accept = 'application/json'): Promise<{ status: number; text: string }> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { Accept: accept }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    if (err.name === 'TimeoutError' || err.name === 'AbortError') throw new TraceQueryError(`no answer from ${url} within ${timeoutMs} ms`);
    const why = err.cause?.code ?? err.cause?.message ?? err.message;
    throw new TraceQueryError(`cannot reach ${url}: ${why}`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    throw new TraceQueryError(`reading the answer from ${url} failed: ${(e as Error).message}`);
  }
  return { status: res.status, text };
}

async function getJson(url: string, timeoutMs: number): Promise<unknown> {
  const { status, text } = await getText(url, timeoutMs);
  if (status < 200 || status >= 300) throw new TraceQueryError(`HTTP ${status} from ${url}: ${text.slice(0, 200).trim()}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new TraceQueryError(`${url} did not answer JSON: ${text.slice(0, 120).trim()}`);
  }
}

function trimBase(base: string): string {
  let b = base.trim();
  if (!/^https?:\/\//i.test(b)) throw new TraceQueryError(`hoplens.traces.queryUrl must start with http:// or https:// (got "${base}")`);
  while (b.endsWith('/')) b = b.slice(0, -1);
  return b;
}

/** Tempo answers /api/echo with "echo"; Jaeger answers /api/services with {data:[…]}. */
export async function detectBackend(baseUrl: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<TraceBackend> {
  const base = trimBase(baseUrl);
  const echo = await getText(`${base}/api/echo`, timeoutMs).catch((e: Error) => e);
  if (!(echo instanceof Error) && echo.status === 200 && echo.text.trim() === 'echo') return 'tempo';
  const services = await getText(`${base}/api/services`, timeoutMs).catch((e: Error) => e);
  if (!(services instanceof Error) && services.status === 200) {
    try {
      const j = JSON.parse(services.text) as { data?: unknown };
      if (Array.isArray(j.data)) return 'jaeger';
    } catch { /* fall through */ }
  }
  const reason = echo instanceof Error ? echo.message
    : services instanceof Error ? services.message
      : 'neither /api/echo (Tempo) nor /api/services (Jaeger) answered as expected';
  throw new TraceQueryError(`${base} does not look like Jaeger or Tempo: ${reason}`);
}

export async function queryRequestSpans(opts: TraceQueryOptions): Promise<TraceQueryResult> {
  const base = trimBase(opts.baseUrl);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (opts.requestId.trim() === '') throw new TraceQueryError('no request id to look up');
  const backend = !opts.backend || opts.backend === 'auto' ? await detectBackend(base, timeoutMs) : opts.backend;
  return backend === 'jaeger' ? queryJaeger(base, opts, timeoutMs) : queryTempo(base, opts, timeoutMs);
}

// ---- Jaeger (query service HTTP API, /api/traces) ----

export interface JaegerKV { key: string; type?: string; value: unknown }
export interface JaegerSpan {
  traceID: string; spanID: string; operationName: string; startTime: number; duration: number;
  references?: Array<{ refType: string; traceID: string; spanID: string }>;
  tags?: JaegerKV[]; logs?: Array<{ timestamp: number; fields?: JaegerKV[] }>; processID?: string;
}
export interface JaegerTrace { traceID: string; spans?: JaegerSpan[]; processes?: Record<string, { serviceName?: string; tags?: JaegerKV[] }> }

/** Jaeger searches one service at a time; this many are asked at once. */
const JAEGER_PARALLEL_SERVICES = 4;
/** A Jaeger with more services than this is searched in the likeliest ones only (and says so). */
const JAEGER_MAX_SERVICES = 60;

/** vLLM's likely names first, Jaeger's own last. */
function servicesInOrder(services: string[]): string[] {
  const rank = (s: string): number => (/vllm/i.test(s) ? 0 : /^unknown_service/.test(s) ? 1 : /^jaeger/.test(s) ? 3 : 2);
  return [...new Set(services)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

async function queryJaeger(base: string, opts: TraceQueryOptions, timeoutMs: number): Promise<TraceQueryResult> {
  const endUs = Date.now() * 1000;
  const startUs = endUs - (opts.lookbackMs ?? 7 * 24 * 3600 * 1000) * 1000;
  const tag = `gen_ai.request.id=${opts.requestId}`;
  let services: string[];
  let skipped = 0;
  if (opts.service && opts.service.trim() !== '') services = [opts.service.trim()];
  else {
    const listed = await getJson(`${base}/api/services`, timeoutMs) as { data?: unknown };
    const all = servicesInOrder(Array.isArray(listed.data) ? listed.data.filter((x): x is string => typeof x === 'string' && x !== '') : []);
    services = all.slice(0, JAEGER_MAX_SERVICES);
    skipped = all.length - services.length;
  }
  const searchOne = async (service: string): Promise<JaegerTrace[]> => {
    const params = new URLSearchParams({
      service,
      tags: JSON.stringify({ 'gen_ai.request.id': opts.requestId }),
      start: String(startUs), end: String(endUs), limit: '20',
    });
    type Answer = { data?: JaegerTrace[] | null; errors?: Array<{ msg?: string }> | null };
    const body = await getJson(`${base}/api/traces?${params.toString()}`, timeoutMs) as Answer;
    if (body.errors && body.errors.length && !(body.data && body.data.length)) {
      throw new TraceQueryError(`Jaeger: ${body.errors.map((e) => e.msg ?? JSON.stringify(e)).join('; ')}`);
    }
    return Array.isArray(body.data) ? body.data : [];
  };
  const traces: JaegerTrace[] = [];
  const foundIn: string[] = [];
  const tried: string[] = [];
  for (let i = 0; i < services.length && traces.length === 0; i += JAEGER_PARALLEL_SERVICES) {
    const batch = services.slice(i, i + JAEGER_PARALLEL_SERVICES);
    tried.push(...batch);
    const results = await Promise.all(batch.map(searchOne));
    results.forEach((r, j) => { if (r.length) { foundIn.push(batch[j]); traces.push(...r); } });
  }
  // The same trace can hold spans of several services: keep each trace once.
  const unique = [...new Map(traces.map((t) => [normaliseHexId(t.traceID, 32), t])).values()];
  const spans: OtlpSpan[] = [];
  for (const t of unique) for (const s of t.spans ?? []) spans.push(jaegerSpanToOtlp(s, t.processes ?? {}));
  const where = opts.service && opts.service.trim() !== '' ? `service "${services[0]}" (hoplens.traces.queryService)`
    : services.length === 0 ? 'no service (Jaeger lists none yet)'
      : `${tried.length} of ${services.length + skipped} service(s): ${tried.join(', ')}${skipped ? ` (${skipped} more not searched)` : ''}`;
  const outcome = foundIn.length ? `found in ${foundIn.join(', ')}` : 'no trace found';
  return {
    backend: 'jaeger', traceIds: unique.map((t) => normaliseHexId(t.traceID, 32)), spans,
    query: `Jaeger at ${base}: tag ${tag} in ${where}; ${outcome}`,
  };
}

function normaliseHexId(id: string, len: number): string {
  return String(id ?? '').toLowerCase().padStart(len, '0');
}

function jaegerValue(kv: JaegerKV): AttrValue {
  const v = kv.value;
  if (kv.type === 'int64') return intOf(v);
  if (kv.type === 'float64') return typeof v === 'number' ? v : Number(v);
  if (kv.type === 'bool') return v === true || v === 'true';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return v === undefined || v === null ? null : JSON.stringify(v);
}

const NANOS_PER_US = 1000n;

export function jaegerSpanToOtlp(s: JaegerSpan, processes: Record<string, { serviceName?: string; tags?: JaegerKV[] }>): OtlpSpan {
  const attributes: Record<string, AttrValue> = {};
  let kind = 'UNSPECIFIED';
  let scope = '';
  let scopeVersion = '';
  let traceState = '';
  const status: SpanStatus = { code: 'UNSET', message: '' };
  for (const kv of s.tags ?? []) {
    // Jaeger folds OTLP's span kind, scope, status and trace state into tags; take them back out.
    if (kv.key === 'span.kind') kind = String(kv.value).toUpperCase();
    else if (kv.key === 'otel.library.name' || kv.key === 'otel.scope.name') scope = String(kv.value);
    else if (kv.key === 'otel.library.version' || kv.key === 'otel.scope.version') scopeVersion = String(kv.value);
    else if (kv.key === 'otel.status_code') {
      const code = String(kv.value).toUpperCase();
      status.code = code === 'ERROR' ? 'ERROR' : code === 'OK' ? 'OK' : 'UNSET';
    }
    else if (kv.key === 'otel.status_description') status.message = String(kv.value);
    else if (kv.key === 'w3c.tracestate') traceState = String(kv.value);
    else attributes[kv.key] = jaegerValue(kv);
  }
  const events: SpanEvent[] = (s.logs ?? []).map((log) => {
    const attrs: Record<string, AttrValue> = {};
    let name = '';
    for (const f of log.fields ?? []) {
      if (f.key === 'event') name = String(f.value);
      else attrs[f.key] = jaegerValue(f);
    }
    const t = BigInt(Math.round(log.timestamp)) * NANOS_PER_US;
    return { name, timeUnixNano: t.toString(), timeMs: msOfNanos(t), attributes: attrs, droppedAttributesCount: 0 };
  });
  const proc = s.processID ? processes[s.processID] : undefined;
  const resource: Record<string, AttrValue> = {};
  if (proc?.serviceName) resource['service.name'] = proc.serviceName;
  for (const kv of proc?.tags ?? []) resource[kv.key] = jaegerValue(kv);
  const refs = s.references ?? [];
  const parent = refs.find((r) => r.refType === 'CHILD_OF');
  const links: SpanLink[] = refs.filter((r) => r !== parent).map((r) => ({
    traceId: normaliseHexId(r.traceID, 32), spanId: normaliseHexId(r.spanID, 16), traceState: '', attributes: {}, droppedAttributesCount: 0, flags: 0,
  }));
  const start = BigInt(Math.round(s.startTime)) * NANOS_PER_US;
  const end = start + BigInt(Math.round(s.duration)) * NANOS_PER_US;
  return {
    traceId: normaliseHexId(s.traceID, 32),
    spanId: normaliseHexId(s.spanID, 16),
    parentSpanId: parent ? normaliseHexId(parent.spanID, 16) : null,
    traceState,
    flags: 0,
    name: s.operationName,
    kind,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: end.toString(),
    startMs: msOfNanos(start),
    endMs: msOfNanos(end),
    attributes,
    droppedAttributesCount: 0,
    events,
    droppedEventsCount: 0,
    links,
    droppedLinksCount: 0,
    status,
    resource,
    scope,
    scopeVersion,
  };
}

// ---- Tempo (/api/search by tag, then /api/traces/{id} as OTLP JSON) ----

async function queryTempo(base: string, opts: TraceQueryOptions, timeoutMs: number): Promise<TraceQueryResult> {
  // logfmt values, quoted because request ids may contain '-' and other separators. Tempo
  // searches every service unless service.name is given.
  const service = opts.service?.trim() ?? '';
  const tag = `${service ? `service.name=${JSON.stringify(service)} ` : ''}gen_ai.request.id=${JSON.stringify(opts.requestId)}`;
  const search = await getJson(`${base}/api/search?tags=${encodeURIComponent(tag)}&limit=20`, timeoutMs) as { traces?: Array<{ traceID?: string }> };
  const ids = (search.traces ?? []).map((t) => t.traceID).filter((x): x is string => typeof x === 'string' && x !== '');
  const spans: OtlpSpan[] = [];
  for (const id of ids) {
    const body = await getJson(`${base}/api/traces/${encodeURIComponent(id)}`, timeoutMs) as { trace?: unknown };
    try {
      // /api/traces answers {batches:[…]}; /api/v2/traces wraps TracesData in {trace:{…}}.
      spans.push(...decodeOtlpJson(body && typeof body === 'object' && 'trace' in body ? body.trace : body).spans);
    } catch (e) {
      if (e instanceof OtlpDecodeError) throw new TraceQueryError(`Tempo trace ${id} is not OTLP JSON: ${e.message}`);
      throw e;
    }
  }
  return {
    backend: 'tempo', traceIds: ids.map((i) => normaliseHexId(i, 32)), spans,
    query: `Tempo at ${base}: search tags ${tag} (${service ? 'one service' : 'all services'}); `
      + (ids.length ? `${ids.length} trace(s) found` : 'no trace found'),
  };
}
