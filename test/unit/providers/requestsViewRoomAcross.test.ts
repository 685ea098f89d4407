// A prefill instance's log names a request's KV transfer only by its bootstrap_room; the line that
// pairs the room with the rid is in the decode instance's log, open beside it. The prefill log's
// request row lists those room-only lines, saying which log paired the room; a room the two logs
// pair with two rids joins neither; the row follows the decode log's new lines. Through the
// in-memory `vscode` stand-in, on the lines of pdRoomLines.ts (SGLang's f-strings).
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { EventEmitter, events, InMemoryDocument, InMemoryEditor, Uri, window, workspace } from '../fakes/vscode';
import { createLogFeature } from '../../../src/features/logs/logFeature';
import { HopLensSettings } from '../../../src/config';
import { makeTempDir } from '../../harness/tempDirs';
import { LogSession } from '../../../src/core/session/logSession';
import { RequestsViewProvider, documentLogSource } from '../../../src/features/logs/requestsView';
import { DECODE, OTHER_RID, OTHER_ROOM, PREFILL, RID, ROOM } from '../logs/pdRoomLines';

// The prefill's TokenizerManager after the failed transfer (tokenizer_manager.py, S8: no rank tag), the
// one line of it naming RID: lines 6 and 7 after PREFILL (1-5). Neither names the room.
const PREFILL_ABORTS = [RID, OTHER_RID].map((rid) => `[2025-09-17 16:23:15] Abort request for rid=${rid} not found in rid_to_state; `
  + 'likely already finished/removed.').join('\n') + '\n';
// The decode instance's ReqTimeStats without a room (the form's `[, bootstrap_room=…]` is optional), after DECODE (1-2).
const DECODE_STATS = `[2025-09-17 16:23:20 TP0] ReqTimeStats(rid=${RID}, input_len=38, cached_input_len=0, output_len=1, attempts=1, `
  + 'type=decode): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030\n';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function sessionOf(text: string): LogSession {
  const session = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
  session.syncTextNow(text);
  return session;
}

function twoLogs(prefillText: string, decodeText: string) {
  const prefill = sessionOf(prefillText);
  const decode = sessionOf(decodeText);
  const prefillUri = Uri.file('/logs/prefill.log') as unknown as vscode.Uri;
  const decodeUri = Uri.file('/logs/decode.log') as unknown as vscode.Uri;
  const open = [documentLogSource(prefillUri, prefill), documentLogSource(decodeUri, decode)];
  const changed = new EventEmitter<vscode.Uri>();
  const view = new RequestsViewProvider();
  view.setPeerLogs(() => open, changed.event as unknown as vscode.Event<vscode.Uri>);
  view.setSource(open[0]);
  const rowOf = (rid: string) => view.getChildren().find((n) => view.getTreeItem(n).label === rid)!;
  const plain = (rid: string) => view.getChildren(rowOf(rid)).map((n) => view.getTreeItem(n)).filter((i) => i.id?.startsWith('plain:'));
  return { prefill, decode, decodeUri, open, changed, view, plain };
}

test('the prefill log\'s row lists its line naming only the room the decode log pairs with the rid, and says which log paired it', () => {
  const { view, plain, open } = twoLogs(PREFILL + PREFILL_ABORTS, DECODE + DECODE_STATS);
  try {
    assert.deepEqual(view.getChildren().map((n) => view.getTreeItem(n).label), [RID, OTHER_RID]);
    const mine = plain(RID);
    assert.deepEqual(mine.map((i) => [i.label, i.description]), [
      [`Request with bootstrap_room=${ROOM} already failed`, `line 2 · by bootstrap_room ${ROOM}`],
    ]);
    assert.match(String(mine[0].tooltip), new RegExp(`^joined by bootstrap_room ${ROOM}: this line names only that, and a line of the request `
      + 'in decode\\.log names it beside the request\'s id\\n'));
    assert.deepEqual(mine[0].command?.arguments, [open[0].uri, 2], 'it opens its line in the prefill log');
    // The other request's room is paired in the prefill log itself: its tooltip names no other log.
    const other = plain(OTHER_RID);
    assert.deepEqual(other.map((i) => i.description), [`line 5 · by bootstrap_room ${OTHER_ROOM}`]);
    assert.match(String(other[0].tooltip), /and a line of the request names it beside/);
  } finally { view.dispose(); }
});

test('without the decode log open, or with a room the two logs pair with two rids, the row lists no room line', () => {
  const alone = twoLogs(PREFILL + PREFILL_ABORTS, DECODE + DECODE_STATS);
  try {
    alone.view.setPeerLogs(() => [alone.open[0]]);
    assert.deepEqual(alone.plain(RID), [], 'the prefill log alone pairs no room with RID');
  } finally { alone.view.dispose(); }
  // The decode instance pairs OTHER_ROOM (the prefill's pairing with OTHER_RID, line 4) with RID too.
  const reused = `[2025-09-17 16:23:14 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='${RID}' `
    + `decode_req.req.bootstrap_room=${OTHER_ROOM} with exception KVTransferError(bootstrap_room=${OTHER_ROOM}): Failed to get kvcache from prefill `
    + 'instance, it might be dead\n';
  const { view, plain } = twoLogs(PREFILL + PREFILL_ABORTS, DECODE + reused + DECODE_STATS);
  try {
    assert.deepEqual(plain(OTHER_RID), [], 'line 5 joins neither');
    assert.deepEqual(plain(RID).map((i) => i.description), [`line 2 · by bootstrap_room ${ROOM}`], 'RID keeps its own room\'s line');
  } finally { view.dispose(); }
});

test('when the decode log prints the line pairing the room, the prefill log\'s row refreshes and lists the room line', () => {
  const { decode, decodeUri, changed, view, plain, open } = twoLogs(PREFILL + PREFILL_ABORTS, DECODE_STATS);
  try {
    assert.deepEqual(plain(RID), [], 'nothing pairs ROOM yet');
    let refreshed = 0;
    view.onDidChangeTreeData(() => refreshed++);
    // A live decode log: its transfer failure is appended, and its session says so.
    decode.syncTextNow(DECODE_STATS + DECODE);
    changed.fire(decodeUri);
    assert.equal(refreshed, 1, 'the rows are asked again');
    assert.deepEqual(plain(RID).map((i) => i.description), [`line 2 · by bootstrap_room ${ROOM}`]);
    // A change of a log that is not SGLang's, or of the prefill log itself (the feature refreshes that), does not refresh here.
    changed.fire(Uri.file('/logs/vllm.log') as unknown as vscode.Uri);
    changed.fire(open[0].uri);
    assert.equal(refreshed, 1);
  } finally { view.dispose(); }
});

test('in the log feature: the open decode document pairs the room for the active prefill document\'s row, and its new lines refresh it', async () => {
  const dir = makeTempDir('hoplens-room-across-');
  const settings = new HopLensSettings();
  const context = { extensionUri: Uri.file('/ext'), globalStorageUri: Uri.file(dir.path), subscriptions: [] } as unknown as vscode.ExtensionContext;
  const prefillDoc = new InMemoryDocument(Uri.file(`${dir.path}/prefill.log`), PREFILL + PREFILL_ABORTS);
  const decodeDoc = new InMemoryDocument(Uri.file(`${dir.path}/decode.log`), DECODE_STATS);
  workspace.textDocuments.push(prefillDoc, decodeDoc);
  const feature = createLogFeature(context, quiet, settings);
  try {
    const docs = [prefillDoc, decodeDoc] as unknown as vscode.TextDocument[];
    for (const d of docs) await feature.logs.settled(d);
    const editor = new InMemoryEditor(prefillDoc, []);
    window.activeTextEditor = editor;
    events.activeEditor.fire(editor);
    const view = feature.requests;
    assert.equal(view.currentSource?.uri.toString(), prefillDoc.uri.toString());
    const plain = () => {
      const row = view.getChildren().find((n) => view.getTreeItem(n).label === RID)!;
      return view.getChildren(row).map((n) => view.getTreeItem(n)).filter((i) => i.id?.startsWith('plain:')).map((i) => i.description);
    };
    assert.deepEqual(plain(), [], 'the decode log pairs nothing yet');
    let refreshed = 0;
    view.onDidChangeTreeData(() => refreshed++);
    decodeDoc.setText(DECODE_STATS + DECODE);
    events.changeDocument.fire({ document: decodeDoc, contentChanges: [{}] });
    await feature.logs.settled(docs[1]);
    assert.ok(refreshed >= 1, 'the decode log\'s new lines refresh the prefill log\'s rows');
    assert.deepEqual(plain(), [`line 2 · by bootstrap_room ${ROOM}`]);
  } finally {
    window.activeTextEditor = undefined;
    workspace.textDocuments.length = 0;
    feature.disposable.dispose();
    settings.dispose();
    dir.remove();
  }
});

test('a prefill log with no hop line of the request: a row for it lists its lines naming only the room the decode log pairs', () => {
  // PREFILL alone: no line of it names RID (its only line of RID's is Mooncake's room line, line 2).
  const { view, open } = twoLogs(PREFILL, DECODE + DECODE_STATS);
  const attached = { message: undefined as string | undefined, description: undefined as string | undefined, visible: true };
  try {
    assert.equal(open[0].tracker.requestCount, 0, 'the prefill log has no hop line of any request');
    view.attach(attached as unknown as vscode.TreeView<never>);
    const rows = view.getChildren().map((n) => ({ n, item: view.getTreeItem(n) }));
    // OTHER_RID's room is paired in the prefill log itself (line 4); LONE_ROOM's (line 3) by no line: no row.
    assert.deepEqual(rows.map((r) => [r.item.label, r.item.description]), [
      [RID, `no hop · 1 line names its bootstrap_room ${ROOM}`],
      [OTHER_RID, `no hop · 1 line names its bootstrap_room ${OTHER_ROOM}`],
    ]);
    assert.match(String(rows[0].item.tooltip), new RegExp(`No hop line of this request in prefill\\.log; its lines here name only bootstrap_room ${ROOM}, `
      + 'which a line of the request in decode\\.log names beside its id\\.'));
    assert.deepEqual(rows[0].item.command?.arguments, [open[0].uri, 2]);
    const under = view.getChildren(rows[0].n).map((n) => view.getTreeItem(n));
    assert.deepEqual(under.map((i) => [i.label, i.description]), [[`Request with bootstrap_room=${ROOM} already failed`, `line 2 · by bootstrap_room ${ROOM}`]]);
    assert.equal(attached.message, 'No hop line in prefill.log; 2 requests are named here only by their bootstrap_room.');
    // The filter keeps the rows whose id it is part of.
    view.setFilter(RID.slice(0, 8));
    assert.deepEqual(view.getChildren().map((n) => view.getTreeItem(n).label), [RID]);
    view.setFilter('');
    // Without the decode log open nothing pairs ROOM: no row for RID.
    view.setPeerLogs(() => [open[0]]);
    assert.deepEqual(view.getChildren().map((n) => view.getTreeItem(n).label), []);
    assert.equal(attached.message, 'No requests found in prefill.log.');
  } finally { view.dispose(); }
});

test('1,200 requests named only by their room: the last 1,000 are rows, the count says how many there are', () => {
  const rid = (i: number) => `${String(i).padStart(4, '0')}c84ffb82764f45b028dd8e6c4beed1`;
  const room = (i: number) => String(1655955501905200000n + BigInt(i));
  const prefill = Array.from({ length: 1200 }, (_, i) => `[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${room(i)} already failed`).join('\n') + '\n';
  const decode = Array.from({ length: 1200 }, (_, i) => `[2025-09-17 16:23:13 TP0] Decode transfer failed for request rank=0 `
    + `decode_req.req.rid='${rid(i)}' decode_req.req.bootstrap_room=${room(i)} with exception KVTransferError(bootstrap_room=${room(i)}): `
    + 'Failed to get kvcache from prefill instance, it might be dead').join('\n') + '\n';
  const { view } = twoLogs(prefill, decode);
  const attached = { message: undefined as string | undefined, description: undefined as string | undefined, visible: true };
  try {
    view.attach(attached as unknown as vscode.TreeView<never>);
    const items = view.getChildren().map((n) => view.getTreeItem(n));
    assert.equal(items[0].label, 'Showing the last 1,000 of 1,200 requests named here only by their bootstrap_room; filter by id to find others.');
    assert.equal(items.length, 1001);
    assert.equal(items[1].label, rid(200));
    assert.equal(items[1000].label, rid(1199));
    assert.equal(attached.message, 'No hop line in prefill.log; 1,200 requests are named here only by their bootstrap_room.');
    view.setFilter(rid(7));
    assert.deepEqual(view.getChildren().map((n) => view.getTreeItem(n).label), [rid(7)], 'an older one through the filter');
  } finally { view.dispose(); }
});
