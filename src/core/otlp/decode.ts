// OTLP trace payloads (protobuf or JSON) → OtlpSpan[]. Protobuf is decoded with the official
// opentelemetry-proto definitions as generated in @opentelemetry/otlp-transformer; both formats
// then go through one walker, since protobufjs' toObject yields the same field names as OTLP/JSON.
import generatedRoot = require('@opentelemetry/otlp-transformer/build/src/generated/root');
import type { AttrValue, OtlpSpan, SpanEvent } from './types';

export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
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

/** Protobuf bytes of an ExportTraceServiceRequest built from an OTLP/JSON-shaped object (tests, tools). */
export function encodeExportRequestProtobuf(obj: unknown): Uint8Array {
  return traceV1.ExportTraceServiceRequest.encode(traceV1.ExportTraceServiceRequest.fromObject(obj)).finish();
}

export function decodeOtlpProtobuf(buf: Uint8Array): OtlpSpan[] {
  let obj: Record<string, unknown>;
  try {
    const msg = traceV1.ExportTraceServiceRequest.decode(buf);
    obj = traceV1.ExportTraceServiceRequest.toObject(msg, { longs: String, enums: Number, defaults: false, arrays: true });
  } catch (e) {
    throw new OtlpDecodeError(`not an OTLP ExportTraceServiceRequest protobuf (${buf.length} bytes): ${(e as Error).message}`);
  }
  return walkTracesData(obj, 'protobuf');
}

/** OTLP/JSON (ExportTraceServiceRequest or TracesData; Tempo's `batches` form is accepted too). */
export function decodeOtlpJson(input: string | unknown): OtlpSpan[] {
  let obj: unknown = input;
  if (typeof input === 'string') {
    try {
      obj = JSON.parse(input);
    } catch (e) {
      throw new OtlpDecodeError(`not valid JSON: ${(e as Error).message}`);
    }
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new OtlpDecodeError('OTLP JSON must be an object with "resourceSpans"');
  }
  return walkTracesData(obj as Record<string, unknown>, 'json');
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

function walkTracesData(root: Obj, format: 'protobuf' | 'json'): OtlpSpan[] {
  const resourceSpansRaw = pick(root, 'resourceSpans', 'resource_spans') ?? root['batches'];
  if (format === 'json' && resourceSpansRaw === undefined && Object.keys(root).length > 0) {
    throw new OtlpDecodeError('OTLP JSON has no "resourceSpans" (expected an ExportTraceServiceRequest or TracesData)');
  }
  const out: OtlpSpan[] = [];
  const resourceSpans = asArray(resourceSpansRaw, 'resourceSpans');
  resourceSpans.forEach((rsRaw, ri) => {
    const rs = asObj(rsRaw, `resourceSpans[${ri}]`);
    const resource = attributesOf(asObj(rs['resource'], 'resource')['attributes'], `resourceSpans[${ri}].resource`);
    const scopeSpans = asArray(
      pick(rs, 'scopeSpans', 'scope_spans') ?? pick(rs, 'instrumentationLibrarySpans', 'instrumentation_library_spans'),
      `resourceSpans[${ri}].scopeSpans`,
    );
    scopeSpans.forEach((ssRaw, si) => {
      const ss = asObj(ssRaw, `scopeSpans[${si}]`);
      const scopeObj = asObj(ss['scope'] ?? pick(ss, 'instrumentationLibrary', 'instrumentation_library'), 'scope');
      const scope = typeof scopeObj['name'] === 'string' ? (scopeObj['name'] as string) : '';
      asArray(ss['spans'], `scopeSpans[${si}].spans`).forEach((spRaw, pi) => {
        out.push(spanOf(asObj(spRaw, `spans[${pi}]`), resource, scope, `resourceSpans[${ri}].scopeSpans[${si}].spans[${pi}]`));
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

function spanOf(sp: Obj, resource: Record<string, AttrValue>, scope: string, where: string): OtlpSpan {
  const traceId = idOf(pick(sp, 'traceId', 'trace_id'), 16, `${where}.traceId`);
  const spanId = idOf(pick(sp, 'spanId', 'span_id'), 8, `${where}.spanId`);
  const parentRaw = pick(sp, 'parentSpanId', 'parent_span_id');
  const parent = parentRaw === undefined || parentRaw === '' ? '' : idOf(parentRaw, 8, `${where}.parentSpanId`);
  const events: SpanEvent[] = asArray(sp['events'], `${where}.events`).map((evRaw, ei) => {
    const ev = asObj(evRaw, `${where}.events[${ei}]`);
    return {
      name: typeof ev['name'] === 'string' ? (ev['name'] as string) : '',
      timeMs: nanosToMs(pick(ev, 'timeUnixNano', 'time_unix_nano'), `${where}.events[${ei}].timeUnixNano`),
      attributes: attributesOf(ev['attributes'], `${where}.events[${ei}]`),
    };
  });
  return {
    traceId,
    spanId,
    parentSpanId: parent === '' || /^0+$/.test(parent) ? null : parent,
    name: typeof sp['name'] === 'string' ? (sp['name'] as string) : '',
    kind: kindOf(sp['kind']),
    startMs: nanosToMs(pick(sp, 'startTimeUnixNano', 'start_time_unix_nano'), `${where}.startTimeUnixNano`),
    endMs: nanosToMs(pick(sp, 'endTimeUnixNano', 'end_time_unix_nano'), `${where}.endTimeUnixNano`),
    attributes: attributesOf(sp['attributes'], where),
    events,
    resource,
    scope,
  };
}

/** Unix nanoseconds (string, number or {low,high} long) → fractional ms since the epoch (µs kept). */
function nanosToMs(v: unknown, what: string): number {
  if (v === undefined || v === null || v === '') return 0;
  let ns: bigint;
  try {
    if (typeof v === 'string') ns = BigInt(v.trim());
    else if (typeof v === 'number') ns = BigInt(Math.trunc(v));
    else if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
      const l = v as { low: number; high: number };
      ns = (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0);
    } else throw new Error('bad type');
  } catch {
    throw new OtlpDecodeError(`${what} is not a number of nanoseconds: ${JSON.stringify(v)}`);
  }
  return Number(ns / 1000n) / 1000;
}

/** Trace/span ids: bytes (protobuf), hex (OTLP/JSON) or base64 (Tempo, Jaeger) → lowercase hex. */
function idOf(v: unknown, bytes: number, what: string): string {
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  if (typeof v === 'string') {
    if (v.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(v)) return v.toLowerCase();
    if (/^[0-9a-fA-F]+$/.test(v) && v.length < bytes * 2) return v.toLowerCase().padStart(bytes * 2, '0');
    const b = Buffer.from(v, 'base64');
    if (b.length === bytes && /^[A-Za-z0-9+/=_-]+$/.test(v)) return b.toString('hex');
    throw new OtlpDecodeError(`${what} is not a ${bytes}-byte id: ${JSON.stringify(v)}`);
  }
  if (v === undefined) return ''.padStart(bytes * 2, '0');
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

/** int64: a number when it is exact in a double, otherwise its decimal string. */
function intOf(v: unknown): AttrValue {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
  if (typeof v === 'object' && v !== null && 'low' in v && 'high' in v) {
    const l = v as { low: number; high: number };
    const big = BigInt.asIntN(64, (BigInt(l.high >>> 0) << 32n) | BigInt(l.low >>> 0));
    const n = Number(big);
    return Number.isSafeInteger(n) ? n : big.toString();
  }
  return null;
}
