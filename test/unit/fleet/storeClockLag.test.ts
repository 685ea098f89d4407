// A log store's stamps from a clock behind the pod's by less than a second, which no stamp shows
// (each line printed late enough in its second for its stamp to land in that second): the window a
// line printed to the second is said to have happened in must still hold the time it happened.
// Two vLLM lines printed to the second (10 s and 20 s), happening 700 ms and 950 ms into them, read
// by the node's agent 2 ms later; the real-server side of this is storeClock.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestStamps, STAMP } from '../../../src/core/timeline/requestStamps';
import { StoreTimedStamps } from '../../../src/core/timeline/storeStamps';

const HAPPENED = [10_700, 20_950];

/** Each line's window [printed, printed + resMs) as the clock rules read it, with store stamps `lagMs` behind the pod's clock. */
function windows(lagMs: number): Array<[number, number]> {
  const printed = new RequestStamps();
  const store = new Map<number, number>();
  HAPPENED.forEach((at, i) => {
    printed.note(printed.row(`req-${i}`), STAMP.arrive, Math.floor(at / 1000) * 1000, 1000, i + 1);
    store.set(i + 1, at + 2 - lagMs);
  });
  const r = new StoreTimedStamps(printed, (line) => store.get(line) ?? null);
  return HAPPENED.map((_, i) => {
    const st = r.get(r.find(`req-${i}`), STAMP.arrive)!;
    return [st.time, st.time + st.resMs];
  });
}

test('a store clock 300 ms behind, shown by no stamp: each line\'s window still holds when it happened', () => {
  const w = windows(300);
  HAPPENED.forEach((at, i) => assert.ok(w[i][0] <= at && at < w[i][1], `line ${i + 1}: [${w[i].join(', ')}) holds ${at}`));
  // Still narrower than the printed second where the stamps allow it.
  assert.ok(w[0][1] - w[0][0] < 1000, `line 1: ${w[0][1] - w[0][0]} ms`);
});

test('the store\'s clock the pod\'s: the windows hold, narrowed by the stamps, widened by what the stamps cannot rule out', () => {
  const w = windows(0);
  HAPPENED.forEach((at, i) => assert.ok(w[i][0] <= at && at < w[i][1], `line ${i + 1}: [${w[i].join(', ')}) holds ${at}`));
  // 703 ms into the second, widened by the 48 ms line 2's stamp falls short of its second's end.
  assert.deepEqual(w[0], [10_000, 10_751]);
});

test('a store clock behind by more than the lines allow (a stamp before its printed second): the printed seconds, unnarrowed', () => {
  assert.deepEqual(windows(800), [[10_000, 11_000], [20_000, 21_000]]);
});
