#!/usr/bin/env node
// `npm run demo`: builds and packages HopLens, prepares a demo workspace (the constructed vLLM
// and SGLang logs with small engine checkouts to click into, a local streaming server that
// speaks vLLM's API and appends vLLM's log lines as it serves, and a call-trace folder written
// by a real sys.settrace run), starts code-server on 127.0.0.1 with HopLens installed, and
// prints the URL to open. Ctrl+C stops everything it started.
// HOPLENS_DEMO_PORT picks the port (default: any free one).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function step(label, args) {
  process.stderr.write(`[demo] ${label}\n`);
  const r = spawnSync(process.execPath, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) { process.stderr.write(`[demo] ${label} failed (exit ${r.status})\n`); process.exit(r.status || 1); }
}

const tools = spawnSync(process.execPath, ['scripts/ensure-tools.mjs'], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (tools.status !== 0) process.exit(tools.status || 1);
process.env.HOPLENS_CODE_SERVER_DIR = tools.stdout.trim().split('\n').pop();
step('compiling', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json']);
step('packaging dist/hoplens.vsix', ['scripts/package.mjs']);

const { prepareWorkspace } = require(join(repo, 'out', 'test', 'harness', 'workspace.js'));
const { startFakeEngineProcess } = require(join(repo, 'out', 'test', 'harness', 'fakeEngineProcess.js'));
const { startCodeServer } = require(join(repo, 'out', 'test', 'harness', 'codeServer.js'));
const { resolveTools } = require(join(repo, 'out', 'test', 'harness', 'tools.js'));

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
process.stderr.write(`[demo] streaming server (vLLM API) at ${engine.url}, writing ${liveLog}\n`);

const traceDirs = engine.traceInstanceDir ? [engine.traceInstanceDir] : [];
try {
  const out = execFileSync('python3', [join(repo, 'test', 'fixtures', 'calltrace', 'make_trace.py'), join(ws.root, 'traces'), '--sleep-ms', '25'], { encoding: 'utf8' });
  traceDirs.unshift(JSON.parse(out.trim().split('\n').pop()).instanceDir);
} catch (e) {
  process.stderr.write(`[demo] no call-trace folder (python3 failed: ${e.message.split('\n')[0]})\n`);
}
settings['hoplens.traceDirs'] = traceDirs;

// The checkouts are git repositories with one commit, as a clone would be: HopLens then reads
// their HEAD instead of warning that they are not git repositories.
for (const dir of [ws.vllmCheckout, ws.sglangCheckout]) {
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'HopLens demo', GIT_AUTHOR_EMAIL: 'demo@hoplens.invalid', GIT_COMMITTER_NAME: 'HopLens demo',
    GIT_COMMITTER_EMAIL: 'demo@hoplens.invalid', GIT_CONFIG_NOSYSTEM: '1' };
  try {
    for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'HopLens demo: constructed stand-in checkout']]) execFileSync('git', args, { cwd: dir, env: gitEnv, stdio: 'ignore' });
  } catch (e) {
    process.stderr.write(`[demo] ${dir} is not a git repository (git failed: ${e.message.split('\n')[0]})\n`);
  }
}
writeFileSync(settingsFile, JSON.stringify(settings, null, 2));

const port = Number(process.env.HOPLENS_DEMO_PORT || 0);
const server = await startCodeServer({
  tools: resolveTools(), installVsix: [join(repo, 'dist', 'hoplens.vsix')], startTimeoutMs: 90000, port,
  // The first screen: the workspace README (what to try, in order), nothing in the secondary side bar.
  settings: { 'workbench.startupEditor': 'readme', 'workbench.secondarySideBar.defaultVisibility': 'hidden' },
});
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
