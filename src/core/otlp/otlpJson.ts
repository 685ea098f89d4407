// OtlpSpan[] → OTLP/JSON TracesData, the shape of one line of the Collector's file exporter, so
// what `hoplens otlp --out` writes is read back by `hoplens otlp --file`, by Open OpenTelemetry
// Trace File, and by any OTLP tool. Encoded as the OTLP spec asks: hex ids, integer enums,
// 64-bit integers as decimal strings, default values left out.
import type { AttrValue, OtlpSpan, SpanStatusCode } from './types';

const KIND_NUMBERS: Record<string, number> = { UNSPECIFIED: 0, INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 };
const STATUS_NUMBERS: Record<SpanStatusCode, number> = { UNSET: 0, OK: 1, ERROR: 2 };

type Json = Record<string, unknown>;

export function anyValueJson(v: AttrValue): Json {
  if (v === null) return {};
  switch (typeof v) {
    case 'string': return { stringValue: v };
    case 'boolean': return { boolValue: v };
    case 'bigint': return { intValue: v.toString() };
    case 'number':
      if (Number.isInteger(v)) return { intValue: String(v) };
      // proto3 JSON spells the non-finite doubles as strings.
      return { doubleValue: Number.isFinite(v) ? v : String(v) };
    default:
      if (Array.isArray(v)) return { arrayValue: { values: v.map(anyValueJson) } };
      return { kvlistValue: { values: attributesJson(v) } };
  }
}

function attributesJson(attrs: Record<string, AttrValue>): Json[] {
  return Object.keys(attrs).map((key) => ({ key, value: anyValueJson(attrs[key]) }));
}

/** Sets `key` only when the value is not proto3's default (0, ''), as proto3 JSON does. */
function setIf(o: Json, key: string, v: number | string): void {
  if (v !== 0 && v !== '') o[key] = v;
}

function spanJson(s: OtlpSpan): Json {
  const o: Json = { traceId: s.traceId, spanId: s.spanId };
  setIf(o, 'traceState', s.traceState);
  if (s.parentSpanId) o['parentSpanId'] = s.parentSpanId;
  setIf(o, 'flags', s.flags);
  o['name'] = s.name;
  o['kind'] = KIND_NUMBERS[s.kind] ?? 0;
  o['startTimeUnixNano'] = s.startTimeUnixNano;
  o['endTimeUnixNano'] = s.endTimeUnixNano;
  o['attributes'] = attributesJson(s.attributes);
  setIf(o, 'droppedAttributesCount', s.droppedAttributesCount);
  if (s.events.length) {
    o['events'] = s.events.map((e) => {
      const ev: Json = { timeUnixNano: e.timeUnixNano, name: e.name, attributes: attributesJson(e.attributes) };
      setIf(ev, 'droppedAttributesCount', e.droppedAttributesCount);
      return ev;
    });
  }
  setIf(o, 'droppedEventsCount', s.droppedEventsCount);
  if (s.links.length) {
    o['links'] = s.links.map((l) => {
      const lj: Json = { traceId: l.traceId, spanId: l.spanId };
      setIf(lj, 'traceState', l.traceState);
      lj['attributes'] = attributesJson(l.attributes);
      setIf(lj, 'droppedAttributesCount', l.droppedAttributesCount);
      setIf(lj, 'flags', l.flags);
      return lj;
    });
  }
  setIf(o, 'droppedLinksCount', s.droppedLinksCount);
  const status: Json = {};
  setIf(status, 'code', STATUS_NUMBERS[s.status.code]);
  setIf(status, 'message', s.status.message);
  o['status'] = status;
  return o;
}

/** One TracesData for these spans: grouped by resource (the exporting process) and scope. */
export function tracesDataJson(spans: OtlpSpan[]): Json {
  // Spans decoded from one resourceSpans share its resource object.
  const byResource = new Map<Record<string, AttrValue>, Map<string, OtlpSpan[]>>();
  for (const s of spans) {
    let scopes = byResource.get(s.resource);
    if (!scopes) byResource.set(s.resource, scopes = new Map());
    const key = `${s.scope}\u0000${s.scopeVersion}`;
    const list = scopes.get(key);
    if (list) list.push(s); else scopes.set(key, [s]);
  }
  const resourceSpans: Json[] = [];
  for (const [resource, scopes] of byResource) {
    const scopeSpans: Json[] = [];
    for (const list of scopes.values()) {
      const scope: Json = { name: list[0].scope };
      setIf(scope, 'version', list[0].scopeVersion);
      scopeSpans.push({ scope, spans: list.map(spanJson) });
    }
    resourceSpans.push({ resource: { attributes: attributesJson(resource) }, scopeSpans });
  }
  return { resourceSpans };
}

/** One line of OTLP JSON Lines (no trailing newline). */
export function tracesDataJsonLine(spans: OtlpSpan[]): string {
  return JSON.stringify(tracesDataJson(spans));
}
