// An untrusted workspace, for real: workspace trust is on and this folder is not trusted. Its
// .vscode/settings.json points hoplens.server.url and hoplens.traces.queryUrl at a recorder,
// hoplens.serverLog at the engine's log, hoplens.checkouts.vllm and hoplens.traceDirs at
// folders outside the workspace. None of it may change where a request goes or what is read.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { fixture, hoplens } from '../fixture';
import type { TracedRequest } from '../../../src/core/request/index';
import type { UntrustedRunFixture } from '../../harness/untrustedRun';

function run(): UntrustedRunFixture {
  const raw = process.env.HOPLENS_UNTRUSTED_RUN;
  if (!raw) throw new Error('HOPLENS_UNTRUSTED_RUN is not set: run through test/harness/runIntegration');
  return JSON.parse(raw) as UntrustedRunFixture;
}

/** Requests the recorder saw, one `METHOD path` each. */
function recorded(): string[] {
  return readFileSync(run().recorderLog, 'utf8').split('\n').filter(Boolean);
}

describe('An untrusted workspace whose settings point elsewhere', () => {
  before(async () => {
    // The premise: trust is on, this folder is not trusted, and its settings say what they say.
    assert.equal(vscode.workspace.isTrusted, false, 'the test folder must open untrusted');
    const settings = JSON.parse(readFileSync(`${fixture().root}/.vscode/settings.json`, 'utf8')) as Record<string, unknown>;
    assert.equal(settings['hoplens.server.url'], run().recorderUrl);
    assert.equal(settings['hoplens.serverLog'], run().engineLog);
    // The recorder records (so "no request" below means none was sent, not a dead recorder).
    await new Promise<void>((resolve, reject) => get(`${run().recorderUrl}/probe`, (res) => { res.resume(); res.on('end', () => resolve()); }).on('error', reject));
    assert.deepEqual(recorded(), ['GET /probe']);
    await hoplens();
    // The user's own settings are the other premise. code-server's workbench loads them from its
    // user-data folder, and on a loaded machine they were seen to arrive after the extension host
    // ran its first test (the request went to the default :8000, neither URL): wait for them, bounded.
    const userUrl = () => vscode.workspace.getConfiguration('hoplens').get<string>('server.url');
    for (const until = Date.now() + 20_000; userUrl() !== run().engineUrl && Date.now() < until;) await new Promise((r) => setTimeout(r, 100));
    assert.equal(userUrl(), run().engineUrl, 'the user settings never reached the extension host');
  });

  it('Send Traced Request goes to the server in the user settings, not the workspace one', async () => {
    const api = await hoplens();
    const result = await vscode.commands.executeCommand<TracedRequest>('hoplens.sendTracedRequest', { interactive: false, maxTokens: 4 });
    assert.equal(result.record.error, null, JSON.stringify(result.record.error));
    assert.equal(result.record.status, 200);
    assert.ok(result.record.request.url.startsWith(run().engineUrl), result.record.request.url);
    // The server log named only by the workspace is not read: the report asks for the setting instead.
    const html = api.tracedRequests.last()!.reportHtml;
    assert.match(html, /Set hoplens\.serverLog/);
    assert.ok(!html.includes(run().engineLog), 'the report names the workspace\'s log file');
    await api.tracedRequests.openLog(result);
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.uri.fsPath === run().engineLog), 'the workspace\'s log was opened');
    assert.deepEqual(recorded(), ['GET /probe']);
  });

  it('Show Engine Timing of an unknown request does not ask the workspace\'s query URL', async () => {
    const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('hoplens.showEngineTiming', 'chatcmpl-untrusted-0001');
    panel.dispose();
    assert.deepEqual(recorded(), ['GET /probe']);
  });

  it('a log does not resolve against the checkout the settings name outside the workspace', async () => {
    const api = await hoplens();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(fixture().vllmLog));
    await vscode.window.showTextDocument(doc);
    // No checkout from the settings: one found in the workspace folders, or none (links to the pinned commit).
    const resolver = await api.logs.checkout('vllm');
    assert.notEqual(resolver?.root, run().outsideCheckout);
    const session = await api.logs.session(doc);
    const line = doc.getText().split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001'));
    const src = session!.source(line);
    assert.ok(src, 'the hop line still has a source');
    assert.equal(src.location.path, 'vllm/v1/engine/async_llm.py');
    assert.ok(!(src.file ?? '').startsWith(run().outsideCheckout), src.file ?? src.url ?? '');
    if (!resolver) assert.match(src.url ?? '', /^https:\/\//, 'without a checkout: the pinned file on the public repository');
  });

  it('the Call Traces view does not list the trace folder the workspace settings name', async () => {
    const api = await hoplens();
    const roots = await api.callTraces.rows();
    const paths = roots.flatMap((n) => (n.kind === 'folder' ? [n.folder.path] : []));
    assert.ok(!paths.some((p) => p.startsWith(run().outsideTraceDir)), paths.join(', '));
  });
});
