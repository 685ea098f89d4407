// Metrics and signatures with a fake clock: a scripted transport hands the client
// chunks stamped at chosen times, so every figure has an exact expected value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendTracedRequest } from '../../../src/core/request/client';
import { aggregateRuns } from '../../../src/core/request/metrics';
import type { HttpTransport, ResponseSink } from '../../../src/core/request/transport';
import type { Clock } from '../../../src/core/request/types';
import { sse, DONE, VllmChunks } from '../../../src/testing/fakeEngine/frames';

const T0 = 5000; // the fake clock's reading when the request starts

/** Replays `[time after start, bytes]` pairs as if they came off a socket. */
function scripted(chunks: [number, string][], status = 200, contentType = 'text/event-stream; charset=utf-8'): { transport: HttpTransport; clock: Clock; sentBodies: string[] } {
  const sentBodies: string[] = [];
  const clock: Clock = { now: () => T0 };
  const transport: HttpTransport = {
    start(init, sink: ResponseSink) {
      if (init.body) sentBodies.push(init.body);
      setImmediate(() => {
        sink.requestWritten(T0 + 0.2);
        sink.headers(status, { 'content-type': contentType }, T0 + 3);
        for (const [t, s] of chunks) sink.chunk(Buffer.from(s, 'utf8'), T0 + t);
        sink.end(T0 + (chunks.length ? chunks[chunks.length - 1][0] : 3) + 0.5);
      });
      return { abort() { /* nothing in flight */ } };
    },
  };
  return { transport, clock, sentBodies };
}

const vllm = new VllmChunks('chatcmpl-r1', 'm', 1, 'chat');
const usage = (n: number) => ({ prompt: 5, completion: n });

/** A vLLM chat stream: role at `roleAt`, content frames at `times` (k tokens each), then finish/usage/[DONE]. */
function vllmStream(roleAt: number, times: number[], k = 1, sameChunk: number[][] = []): [number, string][] {
  const out: [number, string][] = [[roleAt, sse(vllm.role(usage(0)))]];
  times.forEach((t, i) => out.push([t, sse(vllm.content('x'.repeat(k), usage((i + 1) * k)))]));
  const end = times[times.length - 1];
  out.push([end, sse(vllm.finish('length', usage(times.length * k))) + sse(vllm.usage(usage(times.length * k))) + DONE]);
  // Merge chunks that arrived together (indexes into `times`, +1 for the role frame).
  for (const group of sameChunk) {
    const merged = group.map((i) => out[i + 1][1]).join('');
    const t = out[group[group.length - 1] + 1][0];
    for (const i of group) out[i + 1] = [t, ''];
    out[group[group.length - 1] + 1] = [t, merged];
  }
  return out.filter(([, s]) => s !== '');
}

const base = { url: 'http://127.0.0.1:1', engine: 'vllm' as const, model: 'm', requestId: 'r1' };

test('TTFT counts from the first content frame and from the first frame at all; ITL, TPOT, E2E', async () => {
  const times = Array.from({ length: 10 }, (_, i) => 150 + 20 * i); // 150 … 330
  const { transport, clock } = scripted(vllmStream(100, times));
  const { record, metrics: m } = await sendTracedRequest(base, { transport, clock });
  assert.equal(record.error, null);
  assert.equal(m.ttftFirstFrameMs, 100);
  assert.equal(m.ttftContentMs, 150);
  assert.equal(m.headersMs, 3);
  assert.equal(m.outputFrames, 10);
  assert.equal(m.framesWithoutOutput, 4); // role, finish, usage, [DONE]
  assert.equal(m.outputTokens, 10);
  assert.equal(m.outputTokensSource, 'usage');
  assert.ok(m.itlMs);
  assert.equal(m.itlMs.count, 9);
  assert.ok(Math.abs(m.itlMs.mean - 20) < 1e-9);
  assert.equal(m.itlMs.p99, 20);
  assert.equal(m.e2eMs, 330.5);
  assert.ok(Math.abs((m.tpotMs ?? 0) - (330.5 - 150) / 9) < 1e-9);
  assert.deepEqual(m.signatures, []);
});

test('coalescing: a long gap, then several frames in one chunk', async () => {
  // 20 ms apart, but frames 8..11 are held back and arrive together at 150+20·11.
  const times = Array.from({ length: 16 }, (_, i) => 150 + 20 * i);
  const { transport, clock } = scripted(vllmStream(150, times, 1, [[8, 9, 10, 11]]));
  const { metrics: m } = await sendTracedRequest(base, { transport, clock });
  const kinds = m.signatures.map((s) => s.kind);
  assert.deepEqual(kinds, ['coalescing']);
  assert.equal(m.signatures[0].atFrame, 9); // frame index (role frame is #0, content #1…): content 8 is frame #9
  assert.match(m.signatures[0].explanation, /^80.0 ms gap .*4 frames arrived within 0.0 ms/);
  assert.equal(m.itlMs?.max, 80);
});

test('sawtooth: every frame carries 4 tokens (--stream-interval 4); per-token ITL divides the gap', async () => {
  const times = Array.from({ length: 8 }, (_, i) => 100 + 40 * i);
  const { transport, clock } = scripted(vllmStream(100, times, 4));
  const { metrics: m } = await sendTracedRequest(base, { transport, clock });
  assert.deepEqual(m.signatures.map((s) => s.kind), ['sawtooth']);
  assert.match(m.signatures[0].explanation, /--stream-interval 4/);
  assert.equal(m.outputTokens, 32);
  assert.equal(m.itlPerTokenMs?.p50, 10);
  assert.equal(m.itlPerTokenMs?.count, 28);
  assert.equal(m.multiTokenFrames.length, 8);
  assert.ok(Math.abs((m.tpotMs ?? 0) - (380.5 - 100) / 31) < 1e-9);
});

test('stall: one gap far above the rest with nothing piled up behind it', async () => {
  const times = Array.from({ length: 12 }, (_, i) => 100 + 20 * i + (i >= 6 ? 400 : 0));
  const { transport, clock } = scripted(vllmStream(100, times));
  const { metrics: m } = await sendTracedRequest(base, { transport, clock });
  assert.deepEqual(m.signatures.map((s) => s.kind), ['stall']);
  assert.match(m.signatures[0].explanation, /420 ms gap before frame #7/);
});

test('the request carries our id where vLLM reads it, and usage options for per-frame token counts', async () => {
  const { transport, clock, sentBodies } = scripted(vllmStream(10, [20, 30]));
  const { record } = await sendTracedRequest({ ...base, requestId: 'hoplens-20260101T000000-abcdef', extraBody: { top_p: 0.5 } }, { transport, clock });
  const body = JSON.parse(sentBodies[0]) as Record<string, unknown>;
  assert.equal(body.request_id, 'hoplens-20260101T000000-abcdef');
  assert.deepEqual(body.stream_options, { include_usage: true, continuous_usage_stats: true });
  assert.equal(body.top_p, 0.5);
  assert.equal(record.request.headers['X-Request-Id'], 'hoplens-20260101T000000-abcdef');
  assert.deepEqual(record.serverIds, ['chatcmpl-hoplens-20260101T000000-abcdef']);
});

test('without server token counts, output tokens fall back to one per content frame and say so', async () => {
  const noUsage = new VllmChunks('chatcmpl-r1', 'm', 1, 'chat');
  const chunks: [number, string][] = [[50, sse(noUsage.role(null))], [60, sse(noUsage.content('a', null))], [70, sse(noUsage.content('b', null))], [80, sse(noUsage.finish('stop', null)) + DONE]];
  const { transport, clock } = scripted(chunks);
  const { metrics: m } = await sendTracedRequest(base, { transport, clock });
  assert.equal(m.outputTokens, 2);
  assert.equal(m.outputTokensSource, 'frames');
  assert.equal(m.itlPerTokenMs, null);
});

test('aggregateRuns: distribution across runs, failures listed', async () => {
  const runs = [];
  for (const first of [100, 120, 140]) {
    const { transport, clock } = scripted(vllmStream(first, [first + 10, first + 30, first + 50]));
    runs.push(await sendTracedRequest(base, { transport, clock }));
  }
  const { transport, clock } = scripted([[10, 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n']]);
  runs.push(await sendTracedRequest(base, { transport, clock })); // ends without [DONE]
  const s = aggregateRuns(runs);
  assert.equal(s.runs, 4);
  assert.equal(s.completed, 3);
  assert.deepEqual(s.failed.map((f) => f.kind), ['no-done']);
  assert.equal(s.ttftContentMs?.p50, 130);
  assert.equal(s.ttftContentMs?.min, 110);
  assert.equal(s.itlMs?.count, 6);
});

test('ITL histogram for the plot: every gap lands in one bin, the spike in the last', async () => {
  const { itlHistogram } = await import('../../../src/core/request/metrics');
  const times = [100, 120, 140, 160, 260];
  const { transport, clock } = scripted(vllmStream(100, times));
  const { record } = await sendTracedRequest(base, { transport, clock });
  const h = itlHistogram(record, 5);
  assert.equal(h.length, 5);
  assert.equal(h.reduce((a, b) => a + b.count, 0), 4);
  assert.equal(h[4].count, 1); // the 100 ms gap
  assert.deepEqual(h.map((b) => b.count), [0, 3, 0, 0, 1]); // bins of 20 ms: a 20 ms gap sits on the edge, in [20, 40)
});
