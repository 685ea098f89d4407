// Bodies the JS SDK cannot make, written by hand: what vLLM's Python exporter sends over
// protobuf (Span.flags, int64 values and nanosecond times beyond 2^53), OTLP/JSON with fields
// this receiver does not know, the Collector's file-exporter JSON, and senders that go away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writer } from 'protobufjs/minimal';
import { startOtlpReceiver } from '../../../src/core/otlp/receiver';
import { decodeExportResponseProtobuf, decodeOtlpJson, decodeOtlpProtobuf } from '../../../src/core/otlp/decode';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import type { OtlpSpan } from '../../../src/core/otlp/types';
import { FIXTURES } from './helpers';

// ---- A protobuf writer for the few OTLP messages used here (field numbers of opentelemetry-proto) ----

const LEN = 2, VARINT = 0, I64 = 1, I32 = 5;
type Field = (w: Writer) => void;
const tag = (w: Writer, field: number, wire: number) => w.uint32((field << 3) | wire);
const msg = (field: number, ...fields: Field[]): Field => (w) => { tag(w, field, LEN).fork(); fields.forEach((f) => f(w)); w.ldelim(); };
const bytes = (field: number, hex: string): Field => (w) => { tag(w, field, LEN).bytes(Buffer.from(hex, 'hex')); };
const str = (field: number, s: string): Field => (w) => { tag(w, field, LEN).string(s); };
const varint = (field: number, n: number): Field => (w) => { tag(w, field, VARINT).uint32(n); };
const int64 = (field: number, v: string): Field => (w) => { tag(w, field, VARINT).int64(v); };
const fixed64 = (field: number, v: string): Field => (w) => { tag(w, field, I64).fixed64(v); };
const fixed32 = (field: number, n: number): Field => (w) => { tag(w, field, I32).fixed32(n); };
const double = (field: number, v: number): Field => (w) => { tag(w, field, I64).double(v); };
const kv = (field: number, key: string, value: Field): Field => msg(field, str(1, key), msg(2, value));
function build(...fields: Field[]): Uint8Array { const w = Writer.create(); fields.forEach((f) => f(w)); return w.finish(); }

/** An ExportTraceServiceRequest as opentelemetry-exporter-otlp-proto-http (Python) writes vLLM's llm_request. */
function pythonLlmRequest(): Uint8Array {
  return build(msg(1, // resource_spans
    msg(1, kv(1, 'vllm.process_id', int64(3, '31337')), kv(1, 'service.name', str(1, 'unknown_service'))), // resource
    msg(2, // scope_spans
      msg(1, str(1, 'vllm.llm_engine'), str(2, '0.15.1')), // scope
      msg(2, // span
        bytes(1, '4bf92f3577b34da6a3ce929d0e0e4736'), bytes(2, '00f067aa0ba902b7'), str(3, 'rojo=00f067aa0ba902b7'),
        bytes(4, 'a1b2c3d4e5f60718'), str(5, 'llm_request'), varint(6, 2),
        fixed64(7, '1764406800123456789'), fixed64(8, '1764406802527656789'),
        kv(9, 'gen_ai.request.id', str(1, 'chatcmpl-py01')),
        kv(9, 'gen_ai.latency.e2e', double(4, 2.4042)),
        kv(9, 'gen_ai.usage.prompt_tokens', int64(3, '1024')),
        kv(9, 'step.ts_start_ns', int64(3, '1764406800123456789')),
        kv(9, 'hoplens.min_int64', int64(3, '-9223372036854775808')),
        varint(10, 3), // dropped_attributes_count
        msg(11, fixed64(1, '1764406800306456789'), str(2, 'api.FIRST_RESPONSE_FROM_CORE'), varint(4, 1)),
        varint(12, 2), // dropped_events_count
        msg(13, bytes(1, '5b8efff798038103d269b633813fc60c'), bytes(2, 'eee19b7ec3c1b174'), str(3, 'link=1'), kv(4, 'why', str(1, 'follows')), fixed32(6, 0x301)),
        varint(14, 1), // dropped_links_count
        msg(15, str(2, 'engine dead'), varint(3, 2)), // status ERROR
        fixed32(16, 0x301), // flags: sampled, parent is remote (SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE | IS_REMOTE)
      ))));
}

test('Python protobuf: Span.flags and Link.flags, nanoseconds and int64 beyond 2^53 kept exactly, status and dropped counts', () => {
  const { spans, rejected } = decodeOtlpProtobuf(pythonLlmRequest());
  assert.deepEqual(rejected, []);
  const s = spans[0];
  assert.equal(s.flags, 0x301);
  assert.equal(s.links[0].flags, 0x301);
  assert.deepEqual({ ...s.links[0], flags: 0 }, { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', traceState: 'link=1', attributes: { why: 'follows' }, droppedAttributesCount: 0, flags: 0 });
  assert.equal(s.traceState, 'rojo=00f067aa0ba902b7');
  assert.equal(s.parentSpanId, 'a1b2c3d4e5f60718');
  assert.equal(s.startTimeUnixNano, '1764406800123456789');
  assert.equal(s.endTimeUnixNano, '1764406802527656789');
  // Not truncated to whole µs (…123.456 ms): the nearest double of …123.456789 ms.
  assert.equal(s.startMs.toFixed(6), '1764406800123.456787');
  assert.ok(Math.abs(s.startMs - 1764406800123.4568) < 0.0003);
  assert.equal(s.events[0].timeUnixNano, '1764406800306456789');
  assert.equal(s.events[0].droppedAttributesCount, 1);
  assert.equal(s.attributes['step.ts_start_ns'], 1764406800123456789n);
  assert.equal(s.attributes['hoplens.min_int64'], -9223372036854775808n);
  assert.equal(s.attributes['gen_ai.usage.prompt_tokens'], 1024);
  assert.equal(s.resource['vllm.process_id'], 31337);
  assert.deepEqual(s.status, { code: 'ERROR', message: 'engine dead' });
  assert.deepEqual([s.droppedAttributesCount, s.droppedEventsCount, s.droppedLinksCount], [3, 2, 1]);
  assert.equal(s.scopeVersion, '0.15.1');
});

test('the same int64 has the same type and digits over JSON: decimal strings (the spec) and bare numbers beyond 2^53', () => {
  const body = (v: string) => `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7",` +
    `"startTimeUnixNano":${v},"attributes":[{"key":"step.ts_start_ns","value":{"intValue":${v}}},{"key":"small","value":{"intValue":"7"}},` +
    `{"key":"text","value":{"stringValue":"\\"intValue\\": 1764406800123456789"}}]}]}]}]}`;
  for (const v of ['"1764406800123456789"', '1764406800123456789']) {
    const s = decodeOtlpJson(body(v)).spans[0];
    assert.equal(s.attributes['step.ts_start_ns'], 1764406800123456789n, v);
    assert.equal(s.startTimeUnixNano, '1764406800123456789', v);
    assert.equal(s.attributes['small'], 7);
    assert.equal(s.attributes['text'], '"intValue": 1764406800123456789', 'string contents are left alone');
  }
  const proto = decodeOtlpProtobuf(pythonLlmRequest()).spans[0];
  assert.equal(typeof proto.attributes['step.ts_start_ns'], typeof decodeOtlpJson(body('"1764406800123456789"')).spans[0].attributes['step.ts_start_ns']);
});

async function post(url: string, body: Uint8Array | string, type: string): Promise<{ status: number; body: Buffer; retryAfter: string | null }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'Content-Type': type } });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), retryAfter: res.headers.get('retry-after') };
}

test('OTLP/JSON with unknown fields is accepted and the unknown fields ignored (the spec says receivers MUST)', async () => {
  const kept: OtlpSpan[] = [];
  const rx = await startOtlpReceiver({ port: 0, onSpans: (s) => { kept.push(...s); } });
  try {
    const empty = await post(rx.url, '{"futureField":1}', 'application/json');
    assert.equal(empty.status, 200);
    assert.equal(empty.body.toString(), '{}');
    const nested = {
      futureTopLevel: { a: 1 },
      resourceSpans: [{
        futureResourceField: true, resource: { attributes: [], futureAttr: 'x' },
        scopeSpans: [{ scope: { name: 'vllm.llm_engine', futureScopeField: 2 }, spans: [{
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'llm_request', kind: 2,
          startTimeUnixNano: '1764406800000000000', endTimeUnixNano: '1764406801000000000', futureSpanField: [1, 2],
          attributes: [{ key: 'gen_ai.request.id', value: { stringValue: 'chatcmpl-future' } }],
          events: [{ timeUnixNano: '1764406800500000000', name: 'api.ARRIVED', futureEventField: {} }],
          status: { code: 1, futureStatusField: 'y' },
        }] }],
      }],
    };
    const r = await post(rx.url, JSON.stringify(nested), 'application/json');
    assert.equal(r.status, 200);
    assert.equal(kept.length, 1);
    assert.equal(kept[0].attributes['gen_ai.request.id'], 'chatcmpl-future');
    assert.deepEqual(kept[0].status, { code: 'OK', message: '' });
    // The Collector's file-exporter lines are OTLP/JSON too.
    const line = readFileSync(join(FIXTURES, 'collector_export.jsonl'), 'utf8').split('\n')[0];
    assert.equal((await post(rx.url, line, 'application/json')).status, 200);
    assert.equal(kept.length, 3);
    assert.equal(kept[1].flags, 256);
  } finally {
    await rx.close();
  }
});

test('a protobuf batch with one bad span: partial_success in an ExportTraceServiceResponse, the good span kept', async () => {
  const store = new SpanStore();
  const rx = await startOtlpReceiver({ port: 0, onSpans: (s) => store.add(s) });
  try {
    const good = pythonLlmRequest();
    // A second resource whose span has a 3-byte span id.
    const bad = build(msg(1, msg(2, msg(2, bytes(1, '4bf92f3577b34da6a3ce929d0e0e4736'), bytes(2, 'abcdef'), str(5, 'llm_request')))));
    const r = await post(rx.url, Buffer.concat([good, bad]), 'application/x-protobuf');
    assert.equal(r.status, 200);
    assert.deepEqual(decodeExportResponseProtobuf(r.body), {
      partialSuccess: { rejectedSpans: '1', errorMessage: '1 of 2 span(s) rejected: resourceSpans[1].scopeSpans[0].spans[0].spanId is 3 byte(s), not 8' },
    });
    assert.ok(store.timing('chatcmpl-py01'));
    assert.equal(rx.stats().rejectedSpans, 1);
  } finally {
    await rx.close();
  }
});

test('a sender that goes away mid-body is logged with its address, and nothing of it is kept', async () => {
  const errors: string[] = [];
  const kept: OtlpSpan[] = [];
  const rx = await startOtlpReceiver({ port: 0, onSpans: (s) => { kept.push(...s); }, onError: (m) => errors.push(m) });
  try {
    const sock = net.connect(rx.port, '127.0.0.1');
    await new Promise<void>((r) => sock.once('connect', () => r()));
    const local = `${sock.localAddress}:${sock.localPort}`;
    sock.write('POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 1000\r\n\r\n');
    sock.write(Buffer.from(pythonLlmRequest()).subarray(0, 50));
    for (let i = 0; i < 100 && rx.stats().requests === 0; i++) await new Promise((r) => setTimeout(r, 10));
    sock.destroy();
    for (let i = 0; i < 100 && errors.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(errors.length, 1);
    assert.match(errors[0], new RegExp(`^export request from ${local.replace(/[.]/g, '\\.')} ended after 50 of 1000 bytes \\(aborted\\): the sender went away; nothing from it was kept$`));
    assert.doesNotMatch(errors[0], /undefined/);
    assert.equal(rx.stats().aborted, 1);
    assert.equal(kept.length, 0);
  } finally {
    await rx.close();
  }
});
