// What `hoplens.traces.queryUrl` needs below the fleet's clients: its options, result and error,
// and Jaeger's v1 JSON turned into OTLP spans (the fleet's Jaeger client decodes its v1 answers
// with it). The lookup itself (queryRequestSpans) and the check of which backend an address is
// (detectBackend) are core/fleet/traceLookup.ts, through the fleet's HTTP and its clients.
import { intOf, msOfNanos } from './decode';
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
  /** How far the search went where it did not go everywhere (a service that failed, services not asked). */
  notes?: string[];
}

export class TraceQueryError extends Error {
  /** 'auth' when the backend refused the credentials or wants a tenant (the caller says where to set them). */
  constructor(message: string, readonly kind?: string) {
    super(message);
    this.name = 'TraceQueryError';
  }
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** The address without trailing slashes; throws unless it is http(s). */
export function trimBase(base: string): string {
  let b = base.trim();
  if (!/^https?:\/\//i.test(b)) throw new TraceQueryError(`hoplens.traces.queryUrl must start with http:// or https:// (got "${base}")`);
  while (b.endsWith('/')) b = b.slice(0, -1);
  return b;
}

// ---- Jaeger's v1 JSON (query service HTTP API, /api/traces) ----

export interface JaegerKV { key: string; type?: string; value: unknown }
export interface JaegerSpan {
  traceID: string; spanID: string; operationName: string; startTime: number; duration: number;
  references?: Array<{ refType: string; traceID: string; spanID: string }>;
  tags?: JaegerKV[]; logs?: Array<{ timestamp: number; fields?: JaegerKV[] }>; processID?: string;
}
export interface JaegerTrace { traceID: string; spans?: JaegerSpan[]; processes?: Record<string, { serviceName?: string; tags?: JaegerKV[] }> }

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
