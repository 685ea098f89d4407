#!/usr/bin/env node
// `npm run demo`: builds and packages HopLens, prepares a demo workspace (sample vLLM and SGLang
// logs, a local streaming server that speaks vLLM's API and writes its log, a call-trace folder),
// starts code-server on 127.0.0.1 with HopLens installed, and prints the URL to open.
// Ctrl+C stops everything it started.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function step(label, cmd, args) {
  process.stderr.write(`[demo] ${label}\n`);
  const r = spawnSync(cmd, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) { process.stderr.write(`[demo] ${label} failed (exit ${r.status})\n`); process.exit(r.status || 1); }
  return r;
}

const tools = spawnSync(process.execPath, ['scripts/ensure-tools.mjs'], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
if (tools.status !== 0) process.exit(tools.status || 1);
process.env.HOPLENS_CODE_SERVER_DIR = tools.stdout.trim().split('\n').pop();
step('compiling', process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json']);
step('packaging dist/hoplens.vsix', process.execPath, ['scripts/package.mjs']);

const demo = join(repo, '.demo');
const workspace = join(demo, 'workspace');
rmSync(demo, { recursive: true, force: true });
mkdirSync(join(workspace, '.vscode'), { recursive: true });
cpSync(join(repo, 'test', 'fixtures', 'demo'), workspace, { recursive: true });

const children = [];
const settings = {};

// A local server that streams like vLLM and appends vLLM-format log lines as it serves.
const fakeEngineMain = join(repo, 'out', 'src', 'testing', 'fakeEngine', 'main.js');
if (existsSync(fakeEngineMain)) {
  const logFile = join(workspace, 'live-vllm.log');
  writeFileSync(logFile, '');
  const child = spawn(process.execPath, [fakeEngineMain, '--port', '0', '--engine', 'vllm', '--log', logFile], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  children.push(child);
  const url = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('the demo streaming server did not start')), 15000);
    child.stdout.on('data', (d) => {
      seen += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
  });
  settings['hoplens.server.url'] = url;
  settings['hoplens.server.engine'] = 'vllm';
  settings['hoplens.serverLog'] = logFile;
  process.stderr.write(`[demo] streaming server (vLLM API) at ${url}, writing ${logFile}\n`);
}

// A VLLM_TRACE_FUNCTION folder produced by a real sys.settrace run.
const makeTrace = join(repo, 'test', 'fixtures', 'calltrace', 'make_trace.py');
if (existsSync(makeTrace)) {
  const traceRoot = join(workspace, 'traces');
  const r = spawnSync('python3', [makeTrace, '--out', traceRoot], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status === 0) settings['hoplens.traceDirs'] = [traceRoot];
}
writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));

const { startCodeServer } = require(join(repo, 'out', 'test', 'harness', 'codeServer.js'));
const { resolveTools } = require(join(repo, 'out', 'test', 'harness', 'tools.js'));
const server = await startCodeServer({
  tools: resolveTools(), installVsix: [join(repo, 'dist', 'hoplens.vsix')], keepTemp: false, startTimeoutMs: 90000,
});
const stopAll = async () => {
  for (const c of children) { try { process.kill(-c.pid, 'SIGKILL'); } catch { /* gone */ } }
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', stopAll);
process.on('SIGTERM', stopAll);
process.stdout.write(`\nHopLens demo is running. Open:\n\n  ${server.url}?folder=${encodeURIComponent(workspace)}\n\nPress Ctrl+C to stop.\n`);
if (process.env.HOPLENS_DEMO_EXIT_AFTER_START === '1') await stopAll();
