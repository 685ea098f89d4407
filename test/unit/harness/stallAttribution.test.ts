// bench/editorStalls.mjs's attribution of extension-host blocks (test/bench/stallAttribution.ts):
// a block goes to HopLens when its bundle's frames hold most samples, to VS Code otherwise, and
// to nobody when the thread was not running. The profile is shaped as V8's inspector writes one
// (nodes with callFrame and children, samples, timeDeltas in µs, the (root)/(idle)/(program)/
// (garbage collector) nodes), and is also taken for real from this process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Session } from 'node:inspector';
import { attributeStalls, type CpuProfile, type CpuProfileNode } from '../../bench/stallAttribution';

const frame = (id: number, functionName: string, url: string, children: number[] = []): CpuProfileNode =>
  ({ id, callFrame: { functionName, url, lineNumber: 9, columnNumber: 0 }, children });

const DIST = '/ext/dist/';
const options = { isHopLens: (u: string) => u.includes(DIST), isHarness: (u: string) => u.includes('/ext/out/test/bench/'), probeIntervalMs: 10 };

/** An extension host's profile: VS Code's RPC calling a HopLens provider, which calls a builtin; VS Code's own work; GC; idle. */
function profile(): CpuProfile {
  const nodes = [
    frame(1, '(root)', '', [2, 3, 4, 5, 9]),
    frame(2, '(idle)', ''),
    frame(3, '(program)', ''),
    frame(4, '(garbage collector)', ''),
    frame(5, '_doInvokeHandler', 'file:///cs/out/vs/workbench/api/node/extensionHostProcess.js', [6, 8]),
    frame(6, 'provideDecorations', `file://${DIST}extension.js`, [7]),
    frame(7, 'exec', ''),
    frame(8, 'layoutLines', 'file:///cs/out/vs/workbench/api/node/extensionHostProcess.js'),
    frame(9, 'scenario', 'file:///ext/out/test/bench/editorStallsHost.js'),
  ];
  // 1 ms samples from t = 1,000,000 µs, each covering the ms after it: 20 idle, 60 HopLens (7 and 6, a GC in the middle), 20 idle, 70 VS Code, 20 idle.
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) samples.push(2);
  for (let i = 0; i < 60; i++) samples.push(i === 30 ? 4 : i % 2 ? 7 : 6);
  for (let i = 0; i < 20; i++) samples.push(2);
  for (let i = 0; i < 70; i++) samples.push(i < 60 ? 8 : 3);
  for (let i = 0; i < 20; i++) samples.push(2);
  return { nodes, startTime: 1_000_000, endTime: 1_000_000 + samples.length * 1000, samples, timeDeltas: samples.map((_, i) => (i === 0 ? 0 : 1000)) };
}

test('a block is HopLens\'s when its frames hold most of its samples, VS Code\'s when not; each with its time by owner', () => {
  const p = profile();
  const at = (ms: number) => p.startTime + ms * 1000;
  const r = attributeStalls(p, [{ startUs: at(20), endUs: at(90) }, { startUs: at(100), endUs: at(180) }], options);
  const [mine, theirs] = r.blocks;
  assert.equal(mine.owner, 'hoplens');
  assert.equal(mine.blockedMs, 60);
  assert.equal(mine.atMs, 20);
  assert.deepEqual([mine.byOwner.hoplens, mine.byOwner.gc, mine.byOwner.vscode, mine.byOwner.idle], [59, 1, 0, 10]);
  assert.equal(mine.hopLensEntry, 'provideDecorations extension.js:10', 'the outermost HopLens frame');
  assert.equal(theirs.owner, 'vscode');
  assert.deepEqual([theirs.byOwner.hoplens, theirs.byOwner.vscode, theirs.byOwner.native], [0, 60, 10]);
  assert.equal(theirs.hopLensEntry, null);
  assert.equal(Math.round(r.totals.hoplens), 59);
  assert.equal(Math.round(r.totals.idle), 60);
});

test('a block no sample covers is put down to the thread not running, not to whoever ran next', () => {
  const p = profile();
  // Samples stop for 100 ms (the process waited for a core), then HopLens runs 2 ms.
  p.timeDeltas[25] = 100_000;
  p.endTime += 99_000;
  const r = attributeStalls(p, [{ startUs: p.startTime + 20_000, endUs: p.startTime + 127_000 }], options);
  assert.equal(r.blocks[0].owner, 'unscheduled');
  assert.ok(r.blocks[0].unsampledMs >= 95, `unsampled ${r.blocks[0].unsampledMs}`);
});

test('on a real V8 profile of this thread, a busy stretch in a dist/ script is HopLens\'s and one elsewhere is not', async () => {
  const session = new Session();
  session.connect();
  const post = (m: string, params: object = {}) => new Promise<unknown>((res, rej) => session.post(m, params, (e, v) => (e ? rej(e) : res(v))));
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 500 });
  await post('Profiler.start');
  const spin = (ms: number) => { const end = performance.now() + ms; let x = 0; while (performance.now() < end) x++; return x; };
  // Two functions compiled with a source URL: one as if from HopLens's bundle, one from VS Code.
  const hop = new Function('spin', 'return spin(80);\n//# sourceURL=file:///ext/dist/extension.js') as (s: typeof spin) => number;
  const host = new Function('spin', 'return spin(80);\n//# sourceURL=file:///cs/out/vs/workbench/api/node/extensionHostProcess.js') as (s: typeof spin) => number;
  const now = () => Number(process.hrtime.bigint() / 1000n);
  const a0 = now(); hop(spin); const a1 = now();
  await new Promise((r) => setTimeout(r, 20));
  const b0 = now(); host(spin); const b1 = now();
  const { profile: real } = await post('Profiler.stop') as { profile: CpuProfile };
  session.disconnect();
  const r = attributeStalls(real, [{ startUs: a0, endUs: a1 }, { startUs: b0, endUs: b1 }], { ...options, probeIntervalMs: 0 });
  const [mine, theirs] = r.blocks;
  // On a loaded machine the thread may lose its core for part of a stretch: compare shares, not absolute times.
  assert.ok(mine.byOwner.hoplens > 2 * (mine.byOwner.vscode + mine.byOwner.native), JSON.stringify(mine.byOwner));
  assert.ok(theirs.byOwner.vscode > 2 * theirs.byOwner.hoplens, JSON.stringify(theirs.byOwner));
  assert.match(mine.hopLensEntry ?? '', /^\(anonymous\) extension\.js:\d+$/);
});
