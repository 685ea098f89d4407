// HopLens: Find Request in the Fleet… on the in-memory VS Code against a real VictoriaLogs on
// 127.0.0.1 (test/harness/fleetServers.ts): one read-only log document per pod with the request's
// lines as the store returned them, which the log feature takes as a log; a store that is down
// is named in a warning while the other's lines still open; nothing found names what was asked;
// no store set offers the settings; the token set for a store is sent to it as a bearer token.
import '../fakes/register';
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as vscode from 'vscode';
import { executed, messages, registered, replies, shownWith, secretStorageOver } from '../fakes/vscode';
import { fleetBinariesOrSkip, freePort, startVictoriaLogs, type VictoriaLogsServer } from '../../harness/fleetServers';
import { FleetCommands, fleetTokenKey } from '../../../src/features/fleet/fleetCommand';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import type { HopLensConfig } from '../../../src/config';
import type { LogSource } from '../../../src/core/logs/logSource';
import { loadTimeline } from '../../../src/core/timeline/load';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const T0_MS = Date.now() - 3600_000;
const LINES = [
  'INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-req-cmd-1: params: SamplingParams(n=1), lora_request: None.',
  'INFO 12-02 10:00:00 [async_llm.py:439] Added request chatcmpl-req-cmd-1-1a2b3c4d.',
  'INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-other-9: params: SamplingParams(n=1), lora_request: None.',
];

describe('Find Request in the Fleet… against a real VictoriaLogs', { concurrency: false }, () => {
  let vl: VictoriaLogsServer | undefined;
  let skipped = false;
  let fleet = { traces: [] as string[], logs: [] as string[], selector: '', window: '24h' };
  const secrets = new Map<string, string>();
  let commands: FleetCommands;
  let deps: ConstructorParameters<typeof FleetCommands>[0];

  before(async (t) => {
    const bins = fleetBinariesOrSkip({ skip: (why) => { skipped = true; (t as unknown as { skip?: (w: string) => void }).skip?.(why); } });
    if (!bins) return;
    vl = await startVictoriaLogs(bins.victorialogs);
    const rows = ['prefill-0', 'decode-0'].flatMap((pod, p) => LINES.map((msg, i) => ({
      _msg: msg, _time: new Date(T0_MS + p * 10 + i).toISOString(), namespace: 'serving', pod, container: 'vllm',
    })));
    await vl.ingest(rows);
    deps = {
      settings: { get current() { return { fleet } as HopLensConfig; } },
      secrets: secretStorageOver(secrets),
      log: quiet, timeoutMs: 3000,
    };
    commands = new FleetCommands(deps);
  });
  after(async () => { commands?.dispose(); await vl?.stop(); });
  beforeEach(() => { messages.length = 0; shownWith.length = 0; replies.length = 0; });

  test('the id typed opens one log document per pod with its lines as stored, and the log feature annotates them', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    fleet = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '{namespace="serving"}', window: '24h' };
    replies.push('req-cmd-1');
    await registered.get('hoplens.findRequestInFleet')!();
    const docs = shownWith.map((s) => s.doc);
    assert.deepEqual(docs.map((d) => [d.uri.scheme, d.uri.path.split('/').pop(), d.languageId]), [
      ['hoplens-fleet', 'decode-0-vllm.log', 'log'], ['hoplens-fleet', 'prefill-0-vllm.log', 'log'],
    ]);
    for (const d of docs) assert.equal(d.getText(), `${LINES[0]}\n${LINES[1]}\n`, 'the request\'s lines, oldest first, nothing of another request');
    assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: req-cmd-1: 4 line(s) from 2 pod(s).', buttons: ['Show Timeline'] }]);
    const logs = new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
    const annotation = await logs.settled(docs[0] as unknown as vscode.TextDocument);
    assert.ok(annotation, 'a fleet document is a log to the log feature');
    assert.equal(annotation.session.tracker.brief('chatcmpl-req-cmd-1')?.hops.length, 2);
    logs.dispose();
  });

  test('Show Timeline on the result: the request on one lane per pod, each labelled by its pod, each on its own clock', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    fleet = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '{namespace="serving"}', window: '24h' };
    let asked: { query: string; sources: readonly LogSource[]; spans: readonly unknown[] } | undefined;
    deps.showTimeline = async (req) => { asked = req; return true; };
    try {
      replies.push('req-cmd-1', 'Show Timeline');
      await commands.find();
      for (let i = 0; i < 50 && !asked; i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(asked, 'the result message\'s Show Timeline button opens the timeline');
      assert.equal(asked.query, 'req-cmd-1');
      assert.deepEqual(asked.sources.map((s) => [s.stream.label, s.stream.key.replace(/^hoplens-fleet:\/+/, '').split('?')[0]]), [
        ['decode-0/vllm', 'req-cmd-1/decode-0-vllm.log'], ['prefill-0/vllm', 'req-cmd-1/prefill-0-vllm.log'],
      ]);
      const { timeline } = await loadTimeline({ query: asked.query, logs: asked.sources });
      const podLanes = timeline.lanes.filter((l) => l.kind === 'process');
      assert.deepEqual(podLanes.map((l) => [l.title, l.items.map((i) => i.hop)]), [['decode-0/vllm · api-server', ['V1', 'V2']], ['prefill-0/vllm · api-server', ['V1', 'V2']]]);
      assert.deepEqual(podLanes.map((l) => (l.items[0].ref as { path: string }).path), asked.sources.map((s) => s.stream.key), 'an item opens its pod\'s document');
      assert.equal(new Set(podLanes.map((l) => l.clock)).size, 2, 'a clock per pod');
      assert.deepEqual(timeline.clocks.filter((c) => c.id.startsWith('log:')).map((c) => c.label), ['decode-0/vllm', 'prefill-0/vllm']);
    } finally { deps.showTimeline = undefined; }
  });

  test('a trace store that is down is named in a warning, and the log store\'s lines still open', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    const downPort = await freePort();
    fleet = { traces: [`jaeger+http://127.0.0.1:${downPort}`], logs: [`victorialogs+${vl.baseUrl}`], selector: '', window: '24h' };
    const opened = await commands.find('chatcmpl-req-cmd-1');
    assert.equal(opened.length, 2);
    assert.equal(shownWith.length, 2);
    const warning = messages.find((m) => m.kind === 'warning');
    assert.ok(warning, `a warning: ${JSON.stringify(messages)}`);
    assert.match(warning.text, new RegExp(`1 store\\(s\\) did not answer.*jaeger at http://127\\.0\\.0\\.1:${downPort}`));
    assert.ok(messages.some((m) => m.kind === 'info' && /4 line\(s\) from 2 pod\(s\)/.test(m.text)));
  });

  test('an answer cut by the line limit opens what came and says the limit cut it', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    fleet = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '', window: '24h' };
    deps.lineLimit = 3;
    try {
      const opened = await commands.find('chatcmpl-req-cmd-1');
      assert.equal(shownWith.map((s) => s.doc.lineCount - 1).reduce((a, b) => a + b, 0), 3, 'three of the four lines');
      assert.ok(opened.length >= 1);
      assert.deepEqual(messages.map((m) => m.kind), ['warning']);
      assert.match(messages[0].text, /: 3 line\(s\) from \d pod\(s\)\. Cut by the limit of 3 lines per log store: older lines were not fetched/);
    } finally {
      deps.lineLimit = undefined;
    }
  });

  test('nothing found names the store asked and the window; the object argument works as the string', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    fleet = { traces: [], logs: [`victorialogs+${vl.baseUrl}`], selector: '', window: '2h' };
    assert.deepEqual(await commands.find({ requestId: 'chatcmpl-no-such-request' }), []);
    assert.equal(shownWith.length, 0);
    assert.equal(messages.length, 1);
    assert.match(messages[0].text, /^HopLens: nothing found for chatcmpl-no-such-request over \d{4}-\d\d-\d\dT[\d:.]+Z – \d{4}-.*Asked: .*VictoriaLogs/i);
    assert.match(messages[0].text, new RegExp(vl.baseUrl.replace(/[.]/g, '\\.')));
  });

  test('no store set: a message with a button that opens the settings; a bad URL names its setting', async () => {
    fleet = { traces: [], logs: [], selector: '', window: '24h' };
    replies.push('Open Settings');
    assert.deepEqual(await commands.find('chatcmpl-x'), []);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(messages[0].buttons, ['Open Settings']);
    assert.match(messages[0].text, /no fleet stores are set.*hoplens\.fleet\.logs/);
    assert.deepEqual(executed.at(-1), { id: 'workbench.action.openSettings', args: ['hoplens.fleet'] });
    messages.length = 0;
    fleet = { traces: ['victorialogs+http://127.0.0.1:9428'], logs: [], selector: '', window: '24h' };
    await commands.find('chatcmpl-x');
    assert.deepEqual(messages.map((m) => m.kind), ['error']);
    assert.match(messages[0].text, /hoplens\.fleet\.traces: .*victorialogs store/);
  });

  test('Set Fleet Store Credentials… keeps a token per store in the secret storage, and the store gets it as a bearer token', async () => {
    const seen: (string | undefined)[] = [];
    const store = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(401, { 'content-type': 'text/plain' }).end('unauthorized');
    });
    await new Promise<void>((r) => store.listen(0, '127.0.0.1', r));
    const url = `victorialogs+http://127.0.0.1:${(store.address() as AddressInfo).port}`;
    try {
      fleet = { traces: [], logs: [url], selector: '', window: '24h' };
      replies.push((items: Array<{ how: string }>) => items.find((i) => i.how === 'token'), 's3cret-token');
      await registered.get('hoplens.setFleetCredentials')!();
      assert.equal(secrets.get(fleetTokenKey(parseStoreUrl(url))), 's3cret-token');
      messages.length = 0;
      await commands.find('chatcmpl-x');
      assert.deepEqual(seen, ['Bearer s3cret-token']);
      assert.ok(messages.some((m) => m.kind === 'warning' && m.text.includes(url.replace('victorialogs+', ''))), JSON.stringify(messages));
      replies.push((items: Array<{ how: string }>) => items.find((i) => i.how === 'token'), '');
      await commands.setCredentials();
      assert.equal(secrets.size, 0, 'an empty token removes the stored one');
    } finally {
      store.close();
    }
  });
});
