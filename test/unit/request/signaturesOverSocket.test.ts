// The coalescing and stall signatures over a real socket, with the server in its own process
// (test/unit/request/metrics.test.ts checks the detector's rules on a scripted transport).
// Each pattern is made unmistakable whatever the machine's load: frames 100 ms apart, a burst
// held for 600 ms and written in one write, a pause of 2 s. Noise on a busy 2-core box is tens
// of ms; a hiccup may add a signature elsewhere, never hide these.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sendTracedRequest } from '../../../src/core/request/client';
import { startFakeEngineProcess } from '../../harness/fakeEngineProcess';
import { makeTempDir } from '../../harness/tempDirs';

async function traced(schedule: string, frames: number) {
  const fe = await startFakeEngineProcess({ engine: 'vllm', logFile: join(makeTempDir('hoplens-sig-').path, 's.log'), schedule });
  try {
    const r = await sendTracedRequest({ url: fe.url, engine: 'vllm', api: 'chat', model: 'Qwen/Qwen3-0.6B', maxTokens: frames, timeoutMs: 30_000 });
    assert.equal(r.record.error, null, JSON.stringify(r.record.error));
    const content = r.record.frames.filter((f) => f.kind === 'content');
    assert.equal(content.length, frames);
    const gaps = content.slice(1).map((f, i) => `${(f.t - content[i].t).toFixed(1)}@${f.chunk}`).join(' ');
    return { ...r, content, gaps };
  } finally {
    fe.stop();
  }
}

test('coalescing: six frames held 600 ms and written in one write arrive together and read as coalescing', async () => {
  const r = await traced('first=50,frames=12,every=100,burst=6@3', 12);
  const c = r.metrics.signatures.find((s) => s.kind === 'coalescing');
  assert.ok(c, `signatures ${JSON.stringify(r.metrics.signatures)}; gaps@chunk ${r.gaps}`);
  // The first signature is the one at the burst, unless load merged earlier frames first.
  const burstAt = r.content[3].index;
  assert.ok(c.atFrame !== null && c.atFrame <= burstAt, `coalescing at frame #${c.atFrame}, the burst starts at #${burstAt}; gaps@chunk ${r.gaps}`);
  // The burst's frames came off the socket in one read.
  assert.equal(new Set(r.content.slice(3, 9).map((f) => f.chunk)).size, 1, r.gaps);
});

test('stall: a 2 s pause before frame 5 of 10, with nothing piled up behind it, reads as a stall there', async () => {
  const r = await traced('first=50,frames=10,every=100,stall=2000@5', 10);
  const stall = r.metrics.signatures.find((s) => s.kind === 'stall');
  assert.ok(stall, `signatures ${JSON.stringify(r.metrics.signatures)}; gaps@chunk ${r.gaps}`);
  assert.equal(stall.atFrame, r.content[5].index);
  assert.match(stall.explanation, /^2\d{3} ms gap before frame #\d+/);
});
