// Find Request in the Fleet… in a real extension host against a real VictoriaLogs on 127.0.0.1
// (test/harness/fleetServers.ts): the pods' documents open read-only in the log language and
// the log feature annotates them as it does a file; Set Fleet Store Credentials… asks for the
// token and leaves quietly when the box is dismissed.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fleetBinaries, startVictoriaLogs, type VictoriaLogsServer } from '../harness/fleetServers';
import { hoplens, until } from './fixture';

const LINES = [
  'INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-req-ext-1: params: SamplingParams(n=1), lora_request: None.',
  'INFO 12-02 10:00:00 [async_llm.py:439] Added request chatcmpl-req-ext-1-1a2b3c4d.',
];

describe('Find Request in the Fleet', () => {
  let vl: VictoriaLogsServer;
  const config = () => vscode.workspace.getConfiguration('hoplens');

  before(async function () {
    this.timeout(60_000);
    const bins = fleetBinaries();
    if (typeof bins === 'string') throw new Error(`the fleet tools are missing: ${bins}`);
    vl = await startVictoriaLogs(bins.victorialogs);
    const t0 = Date.now() - 3600_000;
    await vl.ingest(['prefill-0', 'decode-0'].flatMap((pod, p) => LINES.map((msg, i) => ({
      _msg: msg, _time: new Date(t0 + p * 10 + i).toISOString(), namespace: 'serving', pod, container: 'vllm',
    }))));
    await config().update('fleet.logs', [`victorialogs+${vl.baseUrl}`], vscode.ConfigurationTarget.Workspace);
  });
  after(async () => {
    await config().update('fleet.logs', undefined, vscode.ConfigurationTarget.Workspace);
    // Only the fleet's own documents: the tests after this one keep the logs they have open.
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'hoplens-fleet') await vscode.window.tabGroups.close(tab);
    }
    await vl?.stop();
  });

  it('opens one read-only log document per pod, which HopLens annotates', async () => {
    const api = await hoplens();
    await until('the setting to arrive', () => config().get<string[]>('fleet.logs')?.length || undefined);
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('hoplens.findRequestInFleet', 'chatcmpl-req-ext-1');
    assert.deepEqual(uris.map((u) => [u.scheme, u.path.split('/').pop()]), [['hoplens-fleet', 'decode-0-vllm.log'], ['hoplens-fleet', 'prefill-0-vllm.log']]);
    for (const uri of uris) {
      const doc = await vscode.workspace.openTextDocument(uri);
      assert.equal(doc.languageId, 'log');
      assert.equal(doc.getText(), `${LINES.join('\n')}\n`);
      const session = await until('the fleet document annotated', () => api.logs.session(doc));
      assert.ok(session);
    }
  });

  it('Set Fleet Store Credentials… asks for the token and leaves when the box is dismissed', async () => {
    const running = vscode.commands.executeCommand('hoplens.setFleetCredentials');
    await new Promise((r) => setTimeout(r, 500));
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await running;
  });
});
