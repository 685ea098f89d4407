// Send Traced Request, its report and its buttons without a VS Code host, against the fake
// engine on 127.0.0.1 (the real routes and SSE bytes, vLLM's log lines written to a file): what
// the quick pick offers, what the report page shows, what each button puts on the clipboard,
// and where Open Server Log Lines lands.
import '../fakes/register';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { asked, env, executed, messages, panels, replies, shownWith, Uri, workspace, registered, secretStorageOver } from '../fakes/vscode';
import { TracedRequestCommands } from '../../../src/features/send/sendTracedRequestCommand';
import { HopLensSettings, type HopLensConfig } from '../../../src/config';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { RequestsViewProvider } from '../../../src/features/logs/requestsView';
import { EngineTimingService } from '../../../src/features/traces/engineTimingService';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { ServerLogReader, type TracedRequest } from '../../../src/core/request/index';
import { startFakeEngine, type FakeEngineHandle } from '../../../src/testing/fakeEngine/server';
import type { LogFeature } from '../../../src/features/logs/logFeature';
import { makeTempDir } from '../../harness/tempDirs';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
let engine: FakeEngineHandle;
let dir: ReturnType<typeof makeTempDir>;
let logFile: string;

before(async () => {
  dir = makeTempDir('hoplens-send-');
  logFile = join(dir.path, 'vllm-server.log');
  // The server started before the request: its log is there, as vLLM prints it.
  writeFileSync(logFile, '(APIServer pid=2672) INFO 12-01 10:49:22 [entrypoints/openai/api_server.py:1800] Starting vLLM API server 0 on http://0.0.0.0:8000\n');
  engine = await startFakeEngine({ engine: 'vllm', port: 0, logFile, schedule: 'first=20,frames=6,every=5' });
});
after(async () => { await engine.close(); dir.remove(); });

function setUp(overrides: { server?: Partial<HopLensConfig['server']>; serverLog?: string } = {}) {
  const base = new HopLensSettings().current;
  const settings = { current: { ...base, server: { ...base.server, url: engine.url, engine: 'vllm', maxTokens: 6, ...overrides.server }, serverLog: overrides.serverLog ?? logFile } as HopLensConfig };
  const secrets = new Map<string, string>();
  const context = {
    extensionUri: Uri.file('/ext'),
    secrets: secretStorageOver(secrets),
  } as unknown as vscode.ExtensionContext;
  const logs = new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
  const requests = new RequestsViewProvider();
  requests.attach({ reveal: async () => undefined } as unknown as vscode.TreeView<never>);
  const engineTiming = new EngineTimingService(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings);
  const commands = new TracedRequestCommands({
    context, logs: { logs, requests } as unknown as LogFeature, engineTiming, settings, log: quiet,
    serverLog: new ServerLogReader({ attempts: 3, waitMs: 50 }),
  });
  const registration = commands.register();
  messages.length = 0;
  const run = (id: string, ...args: unknown[]) => registered.get(id)!(...args);
  return { commands, requests, secrets, run, dispose: () => { registration.dispose(); engineTiming.dispose(); requests.dispose(); logs.dispose(); } };
}

test('a traced request: the report shows its summary and the server log lines of this very request', async () => {
  const t = setUp();
  const result = await t.run('hoplens.sendTracedRequest', { interactive: false }) as TracedRequest;
  assert.equal(result.record.error, null);
  assert.equal(result.record.status, 200);
  const panel = panels[panels.length - 1];
  assert.equal(panel.title, `Traced ${result.record.requestId}`);
  const html = panel.webview.html;
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  assert.ok(html.includes('<script nonce="') && html.includes('/ext/media/report.js"></script>'), 'the page script from media/, with its nonce');
  assert.match(html, new RegExp(`<h1>Traced request <code>${result.record.requestId}</code></h1>`));
  assert.match(html, /\d+ line\(s\) in .*vllm-server\.log\. Server clocks: whole seconds only/);
  assert.ok(html.includes(`Received request ${result.record.logRequestId}`), 'the server\'s own line for this request');
  // A whole-second stamp is the second-long range it allows, never a point (issue 27 item 4).
  const cells = [...html.matchAll(/<td><a href="#" data-line="\d+">\d+<\/a><\/td><td>([^<]*)<\/td>/g)].map((m) => m[1]);
  assert.ok(cells.length > 0 && cells.every((c) => /^[−+]\d+\.\d … [−+]\d+\.\d s \(whole-second stamp\)$/.test(c)), JSON.stringify(cells));
  assert.ok(!cells.some((c) => /≈|-\d/.test(c)), `no point time a whole-second stamp cannot support: ${JSON.stringify(cells)}`);
  assert.equal(t.commands.lastResult, result);
  t.dispose();
});

test('the report names the W3C trace id the request carried in its traceparent header', async () => {
  const t = setUp();
  const result = await t.run('hoplens.sendTracedRequest', { interactive: false }) as TracedRequest;
  const { traceId, traceparent } = result.record.traceContext;
  assert.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  assert.equal(result.record.request.headers.traceparent, traceparent, 'sent as the traceparent header');
  assert.ok(panels[panels.length - 1].webview.html.includes(`<tr><th>trace id (traceparent)</th><td>${traceId}</td></tr>`));
  t.dispose();
});

test('the quick pick changes the prompt for this request only; the prompt shows as text, not icons', async () => {
  const t = setUp();
  replies.push((items: { id: string }[]) => items.find((i) => i.id === 'prompt'), '$(zap) say **hi**',
    (items: { id: string }[]) => items.find((i) => i.id === 'send'));
  const result = await t.run('hoplens.sendTracedRequest') as TracedRequest;
  assert.match(JSON.stringify(result.record.request.body), /\$\(zap\) say \*\*hi\*\*/, 'the prompt as typed went to the server');
  const second = asked.filter((a) => a.kind === 'quickPick').pop()!;
  const promptItem = (second.items as { id: string; description: string }[]).find((i) => i.id === 'prompt')!;
  assert.equal(promptItem.description.replace(/\u200b/g, ''), '$(zap) say **hi**');
  assert.doesNotMatch(promptItem.description, /\$\(zap\)/, 'not drawn as an icon in the pick');
  replies.length = 0;
  assert.equal(await t.run('hoplens.sendTracedRequest'), undefined, 'dismissing the pick sends nothing');
  t.dispose();
});

test('the report\'s buttons: Markdown with the generated text redacted, JSON, curl without the stored key', async () => {
  const t = setUp();
  replies.push('sk-secret-123');
  await t.run('hoplens.setApiKey');
  assert.equal(t.secrets.get('hoplens.apiKey'), 'sk-secret-123');
  assert.deepEqual(messages.pop(), { kind: 'info', text: 'HopLens: API key stored.' });
  const result = await t.run('hoplens.sendTracedRequest', { interactive: false }) as TracedRequest;
  const panel = panels[panels.length - 1];
  await panel.receive({ type: 'copyCurl' });
  const curl = await env.clipboard.readText();
  assert.match(curl, /^curl /);
  assert.ok(curl.includes('$HOPLENS_API_KEY') && !curl.includes('sk-secret-123'), curl);
  await panel.receive({ type: 'copyMarkdown' });
  const md = await env.clipboard.readText();
  assert.ok(md.includes(result.record.requestId));
  const first = result.record.frames.find((f) => f.kind === 'content')!;
  assert.equal(first.text, 'Hello', 'the fake engine\'s first token');
  assert.ok(md.includes(`| content | 5 | … |`) && !md.includes('Hello'), 'generated text is redacted by default');
  await panel.receive({ type: 'copyJson' });
  const json = JSON.parse(await env.clipboard.readText()) as { requestId: string; status: number };
  assert.deepEqual([json.requestId, json.status], [result.record.requestId, 200]);
  assert.deepEqual(messages.slice(-3).map((m) => m.text), [
    'HopLens: curl command copied (the API key, if any, is left as $HOPLENS_API_KEY).',
    'HopLens: report copied as Markdown.',
    'HopLens: report copied as JSON.',
  ]);
  replies.push('');
  await t.run('hoplens.setApiKey');
  assert.equal(t.secrets.has('hoplens.apiKey'), false, 'an empty key removes the stored one');
  t.dispose();
});

test('Open Server Log Lines opens the log at the request\'s first line and shows it in the Requests view', async () => {
  const t = setUp();
  const result = await t.run('hoplens.sendTracedRequest', { interactive: false }) as TracedRequest;
  executed.length = 0;
  await panels[panels.length - 1].receive({ type: 'openLog' });
  for (let i = 0; i < 100 && !executed.some((c) => c.id === 'hoplens.revealLogLine'); i++) await new Promise((r) => setTimeout(r, 50));
  const reveal = executed.find((c) => c.id === 'hoplens.revealLogLine')!;
  assert.ok(reveal, executed.map((c) => c.id).join(', '));
  const [uri, line] = reveal.args as [Uri, number];
  assert.equal(uri.fsPath, logFile);
  const doc = await workspace.openTextDocument(uri);
  assert.match(doc.lineAt(line - 1).text, new RegExp(`Received request ${result.record.logRequestId}`));
  assert.equal(t.requests.currentSource?.label, 'vllm-server.log');
  assert.ok(t.requests.listed()?.rids.includes(result.record.logRequestId));
  t.dispose();
});

test('a server that is down: the report says so with a hint, and a warning names it; no server log set: the report says how', async () => {
  const t = setUp({ server: { url: 'http://127.0.0.1:9' }, serverLog: '' });
  const result = await t.run('hoplens.sendTracedRequest', { interactive: false }) as TracedRequest;
  assert.equal(result.record.error?.kind, 'connection-refused');
  const warning = messages.find((m) => m.kind === 'warning')!;
  assert.ok(warning.text.startsWith(`HopLens: ${result.record.error!.message}`), warning.text);
  const html = panels[panels.length - 1].webview.html;
  assert.match(html, /<div class="error" role="alert">/);
  assert.ok(html.includes('Set hoplens.serverLog (or open the server log) to see this request&#39;s server lines here.'));
  t.dispose();
});

test('settings that cannot make a request are named before anything is sent', async () => {
  const t = setUp({ server: { url: 'ftp://$(bug)host' } });
  assert.equal(await t.run('hoplens.sendTracedRequest', { interactive: false }), undefined);
  assert.equal(messages.length, 1);
  assert.equal(messages[0].kind, 'error');
  assert.match(messages[0].text, /Check the hoplens\.server\.\* settings\.$/);
  assert.doesNotMatch(messages[0].text, /\$\(bug\)/);
  t.dispose();
});

test('Repeat Traced Request… sends N in sequence and opens the distribution beside', async () => {
  const t = setUp();
  replies.push('2');
  const report = await t.run('hoplens.repeatTracedRequest') as string;
  assert.match(report, /^2 of 2 run\(s\) completed/);
  const shown = shownWith[shownWith.length - 1];
  assert.ok(shown.doc.getText().startsWith(`# 2 traced requests to \`${engine.url}\``));
  assert.equal(shown.options?.viewColumn, -2);
  t.dispose();
});
