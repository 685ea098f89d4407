// A vLLM line stamped to the second was printed somewhere in that second: the report shows the
// range it allows relative to the request's start, never a point it cannot support.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServerTime, secondStampRangeText } from '../../../src/core/request/logLink';

test('a line stamped in the second the request started in spans the start', () => {
  // The request started at 22:30:05.337; the line says 22:30:05 (the second 22:30:05.000–.999).
  const start = new Date(2026, 7, 21, 22, 30, 5, 337).getTime();
  const stamp = parseServerTime('(APIServer pid=2101) INFO 08-21 22:30:05 [logger.py:43] Received request chatcmpl-myrun-0001: …', start)!;
  assert.equal(stamp.resolution, 's');
  assert.equal(stamp.epochMs - start, -337);
  assert.equal(secondStampRangeText(stamp.epochMs - start), '−0.4 … +0.7 s');
  assert.equal(secondStampRangeText(-600), '−0.6 … +0.4 s');
});

test('a line a whole second later is wholly after the start; an earlier one wholly before', () => {
  assert.equal(secondStampRangeText(663), '+0.6 … +1.7 s');
  assert.equal(secondStampRangeText(0), '+0.0 … +1.0 s');
  assert.equal(secondStampRangeText(-1337), '−1.4 … −0.3 s');
});
