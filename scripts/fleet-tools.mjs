#!/usr/bin/env node
// Builds the real Jaeger and VictoriaLogs that the fleet tests and `npm run demo:fleet` run, from
// the Go module proxy at pinned versions, into the tool cache
// ${XDG_CACHE_HOME:-~/.cache}/hoplens/fleet/<name>-<version>/<binary>, once per machine.
// Both are Apache-2.0; neither is committed nor shipped in the vsix.
//
//   node scripts/fleet-tools.mjs      → prints `jaeger=<path>` and `victorialogs=<path>` (exit 0),
//                                       or one line saying why not (exit 3: no `go`; 1: build failed)
//   import { ensureFleetTools } from './fleet-tools.mjs'   → { jaeger, victorialogs }
//
// A build goes into a temp folder beside its target and is renamed into place only once the
// binary runs, so an interrupted build leaves nothing a later run mistakes for a good one, and
// two runs at once cannot clobber each other (the loser's rename fails and it keeps the winner's).
//
// Go's own caches: when the user has not set GOCACHE / GOMODCACHE, Go's defaults for the user's
// HOME are used, not ones under XDG_CACHE_HOME (CI points XDG_CACHE_HOME at an empty folder per
// run; the issue lets Go's module and build caches persist between runs, the tool cache not).
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, copyFileSync, writeFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The pins. VictoriaLogs' app builds with `go install pkg@version`. Jaeger's go.mod has a replace
 * directive (Shopify/sarama), which `go install pkg@version` refuses, so Jaeger is built from a
 * small module committed in scripts/fleet/jaeger (its go.mod requires jaeger at the pin with the
 * same replace; its go.sum is what `go mod tidy` wrote): the whole dependency graph and its hashes
 * are fixed in the repository, so every machine builds the same thing without resolving anything.
 */
export const FLEET_TOOLS = {
  victorialogs: { name: 'victoria-logs', version: 'v1.52.2', pkg: 'github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs', probe: ['-version'] },
  jaeger: { name: 'jaeger', version: 'v1.76.0', pkg: 'github.com/jaegertracing/jaeger/cmd/jaeger', module: join(repo, 'scripts', 'fleet', 'jaeger'), probe: ['version'] },
};

export class FleetToolsUnavailable extends Error {
  constructor(message, exitCode) { super(message); this.name = 'FleetToolsUnavailable'; this.exitCode = exitCode; }
}

export function fleetCacheRoot(env = process.env) {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens', 'fleet');
}

/** Where a tool's binary lives once built (it may not exist yet). */
export function fleetToolPath(tool, env = process.env) {
  const t = FLEET_TOOLS[tool];
  return join(fleetCacheRoot(env), `${t.name}-${t.version}`, t.name);
}

/** The environment for `go`: Go's HOME defaults for its caches unless the user chose them. */
export function goEnv(env = process.env) {
  const out = { ...env };
  if (!env.GOCACHE) out.GOCACHE = join(homedir(), '.cache', 'go-build');
  if (!env.GOMODCACHE && !env.GOPATH) out.GOMODCACHE = join(homedir(), 'go', 'pkg', 'mod');
  delete out.GOBIN;
  return out;
}

function findGo(env) {
  const r = spawnSync('go', ['version'], { env, encoding: 'utf8' });
  if (r.error || r.status !== 0) return undefined;
  return r.stdout.trim();
}

function pidAlive(pid) {
  try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; }
}

/** Temp folders of builds that were interrupted (their process is gone) are removed. */
function removeAbandonedBuilds(root) {
  let entries;
  try { entries = readdirSync(root); } catch { return; }
  for (const e of entries) {
    const m = /^\.building-.+-(\d+)-[A-Za-z0-9]+$/.exec(e);
    if (m && !pidAlive(Number(m[1]))) rmSync(join(root, e), { recursive: true, force: true });
  }
}

/**
 * Ctrl+C signals the whole foreground group: `go` ends, and with a handler here this process
 * lives on until its blocking call returns, so the build's staging folder is removed (Node's
 * default would end it at once and leave the folder half-made). Then it exits 130.
 */
let interrupted = false;
const noteInterrupt = () => { interrupted = true; };

function buildOne(tool, env, log) {
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, noteInterrupt);
  try {
    return buildOneHeld(tool, env, log);
  } finally {
    for (const sig of ['SIGINT', 'SIGTERM']) process.off(sig, noteInterrupt);
    if (interrupted) {
      log('build interrupted: nothing was kept in the cache; the next run builds again');
      process.exit(130);
    }
  }
}

function buildOneHeld(tool, env, log) {
  const t = FLEET_TOOLS[tool];
  const target = fleetToolPath(tool, env);
  if (existsSync(join(dirname(target), '.built')) && existsSync(target)) return target;
  const root = fleetCacheRoot(env);
  mkdirSync(root, { recursive: true });
  removeAbandonedBuilds(root);
  const staging = mkdtempSync(join(root, `.building-${t.name}-${t.version}-${process.pid}-`));
  chmodSync(staging, 0o755);
  try {
    const genv = goEnv(env);
    const started = Date.now();
    log(`building ${t.name} ${t.version} from the Go module proxy (once; a few minutes on a new machine) …`);
    let r;
    if (t.module) {
      const work = join(staging, 'module');
      mkdirSync(work);
      for (const f of ['go.mod', 'go.sum', 'tools.go']) copyFileSync(join(t.module, f), join(work, f));
      r = spawnSync('go', ['build', '-o', join(staging, t.name), t.pkg], { cwd: work, env: genv, stdio: ['ignore', 'inherit', 'inherit'] });
      rmSync(work, { recursive: true, force: true });
    } else {
      r = spawnSync('go', ['install', `${t.pkg}@${t.version}`], { cwd: staging, env: { ...genv, GOBIN: staging }, stdio: ['ignore', 'inherit', 'inherit'] });
    }
    // The signal's handler runs only once this call returns to the event loop: go's own end tells it now.
    if (r.signal === 'SIGINT' || r.signal === 'SIGTERM') interrupted = true;
    if (r.status !== 0) throw new FleetToolsUnavailable(`building ${t.name} ${t.version} failed (go exit ${r.status ?? r.signal}); see the go output above`, 1);
    const probe = spawnSync(join(staging, t.name), t.probe, { encoding: 'utf8', timeout: 20_000 });
    if (probe.status !== 0) throw new FleetToolsUnavailable(`the ${t.name} just built does not run (${t.probe.join(' ')}: exit ${probe.status ?? probe.signal})`, 1);
    writeFileSync(join(staging, '.built'), `${t.pkg}@${t.version}\nbuilt in ${Math.round((Date.now() - started) / 1000)} s\n`);
    try {
      renameSync(staging, dirname(target));
    } catch (e) {
      // Another run finished first: keep its build.
      if (!existsSync(join(dirname(target), '.built'))) throw e;
      rmSync(staging, { recursive: true, force: true });
    }
    log(`built ${t.name} ${t.version} in ${Math.round((Date.now() - started) / 1000)} s → ${target}`);
    return target;
  } finally {
    if (existsSync(staging)) rmSync(staging, { recursive: true, force: true });
  }
}

/** The built tools, building what is missing. Throws FleetToolsUnavailable (no go; a build failed). */
export function ensureFleetTools({ env = process.env, log = (m) => process.stderr.write(`[fleet-tools] ${m}\n`) } = {}) {
  const built = {};
  const missing = Object.keys(FLEET_TOOLS).filter((k) => {
    const p = fleetToolPath(k, env);
    if (existsSync(p) && existsSync(join(dirname(p), '.built')) && statSync(p).size > 0) { built[k] = p; return false; }
    return true;
  });
  if (missing.length === 0) return built;
  if (!findGo(goEnv(env))) {
    throw new FleetToolsUnavailable(`no \`go\` on PATH: Jaeger and VictoriaLogs are built from source with Go; install Go 1.24+ and run again`, 3);
  }
  for (const k of missing) built[k] = buildOne(k, env, log);
  return built;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const tools = ensureFleetTools();
    for (const [k, p] of Object.entries(tools)) process.stdout.write(`${k}=${p}\n`);
  } catch (e) {
    process.stderr.write(`[fleet-tools] ${e.message}\n`);
    process.exit(e instanceof FleetToolsUnavailable ? e.exitCode : 1);
  }
}
