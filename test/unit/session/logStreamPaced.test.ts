// A stream read at the editor's pace (in 64 K slices with turns of the event loop between them)
// reads a log exactly as one read at once: the parser still learns the engine and its layouts from
// the first 256 K, though it parses them a slice at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogSession } from '../../../src/core/session/logSession';
import { readLogStream } from '../../../src/core/session/logStream';
import type { Pace } from '../../../src/core/session/pace';

// SGLang under a logging config (SGLANG_LOGGING_CONFIG_PATH, the layout of sgl-project/sglang#4592):
// nothing in the first 150 K of lines says whose layout it is; the Prefill batch line after them does.
const POOL = Array.from({ length: 1500 }, (_, i) => `2026-08-21 22:50:${String(i % 60).padStart(2, '0')} INFO 4243 [model_runner.py:900] Memory pool end. avail mem=11.87 GB`);
const BATCH = '2026-08-21 22:50:10 INFO 4243 [metrics_reporter.py:653] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00';
const TEXT = [...POOL, BATCH].join('\n') + '\n';

async function* oneChunk(buf: Buffer): AsyncIterable<Buffer> { yield buf; }

test('paced: the lines before the one that shows the layout are the engine\'s, as in a read at once', async () => {
  const buf = Buffer.from(TEXT);
  assert.ok(buf.indexOf('Prefill batch') > 128 * 1024, 'the showing line is past the first two slices');
  const atOnce = new LogSession({ key: 'once' });
  await readLogStream(atOnce, oneChunk(buf));
  let turns = 0;
  const pace: Pace = { budgetMs: 0, clock: { now: () => 0 }, turn: () => { turns++; return Promise.resolve(); } };
  const paced = new LogSession({ key: 'paced' });
  await readLogStream(paced, oneChunk(buf), undefined, pace);
  assert.ok(turns >= 2, `read in slices (${turns} turns)`);
  assert.equal(atOnce.records[0].engine, 'sglang');
  assert.equal(atOnce.records[0].fileinfo, 'model_runner.py');
  assert.deepEqual(paced.records.map((r) => [r.engine, r.fileinfo, r.lineno, r.hop]), atOnce.records.map((r) => [r.engine, r.fileinfo, r.lineno, r.hop]));
  assert.equal(paced.records[POOL.length].hop, 'S3');
});
