// A log read on another thread for the streamed view: the view's copy of the requests, built only
// from what each slice learnt, answers the same as the reader's, and the bundled thread reads a
// file as the calling thread would (truncation starting it over).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession } from '../../../src/core/session/logSession';
import { RequestTracker } from '../../../src/core/logs/requests';
import { StreamedLogReplica, StreamedLogThread, type StreamDelta } from '../../../src/core/session/streamedLog';
import { makeTempDir } from '../../harness/tempDirs';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs');
const WORKER = join(__dirname, '..', '..', '..', '..', 'dist', 'streamedLog.js');

/** Everything the Requests view and a request's hops read from a tracker. */
function answers(t: RequestTracker): unknown {
  return { count: t.requestCount, counts: [...t.counts], engine: t.engine, all: t.all(), briefs: [...t.rids()].map((r) => t.brief(r)) };
}

for (const name of ['vllm_info_chat_and_abort.log', 'sglang_tp2_request.log', 'vllm_debug_tp2_multiline.log']) {
  test(`a copy fed only the news of each slice answers as the tracker that parsed ${name}`, () => {
    const bytes = readFileSync(join(FIXTURES, name));
    const plain = new LogSession({ engine: 'auto', keepRecords: false });
    plain.appendBytes(bytes, false);
    plain.end();
    for (const cut of [7, 61, 400, bytes.length]) {
      const session = new LogSession({ engine: 'auto', keepRecords: false, newTracker: (forced, opts) => new RequestTracker(forced, { ...opts, journal: true }) });
      const copy = new RequestTracker(null, { journal: true });
      let mark = RequestTracker.START;
      const give = () => { const out = session.tracker.exportSince(mark); mark = out.mark; copy.applyDelta(out.delta); };
      for (let at = 0; at < bytes.length; at += cut) { session.appendBytes(bytes.subarray(at, at + cut), false); give(); }
      session.end();
      give();
      assert.ok(plain.tracker.requestCount > 0, 'the fixture has requests');
      assert.deepEqual(answers(copy), answers(plain.tracker), `slices of ${cut} bytes`);
    }
  });
}

function bigLog(requests: number): string {
  const sample = readFileSync(join(FIXTURES, 'vllm_info_chat_and_abort.log'), 'utf8').split('\n').filter((l) => l.startsWith('(APIServer'));
  const lines: string[] = [];
  for (let r = 0; r < requests; r++) {
    const n = String(r).padStart(6, '0');
    for (const l of sample) lines.push(l.replace(/myrun-0001/g, `big-${n}`).replace(/5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10/g, `b${n}`));
  }
  return lines.join('\n') + '\n';
}

async function readAll(thread: StreamedLogThread, replica: StreamedLogReplica): Promise<StreamDelta[]> {
  const seen: StreamDelta[] = [];
  await thread.read((d) => { seen.push(d); replica.apply(d); });
  return seen;
}

test('the bundled reading thread reads a log as the calling thread does, and starts over when the file is truncated', async () => {
  assert.ok(existsSync(WORKER), `${WORKER} is missing: run node esbuild.mjs`);
  const dir = makeTempDir('hoplens-streamed-');
  const thread = new StreamedLogThread(join(dir.path, 'server.log'), WORKER);
  try {
    const text = bigLog(3000); // about 2 MB: more than one slice
    writeFileSync(join(dir.path, 'server.log'), text);
    const replica = new StreamedLogReplica();
    const deltas = await readAll(thread, replica);
    const here = new StreamedLogReplica();
    await readAll(new StreamedLogThread(join(dir.path, 'server.log')), here);
    assert.ok(deltas.length >= 2, `read in slices (${deltas.length})`);
    assert.equal(replica.linesParsed, text.split('\n').length - 1);
    assert.equal(replica.tracker.requestCount, 6000);
    assert.deepEqual(answers(replica.tracker), answers(here.tracker));
    assert.equal(replica.sampledOffset(2), here.sampledOffset(2));
    assert.equal(replica.sampledOffset(2), Buffer.byteLength(text.split('\n').slice(0, 2048).join('\n')) + 1);
    // The server restarts and overwrites its log: the next read starts over from line 1.
    writeFileSync(join(dir.path, 'server.log'), bigLog(2));
    await readAll(thread, replica);
    assert.equal(replica.tracker.requestCount, 4);
    assert.equal(replica.linesParsed, bigLog(2).split('\n').length - 1);
  } finally { thread.dispose(); dir.remove(); }
});
