// Which open logs go on a request's timeline, from the editor's sessions of the constructed runs
// (test/fixtures/timeline): the logs that name the request (a router's request_id among them),
// the engine core that names none, and not a log of another server; an SGLang prefill log that
// names it only by a bootstrap_room another open log pairs with it, and that log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession } from '../../../src/core/session/logSession';
import { logChoiceText, readOpenTransferIds, requestIdOfRecord, timelineLogChoices, timelineRequestAt, type OpenLogView } from '../../../src/core/timeline/openLogs';
import { TIMELINE_FIXTURES } from './fixtures';
import { LogTransferJoins } from '../../../src/core/logs/transferJoin';
import { requestKey } from '../../../src/core/timeline/requestKey';
import { DECODE, OTHER_RID, OTHER_ROOM, PREFILL, RID, ROOM } from '../logs/pdRoomLines';

function open(rel: string, edit: (text: string) => string = (t) => t, as = rel): OpenLogView & { session: LogSession } {
  const path = join(TIMELINE_FIXTURES, as);
  const session = new LogSession({ engine: 'auto', key: path, referenceTime: Date.UTC(2026, 11, 1) });
  session.syncTextNow(edit(readFileSync(join(TIMELINE_FIXTURES, rel), 'utf8')));
  return { path, engine: session.engine, tracker: session.tracker, records: session.records, session };
}

test('an API server and its engine core are picked; another server\'s log is offered, not picked', () => {
  const api = open('engine-run/api-server.log');
  const core = open('engine-run/engine-core.log');
  const other = open('sglang-run/sgl.log');
  const choices = timelineLogChoices([other, core, api, api], 'tl-0001');
  assert.deepEqual(choices.map((c) => [c.path, c.reason, c.picked]), [
    [api.path, 'names-request', true],
    [core.path, 'names-no-request', true],
    [other.path, 'other-requests', false],
  ]);
  assert.deepEqual(choices[0].ids, ['chatcmpl-tl-0001']);
});

test('a log naming no request is taken only when it is of the request\'s engine and its lines span the request\'s time', () => {
  const api = open('engine-run/api-server.log');
  const core = open('engine-run/engine-core.log');
  // The engine core of a run four hours later, and an SGLang server that has only started.
  const later = open('engine-run/engine-core.log', (t) => t.replace(/12-01 10:4/g, '12-01 14:4'), 'later/engine-core.log');
  const sglStart = open('sglang-run/sgl.log', (t) => t.split('\n').slice(0, 3).join('\n') + '\n', 'other/sgl-startup.log');
  assert.equal(sglStart.engine, 'sglang');
  assert.equal(sglStart.tracker.requestCount, 0);
  const choices = timelineLogChoices([sglStart, later, core, api], 'tl-0001');
  assert.deepEqual(choices.map((c) => [c.path.split('/').slice(-2).join('/'), c.reason, c.picked]), [
    ['engine-run/api-server.log', 'names-request', true],
    ['engine-run/engine-core.log', 'names-no-request', true],
    ['other/sgl-startup.log', 'not-this-run', false],
    ['later/engine-core.log', 'not-this-run', false],
  ]);
  // No log names the request: nothing to tie a silent log to, none is picked.
  assert.ok(timelineLogChoices([core], 'tl-0001').every((c) => !c.picked));
});

test('a call-trace file or any other text opened as a log is not a server log: offered, not picked', () => {
  const dir = join(TIMELINE_FIXTURES, 'engine-run', 'trace', 'root', 'vllm');
  const instance = readdirSync(dir)[0];
  const file = readdirSync(join(dir, instance))[0];
  const trace = open(join('engine-run', 'trace', 'root', 'vllm', instance, file));
  const api = open('engine-run/api-server.log');
  assert.equal(trace.engine, null);
  assert.deepEqual(timelineLogChoices([trace, api], 'tl-0001').map((c) => [c.reason, c.picked]), [['names-request', true], ['not-a-server-log', false]]);
});

test('a router, a prefill and a decode instance: all three name the request, the router by its request_id', () => {
  const logs = ['pd-run/router.log', 'pd-run/prefill.log', 'pd-run/decode.log'].map((p) => open(p));
  for (const q of ['pd-0007', 'chatcmpl-pd-0007']) {
    const choices = timelineLogChoices(logs, q);
    assert.deepEqual(choices.map((c) => [c.reason, c.picked]), [['names-request', true], ['names-request', true], ['names-request', true]], q);
    assert.deepEqual(choices.map((c) => c.ids), [['pd-0007'], ['chatcmpl-pd-0007'], ['chatcmpl-pd-0007']]);
  }
  // pd-0070 does not exist: nothing names it, and the logs that name other requests are not picked.
  assert.ok(timelineLogChoices(logs, 'pd-0070').every((c) => !c.picked && c.reason === 'other-requests'));
});

test('the request at the cursor: a hop line\'s id, a router line\'s request_id, none on a startup line', () => {
  const router = open('pd-run/router.log');
  const prefill = open('pd-run/prefill.log');
  assert.equal(requestIdOfRecord(router.session.record(0)), 'pd-0000');
  assert.equal(requestIdOfRecord(prefill.session.record(2)), 'chatcmpl-pd-0000');
  assert.equal(requestIdOfRecord(prefill.session.record(0)), null);
  assert.equal(requestIdOfRecord(undefined), null);
});

test('a request offers its timeline on one line of a log: its first hop line, whatever the engine', () => {
  for (const rel of ['engine-run/api-server.log', 'sglang-run/sgl.log', 'pd-run/decode.log']) {
    const { session } = open(rel);
    const offered = session.records.map((_, i) => [i, timelineRequestAt(session, i)] as const).filter(([, rid]) => rid !== null);
    assert.ok(offered.length > 0, rel);
    assert.equal(offered.length, session.tracker.requestCount, `${rel}: one line per request`);
    for (const [i, rid] of offered) assert.equal(session.tracker.brief(rid!)!.firstLine, i + 1, rel);
  }
  // Lines about no request, and continuation lines, offer none.
  const { session } = open('engine-run/engine-core.log');
  assert.deepEqual(session.records.map((_, i) => timelineRequestAt(session, i)).filter((x) => x !== null), []);
});

// ---- SGLang P/D: a prefill log naming the request only by its bootstrap_room (pdRoomLines.ts, SGLang's f-strings) ----

function openText(path: string, text: string): OpenLogView & { session: LogSession } {
  const session = new LogSession({ engine: 'auto', key: path, referenceTime: Date.UTC(2026, 11, 2) });
  session.syncTextNow(text);
  return { path, engine: session.engine, tracker: session.tracker, records: session.records, session };
}

// The prefill's TokenizerManager naming OTHER_RID (S8, no rank tag): a hop line, so the prefill log names other requests.
const ABORT_OTHER = `[2025-09-17 16:23:15] Abort request for rid=${OTHER_RID} not found in rid_to_state; likely already finished/removed.\n`;
// The decode instance's ReqTimeStats of RID without a room (S5's `[, bootstrap_room=…]` is optional).
const STATS = `[2025-09-17 16:23:20 TP0] ReqTimeStats(rid=${RID}, input_len=38, cached_input_len=0, output_len=1, attempts=1, type=decode): `
  + 'queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030\n';

test('a prefill log naming the request only by a bootstrap_room another open log pairs with it is picked, saying so', () => {
  const prefill = openText('/pd/prefill.log', PREFILL + ABORT_OTHER);
  const decode = openText('/pd/decode.log', DECODE + STATS);
  assert.equal(prefill.tracker.requestCount, 1, 'the prefill log names another request');
  const choices = timelineLogChoices([prefill, decode], RID);
  assert.deepEqual(choices.map((c) => [c.path, c.reason, c.picked, c.ids]), [
    ['/pd/prefill.log', 'names-transfer-id', true, []],
    ['/pd/decode.log', 'names-request', true, [RID]],
  ]);
  assert.deepEqual(choices[0].joinedBy, { ids: [`bootstrap_room ${ROOM}`], pairedIn: ['/pd/decode.log'] });
  assert.equal(logChoiceText(choices[0]), `names it only by bootstrap_room ${ROOM}, which a line of decode.log pairs with it`);
  // Asked for the other request, whose room the prefill log pairs itself: the prefill log names it, the decode log does not.
  assert.deepEqual(timelineLogChoices([prefill, decode], OTHER_RID).map((c) => [c.path, c.reason, c.picked]), [
    ['/pd/prefill.log', 'names-request', true], ['/pd/decode.log', 'other-requests', false],
  ]);
});

test('a decode log whose only line naming the request pairs its room is picked with the prefill log that names the room', () => {
  // Neither log has a hop line of RID: the decode log names it only in its transfer failure, beside the room.
  const prefill = openText('/pd/prefill.log', PREFILL);
  const decode = openText('/pd/decode.log', DECODE);
  assert.equal(decode.tracker.requestCount, 0);
  assert.deepEqual(timelineLogChoices([decode, prefill], RID).map((c) => [c.path, c.reason, c.picked, c.ids]), [
    ['/pd/decode.log', 'names-request', true, [RID]],
    ['/pd/prefill.log', 'names-transfer-id', true, []],
  ]);
  // Without the decode log nothing ties the prefill log's rooms to RID.
  assert.ok(timelineLogChoices([prefill], RID).every((c) => !c.picked));
});

test('a room the open logs pair with two rids picks no log by it', () => {
  // The decode instance pairs OTHER_ROOM (which the prefill's line 4 pairs with OTHER_RID) with RID too, and nothing pairs ROOM.
  const reused = `[2025-09-17 16:23:14 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${RID}' `
    + `decode_req.req.bootstrap_room=${OTHER_ROOM} with exception KVTransferError(bootstrap_room=${OTHER_ROOM}): Failed to get kvcache from prefill `
    + 'instance, it might be dead\n';
  const prefill = openText('/pd/prefill.log', PREFILL + ABORT_OTHER);
  const decode = openText('/pd/decode.log', reused + STATS);
  assert.deepEqual(timelineLogChoices([prefill, decode], RID).map((c) => [c.path, c.reason, c.picked]), [
    ['/pd/decode.log', 'names-request', true], ['/pd/prefill.log', 'other-requests', false],
  ]);
});

test('a big SGLang log is read for its rooms ahead of the choice, a slice at a time with turns between; the choice is the same', async () => {
  // 6,000 batch lines before the prefill's own: three slices of LogTransferJoins.
  const batch = '[2025-09-17 16:23:11 TP0] Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n';
  const prefill = openText('/pd/prefill.log', batch.repeat(6000) + PREFILL + ABORT_OTHER);
  const decode = openText('/pd/decode.log', DECODE + STATS);
  let clock = 0;
  // Each look at the clock is 30 ms later: a 20 ms budget lasts one slice.
  const joins = new LogTransferJoins(requestKey, () => (clock += 30));
  let turns = 0;
  await readOpenTransferIds([prefill, decode], joins, { budgetMs: 20, clock: { now: () => clock }, turn: async () => { turns++; } });
  assert.ok(turns >= 2, `${turns} turns`);
  assert.notEqual(joins.across([prefill.records, decode.records], '', 0), 'reading', 'every line read');
  const choices = timelineLogChoices([prefill, decode], RID, joins);
  assert.deepEqual(choices, timelineLogChoices([prefill, decode], RID));
  assert.deepEqual(choices.map((c) => [c.reason, c.picked, c.joinedBy?.ids]), [['names-transfer-id', true, [`bootstrap_room ${ROOM}`]], ['names-request', true, undefined]]);
});
