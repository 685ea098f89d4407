// A P/D pair writes two logs: the prefill instance's often names a request only by its
// bootstrap_room (Mooncake's and NIXL's transfer lines), the decode instance's pairs that room with
// the rid (or the other way round). LogTransferJoins.across reads both and gives each log the lines
// joined to the request by a room any of them paired with it — and none with another rid, across
// the logs too — in one time budget, reading a log appended to from its new lines on. Lines from
// SGLang's f-strings (pdRoomLines.ts; the header is SGLang's `[%(asctime)s TP<rank>] `).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogSession } from '../../../src/core/session/logSession';
import { LogTransferJoins } from '../../../src/core/logs/transferJoin';
import type { LogRecord } from '../../../src/core/logs/model';
import { requestKey } from '../../../src/core/timeline/requestKey';
import { DECODE, LONE_ROOM, OTHER_RID, OTHER_ROOM, PREFILL, RID, ROOM } from './pdRoomLines';

function recordsOf(text: string): { session: LogSession; records: readonly LogRecord[] } {
  const session = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
  session.syncTextNow(text);
  return { session, records: session.records };
}

type Found = ReturnType<LogTransferJoins['across']>;
/** Per log: [line, room] of each joined line, null for none. */
const shown = (found: Found) => (found === 'reading' ? found : found.map((j) => j && j.lines.map((l) => [l.record.line, l.id])));

test('the prefill\'s line naming only the room joins the request the decode log pairs the room with; alone it joins none', () => {
  const prefill = recordsOf(PREFILL).records;
  const decode = recordsOf(DECODE).records;
  const joins = new LogTransferJoins(requestKey);
  assert.equal(joins.of(prefill, requestKey(RID)), null, 'the prefill log alone never names the rid');
  const found = joins.across([prefill, decode], requestKey(RID));
  assert.deepEqual(shown(found), [[[2, ROOM]], null], 'line 2 (Request with bootstrap_room=… already failed), not the lone room\'s line 3');
  assert.equal(found !== 'reading' && found[0]?.label, 'bootstrap_room');
  assert.deepEqual(found !== 'reading' && found[0]?.lines[0].pairedIn, [1], 'paired by the decode log\'s lines');
  // The order of the logs does not matter, and each log's answer stays at its index.
  assert.deepEqual(shown(joins.across([decode, prefill], requestKey(RID))), [null, [[2, ROOM]]]);
  // The other request's room is paired in the prefill log itself (line 4): its line 5, with or without the decode log.
  assert.deepEqual(shown(joins.across([prefill, decode], requestKey(OTHER_RID))), [[[5, OTHER_ROOM]], null]);
  assert.deepEqual(shown(joins.across([prefill], requestKey(OTHER_RID))), [[[5, OTHER_ROOM]]]);
  for (const key of [RID, OTHER_RID]) {
    const all = joins.across([prefill, decode], requestKey(key));
    assert.ok(all !== 'reading' && all.every((j) => !j?.lines.some((l) => l.id === LONE_ROOM)), 'a room nothing pairs stays unjoined');
  }
});

test('the other way round: the decode log\'s room-only lines join the rid the prefill\'s ReqTimeStats pairs the room with', () => {
  const RID2 = 'b1f0c6a7d2e94c1fa3b8e5d4c7a60912';
  const ROOM2 = '881234567890123457';
  // schedule_batch.py's ReqTimeStats on the prefill (S5, with its room); on the decode, NIXL's send line
  // (nixl/conn.py:471 at 0.5.1) and Mooncake's AUX_DATA lines (mooncake/conn.py:853, :861 there).
  const prefill = recordsOf(`[2025-09-17 16:24:02 TP0] ReqTimeStats(rid=${RID2}, bootstrap_room=${ROOM2}, input_len=38, cached_input_len=0, `
    + 'output_len=1, attempts=1, type=prefill): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030\n').records;
  const decode = recordsOf([
    `[2025-09-17 16:24:01 TP0] Sending to prefill server with bootstrap room ${ROOM2} is_dummy=False`,
    `[2025-09-17 16:24:02 TP0] Received AUX_DATA for bootstrap_room ${ROOM2} with length:64`,
    `[2025-09-17 16:24:02 TP0] AUX_DATA length mismatch for bootstrap_room ${ROOM}`,
  ].join('\n') + '\n').records;
  assert.deepEqual(shown(new LogTransferJoins(requestKey).across([prefill, decode], requestKey(RID2))), [null, [[1, ROOM2], [2, ROOM2]]]);
});

test('a room two logs pair with two rids joins neither request, in either log', () => {
  // The prefill pairs OTHER_ROOM with OTHER_RID (line 4); a decode log pairs it with RID as well (a client that reused the room).
  const reused = `[2025-09-17 16:23:14 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${RID}' `
    + `decode_req.req.bootstrap_room=${OTHER_ROOM} with exception KVTransferError(bootstrap_room=${OTHER_ROOM}): Failed to get kvcache from prefill `
    + 'instance, it might be dead\n';
  const prefill = recordsOf(PREFILL).records;
  const decode = recordsOf(DECODE + reused).records;
  const joins = new LogTransferJoins(requestKey);
  assert.deepEqual(shown(joins.across([prefill, decode], requestKey(OTHER_RID))), [null, null], 'line 5 is no longer OTHER_RID\'s');
  assert.deepEqual(shown(joins.across([prefill, decode], requestKey(RID))), [[[2, ROOM]], null], 'RID keeps its own room\'s line, not OTHER_ROOM\'s');
  // Each log alone still pairs its rooms with one rid.
  assert.deepEqual(shown(joins.across([prefill], requestKey(OTHER_RID))), [[[5, OTHER_ROOM]]]);
});

test('one budget for all the logs: "reading" until every log is read, then the same lines; an appended line is read alone', () => {
  const batch = '[2025-09-17 16:23:11 TP0] Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0\n';
  // 1,500 batch lines each: one slice per log.
  const prefill = recordsOf(batch.repeat(1500) + PREFILL);
  const reads = { n: 0 };
  // The decode log's records, counting the records read of it.
  const decodeSession = recordsOf(batch.repeat(1500) + DECODE);
  const decode = new Proxy(decodeSession.records as LogRecord[], {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && /^\d+$/.test(prop)) reads.n++;
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  let clock = 0;
  // Each look at the clock is 30 ms later; a budget of 20 ms lasts one slice, whichever log it is in.
  const joins = new LogTransferJoins(requestKey, () => (clock += 30));
  assert.equal(joins.across([prefill.records, decode], requestKey(RID), 20), 'reading', 'the prefill\'s slice took the budget');
  assert.equal(reads.n, 0, 'the decode log waits for the next look');
  const found = joins.across([prefill.records, decode], requestKey(RID), 20);
  assert.deepEqual(shown(found), [[[1502, ROOM]], null]);
  assert.equal(reads.n, decode.length, 'each record of the decode log read once');
  assert.deepEqual(shown(new LogTransferJoins(requestKey).across([prefill.records, decodeSession.records], requestKey(RID))), shown(found),
    'as one look at all of it');
  // The decode instance prints a line pairing another room with RID; the prefill's line naming that room was there already.
  const ROOM3 = '991234567890123459';
  prefill.session.syncTextNow(`${batch.repeat(1500)}${PREFILL}[2025-09-17 16:23:16 TP0] Request with bootstrap_room=${ROOM3} already failed\n`);
  decodeSession.session.syncTextNow(`${batch.repeat(1500)}${DECODE}[2025-09-17 16:23:17 TP0] Decode transfer failed for request rank=0 `
    + `decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM3} with exception KVTransferError(bootstrap_room=${ROOM3}): `
    + 'Failed to get kvcache from prefill instance, it might be dead\n');
  const before = reads.n;
  let again = joins.across([prefill.records, decode], requestKey(RID), 20);
  while (again === 'reading') again = joins.across([prefill.records, decode], requestKey(RID), 20);
  assert.deepEqual(shown(again), [[[1502, ROOM], [1506, ROOM3]], null]);
  assert.equal(reads.n - before, 1, 'only the appended record of the decode log is read');
});

test('requestsOf: the requests a log\'s room-only lines join through any log\'s pairings, none for a room two rids share', () => {
  const prefill = recordsOf(PREFILL).records;
  const joins = new LogTransferJoins(requestKey);
  const byKey = (found: ReturnType<LogTransferJoins['requestsOf']>) => (found === 'reading' ? found
    : [...found].map(([key, j]) => [key, j.lines.map((l) => [l.record.line, l.id, l.pairedIn])]));
  assert.deepEqual(byKey(joins.requestsOf([prefill, recordsOf(DECODE).records], 0)), [
    [requestKey(RID), [[2, ROOM, [1]]]],
    [requestKey(OTHER_RID), [[5, OTHER_ROOM, [0]]]],
  ]);
  assert.deepEqual(byKey(joins.requestsOf([prefill], 0)), [[requestKey(OTHER_RID), [[5, OTHER_ROOM, [0]]]]], 'alone, only its own pairing');
  // The decode log pairs OTHER_ROOM with RID too: OTHER_ROOM's line joins no one; ROOM's still joins RID.
  const reused = recordsOf(DECODE + `[2025-09-17 16:23:14 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${RID}' `
    + `decode_req.req.bootstrap_room=${OTHER_ROOM} with exception KVTransferError(bootstrap_room=${OTHER_ROOM}): Failed to get kvcache\n`).records;
  assert.deepEqual(byKey(joins.requestsOf([prefill, reused], 0)), [[requestKey(RID), [[2, ROOM, [1]]]]]);
  // The decode log's own room-only lines: none (its lines name the rid beside the room).
  assert.deepEqual(byKey(joins.requestsOf([prefill, reused], 1)), []);
});
