// Send Traced Request sends a W3C `traceparent`, fresh per request, and shows its trace id in
// the report and in `--json`; the fake vLLM engine makes its llm_request span a child of it,
// so the engine's span for that exact request is found by trace id. On 127.0.0.1: the header
// is read from the bytes on the wire (a TCP relay in front of the fake engine), the span from
// a real OTLP/HTTP receiver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { runSend } from '../../../src/cli/send';
import { bufferIO } from '../../../src/cli/io';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { startOtlpReceiver } from '../../../src/core/otlp/receiver';
import { newTraceContext, parseTraceparent } from '../../../src/core/request/traceContext';
import type { OtlpSpan } from '../../../src/core/otlp/types';

/** A TCP relay that keeps every byte the client wrote, so the test sees the request as sent. */
async function startWireRelay(targetPort: number): Promise<{ url: string; sent: () => string; close: () => Promise<void> }> {
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client); sockets.add(upstream);
    client.on('data', (b: Buffer) => { chunks.push(b); upstream.write(b); });
    upstream.on('data', (b: Buffer) => client.write(b));
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    sent: () => Buffer.concat(chunks).toString('latin1'),
    close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}

const WIRE_TRACEPARENT = /^traceparent: (00-[0-9a-f]{32}-[0-9a-f]{16}-01)\r$/gim;

test('hoplens send puts one traceparent header on the wire, fresh per request, and --json names its trace id', async () => {
  const engine = await startFakeEngine({ engine: 'vllm', schedule: 'first=5,every=2' });
  const relay = await startWireRelay(Number(new URL(engine.url).port));
  try {
    const runs: { traceId: string; traceparent: string }[] = [];
    for (const rid of ['tp-1', 'tp-2']) {
      const io = bufferIO();
      const code = await runSend(['--url', relay.url, '--model', 'Qwen/Qwen3-0.6B', '--max-tokens', '2', '--rid', rid, '--json'], io);
      assert.equal(code, 0, io.stderr);
      runs.push(JSON.parse(io.stdout) as { traceId: string; traceparent: string });
    }
    const onWire = [...relay.sent().matchAll(WIRE_TRACEPARENT)].map((m) => m[1]);
    assert.deepEqual(onWire, runs.map((r) => r.traceparent), 'each POST carried exactly the traceparent --json reports');
    for (const r of runs) {
      assert.equal(r.traceparent, `00-${r.traceId}-${r.traceparent.slice(36, 52)}-01`);
      assert.doesNotMatch(r.traceId, /^0+$/);
    }
    assert.notEqual(runs[0].traceId, runs[1].traceId, 'a new request is a new trace');
  } finally { await relay.close(); await engine.close(); }
});

test('the readable report shows the trace id it sent', async () => {
  const engine = await startFakeEngine({ engine: 'sglang', schedule: 'first=5,every=2' });
  const relay = await startWireRelay(Number(new URL(engine.url).port));
  try {
    const io = bufferIO();
    assert.equal(await runSend(['--url', relay.url, '--max-tokens', '2', '--api', 'sglang-generate'], io), 0, io.stderr);
    const sent = [...relay.sent().matchAll(WIRE_TRACEPARENT)].map((m) => m[1]);
    assert.equal(sent.length, 1);
    const traceId = sent[0].slice(3, 35);
    assert.match(io.stdout, new RegExp(`trace id \\(traceparent\\) +${traceId}`));
  } finally { await relay.close(); await engine.close(); }
});

test('the fake vLLM engine parents its llm_request span on the traceparent: the span is found by the sent trace id', async () => {
  const spans: OtlpSpan[] = [];
  const receiver = await startOtlpReceiver({ port: 0, onSpans: (s) => { spans.push(...s); } });
  const engine = await startFakeEngine({ engine: 'vllm', schedule: 'first=5,every=2', otlpEndpoint: receiver.url });
  try {
    const io = bufferIO();
    assert.equal(await runSend(['--url', engine.url, '--max-tokens', '2', '--rid', 'tp-span', '--json'], io), 0, io.stderr);
    const j = JSON.parse(io.stdout) as { traceId: string; traceparent: string };
    for (let i = 0; i < 100 && spans.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(spans.length, 1);
    assert.equal(spans[0].traceId, j.traceId);
    assert.equal(spans[0].parentSpanId, j.traceparent.split('-')[2], 'the engine span is a child of the client span');
    assert.equal(spans[0].attributes['gen_ai.request.id'], 'chatcmpl-tp-span');
  } finally { await engine.close(); await receiver.close(); }
});

test('traceparent parsing follows W3C Trace Context: invalid headers are ignored', () => {
  assert.deepEqual(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'),
    { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', parentId: '00f067aa0ba902b7', sampled: true });
  assert.equal(parseTraceparent('00-00000000000000000000000000000000-00f067aa0ba902b7-01'), undefined, 'all-zero trace id');
  assert.equal(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'), undefined, 'all-zero parent id');
  assert.equal(parseTraceparent('ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'), undefined, 'version ff');
  assert.equal(parseTraceparent('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'), undefined, 'uppercase');
  assert.equal(parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'), undefined, 'version 00 has no more fields');
  assert.equal(parseTraceparent('01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra')?.sampled, false, 'a later version may add fields');
});

test('a random source that yields zeros first never gives an all-zero id', () => {
  let calls = 0;
  const ctx = newTraceContext((n) => Buffer.alloc(n, calls++ < 2 ? 0 : 0xab));
  assert.equal(ctx.traceId, 'ab'.repeat(16));
  assert.equal(ctx.spanId, 'ab'.repeat(8));
  assert.equal(ctx.traceparent, `00-${'ab'.repeat(16)}-${'ab'.repeat(8)}-01`);
});
