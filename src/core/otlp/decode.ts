// OTLP trace payloads (protobuf or JSON) → OtlpSpan[]. Protobuf is decoded with the official
// opentelemetry-proto definitions as generated in @opentelemetry/otlp-transformer; both formats
// then go through one walker, since protobufjs' toObject yields the same field names as OTLP/JSON.
//
// A request is refused whole (OtlpDecodeError) only when its structure cannot be read; a span
// that cannot be read (a bad id, a time that is no number) is rejected alone and reported, so a
// receiver can keep the rest and answer partial_success (OTLP spec, "Partial Success").
import * as generatedRoot from '@opentelemetry/otlp-transformer/build/src/generated/root';
import { Reader } from 'protobufjs/minimal';
import type { AttrValue, OtlpSpan, SpanEvent, SpanLink, SpanStatus, SpanStatusCode } from './types';

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

/** A span the decoder could not read, and why (`where` is its path in the request). */
export interface RejectedSpan {
  where: string;
  message: string;
}

export interface DecodedTraces {
  spans: OtlpSpan[];
  rejected: RejectedSpan[];
  /**
   * Whether the payload had resourceSpans at all. A JSON object without them is an empty
   * request to a receiver (unknown fields are ignored), but in a file it is a line that is not
   * OTLP trace data.
   */
  hasResourceSpans: boolean;
}

interface ProtoMessageType {
  decode(buf: Uint8Array): unknown;
  toObject(msg: unknown, opts: Record<string, unknown>): Record<string, unknown>;
  encode(msg: unknown): { finish(): Uint8Array };
  fromObject(obj: unknown): unknown;
}
interface TraceV1 {
  ExportTraceServiceRequest: ProtoMessageType;
  ExportTraceServiceResponse: ProtoMessageType;
}
const traceV1 = (generatedRoot as unknown as { opentelemetry: { proto: { collector: { trace: { v1: TraceV1 } } } } })
  .opentelemetry.proto.collector.trace.v1;

/** Protobuf bytes of an empty ExportTraceServiceResponse (what a collector answers on success). */
export function emptyExportResponseProtobuf(): Uint8Array {
  return traceV1.ExportTraceServiceResponse.encode(traceV1.ExportTraceServiceResponse.fromObject({})).finish();
}

/** Protobuf bytes of an ExportTraceServiceResponse with partial_success set. */
export function partialSuccessResponseProtobuf(rejectedSpans: number, errorMessage: string): Uint8Array {
  return traceV1.ExportTraceServiceResponse.encode(
    traceV1.ExportTraceServiceResponse.fromObject({ partialSuccess: { rejectedSpans, errorMessage } }),
  ).finish();
}

/** An ExportTraceServiceResponse protobuf → its OTLP/JSON shape (tests, tools). */
export function decodeExportResponseProtobuf(buf: Uint8Array): Record<string, unknown> {
  const msg = traceV1.ExportTraceServiceResponse.decode(buf);
  return traceV1.ExportTraceServiceResponse.toObject(msg, { longs: String, defaults: false });
}

/** Protobuf bytes of an ExportTraceServiceRequest built from an OTLP/JSON-shaped object (tests, tools). */
export function encodeExportRequestProtobuf(obj: unknown): Uint8Array {
  return traceV1.ExportTraceServiceRequest.encode(traceV1.ExportTraceServiceRequest.fromObject(obj)).finish();
}

export function decodeOtlpProtobuf(buf: Uint8Array): DecodedTraces {
  let obj: Record<string, unknown>;
  try {
    const msg = traceV1.ExportTraceServiceRequest.decode(buf);
    obj = traceV1.ExportTraceServiceRequest.toObject(msg, { longs: String, enums: Number, defaults: false, arrays: true });
  } catch (e) {
    throw new OtlpDecodeError(`not an OTLP ExportTraceServiceRequest protobuf (${buf.length} bytes): ${(e as Error).message}`);
  }
  return walkTracesData(obj, 'protobuf', scanFlags(buf));
}

/** OTLP/JSON (ExportTraceServiceRequest or TracesData; Tempo's `batches` form is accepted too). */
export function decodeOtlpJson(input: string | unknown): DecodedTraces {
  let obj: unknown = input;
  if (typeof input === 'string') {
    try {
      obj = JSON.parse(quoteLongIntegers(input));
    } catch (e) {
      throw new OtlpDecodeError(`not valid JSON: ${(e as Error).message}`);
    }
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new OtlpDecodeError('OTLP JSON must be an object with "resourceSpans"');
  }
  return walkTracesData(obj as Record<string, unknown>, 'json', null);
}

// OTLP/JSON writes 64-bit integers as decimal strings, but a sender may write bare numbers, and
// JSON.parse would round any above 2^53 (a nanosecond timestamp is ~1.8e18). Quote them first.
// The key must be followed by its closing quote directly, which inside a JSON string it cannot be
// (there it would be \"), so string contents are never touched.
const LONG_INTEGER_KEYS = [
  'intValue', 'int_value', 'timeUnixNano', 'time_unix_nano', 'startTimeUnixNano', 'start_time_unix_nano', 'endTimeUnixNano', 'end_time_unix_nano',
].join('|');
const LONG_INTEGER_FIELD = new RegExp(String.raw`("(?:${LONG_INTEGER_KEYS})"\s*:\s*)(-?\d{16,})(?=\s*[,}\]])`, 'g');

function quoteLongIntegers(text: string): string {
  return /\d{16}/.test(text) ? text.replace(LONG_INTEGER_FIELD, '$1"$2"') : text;
}

type Obj = Record<string, unknown>;

function pick(o: Obj, camel: string, snake: string): unknown {
  return o[camel] !== undefined ? o[camel] : o[snake];
}

function asArray(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`${what} must be an array`);
  return v;
}

function asObj(v: unknown, what: string): Obj {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new OtlpDecodeError(`${what} must be an object`);
  return v as Obj;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function count(v: unknown): number {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.trunc(n) : 0;
}

/** Span.flags and Link.flags of a protobuf request, in document order (see scanFlags). */
interface ProtobufFlags {
  spans: number[];
  links: number[][];
}

function walkTracesData(root: Obj, format: 'protobuf' | 'json', flags: ProtobufFlags | null): DecodedTraces {
  const resourceSpansRaw = pick(root, 'resourceSpans', 'resource_spans') ?? root['batches'];
  const out: DecodedTraces = { spans: [], rejected: [], hasResourceSpans: format === 'protobuf' || resourceSpansRaw !== undefined };
  let spanIndex = 0;
  asArray(resourceSpansRaw, 'resourceSpans').forEach((rsRaw, ri) => {
    const rs = asObj(rsRaw, `resourceSpans[${ri}]`);
    const scopeSpans = asArray(
      pick(rs, 'scopeSpans', 'scope_spans') ?? pick(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans'),
      `resourceSpans[${ri}].scopeSpans`,
    );
    // The resource belongs to every span under it: if it cannot be read, neither can they.
    let resource: Record<string, AttrValue> | null = null;
    let resourceError = '';
    try {
      resource = attributesOf(asObj(rs['resource'], 'resource')['attributes'], `resourceSpans[${ri}].resource`);
    } catch (e) {
      resourceError = (e as Error).message;
    }
    scopeSpans.forEach((ssRaw, si) => {
      const ss = asObj(ssRaw, `resourceSpans[${ri}].scopeSpans[${si}]`);
      const scopeObj = asObj(ss['scope'] ?? pick(ss, 'instrumentationLibrary', 'instrumentation_library'), `resourceSpans[${ri}].scopeSpans[${si}].scope`);
      const scope = str(scopeObj['name']);
      const scopeVersion = str(scopeObj['version']);
      asArray(ss['spans'], `resourceSpans[${ri}].scopeSpans[${si}].spans`).forEach((spRaw, pi) => {
        const where = `resourceSpans[${ri}].scopeSpans[${si}].spans[${pi}]`;
        const i = spanIndex++;
        if (resource === null) { out.rejected.push({ where, message: resourceError }); return; }
        try {
          const span = spanOf(asObj(spRaw, where), resource, scope, scopeVersion, where);
          if (flags) {
            span.flags = flags.spans[i] ?? 0;
            span.links.forEach((l, li) => { l.flags = flags.links[i]?.[li] ?? 0; });
          }
          out.spans.push(span);
        } catch (e) {
          if (!(e instanceof OtlpDecodeError)) throw e;
          out.rejected.push({ where, message: e.message });
        }
      });
    });
  });
  return out;
}

const KIND_NAMES = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

function kindOf(v: unknown): string {
  if (typeof v === 'number') return KIND_NAMES[v] ?? 'UNSPECIFIED';
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return KIND_NAMES[Number(v)] ?? 'UNSPECIFIED';
    return v.replace(/^SPAN_KIND_/, '');
  }
  return 'UNSPECIFIED';
}

const STATUS_CODES: SpanStatusCode[] = ['UNSET', 'OK', 'ERROR'];

function statusOf(v: unknown, where: string): SpanStatus {
  const s = asObj(v, `${where}.status`);
  const code = s['code'];
  let name: SpanStatusCode = 'UNSET';
  if (typeof code === 'number' || (typeof code === 'string' && /^\d+$/.test(code))) name = STATUS_CODES[Number(code)] ?? 'UNSET';
  else if (typeof code === 'string') {
    const n = code.replace(/^STATUS_CODE_/, '') as SpanStatusCode;
    if (STATUS_CODES.includes(n)) name = n;
  }
  return { code: name, message: str(s['message']) };
}

function spanOf(sp: Obj, resource: Record<string, AttrValue>, scope: string, scopeVersion: string, where: string): OtlpSpan {
  const traceId = idOf(pick(sp, 'traceId', 'trace_id'), 16, `${where}.traceId`);
  const spanId = idOf(pick(sp, 'spanId', 'span_id'), 8, `${where}.spanId`);
  const parent = optionalIdOf(pick(sp, 'parentSpanId', 'parent_span_id'), 8, `${where}.parentSpanId`);
  const events: SpanEvent[] = asArray(sp['events'], `${where}.events`).map((evRaw, ei) => {
    const ev = asObj(evRaw, `${where}.events[${ei}]`);
    const t = nanosOf(pick(ev, 'timeUnixNano', 'time_unix_nano'), `${where}.events[${ei}].timeUnixNano`);
    return {
      name: str(ev['name']),
      timeUnixNano: t.toString(),
      timeMs: msOfNanos(t),
      attributes: attributesOf(ev['attributes'], `${where}.events[${ei}]`),
      droppedAttributesCount: count(pick(ev, 'droppedAttributesCount', 'dropped_attributes_count')),
    };
  });
  const links: SpanLink[] = asArray(sp['links'], `${where}.links`).map((lRaw, li) => {
    const l = asObj(lRaw, `${where}.links[${li}]`);
    return {
      traceId: idOf(pick(l, 'traceId', 'trace_id'), 16, `${where}.links[${li}].traceId`),
      spanId: idOf(pick(l, 'spanId', 'span_id'), 8, `${where}.links[${li}].spanId`),
      traceState: str(pick(l, 'traceState', 'trace_state')),
      attributes: attributesOf(l['attributes'], `${where}.links[${li}]`),
      droppedAttributesCount: count(pick(l, 'droppedAttributesCount', 'dropped_attributes_count')),
      flags: count(l['flags']),
    };
  });
  const start = nanosOf(pick(sp, 'startTimeUnixNano', 'start_time_unix_nano'), `${where}.startTimeUnixNano`);
  const end = nanosOf(pick(sp, 'endTimeUnixNano', 'end_time_unix_nano'), `${where}.endTimeUnixNano`);
  return {
    traceId,
    spanId,
    parentSpanId: parent === null || /^0+$/.test(parent) ? null : parent,
    traceState: str(pick(sp, 'traceState', 'trace_state')),
    flags: count(sp['flags']),
    name: str(sp['name']),
    kind: kindOf(sp['kind']),
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: end.toString(),
    startMs: msOfNanos(start),
    endMs: msOfNanos(end),
    attributes: attributesOf(sp['attributes'], where),
    droppedAttributesCount: count(pick(sp, 'droppedAttributesCount', 'dropped_attributes_count')),
    events,
    droppedEventsCount: count(pick(sp, 'droppedEventsCount', 'dropped_events_count')),
    links,
    droppedLinksCount: count(pick(sp, 'droppedLinksCount', 'dropped_links_count')),
    status: statusOf(sp['status'], where),
    resource,
    scope,
    scopeVersion,
  };
}

/** Unix nanoseconds (string, number or {low,high} long) → exact bigint; 0 when absent. */
function nanosOf(v: unknown, what: string): bigint {
  if (v === undefined || v === null || v === '') return 0n;
  try {
    if (typeof v === 'string') return BigInt(v.trim());
    if (typeof v === 'number') return BigInt(Math.trunc(v));
    if (typeof v === 'object' && 'low' in v && 'high' in v) {
      const l = v as { low: number; high: number };
      return (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
    }
  } catch { /* reported below */ }
  throw new OtlpDecodeError(`${what} is not a number of nanoseconds: ${JSON.stringify(v)}`);
}

/** Exact nanoseconds → ms since the epoch, the nearest double (not truncated to µs). */
export function msOfNanos(ns: bigint): number {
  return Number(ns / 1_000_000n) + Number(ns % 1_000_000n) / 1e6;
}

/** Trace/span ids: bytes (protobuf), hex (OTLP/JSON) or base64 (Tempo, Jaeger) → lowercase hex. */
function idOf(v: unknown, bytes: number, what: string): string {
  const id = optionalIdOf(v, bytes, what);
  if (id === null) throw new OtlpDecodeError(`${what} is missing`);
  return id;
}

function optionalIdOf(v: unknown, bytes: number, what: string): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (v instanceof Uint8Array) {
    if (v.length === 0) return null;
    if (v.length !== bytes) throw new OtlpDecodeError(`${what} is ${v.length} byte(s), not ${bytes}`);
    return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  }
  if (typeof v === 'string') {
    if (v.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(v)) return v.toLowerCase();
    // Some backends drop leading zeros of hex ids.
    if (/^[0-9a-fA-F]+$/.test(v) && v.length < bytes * 2) return v.toLowerCase().padStart(bytes * 2, '0');
    const b = Buffer.from(v, 'base64');
    if (b.length === bytes && /^[A-Za-z0-9+/=_-]+$/.test(v)) return b.toString('hex');
    throw new OtlpDecodeError(`${what} is not a ${bytes}-byte id: ${JSON.stringify(v)}`);
  }
  throw new OtlpDecodeError(`${what} is not an id: ${JSON.stringify(v)}`);
}

function attributesOf(v: unknown, where: string): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  asArray(v, `${where}.attributes`).forEach((kvRaw) => {
    const kv = asObj(kvRaw, `${where}.attributes[]`);
    if (typeof kv['key'] !== 'string') return;
    out[kv['key'] as string] = anyValueOf(kv['value']);
  });
  return out;
}

function anyValueOf(v: unknown): AttrValue {
  if (v === undefined || v === null || typeof v !== 'object') return null;
  const a = v as Obj;
  const s = pick(a, 'stringValue', 'string_value');
  if (s !== undefined) return String(s);
  const b = pick(a, 'boolValue', 'bool_value');
  if (b !== undefined) return Boolean(b);
  const i = pick(a, 'intValue', 'int_value');
  if (i !== undefined) return intOf(i);
  const d = pick(a, 'doubleValue', 'double_value');
  if (d !== undefined) return typeof d === 'number' ? d : Number(d);
  const arr = pick(a, 'arrayValue', 'array_value');
  if (arr !== undefined) {
    const values = (arr as Obj | null)?.['values'];
    return Array.isArray(values) ? values.map(anyValueOf) : [];
  }
  const kvl = pick(a, 'kvlistValue', 'kvlist_value');
  if (kvl !== undefined) {
    const values = (kvl as Obj | null)?.['values'];
    const out: Record<string, AttrValue> = {};
    if (Array.isArray(values)) for (const kv of values) if (kv && typeof kv.key === 'string') out[kv.key] = anyValueOf(kv.value);
    return out;
  }
  const bytes = pick(a, 'bytesValue', 'bytes_value');
  if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
  if (typeof bytes === 'string') return bytes;
  return null;
}

/** int64 → a number when exact in a double, otherwise a bigint (see types.ts). */
export function intOf(v: unknown): AttrValue {
  let big: bigint;
  try {
    if (typeof v === 'number') {
      if (Number.isSafeInteger(v)) return v;
      if (!Number.isInteger(v)) return v;
      big = BigInt(v);
    } else if (typeof v === 'string') {
      big = BigInt(v.trim());
    } else if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
      const l = v as { low: number; high: number };
      big = BigInt.asIntN(64, (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0));
    } else return null;
  } catch {
    return typeof v === 'string' ? v : null;
  }
  const n = Number(big);
  return Number.isSafeInteger(n) ? n : big;
}

// ---- Span.flags (field 16) and Link.flags (field 6) ----
// The generated definitions in otlp-transformer 0.57 predate these fields, so protobufjs skips
// them. One pass over the wire format picks them up in document order, the order in which the
// generated decoder lists spans and links.

const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

function scanFlags(buf: Uint8Array): ProtobufFlags {
  const flags: ProtobufFlags = { spans: [], links: [] };
  try {
    const r = Reader.create(buf);
    eachField(r, buf.length, (field, wire) => {
      if (field !== 1 || wire !== WIRE_LENGTH_DELIMITED) return false; // ExportTraceServiceRequest.resource_spans
      eachField(r, r.uint32() + r.pos, (f2, w2) => {
        if (f2 !== 2 || w2 !== WIRE_LENGTH_DELIMITED) return false; // ResourceSpans.scope_spans
        eachField(r, r.uint32() + r.pos, (f3, w3) => {
          if (f3 !== 2 || w3 !== WIRE_LENGTH_DELIMITED) return false; // ScopeSpans.spans
          let spanFlags = 0;
          const linkFlags: number[] = [];
          eachField(r, r.uint32() + r.pos, (f4, w4) => {
            if (f4 === 16 && w4 === WIRE_FIXED32) { spanFlags = r.fixed32(); return true; } // Span.flags
            if (f4 !== 13 || w4 !== WIRE_LENGTH_DELIMITED) return false; // Span.links
            let lf = 0;
            eachField(r, r.uint32() + r.pos, (f5, w5) => {
              if (f5 !== 6 || w5 !== WIRE_FIXED32) return false; // Link.flags
              lf = r.fixed32();
              return true;
            });
            linkFlags.push(lf);
            return true;
          });
          flags.spans.push(spanFlags);
          flags.links.push(linkFlags);
          return true;
        });
        return true;
      });
      return true;
    });
  } catch {
    // The generated decoder already accepted these bytes; if this pass disagrees, flags stay 0.
  }
  return flags;
}

/** Calls `take` for each field up to `end`; a field it does not take is skipped. */
function eachField(r: Reader, end: number, take: (field: number, wire: number) => boolean): void {
  while (r.pos < end) {
    const tag = r.uint32();
    if (!take(tag >>> 3, tag & 7)) r.skipType(tag & 7);
  }
  if (r.pos !== end) throw new Error('field overruns its message');
}
