// A fleet document is one request's lines, and not all of them are hops: a P/D prefill pod's
// connector and scheduler DEBUG lines name the request without being in the hop table. Against a
// real VictoriaLogs on 127.0.0.1, Find Request in the Fleet… opens each pod's lines, and the
// Requests view lists, for that document, the hops and beside them the plain lines naming the
// request (under its row, or as a row of their own when the pod printed no hop of it), each
// opening its line, store text shown as text.
import '../fakes/register';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { events, InMemoryEditor, shownWith, Uri, window, type InMemoryDocument } from '../fakes/vscode';
import { createLogFeature } from '../../../src/features/logs/logFeature';
import { HopLensSettings } from '../../../src/config';
import { makeTempDir } from '../../harness/tempDirs';
import { fleetBinariesOrSkip, startVictoriaLogs, type VictoriaLogsServer } from '../../harness/fleetServers';
import { FleetCommands } from '../../../src/features/fleet/fleetCommand';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { RequestsViewProvider, documentLogSource } from '../../../src/features/logs/requestsView';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import type { HopLensConfig } from '../../../src/config';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const T0_MS = Date.now() - 3600_000;
const ESC = '\u001b';
const NIXL = "(EngineCore_DP0 pid=4150) DEBUG 08-21 22:41:02 [pull_scheduler.py:192] NIXLConnector request_finished(chatcmpl-pd-7-1f2e3d4c), "
  + "request_status=FINISHED_LENGTH_CAPPED, kv_transfer_params={'do_remote_decode': True}";
const SENT = '(EngineCore_DP0 pid=4150) DEBUG 08-21 22:41:03 [scheduler.py:2831] Finished sending KV transfer for request chatcmpl-pd-7-1f2e3d4c';
const HOSTILE = `${ESC}[31m(EngineCore_DP0 pid=4160) DEBUG 08-21 22:41:02 [scheduler.py:700] preempted chatcmpl-pd-7-2b3c4d5e `
  + `${ESC}]8;;command:workbench.action.terminal.new${ESC}\\x${ESC}]8;;${ESC}\\`;

describe('the Requests view lists a fleet document\'s plain lines beside its hops (real VictoriaLogs)', { concurrency: false }, () => {
  let vl: VictoriaLogsServer | undefined;
  let commands: FleetCommands | undefined;
  let fleet: HopLensConfig['fleet'] = { traces: [], logs: [], selector: '', window: '24h' };

  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    vl = await startVictoriaLogs(bins.victorialogs);
    const row = (pod: string, msg: string, i: number) => ({
      _msg: msg, _time: new Date(T0_MS + i).toISOString(), namespace: 'serving', pod, container: 'vllm',
    });
    await vl.ingest([
      row('prefill-0', NIXL, 0), row('prefill-0', SENT, 1),
      row('prefill-1', NIXL.replace('pid=4150', 'pid=4250'), 2), row('prefill-1', HOSTILE, 3),
      // Another request whose id starts with this one's: not a line of it.
      row('prefill-0', SENT.replace('pd-7-1f2e3d4c', 'pd-70-9a8b7c6d'), 4),
    ]);
    commands = new FleetCommands({
      settings: { get current() { return { fleet } as HopLensConfig; } },
      secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined },
      log: quiet, timeoutMs: 3000,
    });
  });
  after(async () => { commands?.dispose(); await vl?.stop(); });

  test('under the request\'s row its hop and its plain line; a pod with no hop of it gets a row of its plain lines', async (t) => {
    if (!vl || !commands) return t.skip('no fleet tools');
    fleet = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '{namespace="serving"}', window: '24h' };
    const opened = await commands.find('chatcmpl-pd-7');
    assert.deepEqual(opened.map((u) => u.path.split('/').pop()), ['prefill-0-vllm.log', 'prefill-1-vllm.log']);
    const logs = new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
    const view = new RequestsViewProvider();
    const shownView = { reveal: async () => undefined, message: undefined as string | undefined, description: undefined as string | undefined };
    view.attach(shownView as unknown as vscode.TreeView<never>);
    view.setPlainLinesLookup((uri) => commands!.documents.plainLines(uri));
    try {
      const [prefill0, prefill1] = shownWith.map((s) => s.doc as unknown as vscode.TextDocument);
      const a0 = await logs.settled(prefill0);
      assert.ok(a0);
      view.setSource(documentLogSource(prefill0.uri, a0.session));
      const rows = view.getChildren();
      assert.deepEqual(rows.map((n) => String(view.getTreeItem(n).label)), ['chatcmpl-pd-7']);
      const under = view.getChildren(rows[0]).map((n) => view.getTreeItem(n));
      const plain = under.filter((i) => i.id?.startsWith('plain:'));
      assert.deepEqual(plain.map((i) => [i.label, i.description]), [[`\u200b${NIXL.slice(0, 119)}…`, 'line 1']], 'the connector\'s line, the hop not twice');
      assert.deepEqual(plain[0].command?.arguments, [prefill0.uri, 1]);
      assert.ok(under.some((i) => i.id === 'hop:chatcmpl-pd-7:2'), `the KV-transfer hop on line 2: ${JSON.stringify(under.map((i) => i.id))}`);
      assert.ok(!prefill0.getText().includes('pd-70'), 'the store kept the other request out');

      const a1 = await logs.settled(prefill1);
      assert.ok(a1);
      view.setSource(documentLogSource(prefill1.uri, a1.session));
      const rows1 = view.getChildren();
      assert.deepEqual(rows1.map((n) => [view.getTreeItem(n).label, view.getTreeItem(n).description]), [['chatcmpl-pd-7', 'no hop · 2 lines name it']]);
      assert.equal(shownView.message, 'No hop line in prefill-1-vllm.log; 2 lines name chatcmpl-pd-7.');
      const lines = view.getChildren(rows1[0]).map((n) => view.getTreeItem(n));
      assert.deepEqual(lines.map((i) => i.description), ['line 1', 'line 2']);
      assert.ok(!String(lines[1].label).includes(ESC), 'escape codes shown as text, not sent to the tree');
      assert.match(String(lines[1].label), /^\\x1b\[31m\(EngineCore_DP0 pid=4160\) DEBUG .* preempted chatcmpl-pd-7-2b3c4d5e \\x1b\]8;;command:wo/);
    } finally {
      view.dispose();
      logs.dispose();
    }
  });

  test('the log feature makes a fleet document with no hop line the Requests view\'s log when its tab is active', async (t) => {
    if (!vl || !commands) return t.skip('no fleet tools');
    fleet = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '{namespace="serving"}', window: '24h' };
    shownWith.length = 0;
    await commands.find('chatcmpl-pd-7');
    const prefill1 = shownWith.map((x) => x.doc).find((d) => d.uri.path.endsWith('/prefill-1-vllm.log')) as InMemoryDocument;
    assert.ok(prefill1);
    const dir = makeTempDir('hoplens-fleet-view-');
    const settings = new HopLensSettings();
    const context = { extensionUri: Uri.file('/ext'), globalStorageUri: Uri.file(dir.path), subscriptions: [] } as unknown as vscode.ExtensionContext;
    const feature = createLogFeature(context, quiet, settings);
    try {
      feature.requests.setPlainLinesLookup((uri) => commands!.documents.plainLines(uri));
      const editor = new InMemoryEditor(prefill1, []);
      window.activeTextEditor = editor;
      events.activeEditor.fire(editor);
      await feature.logs.settled(prefill1 as unknown as vscode.TextDocument);
      assert.equal(feature.requests.currentSource?.uri.toString(), prefill1.uri.toString());
      assert.deepEqual(feature.requests.getChildren().map((n) => feature.requests.getTreeItem(n).description), ['no hop · 2 lines name it']);
    } finally {
      window.activeTextEditor = undefined;
      feature.disposable.dispose();
      settings.dispose();
      dir.remove();
    }
  });

  test('a log that is not a fleet document lists no plain rows', () => {
    const view = new RequestsViewProvider();
    view.setPlainLinesLookup((uri) => commands?.documents.plainLines(uri));
    const tracker = { rids: () => [], brief: () => undefined, get: () => undefined, requestCount: 0 };
    view.setSource({ label: 'x.log', uri: { toString: () => 'file:///x.log' } as vscode.Uri, tracker: tracker as never, engine: 'vllm' });
    assert.deepEqual(view.getChildren(), []);
    view.dispose();
  });
});
