// The per-request stamps the clock rules compare: the first received, the last answer, kept
// in columns for every request of a big log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestStamps, STAMP } from '../../../src/core/timeline/requestStamps';

test('"received" keeps the first stamp, "before response" the last', () => {
  const s = new RequestStamps();
  const r = s.row('chatcmpl-a');
  s.note(r, STAMP.arrive, 2000, 1000, 5);
  s.note(r, STAMP.arrive, 1000, 1000, 3);
  s.note(r, STAMP.arrive, 3000, 1000, 9);
  s.note(r, STAMP.beforeResponse, 1000, 1000, 3);
  s.note(r, STAMP.beforeResponse, 4000, 1, 12);
  s.note(r, STAMP.beforeResponse, 2000, 1000, 7);
  assert.deepEqual(s.get(r, STAMP.arrive), { time: 1000, resMs: 1000, line: 3 });
  assert.deepEqual(s.get(r, STAMP.beforeResponse), { time: 4000, resMs: 1, line: 12 });
  assert.equal(s.get(r, STAMP.admit), null);
});

test('thousands of requests grow the columns; each keeps its own row', () => {
  const s = new RequestStamps();
  for (let i = 0; i < 5000; i++) s.note(s.row(`r${i}`), STAMP.arrive, i, 1000, i + 1);
  assert.equal(s.size, 5000);
  assert.deepEqual(s.get(s.find('r4999'), STAMP.arrive), { time: 4999, resMs: 1000, line: 5000 });
  assert.deepEqual(s.get(s.find('r7'), STAMP.arrive), { time: 7, resMs: 1000, line: 8 });
  assert.equal(s.find('r5000'), -1);
});
