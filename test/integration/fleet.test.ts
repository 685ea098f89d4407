// Find Request in the Fleet… in a real extension host against a real VictoriaLogs and a real
// Jaeger on 127.0.0.1 (test/harness/fleetServers.ts): the pods' documents open read-only in the
// log language and the log feature annotates them as it does a file; the result's timeline has
// one lane per pod and the span Jaeger gave; Set Fleet Store Credentials… asks for the token and
// leaves quietly when the box is dismissed.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fleetBinaries, startJaeger, startVictoriaLogs, type JaegerServer, type VictoriaLogsServer } from '../harness/fleetServers';
import { hoplens, until } from './fixture';

const LINES = [
  'INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-req-ext-1: params: SamplingParams(n=1), lora_request: None.',
  'INFO 12-02 10:00:00 [async_llm.py:439] Added request chatcmpl-req-ext-1-1a2b3c4d.',
];

describe('Find Request in the Fleet', () => {
  let vl: VictoriaLogsServer;
  let jaeger: JaegerServer;
  const TRACE = '5b8efff798038103d269b633813fc60c';
  let api: Awaited<ReturnType<typeof hoplens>> | undefined;
  const config = () => vscode.workspace.getConfiguration('hoplens');

  before(async function () {
    this.timeout(60_000);
    const bins = fleetBinaries();
    if (typeof bins === 'string') throw new Error(`the fleet tools are missing: ${bins}`);
    [vl, jaeger] = await Promise.all([startVictoriaLogs(bins.victorialogs), startJaeger(bins.jaeger)]);
    const t0 = Date.now() - 3600_000;
    const span = {
      traceId: TRACE, spanId: '00f067aa0ba902b7', name: 'llm_request', kind: 2,
      startTimeUnixNano: `${BigInt(t0) * 1_000_000n}`, endTimeUnixNano: `${BigInt(t0 + 900) * 1_000_000n}`,
      attributes: [{ key: 'gen_ai.request.id', value: { stringValue: 'chatcmpl-req-ext-1' } }, { key: 'gen_ai.latency.e2e', value: { doubleValue: 0.9 } }],
    };
    const service = { key: 'service.name', value: { stringValue: 'vllm-decode' } };
    await jaeger.ingest({ resourceSpans: [{ resource: { attributes: [service] }, scopeSpans: [{ scope: { name: 'vllm.llm_engine' }, spans: [span] }] }] }, [TRACE]);
    await vl.ingest(['prefill-0', 'decode-0'].flatMap((pod, p) => LINES.map((msg, i) => ({
      _msg: msg, _time: new Date(t0 + p * 10 + i).toISOString(), namespace: 'serving', pod, container: 'vllm',
    }))));
    await config().update('fleet.logs', [`victorialogs+${vl.baseUrl}`], vscode.ConfigurationTarget.Workspace);
    await config().update('fleet.traces', [`jaeger+${jaeger.baseUrl}`], vscode.ConfigurationTarget.Workspace);
  });
  after(async () => {
    await config().update('fleet.logs', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('fleet.traces', undefined, vscode.ConfigurationTarget.Workspace);
    api?.timelines.current?.dispose();
    // Only the fleet's own documents: the tests after this one keep the logs they have open.
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'hoplens-fleet') await vscode.window.tabGroups.close(tab);
    }
    await Promise.all([vl?.stop(), jaeger?.stop()]);
  });

  it('opens one read-only log document per pod, which HopLens annotates', async () => {
    const hl = await hoplens();
    api = hl;
    await until('the setting to arrive', () => config().get<string[]>('fleet.logs')?.length || undefined);
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('hoplens.findRequestInFleet', 'chatcmpl-req-ext-1');
    assert.deepEqual(uris.map((u) => [u.scheme, u.path.split('/').pop()]), [['hoplens-fleet', 'decode-0-vllm.log'], ['hoplens-fleet', 'prefill-0-vllm.log']]);
    for (const uri of uris) {
      const doc = await vscode.workspace.openTextDocument(uri);
      assert.equal(doc.languageId, 'log');
      assert.equal(doc.getText(), `${LINES.join('\n')}\n`);
      const session = await until('the fleet document annotated', () => hl.logs.session(doc));
      assert.ok(session);
    }
  });

  it('Show Timeline of the Fleet Result: one lane per pod, labelled by its pod, each on its own clock, and the span from Jaeger', async () => {
    const hl = await hoplens();
    api = hl;
    const shown = await vscode.commands.executeCommand<boolean>('hoplens.showFleetTimeline');
    assert.equal(shown, true);
    const view = hl.timelines.current?.view;
    assert.ok(view, 'a timeline panel');
    assert.deepEqual(view.lanes.filter((l) => l.kind === 'process').map((l) => [l.title, l.items.map((i) => i.hop)]), [
      ['decode-0/vllm · api-server', ['V1', 'V2']], ['prefill-0/vllm · api-server', ['V1', 'V2']],
    ]);
    assert.deepEqual(view.clocks.filter((c) => c.id.startsWith('log:')).map((c) => c.label), ['decode-0/vllm', 'prefill-0/vllm'], 'a clock per pod');
    assert.ok(view.lanes.some((l) => l.kind === 'engine-spans' && l.count > 0), `the span Jaeger gave: ${view.lanes.map((l) => l.kind).join(', ')}`);
  });

  it('Set Fleet Store Credentials… asks for the token and leaves when the box is dismissed', async () => {
    const running = vscode.commands.executeCommand('hoplens.setFleetCredentials');
    await new Promise((r) => setTimeout(r, 500));
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await running;
  });
});
