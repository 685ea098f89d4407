// SGLang's prefill/decode transfer id: the `bootstrap_room` (a random 63-bit integer the router or
// client picks per request) that the prefill and the decode instance both know a request's KV
// transfer by. Lines of the disaggregation code print it, some beside the rid (pairing the two),
// some alone (Mooncake's and NIXL's transfer lines). Only the printed forms below count as a room:
// a number elsewhere in a line is not one. Citations are the releases' own files
// (python/sglang/srt/disaggregation/…), read at 0.4.10.post2, 0.5.1 and 0.5.23.
import type { TransferIds } from '../types';

/** The forms naming a room, each with its first group the room, and text a line holding it holds (tested first). */
const ROOM_FORMS: ReadonlyArray<readonly [string, RegExp]> = [
  // `{req.bootstrap_room=}` (prefill.py:503, decode.py:571 at 0.4.10.post2), KVTransferError's
  // `KVTransferError(bootstrap_room={…}): …` (mooncake/conn.py:59 there, common/conn.py:116 at 0.5.23),
  // ReqTimeStats' `, bootstrap_room={…}`, `Request with bootstrap_room=%s already failed` (mooncake/conn.py:971 at 0.5.1),
  // `KV checksum mismatch req=… bootstrap_room=…` (decode.py:3333 at 0.5.23).
  ['bootstrap_room=', /(?<![A-Za-z0-9_])bootstrap_room=(\d+)/g],
  // `AUX_DATA length mismatch for bootstrap_room {room}`, `Received AUX_DATA for bootstrap_room {room} with length:…`
  // (mooncake/conn.py:853, :861 at 0.5.1).
  ['AUX_DATA', /AUX_DATA (?:length mismatch )?for bootstrap_room (\d+)/g],
  // NIXL: `Sending to prefill server with bootstrap room {…} {is_dummy=}` (nixl/conn.py:471 at 0.5.1).
  ['bootstrap room', /with bootstrap room (\d+) is_dummy=/g],
  // NIXL: `got info {room=} {agent_name=} …`, `{room=} is bootstrapped` (nixl/conn.py:382, :384 at 0.5.1); at the
  // message's start, or after the header's `] ` in a raw line.
  ['got info room=', /(?:^|\] )got info room=(\d+) agent_name=/g],
  ['is bootstrapped', /(?:^|\] )room=(\d+) is bootstrapped/g],
  // `Request (bootstrap_room: {…}) has been marked as failed.` (common/conn.py:2518 at 0.5.23).
  ['(bootstrap_room: ', /\(bootstrap_room: (\d+)\)/g],
  // `Skipping chunk for room {…} because …` (mooncake/conn.py:2550), `NIXL transport error for room {room}: …`
  // (nixl/conn.py:1930), `Sent abort notification for room {…}` / `Received abort notification for room {…},`
  // (common/conn.py:3006, nixl/conn.py:3328), all at 0.5.23.
  [' for room ', /(?:Skipping chunk|transport error|abort notification) for room (\d+)(?![0-9])/g],
  // The request body's own field (ChatCompletionRequest / CompletionRequest's `bootstrap_room`, which a P/D router
  // sets), in the request logger's `Receive OpenAI: obj={…}` (S1: the body's `model_dump(exclude_none=True)` as a
  // Python dict, since 0.5.23). One room: a batch's list of rooms is not read.
  ["'bootstrap_room': ", /'bootstrap_room': (\d+)(?![0-9])/g],
];

/** The forms naming the rid beside a room, each with its first group the rid as printed, and text it holds. */
const RID_FORMS: ReadonlyArray<readonly [string, RegExp]> = [
  // `{req.rid=}` / `{decode_req.req.rid=}`: the repr, quoted (prefill.py:503, decode.py:571 at 0.4.10.post2).
  ["rid='", /(?<![A-Za-z0-9_])rid='([^']+)'/],
  ['rid="', /(?<![A-Za-z0-9_])rid="([^"]+)"/],
  // `KV checksum mismatch req={req.rid} bootstrap_room=…` (decode.py:3332 at 0.5.23).
  ['req=', /(?<![A-Za-z0-9_])req=([^\s,']+) bootstrap_room=/],
  // `… readiness gate: request {rid}, bootstrap_room=…` (decode.py:2642), `Context corruption detected: Request {rid} (bootstrap_room=…`
  // (decode.py:2658) at 0.5.23.
  ['readiness gate: request ', /readiness gate: request ([^\s,]+), bootstrap_room=/],
  ['Context corruption detected: ', /(?:^|\] )Context corruption detected: Request (\S+) \(bootstrap_room=/],
  // ReqTimeStats(rid={rid}, bootstrap_room=…: unquoted (schedule_batch.py's f-string; the hop S5 reads it first).
  ['rid=', /(?<![A-Za-z0-9_])rid=([^\s,')]+), bootstrap_room=/],
];

function roomsOf(message: string): string[] {
  const out: string[] = [];
  for (const [holds, form] of ROOM_FORMS) {
    if (!message.includes(holds)) continue;
    form.lastIndex = 0;
    for (let m = form.exec(message); m !== null; m = form.exec(message)) if (!out.includes(m[1])) out.push(m[1]);
  }
  return out;
}

function ridOf(message: string): string | null {
  for (const [holds, form] of RID_FORMS) {
    if (!message.includes(holds)) continue;
    const m = form.exec(message);
    if (m) return m[1];
  }
  return null;
}

export const SGLANG_TRANSFER_IDS: TransferIds = { label: 'bootstrap_room', hint: 'room', idsOf: roomsOf, ridOf };
