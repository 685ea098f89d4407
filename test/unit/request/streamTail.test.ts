// Past the per-frame detail cap a stream keeps only a histogram of its gaps: its percentiles
// must stay within the ±1% the report promises, and the recorder must count every frame.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GapHistogram } from '../../../src/core/request/streamTail';
import { distribution } from '../../../src/core/request/metrics';
import { StreamRecorder } from '../../../src/core/request/recorder';

test('histogram percentiles are within 1% of the exact ones on an ITL-like mix (bursts, steady decode, stalls)', () => {
  let seed = 7;
  const rnd = (): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const gaps: number[] = [];
  for (let i = 0; i < 50_000; i++) {
    const r = rnd();
    gaps.push(r < 0.2 ? rnd() * 0.05 : r < 0.98 ? 8 + rnd() * 6 : 200 + rnd() * 2000);
  }
  const h = new GapHistogram();
  for (const g of gaps) h.add(g);
  const exact = distribution(gaps)!;
  const approx = h.distribution()!;
  assert.equal(approx.count, exact.count);
  assert.equal(approx.max, exact.max);
  assert.equal(approx.min, exact.min);
  assert.ok(Math.abs(approx.mean - exact.mean) < 1e-9 * exact.mean);
  for (const k of ['p50', 'p90', 'p99'] as const) {
    assert.ok(Math.abs(approx[k] - exact[k]) <= 0.01 * exact[k], `${k}: ${approx[k]} vs ${exact[k]}`);
  }
  // It survives a trip through a worker thread as plain data.
  const back = GapHistogram.from(structuredClone(JSON.parse(JSON.stringify(h))) as Parameters<typeof GapHistogram.from>[0]);
  assert.deepEqual(back.distribution(), approx);
});

test('the recorder keeps detail up to its cap and counts the rest, an error frame past the cap included', () => {
  const rec = new StreamRecorder('chat', 'auto', 10);
  const frame = (c: string) => `data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${c}"},"logprobs":null,"finish_reason":null}]}\n\n`;
  for (let i = 0; i < 25; i++) rec.push(Buffer.from(frame('a')), i * 10);
  rec.push(Buffer.from('data: {"error":{"message":"boom","type":"InternalServerError","code":500}}\n\n'), 300);
  rec.push(Buffer.from('data: [DONE]\n\n'), 310);
  rec.end(320);
  assert.equal(rec.frames.length, 11, '10 detailed frames and the error frame');
  assert.equal(rec.frames[10].kind, 'error');
  assert.equal(rec.tail!.frames, 16, '15 content frames and [DONE] past the cap');
  assert.equal(rec.tail!.outputFrames, 15);
  assert.equal(rec.tail!.itl.count, 15, 'the first gap past the cap is measured from the last detailed output frame');
  assert.equal(rec.tail!.itl.min, 10);
  assert.ok(rec.sawDone);
});
