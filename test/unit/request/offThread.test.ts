// Traced requests on a worker thread: a busy calling thread no longer delays the chunk stamps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeEngineProcess } from '../../harness/fakeEngineProcess';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { TracedRequestWorker, sendTracedRequest } from '../../../src/core/request/index';
import { makeTempDir } from '../../harness/tempDirs';

const WORKER = join(__dirname, '..', '..', '..', '..', 'dist', 'tracedRequest.js');

function blockFor(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* the extension host busy with something else */ }
}

test('the worker bundle is built (npm test builds before testing)', () => {
  assert.ok(existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs`);
});

/** Gaps between content frames, and how many of them are ~0 ms (frames stamped together). */
function gapsOf(frames: { kind: string; t: number }[]): { gaps: number[]; together: number; text: string } {
  const content = frames.filter((f) => f.kind === 'content');
  const gaps = content.slice(1).map((f, i) => f.t - content[i].t);
  return { gaps, together: gaps.filter((g) => g < 2).length, text: gaps.map((g) => g.toFixed(1)).join(' ') };
}

test('while the calling thread is blocked, frames are still stamped when they arrive', async () => {
  // The server runs in its own process, like a real engine: 12 frames 100 ms apart. The calling
  // thread (the extension host) is blocked for 1.3 s from the first frame on, so every later frame
  // arrives while it is busy. Stamped there, they would all get the moment it wakes (gaps of 0);
  // stamped in the worker, they keep their 100 ms. The same client on the calling thread, in the
  // same run, shows the difference is not luck.
  const fe = await startFakeEngineProcess({ engine: 'vllm', logFile: join(makeTempDir('hoplens-offthread-').path, 's.log'), schedule: 'first=60,frames=12,every=100' });
  const thread = new TracedRequestWorker(WORKER);
  const options = { url: fe.url, engine: 'vllm' as const, api: 'chat' as const, maxTokens: 12 };
  let blocked = false;
  const blockOnFirstFrame = () => { if (!blocked) { blocked = true; blockFor(1300); } };
  try {
    const [r] = await thread.send({ options }, { onFrames: blockOnFirstFrame });
    assert.equal(r.record.error, null);
    const worker = gapsOf(r.record.frames);
    assert.equal(worker.gaps.length, 11);

    blocked = false;
    const here = await sendTracedRequest(options, { onFrame: blockOnFirstFrame });
    const onCallingThread = gapsOf(here.record.frames);
    assert.ok(onCallingThread.together >= 9, `the control: stamped on the blocked thread, ${onCallingThread.together} of 11 gaps are ~0 ms: ${onCallingThread.text}`);
    // A loaded machine can make the server write two frames at once now and then; not most of them.
    assert.ok(worker.together <= 5, `stamped in the worker, ${worker.together} of 11 gaps are ~0 ms: ${worker.text}`);
  } finally {
    fe.stop();
    thread.dispose();
  }
});

test('a cancel from the calling thread aborts the socket in the worker, and the server sees the client go', async () => {
  // 200 frames 50 ms apart: 10 s of stream; the cancel comes once 3 frames are in.
  const fe = await startFakeEngine({ engine: 'vllm', port: 0, schedule: 'first=50,frames=200,every=50' });
  const thread = new TracedRequestWorker(WORKER);
  try {
    const ac = new AbortController();
    const [r] = await thread.send({ options: { url: fe.url, engine: 'vllm', api: 'chat', maxTokens: 200 } }, { signal: ac.signal, onFrames: (n) => { if (n >= 3) ac.abort(); } });
    assert.equal(r.record.error?.kind, 'cancelled');
    const content = r.record.frames.filter((f) => f.kind === 'content').length;
    assert.ok(content >= 2 && content < 200, `${content} content frames before the cancel`);
    await fe.idle();
    assert.equal(fe.writesFor(r.record.requestId)?.aborted, true, 'the server saw the connection close');
  } finally {
    await fe.close();
    thread.dispose();
  }
});
