// SGLang's prefill/decode lines often name a request's bootstrap_room, not its rid. A line that
// names both (`{decode_req.req.rid=} {decode_req.req.bootstrap_room=}`, ReqTimeStats) pairs them;
// a line that names only the room (Mooncake's `Request with bootstrap_room=%s already failed`, a
// KVTransferError) is then the request's, in the file that paired it or another (the prefill log
// beside the decode log), in `annotate --rid`, the timeline and an open log's session alike. A
// room two rids were paired with belongs to neither; a room nothing pairs stays unjoined. Lines
// are rendered from SGLang's own f-strings, read in the releases' files
// (python/sglang/srt/disaggregation/…); the header is SGLang's `[%(asctime)s TP<rank>] `.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAnnotate } from '../../../src/cli/annotate';
import { runTimeline } from '../../../src/cli/timeline';
import { bufferIO } from '../../../src/cli/io';
import { LogSession } from '../../../src/core/session/logSession';
import { readRequestLogs } from '../../../src/core/timeline/requestLogs';
import { SGLANG_TRANSFER_IDS } from '../../../src/engines/sglang/ids';
import { makeTempDir } from '../../harness/tempDirs';
import { DECODE, LONE_ROOM, OTHER_RID, OTHER_ROOM, PREFILL, RID, ROOM } from './pdRoomLines';

function staged(files: Record<string, string>): Record<string, string> {
  const dir = makeTempDir('hoplens-pdroom-').path;
  const out: Record<string, string> = {};
  for (const [name, text] of Object.entries(files)) { out[name] = join(dir, name); writeFileSync(out[name], text); }
  return out;
}

const shown = (logs: { records: { record: { line: number } }[] }[]) => logs.map((l) => l.records.map((r) => r.record.line));

test('the room forms are SGLang\'s printed ones, and no other number is a room', () => {
  const rooms = SGLANG_TRANSFER_IDS.idsOf;
  // decode.py:581 at 0.5.1, with KVTransferError's str: one room, named three times.
  assert.deepEqual(rooms(DECODE.split('\n')[0].slice(26)), [ROOM]);
  assert.deepEqual(rooms(`Request with bootstrap_room=${ROOM} already failed`), [ROOM]);
  // mooncake/conn.py:853, :861 at 0.5.1 (the decode side's AUX_DATA lines).
  assert.deepEqual(rooms(`AUX_DATA length mismatch for bootstrap_room ${ROOM}`), [ROOM]);
  assert.deepEqual(rooms(`Received AUX_DATA for bootstrap_room ${ROOM} with length:64`), [ROOM]);
  // nixl/conn.py:382, :384, :471 at 0.5.1 (`{room=}` prints `room=N`).
  assert.deepEqual(rooms(`got info room=${ROOM} agent_name='b7c1' required_dst_info_num=1`), [ROOM]);
  assert.deepEqual(rooms(`room=${ROOM} is bootstrapped`), [ROOM]);
  assert.deepEqual(rooms(`Sending to prefill server with bootstrap room ${ROOM} is_dummy=False`), [ROOM]);
  // common/conn.py:2518 and mooncake/conn.py:2550 at 0.5.23.
  assert.deepEqual(rooms(`Prefill server with bootstrap_addr: 10.0.0.11:8998 is healthy before, but now it is down. Request (bootstrap_room: ${ROOM}) has been marked as failed.`), [ROOM]);
  assert.deepEqual(rooms(`Skipping chunk for room ${ROOM} because it has already failed or been aborted`), [ROOM]);
  // ReqTimeStats (engine-facts S5) names rid and room.
  const stats = `ReqTimeStats(rid=${RID}, bootstrap_room=${ROOM}, input_len=38, cached_input_len=0, output_len=1, attempts=1, type=prefill): queue_duration=0.40ms`;
  assert.deepEqual(rooms(stats), [ROOM]);
  assert.equal(SGLANG_TRANSFER_IDS.ridOf(stats), RID);
  assert.equal(SGLANG_TRANSFER_IDS.ridOf(DECODE.split('\n')[0]), RID);
  // Numbers that are not rooms: counts, a bootstrap port, another field that ends in bootstrap_room, a rid of digits.
  assert.deepEqual(rooms('Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0'), []);
  assert.deepEqual(rooms('Starting router on 0.0.0.0:8000 | mode: PrefillDecode { prefill_urls: [("http://10.99.91.39:30000", Some(8998))] }'), []);
  assert.deepEqual(rooms(`follow_bootstrap_room=${ROOM} conflict`), []);
  assert.deepEqual(rooms(`Receive: obj=GenerateReqInput(rid='${ROOM}', bootstrap_room=None)`), [], 'a room of None is none');
  assert.deepEqual(rooms(`Request ${ROOM} timed out after 300.0s in KVPoll.Bootstrapping`), [], 'alone, not a named room (inside KVTransferError it is)');
});

test('the timeline: the prefill log\'s line naming only the room is the request\'s, paired by the decode log', async () => {
  const p = staged({ 'prefill.log': PREFILL, 'decode.log': DECODE });
  const r = await readRequestLogs([p['prefill.log'], p['decode.log']], RID);
  assert.equal(r.key, RID);
  assert.deepEqual(shown(r.logs), [[2], [1, 2]], 'prefill L2 (its room), not L3 (a room nothing pairs) or L5 (another request\'s room)');
  // The other request: its own line in the prefill log pairs its room, so its room-only line follows it.
  const other = await readRequestLogs([p['prefill.log'], p['decode.log']], OTHER_RID);
  assert.deepEqual(shown(other.logs), [[4, 5], []]);
  // An open log's session is read alike.
  const sessions = new Map([[p['prefill.log'], PREFILL], [p['decode.log'], DECODE]].map(([path, text]) => {
    const s = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
    s.syncTextNow(text);
    return [path, s] as const;
  }));
  const open = await readRequestLogs([p['prefill.log'], p['decode.log']], RID, { openLog: (path) => sessions.get(path) });
  assert.deepEqual(shown(open.logs), [[2], [1, 2]]);
});

test('hoplens timeline shows the prefill line; before, the prefill log had "no line of this request"', async () => {
  const p = staged({ 'prefill.log': PREFILL, 'decode.log': DECODE });
  const io = bufferIO();
  assert.equal(await runTimeline(['--rid', RID, p['prefill.log'], p['decode.log']], io), 0);
  assert.match(io.stdout, new RegExp(`prefill\\.log · TP0 +Request with bootstrap_room=${ROOM} already failed +L2`));
  assert.doesNotMatch(io.stdout, /no line of this request/);
  assert.doesNotMatch(io.stdout, new RegExp(LONE_ROOM));
});

test('a room paired with two rids joins its room-only lines to neither, and neither request takes the other\'s lines', async () => {
  // The same room on two requests (a client reusing one, or a retry that kept it): decode pairs it with both.
  const retried = DECODE + `[2025-09-17 16:23:20 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${OTHER_RID}' `
    + `decode_req.req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): Failed to get kvcache from prefill instance, it might be dead\n`;
  const p = staged({ 'prefill.log': PREFILL, 'decode.log': retried });
  const first = await readRequestLogs([p['prefill.log'], p['decode.log']], RID);
  assert.deepEqual(shown(first.logs), [[], [1, 2]], 'prefill L2 names a room two requests had: not joined');
  const second = await readRequestLogs([p['prefill.log'], p['decode.log']], OTHER_RID);
  assert.deepEqual(shown(second.logs), [[4, 5], [3]], 'its own lines and its own room\'s; not RID\'s decode lines');

  // The two pairings in two logs: a third log pairs the room with OTHER_RID, the decode log with RID.
  const third = `[2025-09-17 16:23:20 TP0] ReqTimeStats(rid=${OTHER_RID}, bootstrap_room=${ROOM}, input_len=38, cached_input_len=0, output_len=1, `
    + 'attempts=2, type=prefill): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030\n';
  const q = staged({ 'prefill.log': PREFILL, 'decode.log': DECODE, 'prefill-b.log': third });
  const across = await readRequestLogs([q['prefill.log'], q['decode.log'], q['prefill-b.log']], RID);
  assert.deepEqual(shown(across.logs), [[], [1, 2], []], 'shared across logs: prefill L2 joins neither');
});

test('annotate --rid on one log: the room-only line is listed after the request\'s lines, the unpaired room is not', async () => {
  const p = staged({ 'pd.log': PREFILL + DECODE });
  const io = bufferIO();
  assert.equal(await runAnnotate([p['pd.log'], '--rid', RID, '--width', '80'], io), 0);
  const rows = io.stdout.split('\n').filter((l) => /^ {4,6}\d+ {2}/.test(l)).map((l) => Number(l.trim().split(' ')[0]));
  assert.deepEqual(rows, [6, 7, 2]);
  assert.match(io.stdout, new RegExp(`by bootstrap_room ${ROOM} \\(a line of the request names it beside its id\\):\\n +2 {2}- +TP0 +Request with bootstrap_room=${ROOM} already failed`));
  const json = bufferIO();
  assert.equal(await runAnnotate([p['pd.log'], '--rid', RID, '--json'], json), 0);
  const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; line: number }).filter((o) => o.kind === 'line');
  assert.deepEqual(lines.map((l) => l.line), [6, 7, 2]);
  // Without the decode lines nothing pairs the room: the prefill log alone has no line of RID.
  const alone = staged({ 'prefill.log': PREFILL });
  assert.equal(await runAnnotate([alone['prefill.log'], '--rid', RID], bufferIO()), 1);
});

test('a hop that names the room pairs it too: ReqTimeStats makes the prefill\'s NIXL lines the request\'s, from a file and an open log', async () => {
  const RID2 = 'b1f0c6a7d2e94c1fa3b8e5d4c7a60912';
  const ROOM2 = '881234567890123457';
  // NIXL's DEBUG lines on the prefill side (nixl/conn.py:382, :384 at 0.5.1: `got info {room=} {agent_name=}
  // {required_dst_info_num=}`, `{room=} is bootstrapped`), then the hop S5 with --enable-request-time-stats-logging.
  const text = [
    `[2025-09-17 16:24:01 TP0] got info room=${ROOM2} agent_name='d0c1e2f3' required_dst_info_num=1`,
    `[2025-09-17 16:24:01 TP0] room=${ROOM2} is bootstrapped`,
    '[2025-09-17 16:24:01 TP0] Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
    `[2025-09-17 16:24:02 TP0] ReqTimeStats(rid=${RID2}, bootstrap_room=${ROOM2}, input_len=38, cached_input_len=0, output_len=1, attempts=1, `
      + 'type=prefill): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030',
  ].join('\n') + '\n';
  const p = staged({ 'prefill.log': text });
  const r = await readRequestLogs([p['prefill.log']], RID2);
  assert.deepEqual(r.logs[0].records.map((x) => `${x.record.line} ${x.record.hop ?? '-'}`), ['1 -', '2 -', '4 S5']);
  const s = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
  s.syncTextNow(text);
  const open = await readRequestLogs([p['prefill.log']], RID2, { openLog: () => s });
  assert.deepEqual(open.logs[0].records.map((x) => `${x.record.line} ${x.record.hop ?? '-'}`), ['1 -', '2 -', '4 S5']);
});

test('a line naming two rooms pairs neither: decode\'s context corruption line does not give the request another\'s room', async () => {
  // decode.py:2657-2662 at 0.5.23: `Context corruption detected: Request {rid} (bootstrap_room={expected}) received metadata from
  // bootstrap_room={actual}. Metadata buffer index: {idx}. …` (the actual room is another request's).
  const corrupt = `[2025-09-17 16:23:13 TP0] Context corruption detected: Request ${RID} (bootstrap_room=${ROOM}) received metadata from `
    + `bootstrap_room=${OTHER_ROOM}. Metadata buffer index: 3. This indicates metadata buffer index collision.\n`;
  const p = staged({ 'prefill.log': PREFILL, 'decode.log': DECODE + corrupt });
  const mine = await readRequestLogs([p['prefill.log'], p['decode.log']], RID);
  assert.deepEqual(shown(mine.logs), [[2], [1, 2, 3]], 'its own line, not the other room\'s L5');
  const other = await readRequestLogs([p['prefill.log'], p['decode.log']], OTHER_RID);
  assert.deepEqual(shown(other.logs), [[4, 5], []], 'the other room stays the other request\'s alone');
});

test('the request logger\'s Receive OpenAI line (S1) pairs the body\'s bootstrap_room with the rid: the prefill\'s room-only line is the request\'s', async () => {
  // S1 (engine-facts): the OpenAI request body as model_dump(exclude_none=True), a Python dict; a P/D router puts
  // bootstrap_host/port/room into the body (ChatCompletionRequest's fields); the request logger's own header.
  const s1 = `Receive OpenAI: obj={'messages': [{'role': 'user', 'content': 'hi'}], 'model': 'qwen3', 'max_tokens': 8, 'stream': True, `
    + `'rid': '${RID}', 'bootstrap_host': '10.0.0.11', 'bootstrap_port': 8998, 'bootstrap_room': ${ROOM}}`;
  assert.deepEqual(SGLANG_TRANSFER_IDS.idsOf(s1), [ROOM]);
  assert.deepEqual(SGLANG_TRANSFER_IDS.idsOf(`Receive OpenAI: obj={'model': 'qwen3', 'bootstrap_room': [${ROOM}, ${OTHER_ROOM}]}`), [],
    'a batch\'s list of rooms names no one room');
  assert.deepEqual(SGLANG_TRANSFER_IDS.idsOf(`Receive OpenAI: obj={'model': 'qwen3', 'max_tokens': ${ROOM}}`), []);
  const p = staged({ 'prefill.log': `[2025-09-17 16:23:12] ${s1}\n[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${ROOM} already failed\n` });
  const io = bufferIO();
  assert.equal(await runAnnotate([p['prefill.log'], '--rid', RID, '--json'], io), 0);
  const lines = io.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; line: number; hop: string | null }).filter((o) => o.kind === 'line');
  assert.deepEqual(lines.map((l) => [l.line, l.hop]), [[1, 'S1'], [2, null]]);
});
