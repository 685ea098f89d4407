// Issue 26 item 5: a stamp no calendar has (month 84, hour 25, 30 February) is not rolled into
// another date. The line is still parsed (engine, hop, request id); its time is unknown, and the
// record says why; the lines after it keep their own dates (no year rolled over by month 84).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotateText } from '../../../src/core/session/logSession';
import { stampProblem, stampUtc } from '../../../src/core/logs/civilTime';

test('impossible stamps: parsed, time unknown with the reason, and the next lines keep their dates', () => {
  const { records } = annotateText([
    '(APIServer pid=1) INFO 02-13 10:00:00 [async_llm.py:439] Added request chatcmpl-1.',
    '(APIServer pid=1) INFO 84-02 25:00:00 [async_llm.py:439] Added request chatcmpl-2.',
    '(APIServer pid=1) INFO 02-13 10:00:02 [async_llm.py:439] Added request chatcmpl-3.',
    '[2026-02-30 10:11:14 TP0] Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0',
    '2026-12-02 24:00:07,123 - sglang.srt.managers.scheduler - INFO - Load weight end.',
  ].join('\n') + '\n', 'auto', { referenceTime: Date.UTC(2026, 11, 2) });
  const [ok, month84, after, feb30, hour24] = records;
  assert.deepEqual([month84.engine, month84.hop, month84.rid, month84.time, month84.timeResolution], ['vllm', 'V2', 'chatcmpl-2', null, null]);
  assert.match(month84.timeUnknown!, /month 84, hour 25/);
  assert.equal(after.time, ok.time! + 2000, 'the line after keeps the year and month of the line before');
  assert.deepEqual([feb30.engine, feb30.hop, feb30.time], ['sglang', 'S4', null]);
  assert.match(feb30.timeUnknown!, /day 30/);
  assert.equal(hour24.time, null);
  assert.match(hour24.timeUnknown ?? '', /hour 24/);
  assert.equal(ok.timeUnknown, undefined);
});

test('stampUtc: real times as Date.UTC, impossible ones NaN; 29 February only in leap years', () => {
  assert.equal(stampUtc(2026, 12, 31, 23, 59, 59), Date.UTC(2026, 11, 31, 23, 59, 59));
  assert.ok(Number.isNaN(stampUtc(2026, 2, 29, 0, 0, 0)));
  assert.equal(stampUtc(2024, 2, 29, 0, 0, 0), Date.UTC(2024, 1, 29));
  assert.equal(stampProblem(2026, 13, 1, 0, 60, 0), 'month 13, minute 60');
});
