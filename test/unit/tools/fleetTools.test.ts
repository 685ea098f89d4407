// scripts/fleet-tools.mjs with a stand-in `go` on PATH (the real builds take minutes; the fleet
// tests run the real binaries): a build lands in the tool cache only whole, a failed or
// interrupted one leaves nothing behind, Go's caches stay the HOME defaults when XDG_CACHE_HOME is
// a per-run folder, and no `go` is one line with exit 3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../../harness/tools';

const SCRIPT = join(REPO_ROOT, 'scripts', 'fleet-tools.mjs');

/** A `go` that records its environment and writes a runnable stand-in binary (or fails when FAKE_GO_FAIL names the tool). */
function fakeGo(dir: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'go'), `#!/bin/sh
if [ "$1" = version ]; then echo "go version go1.26.8 linux/amd64"; exit 0; fi
echo "GOCACHE=$GOCACHE GOMODCACHE=$GOMODCACHE" >> "${dir}/go-env.txt"
out=""
if [ "$1" = install ]; then case "$2" in *victoria-logs*) out="$GOBIN/victoria-logs";; esac; fi
if [ "$1" = build ]; then out="$3"; fi
case "$out" in *"$FAKE_GO_FAIL"*) if [ -n "$FAKE_GO_FAIL" ]; then echo "build failed" >&2; exit 1; fi;; esac
printf '#!/bin/sh\\nexit 0\\n' > "$out"; chmod +x "$out"
`);
  chmodSync(join(bin, 'go'), 0o755);
  return bin;
}

function run(dir: string, extraEnv: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string> = { HOME: join(dir, 'home'), PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, XDG_CACHE_HOME: join(dir, 'xdg'), ...extraEnv };
  const r = spawnSync(process.execPath, [SCRIPT], { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('fleet-tools: builds each tool once into the tool cache, atomically; Go caches stay under HOME', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-fleet-tools-'));
  try {
    fakeGo(dir);
    const root = join(dir, 'xdg', 'hoplens', 'fleet');
    mkdirSync(root, { recursive: true });
    mkdirSync(join(root, '.building-jaeger-v1.76.0-999999-abc123')); // a build whose process is gone
    const first = run(dir, {});
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(first.stdout.trim().split('\n').sort(), [
      `jaeger=${join(root, 'jaeger-v1.76.0', 'jaeger')}`, `victorialogs=${join(root, 'victoria-logs-v1.52.2', 'victoria-logs')}`,
    ]);
    assert.deepEqual(readdirSync(root).sort(), ['jaeger-v1.76.0', 'victoria-logs-v1.52.2'], 'the abandoned build is removed, no staging left');
    assert.match(readFileSync(join(root, 'jaeger-v1.76.0', '.built'), 'utf8'), /^github\.com\/jaegertracing\/jaeger\/cmd\/jaeger@v1\.76\.0\n/);
    const goEnv = readFileSync(join(dir, 'go-env.txt'), 'utf8').trim().split('\n');
    assert.deepEqual(goEnv, Array(2).fill(`GOCACHE=${join(dir, 'home', '.cache', 'go-build')} GOMODCACHE=${join(dir, 'home', 'go', 'pkg', 'mod')}`));
    const again = run(dir, {});
    assert.equal(again.status, 0);
    assert.equal(readFileSync(join(dir, 'go-env.txt'), 'utf8').trim().split('\n').length, 2, 'built once: go is not run again');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('fleet-tools: a failed build leaves nothing a later run would take for a good one; no go is one line, exit 3', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-fleet-tools-'));
  try {
    fakeGo(dir);
    const failed = run(dir, { FAKE_GO_FAIL: 'jaeger' });
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, /building jaeger v1\.76\.0 failed \(go exit 1\)/);
    const root = join(dir, 'xdg', 'hoplens', 'fleet');
    assert.deepEqual(readdirSync(root), ['victoria-logs-v1.52.2']);
    const noGo = spawnSync(process.execPath, [SCRIPT], { env: { HOME: join(dir, 'home'), PATH: '/nonexistent', XDG_CACHE_HOME: join(dir, 'xdg2') }, encoding: 'utf8' });
    assert.equal(noGo.status, 3);
    assert.deepEqual(noGo.stderr.trim().split('\n'), ['[fleet-tools] no `go` on PATH: Jaeger and VictoriaLogs are built from source with Go; install Go 1.24+ and run again']);
    assert.ok(!existsSync(join(dirname(root), '..', 'xdg2', 'hoplens', 'fleet', 'jaeger-v1.76.0')));
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('fleet-tools: Ctrl+C during a build leaves no half-made folder in the cache, exit 130; the next run builds from scratch', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-fleet-int-'));
  try {
    // A `go` still building when the user presses Ctrl+C: half its output written.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'go'), `#!/bin/sh
if [ "$1" = version ]; then echo "go version go1.26.8 linux/amd64"; exit 0; fi
echo half > "$PWD/half"
touch "${dir}/go-started"
sleep 30
`);
    chmodSync(join(bin, 'go'), 0o755);
    const env = { HOME: join(dir, 'home'), PATH: `${bin}:/usr/bin:/bin`, XDG_CACHE_HOME: join(dir, 'xdg') };
    // Its own process group, as in a terminal: Ctrl+C signals the whole foreground group.
    const child = spawn(process.execPath, [SCRIPT], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env });
    let stderr = '';
    child.stderr!.on('data', (d) => { stderr += d; });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(dir, 'go-started')) && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(join(dir, 'go-started')), `go never started: ${stderr}`);
    const root = join(dir, 'xdg', 'hoplens', 'fleet');
    assert.ok(readdirSync(root).some((n) => n.startsWith('.building-')), 'the build is under way in its staging folder');
    process.kill(-child.pid!, 'SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /build interrupted: nothing was kept in the cache/);
    assert.deepEqual(readdirSync(root), [], 'no half-made folder is left');
    // The next run builds from scratch (a stand-in go that succeeds).
    fakeGo(dir);
    const again = run(dir, {});
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(readdirSync(root).sort(), ['jaeger-v1.76.0', 'victoria-logs-v1.52.2']);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
