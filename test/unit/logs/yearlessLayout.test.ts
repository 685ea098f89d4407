// Issue 26 item 4: bracketed custom layouts whose date has no year (`[%(asctime)s]` with vLLM's own
// datefmt `%m-%d %H:%M:%S`, through VLLM_LOGGING_CONFIG_PATH or SGLANG_LOGGING_CONFIG_PATH). The line
// is parsed with its file, line and level; its year is the log's, inferred as for vLLM's own `MM-DD`
// prefix (December then January rolls the year over); a stamp no calendar has keeps no time and says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotateText, LogSession } from '../../../src/core/session/logSession';

const NEW_YEAR = Date.UTC(2027, 0, 1, 12);

test('year-less bracketed stamps: the log\'s year, rolled over at New Year as for vLLM\'s own prefix', () => {
  const { records } = annotateText([
    '[12-31 23:59:58][async_llm.py:439][INFO]: Added request chatcmpl-1.',
    '[12-31 23:59:59,250][async_llm.py:439][INFO] Added request chatcmpl-2.',
    '[01-01 00:00:01] [async_llm.py:439] [INFO]: Added request chatcmpl-3.',
    '(APIServer pid=1) INFO 01-01 00:00:02 [async_llm.py:439] Added request chatcmpl-4.',
  ].join('\n') + '\n', 'auto', { referenceTime: NEW_YEAR });
  const [dec, decMs, jan, own] = records;
  for (const r of records) assert.deepEqual([r.engine, r.hop, r.fileinfo, r.lineno, r.level], ['vllm', 'V2', 'async_llm.py', 439, 'INFO'], r.message);
  assert.equal(dec.time, Date.UTC(2026, 11, 31, 23, 59, 58));
  assert.deepEqual([decMs.time, decMs.timeResolution], [Date.UTC(2026, 11, 31, 23, 59, 59, 250), 'ms']);
  assert.equal(jan.time, Date.UTC(2027, 0, 1, 0, 0, 1), 'January after December is the next year');
  assert.equal(own.time, Date.UTC(2027, 0, 1, 0, 0, 2), "vLLM's own prefix after it shares the inferred year");
  assert.equal(jan.rid, 'chatcmpl-3');
});

test("SGLang's rank inside the date's bracket, the level first, the logger and line: parsed, timed, tagged", () => {
  const { records } = annotateText([
    '[08-21 22:50:10 TP0][scheduler.py:1103][INFO]: Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, '
      + '#running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.53',
    '[08-21 22:50:11][INFO][sglang.srt.managers.scheduler:1103] Decode batch, #running-req: 1, #token: 20, token usage: 0.00, '
      + 'cuda graph: True, gen throughput (token/s): 44.95, #queue-req: 0',
  ].join('\n') + '\n', 'auto', { referenceTime: Date.UTC(2026, 11, 2) });
  const [prefill, decode] = records;
  assert.deepEqual([prefill.engine, prefill.hop, prefill.process, prefill.fileinfo, prefill.lineno], ['sglang', 'S3', 'TP0', 'scheduler.py', 1103]);
  assert.equal(prefill.time, Date.UTC(2026, 7, 21, 22, 50, 10));
  assert.deepEqual([decode.engine, decode.hop, decode.logger, decode.lineno, decode.time], ['sglang', 'S4', 'sglang.srt.managers.scheduler', 1103, Date.UTC(2026, 7, 21, 22, 50, 11)]);
});

test('an impossible year-less stamp: parsed, time unknown with the reason, and the next line keeps its year', () => {
  const { records } = annotateText([
    '[08-21 22:30:05][async_llm.py:439][INFO]: Added request chatcmpl-1.',
    '[84-21 25:30:05][async_llm.py:439][INFO]: Added request chatcmpl-2.',
    '[02-30 10:00:00][async_llm.py:439][INFO]: Added request chatcmpl-3.',
    '[08-21 22:30:07][async_llm.py:439][INFO]: Added request chatcmpl-4.',
    // vLLM's own prefix: 30 February was taken for a new year's month before.
    '(APIServer pid=1) INFO 02-30 10:00:00 [async_llm.py:439] Added request chatcmpl-5.',
    '(APIServer pid=1) INFO 08-21 22:30:09 [async_llm.py:439] Added request chatcmpl-6.',
  ].join('\n') + '\n', 'auto', { referenceTime: Date.UTC(2026, 11, 2) });
  const [ok, month84, feb30, after, ownFeb30, ownAfter] = records;
  assert.deepEqual([ownFeb30.engine, ownFeb30.hop, ownFeb30.time], ['vllm', 'V2', null]);
  assert.equal(ownAfter.time, ok.time! + 4000, 'nor did 30 February in vLLM\'s own prefix');
  assert.deepEqual([month84.engine, month84.hop, month84.rid, month84.time, month84.timeResolution], ['vllm', 'V2', 'chatcmpl-2', null, null]);
  assert.match(month84.timeUnknown!, /month 84, hour 25/);
  assert.equal(feb30.time, null);
  assert.match(feb30.timeUnknown!, /day 30/);
  assert.equal(after.time, ok.time! + 2000, 'month 84 rolled no year over');
  assert.equal(ok.timeUnknown, undefined);
});

test('the same lines read as bytes (the CLI and large files) get the same times', () => {
  const text = [
    '[12-31 23:59:58][async_llm.py:439][INFO]: Added request chatcmpl-1.',
    '(APIServer pid=1) INFO 02-30 10:00:00 [async_llm.py:439] Added request chatcmpl-2.',
    '[01-01 00:00:01][async_llm.py:439][INFO]: Added request chatcmpl-3.',
  ].join('\n') + '\n';
  const s = new LogSession({ engine: 'auto', referenceTime: NEW_YEAR });
  s.appendBytes(Buffer.from(text));
  s.end();
  assert.deepEqual(s.records.map((r) => [r.engine, r.hop, r.time]), [
    ['vllm', 'V2', Date.UTC(2026, 11, 31, 23, 59, 58)], ['vllm', 'V2', null], ['vllm', 'V2', Date.UTC(2027, 0, 1, 0, 0, 1)],
  ]);
});

test('a sentence or another program\'s line that starts with a year-less date is no engine\'s line', () => {
  const { records } = annotateText([
    '08-21 22:30:05 was when the node restarted',
    '[08-21 22:30:05] backup finished in 4 s',
    '12-31 23:59:59 - 01-01 00:00:00 maintenance window',
  ].join('\n') + '\n', 'auto', { referenceTime: Date.UTC(2026, 11, 2) });
  for (const r of records) assert.equal(r.engine, 'other', r.message);
});
