#!/usr/bin/env node
// `npm run demo`: builds and packages HopLens, prepares a demo workspace (the constructed vLLM
// and SGLang logs with small engine checkouts to click into, a local streaming server that
// speaks vLLM's API and appends vLLM's log lines as it serves, and a call-trace folder written
// by a real sys.settrace run), starts code-server on 127.0.0.1 with HopLens installed, and
// prints the URL to open. Ctrl+C stops everything it started.
// HOPLENS_DEMO_PORT picks the port (default: any free one).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDemo, commitCheckouts, harness, repo, say, startDemoCodeServer } from './demo-parts.mjs';

buildDemo('demo');
const { prepareWorkspace } = harness('workspace');
const { startFakeEngineProcess } = harness('fakeEngineProcess');

const ws = prepareWorkspace();
const settingsFile = join(ws.root, '.vscode', 'settings.json');
const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));

const liveLog = join(ws.root, 'logs', 'live-vllm.log');
writeFileSync(liveLog, '');
// Like vLLM with --otlp-traces-endpoint: start "HopLens: Start Trace Receiver" to see engine timing.
// …and with VLLM_TRACE_FUNCTION=1: its engine core's steps are traced under traces/, so a
// request's timeline shows the calls that ran during it.
const engine = await startFakeEngineProcess({ engine: 'vllm', logFile: liveLog, schedule: 'first=150,frames=40,every=20,burst=6@20', otlp: 'http://127.0.0.1:4318/v1/traces', traceDir: join(ws.root, 'traces', 'server'), traceSourceRoot: ws.vllmCheckout });
Object.assign(settings, { 'hoplens.server.url': engine.url, 'hoplens.server.engine': 'vllm', 'hoplens.serverLog': liveLog });
say('demo', `streaming server (vLLM API) at ${engine.url}, writing ${liveLog}`);

const traceDirs = engine.traceInstanceDir ? [engine.traceInstanceDir] : [];
try {
  const out = execFileSync('python3', [join(repo, 'test', 'fixtures', 'calltrace', 'make_trace.py'), join(ws.root, 'traces'), '--sleep-ms', '25'], { encoding: 'utf8' });
  traceDirs.unshift(JSON.parse(out.trim().split('\n').pop()).instanceDir);
} catch (e) {
  say('demo', `no call-trace folder (python3 failed: ${e.message.split('\n')[0]})`);
}
settings['hoplens.traceDirs'] = traceDirs;

commitCheckouts('demo', [ws.vllmCheckout, ws.sglangCheckout]);
writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

const server = await startDemoCodeServer();
// Ctrl+C (SIGINT/SIGTERM): the harness's exit hooks end code-server's process group and the
// streaming server and remove the demo workspace, all synchronously as the process exits.
process.on('exit', () => process.stderr.write('[demo] stopped: code-server, the streaming server and the demo workspace are gone\n'));
process.stderr.write(`[demo] code-server pid ${server.pid} (its own process group), streaming server pid ${engine.pid}, workspace ${ws.root}\n`);
process.stdout.write(`\nHopLens demo is running. Open:\n\n  ${server.url}?folder=${encodeURIComponent(ws.root)}\n\n` +
  `Try: open logs/vllm.log and click a lens; HopLens: Send Traced Request (streams from ${engine.url});\n` +
  `the Call Traces view in the HopLens sidebar; HopLens: Start Trace Receiver, then send again,\n` +
  `for the engine's own timing (the demo server exports spans to 127.0.0.1:4318), and the report's\n` +
  `Timeline button: client, log, spans and the engine core's traced calls on one axis. Press Ctrl+C to stop.\n`);
if (process.env.HOPLENS_DEMO_EXIT_AFTER_START === '1') process.exit(0);
