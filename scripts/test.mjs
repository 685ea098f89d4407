#!/usr/bin/env node
// `npm test`: compile, then run the three layers in order (unit, integration, e2e).
// `node scripts/test.mjs unit|integration|e2e` runs one layer. Fails when any layer fails.
//
// Every layer runs with TMPDIR pointed at a folder of this run. At the end, pass or fail, any
// process still running from it (a code-server, a server a test started) is ended and named,
// any file a test left there is named, and the folder is removed: a run leaves nothing behind,
// and a test that leaks fails the run instead of filling the machine's /tmp.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFleetTools, FleetToolsUnavailable } from './fleet-tools.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const layers = process.argv.slice(2).length ? process.argv.slice(2) : ['unit', 'integration', 'e2e'];
const sandbox = mkdtempSync(join(tmpdir(), 'hoplens-test-run-'));
process.env.TMPDIR = sandbox;

/** Processes whose environment has TMPDIR inside the sandbox (Linux /proc; elsewhere none). */
function processesOfThisRun() {
  const found = [];
  let pids;
  try { pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid); } catch { return found; }
  for (const pid of pids) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      if (!env.some((v) => v === `TMPDIR=${sandbox}` || v.startsWith(`TMPDIR=${sandbox}/`))) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
      found.push({ pid: Number(pid), cmd });
    } catch { /* gone, or not ours to read */ }
  }
  return found;
}

function finish(code) {
  const leaked = processesOfThisRun();
  for (const p of leaked) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
  let left = [];
  try { left = readdirSync(sandbox); } catch { /* removed */ }
  rmSync(sandbox, { recursive: true, force: true });
  if (leaked.length) {
    process.stderr.write(`\n=== cleanup: ${leaked.length} process(es) were still running after the tests (ended now):\n`);
    for (const p of leaked) process.stderr.write(`  ${p.pid} ${p.cmd.slice(0, 200)}\n`);
  }
  if (left.length) process.stderr.write(`\n=== cleanup: tests left ${left.length} temp entr${left.length === 1 ? 'y' : 'ies'} behind (removed now): ${left.slice(0, 20).join(' ')}\n`);
  if (code === 0 && (leaked.length || left.length)) {
    process.stderr.write('=== FAILED: every test must end what it starts and remove what it writes\n');
    code = 1;
  }
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => finish(130));

function run(label, cmd, args) {
  process.stderr.write(`\n=== ${label}: ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`\n=== ${label} FAILED (exit ${r.status ?? r.signal})\n`);
    finish(r.status || 1);
  }
}

if (layers.some((l) => l !== 'unit') && !process.env.HOPLENS_CODE_SERVER_DIR) {
  // Installs Chromium and the pinned code-server when missing; prints the cached folder last.
  const r = spawnSync(process.execPath, [join(repo, 'scripts', 'ensure-tools.mjs')], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) finish(r.status || 1);
  process.env.HOPLENS_CODE_SERVER_DIR = r.stdout.trim().split('\n').pop();
}

if (layers.includes('unit') && !(process.env.HOPLENS_FLEET_JAEGER && process.env.HOPLENS_FLEET_VICTORIALOGS)) {
  // Real Jaeger and VictoriaLogs for the fleet tests (test/unit/fleet), built once from the Go
  // module proxy into the tool cache (scripts/fleet-tools.mjs). Without Go the fleet tests skip
  // with one line; under CI=true that fails the run here, before anything else runs.
  try {
    const tools = ensureFleetTools();
    process.env.HOPLENS_FLEET_JAEGER = tools.jaeger;
    process.env.HOPLENS_FLEET_VICTORIALOGS = tools.victorialogs;
  } catch (e) {
    if (!(e instanceof FleetToolsUnavailable)) throw e;
    process.stderr.write(`\n=== fleet tools: ${e.message}\n`);
    if (process.env.CI === 'true') { process.stderr.write('=== FAILED: under CI the fleet tests must run, not skip\n'); finish(1); }
    process.stderr.write('=== the fleet tests (test/unit/fleet) will skip\n');
  }
}

run('build', process.execPath, ['esbuild.mjs']);
run('compile tests', process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.test.json']);
for (const layer of layers) {
  if (layer === 'unit') {
    // Lint first (eslint.config.mjs: src, test, bench, scripts): CI runs `npm test`, so a lint error fails it.
    run('lint', process.execPath, [join(repo, 'node_modules/eslint/bin/eslint.js'), '.']);
    run('unit', process.execPath, ['--test', '--test-reporter=spec', 'out/test/unit/']);
  } else if (layer === 'integration') {
    run('integration', process.execPath, ['out/test/harness/runIntegration.js']);
  } else if (layer === 'e2e') {
    run('package', process.execPath, ['scripts/package.mjs']);
    run('e2e', process.execPath, [join(repo, 'node_modules/mocha/bin/mocha.js'), '--timeout', '120000', 'out/test/e2e/**/*.e2e.js']);
  } else {
    process.stderr.write(`unknown layer '${layer}' (unit | integration | e2e)\n`);
    finish(2);
  }
}
finish(0);
