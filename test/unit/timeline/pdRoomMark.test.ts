// The timeline marks a line it joined to the request by its bootstrap_room (a prefill line naming
// only the room, paired by the decode log's line naming the rid beside it): `hoplens timeline`
// says "(by bootstrap_room N)" after its line number, `--json` gives the item `detail.joinedBy`
// (an added key; the request's own lines have none), and the editor's timeline names it in the
// item's tooltip, its facts and the in-order table. Lines of pdRoomLines.ts (SGLang's f-strings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTimeline } from '../../../src/cli/timeline';
import { bufferIO } from '../../../src/cli/io';
import { loadTimeline } from '../../../src/core/timeline/load';
import { laneItemsHtml, timelineBodyHtml, timelineViewModel } from '../../../src/features/timeline/timelineHtml';
import { makeTempDir } from '../../harness/tempDirs';
import { DECODE, PREFILL, RID, ROOM } from '../logs/pdRoomLines';

function staged(): { prefill: string; decode: string } {
  const dir = makeTempDir('hoplens-pdroom-mark-').path;
  const prefill = join(dir, 'prefill.log');
  const decode = join(dir, 'decode.log');
  writeFileSync(prefill, PREFILL);
  writeFileSync(decode, DECODE);
  return { prefill, decode };
}

interface ItemJson { kind: string; ref?: { path: string; line: number }; detail?: Record<string, unknown> }

test('hoplens timeline marks the prefill line as joined by bootstrap_room, in its text and its JSON; the decode lines are not marked', async () => {
  const p = staged();
  const io = bufferIO();
  assert.equal(await runTimeline(['--rid', RID, p.prefill, p.decode], io), 0);
  const rows = io.stdout.split('\n').filter((l) => / {2}L\d+/.test(l));
  assert.deepEqual(rows.map((l) => /L\d+.*$/.exec(l)![0]), [`L2  (by bootstrap_room ${ROOM})`, 'L1', 'L2']);
  const json = bufferIO();
  assert.equal(await runTimeline(['--rid', RID, p.prefill, p.decode, '--json'], json), 0);
  const items = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as ItemJson).filter((o) => o.kind === 'item' && o.ref);
  const marks = items.map((o) => [o.ref!.path.split('/').pop(), o.ref!.line, o.detail?.joinedBy]);
  assert.deepEqual(marks, [['prefill.log', 2, `bootstrap_room ${ROOM}`], ['decode.log', 1, undefined], ['decode.log', 2, undefined]]);
  assert.ok(items.slice(1).every((o) => !('joinedBy' in o.detail!)), 'the request\'s own lines keep their shape');
});

test('the editor\'s timeline names the joined line\'s bootstrap_room in its tooltip, facts and the in-order table', async () => {
  const p = staged();
  const { timeline } = await loadTimeline({ query: RID, logs: [p.prefill, p.decode], indexMode: 'in-process' });
  const m = timelineViewModel(timeline);
  const items = m.lanes.flatMap((l) => l.items.map((it) => ({ lane: l, it })));
  const joined = items.filter(({ it }) => it.where?.endsWith('prefill.log:2'));
  assert.equal(joined.length, 1);
  const { lane, it } = joined[0];
  assert.deepEqual(it.facts.find(([k]) => k === 'joined by'),
    ['joined by', `bootstrap_room ${ROOM} (this line names only that; a line of the request names it beside its id)`]);
  assert.match(laneItemsHtml(lane, m), new RegExp(`<title>Request with bootstrap_room=${ROOM} already failed, [^<]*, by bootstrap_room ${ROOM}</title>`));
  const decodeItems = items.filter(({ it: d }) => d.where?.includes('decode.log'));
  assert.equal(decodeItems.length, 2);
  assert.ok(decodeItems.every(({ it: d }) => d.joinedBy === undefined && !d.facts.some(([k]) => k === 'joined by')));
  const body = timelineBodyHtml(timeline, m);
  assert.match(body, new RegExp(`<td>by bootstrap_room ${ROOM}</td><td><code>Request with bootstrap_room=${ROOM} already failed</code>`));
});
