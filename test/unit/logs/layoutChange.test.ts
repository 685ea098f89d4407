// A log whose layout changes partway (issue 10): SGLang's default header for thousands of start-up
// lines, then a logging config takes over (SGLANG_LOGGING_CONFIG_PATH, layout of sgl-project/sglang#4592).
// The first line in the new layout is the engine's as soon as the lines that follow show it (a hop in
// that layout), in the editor (text parsed in slices) and in the CLI (bytes in chunks); a library's
// line in a layout of its own stays no engine's. The change comes after primeState's window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotateText, LogSession } from '../../../src/core/session/logSession';
import type { LogRecord } from '../../../src/core/logs/model';

const START = Array.from({ length: 3000 }, (_, i) => `[2026-08-21 22:49:${String(i % 60).padStart(2, '0')} TP0] Load weight begin. avail mem=${(78 - i / 1000).toFixed(2)} GB`);
const AFTER = [
  '2026-08-21 22:50:01 INFO 4243 [model_runner.py:880] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.61 GB, mem usage=15.38 GB.',
  '2026-08-21 22:50:02,002 - httpx - INFO - HTTP Request: GET http://127.0.0.1:30000/health "HTTP/1.1 200 OK"',
  ...Array.from({ length: 200 }, () => '2026-08-21 22:50:03 INFO 4243 [model_runner.py:900] Memory pool end. avail mem=11.87 GB'),
  '2026-08-21 22:50:10 INFO 4243 [metrics_reporter.py:653] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00',
];
const TEXT = [...START, ...AFTER].join('\n') + '\n';
const FIRST_NEW = START.length + 1;

function check(records: readonly LogRecord[]): void {
  const at = (n: number) => records.find((r) => r.line === n)!;
  assert.equal(at(FIRST_NEW).engine, 'sglang', 'the first line in the new layout');
  assert.equal(at(FIRST_NEW).fileinfo, 'model_runner.py');
  assert.equal(at(FIRST_NEW).lineno, 880);
  assert.equal(at(FIRST_NEW + 1).engine, 'other', "httpx's line in its own layout");
  assert.equal(at(FIRST_NEW + 2).engine, 'sglang');
  assert.equal(at(FIRST_NEW + AFTER.length - 1).hop, 'S3');
}

test('editor: the first line after the layout changes is read in the new layout, in slices too', async () => {
  check(annotateText(TEXT).records);
  const s = new LogSession({ key: 'x' });
  await s.syncText({ version: 1, getText: () => TEXT }, { budgetMs: 5, sliceChars: 16 * 1024 });
  check(s.records);
});

test('CLI: the same from bytes read in chunks of 1 MiB (what the CLI reads)', () => {
  const s = new LogSession({ key: 'y' });
  const buf = Buffer.from(TEXT);
  const CHUNK = 1024 * 1024;
  for (let i = 0; i < buf.length; i += CHUNK) s.appendBytes(buf.subarray(i, i + CHUNK));
  s.end();
  check(s.records);
});

test('CLI: a change just before a chunk ends is read from the next chunk on (the look ahead is tried again)', () => {
  const s = new LogSession({ key: 'z' });
  const buf = Buffer.from(TEXT);
  const firstNew = buf.indexOf('2026-08-21 22:50:01 INFO');
  s.appendBytes(buf.subarray(0, firstNew + 200));
  s.appendBytes(buf.subarray(firstNew + 200));
  s.end();
  assert.equal(s.records[FIRST_NEW - 1].engine, 'other', 'nothing ahead of it showed the layout yet');
  assert.equal(s.records[FIRST_NEW + 1].engine, 'sglang', 'the next line of the layout, in the next chunk');
});

test('without a line that shows it, a layout first seen partway stays unknown', () => {
  const text = [...START, AFTER[0], AFTER[1]].join('\n') + '\n';
  const recs = annotateText(text).records;
  assert.equal(recs[FIRST_NEW - 1].engine, 'other');
  assert.equal(recs[FIRST_NEW].engine, 'other');
});
