// A prefill pod's line naming only the request's bootstrap_room holds no request id, so a store
// searched for the rid never returns it. When the lines found pair the rid with a room (decode's
// `{decode_req.req.rid=} {decode_req.req.bootstrap_room=}`, decode.py:581 at 0.5.1), the fleet
// search asks each store once more for the room, in the same window with the same limit, and the
// room-only line joins the request: on the timeline (`hoplens timeline --logs`), in
// `annotate --logs`, and in the editor's fleet documents (the Requests view's plain lines).
// Against a real VictoriaLogs on 127.0.0.1, lines as SGLang prints them.
import '../fakes/register';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { shownWith } from '../fakes/vscode';
import { fleetBinariesOrSkip, startVictoriaLogs, type VictoriaLogsServer } from '../../harness/fleetServers';
import { findRequestInFleet } from '../../../src/core/fleet/find';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import { runTimeline } from '../../../src/cli/timeline';
import { runAnnotate } from '../../../src/cli/annotate';
import { bufferIO } from '../../../src/cli/io';
import { FleetCommands } from '../../../src/features/fleet/fleetCommand';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { RequestsViewProvider, documentLogSource } from '../../../src/features/logs/requestsView';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import type { HopLensConfig } from '../../../src/config';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const NOW_MS = Date.now();
const T0_MS = NOW_MS - 3600_000;
const WINDOW = { startMs: NOW_MS - 6 * 3600_000, endMs: NOW_MS + 60_000 };
const RID = '3ce84ffb82764f45b028dd8e6c4beed1';
const ROOM = '1655955501905217457';
const OTHER_ROOM = '7340318826532118201';

// The prefill pod: Mooncake's room-only line for RID's room (mooncake/conn.py:970-971 at 0.5.1, the prefill side's
// add_transfer_request), one for a room nothing pairs, and a line holding the room's digits in no room form.
const PREFILL_ROOM = `[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${ROOM} already failed`;
const PREFILL = [
  '[2025-09-17 16:23:12 TP0] Prefill batch. #new-seq: 1, #new-token: 38, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
  PREFILL_ROOM,
  `[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${OTHER_ROOM} already failed`,
  `[2025-09-17 16:23:14 TP0] Load weight end. seed=${ROOM}`,
];
// The decode pod: RID's failure on two ranks (as test/fixtures/real-logs/mined5-sglang.corpus:31 has it).
const DECODE = [0, 1].map((rank) => `[2025-09-17 16:23:13 TP${rank}] Decode transfer failed for request rank=${rank} `
  + `decode_req.req.rid='${RID}' decode_req.req.bootstrap_room=${ROOM} with exception KVTransferError(bootstrap_room=${ROOM}): `
  + (rank === 0 ? 'Failed to get kvcache from prefill instance, it might be dead' : 'Failed due to an unknown reason from another rank'));

describe('a prefill pod\'s room-only line joins the request through a second search by its room (real VictoriaLogs)', { concurrency: false }, () => {
  let vl: VictoriaLogsServer | undefined;

  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    vl = await startVictoriaLogs(bins.victorialogs);
    const row = (pod: string, msg: string, i: number) => ({
      _msg: msg, _time: new Date(T0_MS + i).toISOString(), namespace: 'serving', pod, container: 'sglang',
    });
    await vl.ingest([...PREFILL.map((m, i) => row('prefill-0', m, i)), ...DECODE.map((m, i) => row('decode-0', m, 10 + i))]);
  });
  after(async () => { await vl?.stop(); });

  test('the search asks again for the room the decode pod paired with the rid, and brings the prefill pod\'s line', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const r = await findRequestInFleet({ requestId: RID, traces: [], logs: [parseStoreUrl(`victorialogs+${vl.baseUrl}`)], window: WINDOW });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.logs[0].streams.map((s) => [s.name, s.entries.map((e) => e.text)]), [
      ['decode-0/sglang', DECODE],
      ['prefill-0/sglang', [PREFILL_ROOM, PREFILL[3]]],
    ], 'the room\'s lines (the seed= line holds its digits, fetched but not joined below); not the other room\'s');
    assert.equal(r.asked.length, 2);
    assert.match(r.asked[1], new RegExp(`"${ROOM}".*\\(the transfer id its lines paired with the request\\)$`));
  });

  test('hoplens timeline --logs puts the prefill pod\'s room-only line on the request\'s timeline, and annotate --logs lists it', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const io = bufferIO();
    assert.equal(await runTimeline(['--rid', RID, '--logs', `victorialogs+${vl.baseUrl}`, '--since', '6h'], io), 0);
    assert.match(io.stdout, new RegExp(`prefill-0:sglang · TP0 +Request with bootstrap_room=${ROOM} already failed`));
    assert.doesNotMatch(io.stdout, /seed=/);
    assert.doesNotMatch(io.stdout, /no line of this request/);
    const an = bufferIO();
    assert.equal(await runAnnotate(['--logs', `victorialogs+${vl.baseUrl}`, '--rid', RID, '--since', '6h', '--json'], an), 0);
    const objs = an.stdout.trim().split('\n').map((l) => JSON.parse(l) as { kind: string; name?: string; line?: number });
    const prefillAt = objs.findIndex((o) => o.kind === 'stream' && o.name?.startsWith('prefill-0'));
    assert.ok(prefillAt >= 0);
    assert.equal(objs[prefillAt + 1].kind, 'line');
    assert.equal(objs[prefillAt + 1].line, 1, 'its stream\'s first line, paired by the decode pod\'s');
  });

  test('Find Request in the Fleet…: the prefill pod\'s document lists the room-only line in the Requests view', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const fleet: HopLensConfig['fleet'] = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '{namespace="serving"}', window: '24h' };
    const commands = new FleetCommands({
      settings: { get current() { return { fleet } as HopLensConfig; } },
      secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined },
      log: quiet, timeoutMs: 3000,
    });
    shownWith.length = 0;
    const logs = new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
    const view = new RequestsViewProvider();
    view.attach({ reveal: async () => undefined } as unknown as vscode.TreeView<never>);
    view.setPlainLinesLookup((uri) => commands.documents.plainLines(uri));
    try {
      const opened = await commands.find(RID);
      assert.deepEqual(opened.map((u) => u.path.split('/').pop()), ['decode-0-sglang.log', 'prefill-0-sglang.log']);
      const prefill = shownWith.map((s) => s.doc as unknown as vscode.TextDocument).find((d) => d.uri.path.endsWith('/prefill-0-sglang.log'))!;
      const a = await logs.settled(prefill);
      assert.ok(a);
      view.setSource(documentLogSource(prefill.uri, a.session));
      const rows = view.getChildren();
      assert.deepEqual(rows.map((n) => [view.getTreeItem(n).label, view.getTreeItem(n).description]), [[RID, 'no hop · 1 line names it']]);
      const lines = view.getChildren(rows[0]).map((n) => view.getTreeItem(n));
      assert.deepEqual(lines.map((i) => [String(i.label).replace(/^\u200b/, ''), i.description]), [[PREFILL_ROOM, 'line 1']]);
    } finally {
      view.dispose();
      logs.dispose();
      commands.dispose();
    }
  });
});
