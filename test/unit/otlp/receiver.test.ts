// The receiver fed by the real OpenTelemetry JS SDK exporters, and the store built from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { gzipSync } from 'node:zlib';
import { startOtlpReceiver } from '../../../src/core/otlp/receiver';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import { encodeExportRequestProtobuf } from '../../../src/core/otlp/decode';
import { exportFixtureWithSdk } from './helpers';
import type { OtlpSpan } from '../../../src/core/otlp/types';

async function post(url: string, body: Buffer | string, headers: Record<string, string>): Promise<{ status: number; body: Buffer; type: string | null }> {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

function assertFixtureTimings(store: SpanStore, baseMs: number): void {
  const chat = store.timing('chatcmpl-hl0001');
  assert.ok(chat, 'llm_request for chatcmpl-hl0001 arrived');
  assert.equal(chat.requestId, 'chatcmpl-hl0001');
  assert.ok(Math.abs(chat.ttftMs! - 182.5) < 1e-6);
  assert.ok(Math.abs(chat.e2eMs! - 1240.5) < 1e-6);
  assert.ok(Math.abs(chat.queueMs! - 12.5) < 1e-6);
  assert.ok(Math.abs(chat.prefillMs! - 168) < 1e-6);
  assert.ok(Math.abs(chat.decodeMs! - 1050) < 1e-6);
  assert.ok(Math.abs(chat.inferenceMs! - 1218) < 1e-6);
  assert.equal(chat.promptTokens, 812);
  assert.equal(chat.completionTokens, 128);
  assert.equal(chat.attributes['gen_ai.request.temperature'], 0.7);
  assert.equal(chat.span.kind, 'SERVER');
  assert.equal(chat.span.scope, 'vllm.llm_engine');
  assert.equal(chat.span.resource['vllm.process_id'], 4242);
  assert.match(chat.span.traceId, /^[0-9a-f]{32}$/);
  assert.match(chat.span.spanId, /^[0-9a-f]{16}$/);
  assert.ok(Math.abs(chat.span.startMs - baseMs) < 0.01, `start ${chat.span.startMs} vs ${baseMs}`);
  assert.ok(Math.abs(chat.span.endMs - (baseMs + 1250.5)) < 0.01);
  assert.deepEqual(chat.span.events.map((e) => e.name), ['api.ARRIVED', 'api.HANDOFF_TO_CORE', 'api.FIRST_RESPONSE_FROM_CORE', 'api.FINISHED']);

  const cmpl = store.timing('cmpl-hl0002-0');
  assert.ok(cmpl);
  assert.equal(cmpl.completionTokens, 64);
  assert.equal(cmpl.attributes['gen_ai.some_future_attribute'], 'kept as is');

  // Snapshots carry the engine-internal id (-<8 hex>); they join the external rid, in step order.
  const snaps = store.snapshots('chatcmpl-hl0001');
  assert.deepEqual(snaps.map((s) => [s.stepId, s.phase, s.scheduledTokens, s.kvBlocksAllocated, s.kvBlocksCached]), [
    [1, 'PREFILL', 812, 51, 0], [2, 'DECODE', 1, 51, 16], [3, 'DECODE', 1, 51, 16],
  ]);
  assert.equal(snaps[0].effectivePromptLen, 812);
  assert.equal(snaps[2].computedTokens, 813);
  assert.deepEqual(store.snapshots('cmpl-hl0002-0').map((s) => s.phase), ['PREFILL']);

  const batches = store.batches();
  assert.deepEqual(batches.map((b) => [b.stepId, b.running, b.waiting, b.prefillReqs, b.decodeReqs, b.scheduledTokens, b.durationUs]), [
    [1, 1, 1, 1, 0, 812, 168000], [2, 2, 0, 1, 1, 34, 9100], [3, 2, 0, 0, 2, 2, 8200],
  ]);
  assert.equal(batches[1].kvUsage, 0.054);
  assert.equal(batches[1].kvBlocksFree, 946);

  // Journey events stay on the llm_core span, found by the same rid.
  const core = store.spansFor('chatcmpl-hl0001').find((s) => s.name === 'llm_core');
  assert.ok(core);
  assert.deepEqual(core.events.map((e) => e.name), ['journey.QUEUED', 'journey.SCHEDULED', 'journey.FIRST_TOKEN', 'journey.FINISHED']);
  assert.equal(core.events[3].attributes['finish.status'], 'length');
}

for (const protocol of ['protobuf', 'json'] as const) {
  test(`the SDK's OTLP/HTTP ${protocol} exporter delivers vLLM spans and step events`, async () => {
    const store = new SpanStore();
    const errors: string[] = [];
    const rx = await startOtlpReceiver({ port: 0, onSpans: (s) => store.add(s), onError: (m) => errors.push(m) });
    try {
      assert.equal(rx.warning, undefined);
      assert.match(rx.url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
      const base = Date.UTC(2026, 10, 29, 9, 0, 0) + 0.25;
      await exportFixtureWithSdk(rx.url, protocol, base, protocol === 'json');
      assert.deepEqual(errors, []);
      assert.equal(rx.stats().spans, 4);
      assert.equal(rx.stats().rejected, 0);
      assertFixtureTimings(store, base);
    } finally {
      await rx.close();
    }
  });
}

test('malformed protobuf and JSON get 400 with a message; the receiver keeps running and keeps earlier spans', async () => {
  const store = new SpanStore();
  const errors: string[] = [];
  const rx = await startOtlpReceiver({ port: 0, onSpans: (s) => store.add(s), onError: (m) => errors.push(m) });
  try {
    await exportFixtureWithSdk(rx.url, 'protobuf', Date.now());
    const badProto = await post(rx.url, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'Content-Type': 'application/x-protobuf' });
    assert.equal(badProto.status, 400);
    assert.equal(badProto.type, 'application/x-protobuf');
    assert.match(badProto.body.toString('latin1'), /malformed OTLP protobuf/);
    const badJson = await post(rx.url, '{"resourceSpans": [', { 'Content-Type': 'application/json' });
    assert.equal(badJson.status, 400);
    assert.match(JSON.parse(badJson.body.toString()).message, /malformed OTLP json: not valid JSON/);
    const wrongShape = await post(rx.url, '{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "xyz"}]}]}]}', { 'Content-Type': 'application/json' });
    assert.equal(wrongShape.status, 400);
    assert.match(JSON.parse(wrongShape.body.toString()).message, /traceId is not a 16-byte id/);
    assert.equal(errors.length, 3);
    assert.equal(rx.stats().rejected, 3);
    // Still serving, nothing lost.
    await exportFixtureWithSdk(rx.url, 'json', Date.now());
    assert.equal(rx.stats().spans, 8);
    assert.ok(store.timing('chatcmpl-hl0001'));
    assert.equal(store.stats().received, 8);
    const wrongPath = await post(rx.url.replace('/v1/traces', '/v1/metrics'), '{}', { 'Content-Type': 'application/json' });
    assert.equal(wrongPath.status, 404);
    const get = await fetch(rx.url);
    assert.equal(get.status, 405);
    const text = await post(rx.url, 'hello', { 'Content-Type': 'text/plain' });
    assert.equal(text.status, 415);
  } finally {
    await rx.close();
  }
});

function oneSpanRequest(rid: string): object {
  return {
    resourceSpans: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'vllm' } }] },
      scopeSpans: [{
        scope: { name: 'vllm.llm_engine' },
        spans: [{
          traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'llm_request', kind: 2,
          startTimeUnixNano: '1764406800000000000', endTimeUnixNano: '1764406801500000000',
          attributes: [
            { key: 'gen_ai.request.id', value: { stringValue: rid } },
            { key: 'gen_ai.latency.e2e', value: { doubleValue: 1.5 } },
            { key: 'gen_ai.usage.prompt_tokens', value: { intValue: '7' } },
          ],
        }],
      }],
    }],
  };
}

test('gzip bodies are accepted in both formats; a body over the limit gets 413', async () => {
  const store = new SpanStore();
  const rx = await startOtlpReceiver({ port: 0, maxBodyBytes: 4096, onSpans: (s) => store.add(s) });
  try {
    const json = gzipSync(JSON.stringify(oneSpanRequest('chatcmpl-gz1')));
    const r1 = await post(rx.url, json, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    assert.equal(r1.status, 200);
    assert.equal(r1.body.toString(), '{}');
    const proto = gzipSync(Buffer.from(encodeExportRequestProtobuf({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2), name: 'llm_request',
        attributes: [{ key: 'gen_ai.request.id', value: { stringValue: 'chatcmpl-gz2' } }] }] }] }],
    })));
    const r2 = await post(rx.url, proto, { 'Content-Type': 'application/x-protobuf', 'Content-Encoding': 'gzip' });
    assert.equal(r2.status, 200);
    assert.equal(r2.body.length, 0, 'an empty ExportTraceServiceResponse');
    assert.equal(store.timing('chatcmpl-gz1')!.e2eMs, 1500);
    assert.equal(store.timing('chatcmpl-gz1')!.promptTokens, 7);
    assert.equal(store.timing('chatcmpl-gz2')!.span.traceId, '01'.repeat(16));

    const huge = JSON.stringify({ resourceSpans: [], pad: 'x'.repeat(10_000) });
    const r3 = await post(rx.url, huge, { 'Content-Type': 'application/json' });
    assert.equal(r3.status, 413);
    assert.match(JSON.parse(r3.body.toString()).message, /larger than the 4096-byte limit/);
    const bomb = gzipSync(Buffer.from(JSON.stringify({ resourceSpans: [], pad: ' '.repeat(100_000) })));
    assert.ok(bomb.length < 4096);
    const r4 = await post(rx.url, bomb, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    assert.equal(r4.status, 413);
    const r5 = await post(rx.url, Buffer.from('not gzip'), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    assert.equal(r5.status, 400);
    // And it still works afterwards.
    const r6 = await post(rx.url, JSON.stringify(oneSpanRequest('chatcmpl-after')), { 'Content-Type': 'application/json' });
    assert.equal(r6.status, 200);
    assert.ok(store.timing('chatcmpl-after'));
    assert.equal(rx.stats().rejected, 3);
  } finally {
    await rx.close();
  }
});

test('a port in use is a clear error that suggests another port; non-loopback binds warn', async () => {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    await assert.rejects(startOtlpReceiver({ port, onSpans: () => {} }), (e: Error) => {
      assert.match(e.message, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port + 1}`));
      return true;
    });
  } finally {
    blocker.close();
  }
  const open = await startOtlpReceiver({ host: '0.0.0.0', port: 0, onSpans: () => {} });
  try {
    assert.match(open.warning ?? '', /not loopback/);
  } finally {
    await open.close();
  }
});

test('the store is bounded: past the cap the oldest spans go and are counted', () => {
  const store = new SpanStore({ maxSpans: 3, maxSnapshots: 2 });
  const mk = (i: number): OtlpSpan => ({
    traceId: '0'.repeat(32), spanId: String(i).padStart(16, '0'), parentSpanId: null, traceState: '', flags: 0, name: 'llm_request', kind: 'SERVER',
    startTimeUnixNano: String(i * 1e6), endTimeUnixNano: String((i + 1) * 1e6), startMs: i, endMs: i + 1,
    attributes: { 'gen_ai.request.id': `chatcmpl-r${i}`, 'gen_ai.latency.e2e': 0.001 * i }, droppedAttributesCount: 0,
    resource: {}, scope: 'vllm.llm_engine', scopeVersion: '', links: [], droppedLinksCount: 0, droppedEventsCount: 0, status: { code: 'UNSET', message: '' },
    events: [{ name: 'step.REQUEST_SNAPSHOT', timeUnixNano: String(i * 1e6), timeMs: i, droppedAttributesCount: 0, attributes: { 'step.id': i, 'request.id': `chatcmpl-r${i}-0123abcd`, 'request.phase': 'DECODE' } }],
  });
  store.add([mk(1), mk(2), mk(3), mk(4), mk(5)]);
  const st = store.stats();
  assert.equal(st.spans, 3);
  assert.equal(st.droppedSpans, 2);
  assert.equal(st.received, 5);
  assert.equal(store.timing('chatcmpl-r1'), undefined);
  assert.equal(store.timing('chatcmpl-r5')!.e2eMs, 5);
  assert.deepEqual(store.requests().map((t) => t.rid), ['chatcmpl-r3', 'chatcmpl-r4', 'chatcmpl-r5']);
  assert.equal(st.snapshots, 2);
  assert.equal(st.droppedSnapshots, 3);
  assert.equal(store.snapshots('chatcmpl-r5').length, 1);
  assert.equal(store.snapshots('chatcmpl-r2').length, 0);
});
