// Traced requests on a worker thread: a busy calling thread no longer delays the chunk stamps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeEngineProcess } from '../../harness/fakeEngineProcess';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { TracedRequestWorker } from '../../../src/core/request/index';
import { makeTempDir } from '../../harness/tempDirs';

const WORKER = join(__dirname, '..', '..', '..', '..', 'dist', 'tracedRequest.js');

function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* the extension host busy with something else */ }
}

test('the worker bundle is built (npm test builds before testing)', () => {
  assert.ok(existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs`);
});

test('while the calling thread is blocked, frames are still stamped when they arrive', async () => {
  // The server runs in its own process, like a real engine.
  const fe = await startFakeEngineProcess({ engine: 'vllm', logFile: join(makeTempDir('hoplens-offthread-').path, 's.log'), schedule: 'first=60,frames=15,every=20' });
  const thread = new TracedRequestWorker(WORKER);
  try {
    const pending = thread.send({ options: { url: fe.url, engine: 'vllm', api: 'chat', maxTokens: 15 } });
    await new Promise((r) => setTimeout(r, 80));
    blockFor(250); // the calling thread (the extension host) is busy for most of the stream
    const [r] = await pending;
    assert.equal(r.record.error, null);
    const content = r.record.frames.filter((f) => f.kind === 'content');
    assert.equal(content.length, 15);
    const gaps = content.slice(1).map((f, i) => f.t - content[i].t);
    // Stamped on the blocked thread, the frames of those 250 ms would share one time (gap 0).
    const zero = gaps.filter((g) => g < 2).length;
    assert.ok(zero <= 2, `${zero} of ${gaps.length} gaps are ~0 ms: ${gaps.map((g) => g.toFixed(1)).join(' ')}`);
  } finally {
    fe.stop();
    thread.dispose();
  }
});

test('a cancel from the calling thread aborts the socket in the worker', async () => {
  const fe = await startFakeEngine({ engine: 'vllm', port: 0, schedule: 'first=50,frames=200,every=20' });
  const thread = new TracedRequestWorker(WORKER);
  try {
    const ac = new AbortController();
    const pending = thread.send({ options: { url: fe.url, engine: 'vllm', api: 'chat', maxTokens: 200 } }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 300);
    const [r] = await pending;
    assert.equal(r.record.error?.kind, 'cancelled');
    assert.ok(r.record.frames.length > 3 && r.record.frames.length < 100, `${r.record.frames.length} frames before the cancel`);
  } finally {
    await fe.close();
    thread.dispose();
  }
});
