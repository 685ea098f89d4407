// OpenTelemetry in the editor without a VS Code host: the trace receiver's status bar item as
// spans arrive from the real OpenTelemetry SDK exporter (and when they cannot be kept), the
// Collector file command, and the engine timing panel of the request the user picks.
import '../fakes/register';
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { asked, env, executed, InMemoryDocument, InMemoryEditor, messages, panels, registered, replies, Selection, statusItems, Uri, window } from '../fakes/vscode';
import { EngineTimingService } from '../../../src/features/traces/engineTimingService';
import { registerEngineTimingCommands } from '../../../src/features/traces/engineTimingCommands';
import type { TracedRequestCommands } from '../../../src/features/send/sendTracedRequestCommand';
import type { LogSessions } from '../../../src/features/logs/logDocuments';
import { LogSession } from '../../../src/core/session/logSession';
import type { HopLensConfig } from '../../../src/config';
import { exportFixtureWithSdk, FIXTURES } from '../otlp/helpers';
import { assertSameSpans, EXPORT_SUCCESS, exportOnce, llmRequestSpan, makeExporter, recordingTracer, VLLM_RESOURCE } from '../otlp/trials';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const COLLECTOR_FILE = join(FIXTURES, 'collector_export.jsonl');
const live: { dispose(): void }[] = [];
afterEach(async () => { for (const d of live.splice(0)) d.dispose(); });

function setUp(opts: { host?: string; last?: { rid: string; ttftContentMs: number; e2eMs: number }; logText?: string } = {}) {
  const settings = { current: { traces: { receiverHost: opts.host ?? '127.0.0.1', receiverPort: 0, queryUrl: '', queryService: '' } } as HopLensConfig };
  const service = new EngineTimingService(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings);
  const status = statusItems[statusItems.length - 1];
  const last = opts.last && { record: { logRequestId: opts.last.rid }, metrics: { ttftContentMs: opts.last.ttftContentMs, e2eMs: opts.last.e2eMs } };
  const traced = { lastResult: last } as unknown as TracedRequestCommands;
  const session = new LogSession();
  if (opts.logText) session.syncTextNow(opts.logText);
  const logs: Pick<LogSessions, 'get'> = { get: () => (opts.logText ? { session } as never : undefined) };
  const commands = registerEngineTimingCommands({ service, logs, traced, settings });
  messages.length = 0;
  live.push({ dispose: () => { commands.dispose(); void service.stop(); service.dispose(); } });
  const run = (id: string, ...args: unknown[]) => registered.get(id)!(...args);
  return { service, status, run };
}

test('Start Trace Receiver: the status bar counts the spans the SDK exports; the launch line is one click away; Stop closes it', async () => {
  const t = setUp();
  replies.push('Copy Launch Line');
  const receiver = await t.run('hoplens.startTraceReceiver') as { url: string; port: number };
  assert.match(receiver.url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
  assert.equal(t.status.text, `$(radio-tower) OTLP :${receiver.port} · 0 spans`);
  assert.equal(t.status.visible, true);
  assert.ok(executed.some((c) => c.id === 'setContext' && c.args[0] === 'hoplens.traceReceiverRunning' && c.args[1] === true));
  assert.equal(messages[0].text, `HopLens: receiving traces at ${receiver.url}. Launch vLLM with --otlp-traces-endpoint ${receiver.url} and OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf.`);
  await new Promise((r) => setImmediate(r));
  assert.equal(await env.clipboard.readText(), `OTEL_SERVICE_NAME=vllm OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf vllm serve <model> --otlp-traces-endpoint ${receiver.url}`);

  await exportFixtureWithSdk(receiver.url, 'protobuf', Date.UTC(2026, 10, 29, 9));
  assert.match(t.status.text, /^\$\(radio-tower\) OTLP :\d+ · [1-9]\d* spans$/);
  assert.match(String(t.status.tooltip), /^HopLens is receiving OpenTelemetry traces at http:\/\/127\.0\.0\.1:\d+\/v1\/traces\n\d+ export request\(s\): 0 refused as unreadable\.\nLaunch vLLM with:\nOTEL_SERVICE_NAME=vllm /);
  assert.equal(t.service.timing('chatcmpl-hl0001')?.e2eMs, 1240.5);
  assert.deepEqual(t.service.timingLine('chatcmpl-hl0001')?.label, 'engine: e2e 1240.5 ms');

  await t.run('hoplens.stopTraceReceiver');
  assert.equal(t.status.visible, false);
  assert.equal(t.service.running, false);
  await assert.rejects(fetch(receiver.url, { method: 'POST', body: '{}' }), 'the port is closed');
});

test('a receiver host that is not loopback asks first; no answer starts nothing', async () => {
  const t = setUp({ host: '0.0.0.0' });
  assert.equal(await t.run('hoplens.startTraceReceiver'), undefined);
  assert.deepEqual(messages, [{ kind: 'warning', text: 'HopLens: the trace receiver would listen on 0.0.0.0, not only on this machine: anyone who can reach it can send spans. Start it anyway?', buttons: ['Start'] }]);
  assert.equal(t.service.running, false);
  assert.equal(t.status.visible, false);
});

test('spans the editor cannot keep: the status bar says the receiver refuses them (503), and recovers', async () => {
  const t = setUp();
  const receiver = await t.run('hoplens.startTraceReceiver') as { url: string };
  const add = t.service.store.add.bind(t.service.store);
  t.service.store.add = () => { throw new Error('the span store is broken'); };
  const res = await fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'vllm.llm_engine' }, spans: [{ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'llm_request', kind: 2, startTimeUnixNano: '1764406800000000000', endTimeUnixNano: '1764406801000000000', attributes: [] }] }] }] }) });
  assert.equal(res.status, 503);
  assert.match(t.status.text, /^\$\(warning\) OTLP :\d+ · 0 spans · refusing$/);
  assert.equal((t.status.backgroundColor as { id: string }).id, 'statusBarItem.warningBackground');
  assert.match(String(t.status.tooltip), /^HopLens cannot keep the spans it receives: could not keep 1 span\(s\): the span store is broken\.\nExporters are answered 503 with Retry-After: 1 s.*\n1 export request\(s\): 0 refused as unreadable, 1 answered 503\./);
  t.service.store.add = add;
  await exportFixtureWithSdk(receiver.url, 'json', Date.UTC(2026, 10, 29, 9));
  assert.match(t.status.text, /^\$\(radio-tower\) OTLP/);
  assert.equal(t.status.backgroundColor, undefined);
});

test('the official exporter answered 503 keeps its spans and sends them again: they arrive once, and the status bar recovers', async () => {
  const t = setUp();
  const receiver = await t.run('hoplens.startTraceReceiver') as { url: string };
  const store = t.service.store;
  const add = store.add.bind(store);
  let failing = true;
  store.add = (spans) => { if (failing) throw new Error('the span store is broken'); add(spans); };
  const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine');
  for (let i = 0; i < 2; i++) llmRequestSpan(tracer, `chatcmpl-ext-503-${i}`, Date.UTC(2026, 10, 29, 9), i);
  const spans = finished();
  const exporting = exportOnce(makeExporter(receiver.url, { protocol: 'protobuf' }), spans);
  for (let i = 0; i < 200 && !/refusing/.test(t.status.text); i++) await new Promise((r) => setTimeout(r, 10));
  assert.match(t.status.text, /^\$\(warning\) OTLP :\d+ · \d+ spans · refusing$/);
  failing = false;
  const r = await exporting;
  assert.equal(r.code, EXPORT_SUCCESS, r.error?.message);
  const ids = new Set(spans.map((x) => x.spanContext().spanId));
  assertSameSpans(spans, store.spans().filter((x) => ids.has(x.spanId)), 'protobuf', 'after the 503');
  assert.match(t.status.text, /^\$\(radio-tower\)/);
});

test('Open OTLP File reads a Collector\'s JSON Lines, says what it skipped, and the timings join by request id', async () => {
  const t = setUp();
  const n = await t.run('hoplens.openOtlpFile', Uri.file(COLLECTOR_FILE));
  assert.equal(n, 4);
  assert.match(messages[0].text, new RegExp(`^HopLens: read 4 span\\(s\\) from ${COLLECTOR_FILE.replace(/[.]/g, '\\.')}; skipped 1 line\\(s\\) that were not OTLP JSON and 0 bad span\\(s\\) \\(line \\d+: `));
  assert.equal(t.service.timing('chatcmpl-c0ffee01')?.e2eMs, 2401.2);
  assert.ok(t.service.timing('cmpl-c0ffee02-0'), 'a completions id as the request logger prints it');
  messages.length = 0;
  assert.equal(await t.run('hoplens.openOtlpFile', Uri.file('/nowhere/$(bug).jsonl')), 0);
  assert.equal(messages[0].kind, 'error');
  assert.doesNotMatch(messages[0].text, /\$\(bug\)/);
});

test('Show Engine Timing: the request at the cursor, else a pick (the last traced request marked); the panel shows its breakdown', async () => {
  const none = setUp();
  assert.equal(await none.run('hoplens.showEngineTiming'), undefined);
  assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: no request to show: start the trace receiver and send a request, or put the cursor on a request line.' }]);

  const t = setUp({ last: { rid: 'cmpl-c0ffee02-0', ttftContentMs: 250, e2eMs: 2600 } });
  await t.run('hoplens.openOtlpFile', Uri.file(COLLECTOR_FILE));
  window.activeTextEditor = undefined;
  replies.push((items: { rid: string }[]) => items.find((i) => i.rid === 'cmpl-c0ffee02-0'));
  const panel = await t.run('hoplens.showEngineTiming') as (typeof panels)[number];
  const pick = asked[asked.length - 1];
  assert.equal((pick.options as { title: string }).title, 'Engine timing of which request?');
  assert.deepEqual((pick.items as { label: string; description?: string }[]).map((i) => [i.label, i.description]),
    [['cmpl-c0ffee02-0', 'last traced request'], ['chatcmpl-c0ffee01', undefined]]);
  assert.equal(panel.title, 'Engine cmpl-c0ffee02-0');
  assert.match(panel.webview.html, /<h1>Engine timing of <code>cmpl-c0ffee02-0<\/code><\/h1>/);
  assert.match(panel.webview.html, /<table class="summary" id="engine-breakdown">/);
  assert.match(panel.webview.html, /<th>TTFT not measured by the engine<\/th><td><\/td><td>[\d.]+ ms<\/td>/, 'the client\'s times of the last traced request beside the engine\'s');

  // A request line at the cursor needs no pick.
  const line = '(APIServer pid=31337) INFO 11-29 09:00:00 [logger.py:43] Received request chatcmpl-c0ffee01: prompt: \'hi\', params: SamplingParams(n=1), lora_request: None.';
  const withLog = setUp({ logText: line + '\n' });
  await withLog.run('hoplens.openOtlpFile', Uri.file(COLLECTOR_FILE));
  const editor = new InMemoryEditor(new InMemoryDocument(Uri.file('/logs/vllm.log'), line), []);
  editor.selection = new Selection(0, 5, 0, 5);
  window.activeTextEditor = editor;
  const before = asked.length;
  const atCursor = await withLog.run('hoplens.showEngineTiming') as (typeof panels)[number];
  assert.equal(atCursor.title, 'Engine chatcmpl-c0ffee01');
  assert.equal(asked.length, before, 'no pick');
  window.activeTextEditor = undefined;
});

test('a request id from the outside world is shown as text in the panel', async () => {
  const t = setUp();
  const rid = 'chatcmpl-<img src=x onerror=alert(1)>';
  const panel = await t.run('hoplens.showEngineTiming', rid) as (typeof panels)[number];
  assert.ok(!panel.webview.html.includes('<img src=x'), 'no markup from the id');
  assert.ok(panel.webview.html.includes('chatcmpl-&#60;img src=x onerror=alert(1)&#62;'));
  assert.match(panel.webview.html, /No llm_request span for this request yet/);
});
