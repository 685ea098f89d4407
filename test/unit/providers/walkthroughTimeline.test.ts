// The walkthrough's timeline button: the request traced last goes to Show Request Timeline as
// its id (no input box, which the walkthrough page would close); with none traced yet, the user
// is told to send one first and nothing else runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { showLastTracedTimeline } from '../../../src/features/walkthrough/timelineStep';

function deps(last: { logRequestId: string } | undefined) {
  const shown: string[] = [];
  const told: string[] = [];
  return { shown, told, d: { lastTraced: () => last, showTimeline: async (rid: string) => { shown.push(rid); }, inform: (m: string) => { told.push(m); } } };
}

test('the request traced last, by the id its server log prints', async () => {
  const t = deps({ logRequestId: 'chatcmpl-hoplens-1f3a9c0e' });
  assert.equal(await showLastTracedTimeline(t.d), 'chatcmpl-hoplens-1f3a9c0e');
  assert.deepEqual(t.shown, ['chatcmpl-hoplens-1f3a9c0e']);
  assert.deepEqual(t.told, []);
});

test('nothing traced yet: says to send one first, shows nothing', async () => {
  const t = deps(undefined);
  assert.equal(await showLastTracedTimeline(t.d), undefined);
  assert.deepEqual(t.shown, []);
  assert.match(t.told[0], /^HopLens: send a traced request first .*Show Request Timeline… from the palette/);
});
