// The Requests view of a local SGLang log lists, under a request, the lines that name only its
// bootstrap_room (Mooncake's and NIXL's transfer lines), as plain lines that say so, once a line of
// the request names the room beside its rid. The rules are the timeline's: a room paired with two
// rids joins neither, a room nothing pairs stays unjoined. Through the in-memory `vscode` stand-in,
// on a prefill and a decode log in one file (the lines of pdRoomLines.ts, from SGLang's f-strings).
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { Uri } from '../fakes/vscode';
import { LogSession } from '../../../src/core/session/logSession';
import { RequestsViewProvider, documentLogSource } from '../../../src/features/logs/requestsView';
import { LogTransferJoins } from '../../../src/core/logs/transferJoin';
import { requestKey } from '../../../src/core/timeline/requestKey';
import { DECODE, LONE_ROOM, OTHER_RID, OTHER_ROOM, PREFILL, RID, ROOM } from '../logs/pdRoomLines';

// The hop S5 (schedule_batch.py, --enable-request-time-stats-logging) of each request on the decode
// instance, without a room (the form's `[, bootstrap_room=…]` is optional): lines 8 and 9 after
// PREFILL (1-5) and DECODE (6-7). The room of RID is paired by DECODE's lines only.
const STATS = [RID, OTHER_RID].map((rid, i) => `[2025-09-17 16:23:2${i} TP0] ReqTimeStats(rid=${rid}, input_len=38, cached_input_len=0, `
  + `output_len=1, attempts=1, type=decode): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030`).join('\n') + '\n';

function viewOf(text: string) {
  const session = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
  session.syncTextNow(text);
  const view = new RequestsViewProvider();
  const uri = Uri.file('/logs/pd.log') as unknown as vscode.Uri;
  view.setSource(documentLogSource(uri, session));
  const rowOf = (rid: string) => view.getChildren().find((n) => view.getTreeItem(n).label === rid)!;
  const under = (rid: string) => view.getChildren(rowOf(rid)).map((n) => view.getTreeItem(n));
  const plain = (rid: string) => under(rid).filter((i) => i.id?.startsWith('plain:'));
  return { session, view, uri, rowOf, under, plain };
}

test('a request\'s row lists the prefill\'s line naming only its bootstrap_room, saying it joined by that room', () => {
  const { view, uri, under, plain } = viewOf(PREFILL + DECODE + STATS);
  try {
    assert.deepEqual(view.getChildren().map((n) => view.getTreeItem(n).label), [RID, OTHER_RID]);
    const mine = plain(RID);
    assert.deepEqual(mine.map((i) => [i.label, i.description]), [
      [`Request with bootstrap_room=${ROOM} already failed`, `line 2 · by bootstrap_room ${ROOM}`],
    ], 'its room\'s line, not the unpaired room\'s (line 3) nor the other request\'s (line 5)');
    assert.match(String(mine[0].tooltip), new RegExp(`^joined by bootstrap_room ${ROOM}: this line names only that, and a line of the request `
      + `names it beside the request's id\\nRequest with bootstrap_room=${ROOM} already failed$`));
    assert.deepEqual(mine[0].command?.arguments, [uri, 2], 'it opens its line');
    assert.ok(under(RID).some((i) => i.id === `hop:${RID}:8`), 'beside its hop');
    // The other request's room is paired by its own prefill line (line 4): its room-only line 5.
    assert.deepEqual(plain(OTHER_RID).map((i) => i.description), [`line 5 · by bootstrap_room ${OTHER_ROOM}`]);
    const all = [RID, OTHER_RID].flatMap((r) => under(r)).map((i) => `${String(i.label)} ${String(i.tooltip)}`).join('\n');
    assert.doesNotMatch(all, new RegExp(LONE_ROOM), 'a room nothing pairs stays unjoined');
  } finally { view.dispose(); }
});

test('a room paired with two rids joins neither request\'s row', () => {
  // A retry that kept the room: decode pairs it with OTHER_RID too.
  const retried = `[2025-09-17 16:23:20 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${OTHER_RID}' `
    + `decode_req.req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Failed to get kvcache from prefill instance, `
    + 'it might be dead\n';
  const { view, plain } = viewOf(PREFILL + DECODE + STATS + retried);
  try {
    assert.deepEqual(plain(RID), []);
    assert.deepEqual(plain(OTHER_RID).map((i) => i.description), [`line 5 · by bootstrap_room ${OTHER_ROOM}`]);
  } finally { view.dispose(); }
});

test('NIXL\'s room lines join the request its ReqTimeStats pairs; a line appended later is listed on the next look', () => {
  const RID2 = 'b1f0c6a7d2e94c1fa3b8e5d4c7a60912';
  const ROOM2 = '881234567890123457';
  // nixl/conn.py:382, :384 at 0.5.1 (`got info {room=} {agent_name=} {required_dst_info_num=}`, `{room=} is bootstrapped`), then S5.
  const text = [
    `[2025-09-17 16:24:01 TP0] got info room=${ROOM2} agent_name='d0c1e2f3' required_dst_info_num=1`,
    `[2025-09-17 16:24:01 TP0] room=${ROOM2} is bootstrapped`,
    `[2025-09-17 16:24:02 TP0] ReqTimeStats(rid=${RID2}, bootstrap_room=${ROOM2}, input_len=38, cached_input_len=0, output_len=1, attempts=1, `
      + 'type=prefill): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030',
  ].join('\n') + '\n';
  const { session, view, plain } = viewOf(text);
  try {
    assert.deepEqual(plain(RID2).map((i) => i.description), [`line 1 · by bootstrap_room ${ROOM2}`, `line 2 · by bootstrap_room ${ROOM2}`]);
    // mooncake/conn.py:971 at 0.5.1, printed after the log was first read (a live log).
    session.syncTextNow(`${text}[2025-09-17 16:24:03 TP0] Request with bootstrap_room=${ROOM2} already failed\n`);
    assert.deepEqual(plain(RID2).map((i) => i.description).at(-1), `line 4 · by bootstrap_room ${ROOM2}`);
    // A second attempt with a room of its own: both rooms' lines are the request's.
    const ROOM3 = '991234567890123459';
    session.syncTextNow(`${text}[2025-09-17 16:24:03 TP0] Request with bootstrap_room=${ROOM2} already failed\n`
      + `[2025-09-17 16:24:04 TP0] room=${ROOM3} is bootstrapped\n`
      + `[2025-09-17 16:24:05 TP0] ReqTimeStats(rid=${RID2}, bootstrap_room=${ROOM3}, input_len=38, cached_input_len=0, output_len=1, attempts=2, `
      + 'type=prefill): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126242.030\n');
    assert.deepEqual(plain(RID2).map((i) => i.description), [1, 2, 4].map((l) => `line ${l} · by bootstrap_room ${ROOM2}`)
      .concat(`line 5 · by bootstrap_room ${ROOM3}`));
  } finally { view.dispose(); }
});

test('a big log is read for its room lines a slice at a time: "reading" until every line is read, then the same lines', () => {
  // 6,000 batch lines before the request's: more than one slice.
  const batch = '[2025-09-17 16:23:11 TP0] Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n';
  const session = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
  session.syncTextNow(batch.repeat(6000) + PREFILL + DECODE + STATS);
  let clock = 0;
  // Each look at the clock is 30 ms later: a 40 ms budget lasts one or two slices.
  const joins = new LogTransferJoins(requestKey, () => (clock += 30));
  let looks = 1;
  let r = joins.of(session.records, RID, 40);
  while (r === 'reading') { looks++; r = joins.of(session.records, RID, 40); }
  assert.ok(looks > 1, `read in ${looks} looks`);
  assert.deepEqual(r?.lines.map((j) => [j.record.line, j.id]), [[6002, ROOM]]);
  assert.deepEqual(new LogTransferJoins(requestKey).of(session.records, RID), r, 'as one look at all of it');
});
