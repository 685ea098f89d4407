// A prefill and a decode log of one P/D request, lines rendered from SGLang's own f-strings (the
// releases' python/sglang/srt/disaggregation/…); the header is SGLang's `[%(asctime)s TP<rank>] `.
// pdRoom.test.ts and the Requests view's test read them.
export const RID = '3ce84ffb82764f45b028dd8e6c4beed1';
export const ROOM = '1655955501905217457';
export const OTHER_RID = '9d0c5e7a1b2c4d3e8f9a0b1c2d3e4f50';
export const OTHER_ROOM = '4242424242424242421';
export const LONE_ROOM = '7340318826532118201';

// The prefill instance at DEBUG: a batch line, Mooncake's room-only line for RID's room
// (mooncake/conn.py:970-971 at 0.5.1, in add_transfer_request: the prefill side) and for a room no
// line pairs, and another request's failure, which names its rid and its room
// (prefill.py:514 at 0.5.1: `Prefill transfer failed for request rank={self.tp_rank} {req.rid=} {req.bootstrap_room=}`
// + ` with exception {e}`, e's str KVTransferError's, mooncake/conn.py:67 there), then a room-only line of that room.
export const PREFILL = [
  '[2025-09-17 16:23:12 TP0] Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
  `[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${ROOM} already failed`,
  `[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${LONE_ROOM} already failed`,
  `[2025-09-17 16:23:14 TP0] Prefill transfer failed for request rank=0 req.rid='${OTHER_RID}' req.bootstrap_room=${OTHER_ROOM} with exception `
    + `KVTransferError(bootstrap_room=${OTHER_ROOM}): Decode instance could be dead, remote mooncake session 10.0.0.130:20635_4738 is not alive`,
  `[2025-09-17 16:23:14 TP0] Request with bootstrap_room=${OTHER_ROOM} already failed`,
].join('\n') + '\n';

// The decode instance: the only lines naming RID, one per TP rank (decode.py:581 at 0.5.1, the
// `{decode_req.req.rid=} {decode_req.req.bootstrap_room=}` form; these two as a real run printed
// them, test/fixtures/real-logs/mined5-sglang.corpus:31).
export const DECODE = [
  `[2025-09-17 16:23:13 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} `
    + `with exception KVTransferError(bootstrap_room=${ROOM}): Failed to get kvcache from prefill instance, it might be dead`,
  `[2025-09-17 16:23:13 TP1] Decode transfer failed for request rank=1 decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} `
    + `with exception KVTransferError(bootstrap_room=${ROOM}): Failed due to an unknown reason from another rank`,
].join('\n') + '\n';
