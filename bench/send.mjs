#!/usr/bin/env node
// Benchmark for `Send Traced Request` (issue 4 §8).
//   node bench/send.mjs [--runs 20] [--lab-runs 5] [--frames-big 200000]
// 1. Accuracy: the fake engine (its own process) streams a known schedule — first frame
//    after 150 ms, 40 frames 20 ms apart, frames 20..24 held back and written in ONE write.
//    Our client's TTFT and ITLs are compared with the schedule and with the server's
//    actual write times; the lab script (lab12_run.py --mode send --frames) is measured
//    the same way on the same schedule.
// 2. Per-frame cost: a pre-recorded stream of N vLLM frames through parse + classify +
//    metrics, in process (CPU µs per frame), and end to end over loopback for both clients.
// Generated files go to bench/data/ (git-ignored) and are deleted at the end.
import { spawn, spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const data = join(repo, 'bench', 'data', 'send');
const LAB = join(repo, '..', 'shared', 'anchors', 'lab12_run.py');
const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : def; };
const RUNS = arg('runs', 20);
const LAB_RUNS = arg('lab-runs', RUNS);
const BIG = arg('frames-big', 200_000);
const SCHEDULE = 'first=150,frames=40,every=20,burst=5@20';

mkdirSync(data, { recursive: true });
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/testing/fakeEngine/main.ts')], outfile: join(data, 'fakeEngine.cjs') });
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/core/request/index.ts')], outfile: join(data, 'request.cjs') });
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/testing/fakeEngine/schedule.ts')], outfile: join(data, 'schedule.cjs') });
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/testing/fakeEngine/frames.ts')], outfile: join(data, 'frames.cjs') });
const require = createRequire(import.meta.url);
const req = require(join(data, 'request.cjs'));
const { parseSchedule, contentFrameWriteMs } = require(join(data, 'schedule.cjs'));
const { VllmChunks, sse, DONE } = require(join(data, 'frames.cjs'));

function startEngine(schedule) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(data, 'fakeEngine.cjs'), '--engine', 'vllm', '--port', '0', '--schedule', schedule], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c) => { out += c; const m = /listening on (\S+)/.exec(out); if (m) resolve({ url: m[1], proc: p }); });
    p.on('exit', (code) => reject(new Error(`fake engine exited ${code}`)));
  });
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.round((p / 100) * (s.length - 1)))]; };
const f2 = (v) => (v === undefined || v === null || Number.isNaN(v) ? '   n/a' : v.toFixed(3).padStart(7));
const stats = (xs) => ({ p50: pct(xs, 50), p99: pct(xs, 99), max: Math.max(...xs) });

const schedule = parseSchedule(SCHEDULE);
const writeMs = contentFrameWriteMs(schedule, schedule.frames);
const expectedGaps = writeMs.slice(1).map((t, i) => t - writeMs[i]);

// ---------------------------------------------------------------- 1. accuracy
const engine = await startEngine(SCHEDULE);
// The reference server, not the client under test, gets a higher scheduling priority when the
// OS allows it (root): its own late writes would otherwise be charged to the client.
let serverNice = 'normal priority';
try { (await import('node:os')).setPriority(engine.proc.pid, -10); serverNice = 'nice -10'; } catch { /* not permitted: normal priority */ }
console.log(`fake engine ${engine.url} (${serverNice}), schedule "${SCHEDULE}" (gaps: 19×20 ms, one 100 ms spike, 4×0 ms burst, 15×20 ms)`);
// Two unmeasured runs first: JIT warm-up of both processes, as any long-lived client would be.
for (let r = 0; r < 2; r++) await req.sendTracedRequest({ url: engine.url, engine: 'vllm', model: 'Qwen/Qwen3-0.6B', maxTokens: 40 });
const load0 = loadavg();
/** Server write times of content frames (ms after the request arrived): role write skipped, bursts expanded. */
async function contentWritesFor(rid) {
  const writes = await (await fetch(`${engine.url}/__fake/writes?rid=${rid}`)).json();
  const out = [];
  for (const w of writes.writes.slice(1)) for (let k = 0; k < w.frames; k++) out.push(w.t);
  return out;
}

// The lab script on the same schedule, interleaved with ours so both see the same machine load.
const lab = { ttftErr: [], ttftErrVsWrites: [], itlErr: [], itlErrVsWrites: [], itlP99Err: [], wallMs: [], maxRssKb: [] };
async function runLabOnce(n) {
  const rid = `bench-lab-${process.pid}-${n}`;
  const res = spawnSync('/usr/bin/time', ['-f', '%e %M', 'python3', LAB, '--mode', 'send', '--frames', '--url', engine.url, '--model', 'Qwen/Qwen3-0.6B', '--max-tokens', '40', '--rid', rid], { encoding: 'utf8' });
  if (res.status !== 0) { console.log(`lab run failed: ${res.stderr}`); return; }
  const rows = res.stdout.split('\n').map((l) => /^\s*(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s/.exec(l)).filter(Boolean).map((m) => ({ t: Number(m[2]), chars: Number(m[4]) }));
  const content = rows.filter((x) => x.chars > 0);
  const gaps = content.slice(1).map((f, i) => f.t - content[i].t);
  lab.ttftErr.push(content[0].t - schedule.firstMs);
  gaps.forEach((g, i) => lab.itlErr.push(Math.abs(g - expectedGaps[i])));
  const cw = await contentWritesFor(rid);
  lab.ttftErrVsWrites.push(content[0].t - cw[0]);
  gaps.forEach((g, i) => lab.itlErrVsWrites.push(Math.abs(g - (cw[i + 1] - cw[i]))));
  lab.itlP99Err.push(Math.abs(pct(gaps, 99) - pct(expectedGaps, 99)));
  const [wall, rss] = res.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  lab.wallMs.push(wall * 1000);
  lab.maxRssKb.push(rss);
}
const ours = { connectMs: [], ttftErr: [], ttftErrVsWrites: [], itlErr: [], itlErrVsWrites: [], itlP99Err: [], signatures: new Map() };
// As the product does (the extension's request thread, `hoplens send`): warm the HTTP path on loopback first.
await req.warmUpRequestPath();
for (let r = 0; r < RUNS; r++) {
  const rid = `bench-${process.pid}-${r}`;
  const { record, metrics } = await req.sendTracedRequest({ url: engine.url, engine: 'vllm', model: 'Qwen/Qwen3-0.6B', requestId: rid, maxTokens: 40 });
  if (record.error) throw new Error(`run ${r}: ${record.error.message}`);
  const content = record.frames.filter((f) => f.kind === 'content');
  const gaps = content.slice(1).map((f, i) => f.t - content[i].t);
  const contentWrites = await contentWritesFor(rid);
  const serverGaps = contentWrites.slice(1, content.length).map((t, i) => t - contentWrites[i]);
  ours.connectMs.push(record.timeline.connectMs);
  ours.ttftErr.push(metrics.ttftContentMs - schedule.firstMs);
  // Request start → server arrival is not visible to the server; the first write is relative to arrival.
  ours.ttftErrVsWrites.push(metrics.ttftContentMs - contentWrites[0]);
  gaps.forEach((g, i) => { ours.itlErr.push(Math.abs(g - expectedGaps[i])); ours.itlErrVsWrites.push(Math.abs(g - serverGaps[i])); });
  ours.itlP99Err.push(Math.abs(metrics.itlMs.p99 - pct(expectedGaps, 99)));
  for (const s of metrics.signatures) ours.signatures.set(s.kind, (ours.signatures.get(s.kind) ?? 0) + 1);
  if (r < LAB_RUNS) await runLabOnce(r);
}

engine.proc.kill('SIGTERM');

console.log(`\nmachine load average during the accuracy runs: ${load0.map((x) => x.toFixed(2)).join(' ')} → ${loadavg().map((x) => x.toFixed(2)).join(' ')} on ${(await import('node:os')).cpus().length} cores (other processes delay wake-ups: ms-level ITL errors below are scheduling noise when load > cores)`);
console.log(`\nAccuracy on loopback (ms; |measured − schedule|; ${RUNS} runs ours, ${lab.ttftErr.length} runs lab)`);
console.log('                                         p50      p99      max');
const row = (label, xs) => console.log(`${label.padEnd(38)} ${f2(stats(xs).p50)}  ${f2(stats(xs).p99)}  ${f2(stats(xs).max)}`);
row('ours: connection set-up (not in TTFT)', ours.connectMs);
row('ours: TTFT − 150 ms (t0 = connection up)', ours.ttftErr);
row('ours: TTFT − server first write', ours.ttftErrVsWrites);
// Run 1 is the first against this server (its own first request is cold too); shown apart.
row('ours: TTFT − 150 ms, run 1', ours.ttftErr.slice(0, 1));
row('ours: TTFT − 150 ms, runs 2..', ours.ttftErr.slice(1));
row('ours: |ITL − scheduled gap|, per frame', ours.itlErr);
row('ours: |ITL − server write gap|', ours.itlErrVsWrites);
row('ours: |p99 ITL − scheduled p99|', ours.itlP99Err);
if (lab.ttftErr.length) {
  row('lab:  TTFT − 150 ms (incl. connect)', lab.ttftErr);
  // (the lab's clock starts before it opens the connection: its TTFT includes the TCP handshake)
  row('lab:  TTFT − server first write', lab.ttftErrVsWrites);
  row('lab:  |ITL − scheduled gap|, per frame', lab.itlErr);
  row('lab:  |ITL − server write gap|', lab.itlErrVsWrites);
  row('lab:  |p99 ITL − scheduled p99|', lab.itlP99Err);
}
console.log(`targets: TTFT within 2 ms → ours p99 ${stats(ours.ttftErr).p99 <= 2 ? 'MET' : 'MISSED'} (runs 2..: ${stats(ours.ttftErr.slice(1)).p99 <= 2 ? 'MET' : 'MISSED'}); ITL within 1 ms at p99 → ours ${stats(ours.itlErr).p99 <= 1 ? 'MET' : 'MISSED'}`);
console.log(`signatures seen by ours: ${[...ours.signatures].map(([k, n]) => `${k} ${n}/${RUNS}`).join(', ') || 'none'} (the burst should read as coalescing)`);

// ---------------------------------------------------------------- 1b. the machine's own floor
// No HTTP, no SSE, no HopLens: one process pings another over loopback TCP every 20 ms (the
// idle gap of the schedule) and times the echo. Half of an RTT is what one frame's trip costs
// any client here; its tail bounds how close to the schedule any client can be.
{
  const echo = spawn(process.execPath, ['-e', `
    const net = require('node:net');
    const srv = net.createServer((s) => { s.setNoDelay(true); s.on('data', (d) => s.write(d)); });
    srv.listen(0, '127.0.0.1', () => console.log(srv.address().port));`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((r) => echo.stdout.once('data', (d) => r(Number(String(d).trim()))));
  const net = await import('node:net');
  const sock = net.connect(port, '127.0.0.1');
  sock.setNoDelay(true);
  await new Promise((r) => sock.once('connect', r));
  const ping = async (idleMs, n) => {
    const halfRtt = [];
    for (let i = 0; i < n; i++) {
      await new Promise((r) => setTimeout(r, idleMs));
      const t0 = performance.now();
      sock.write('x'.repeat(100));
      await new Promise((r) => sock.once('data', r));
      halfRtt.push((performance.now() - t0) / 2);
    }
    return stats(halfRtt);
  };
  // 20 ms: the gap between frames; 150 ms: the wait for the first frame (a longer idle, a deeper sleep).
  for (const [idle, n] of [[20, 500], [150, 80]]) {
    const st = await ping(idle, n);
    console.log(`loopback floor (raw TCP echo after ${idle} ms idle, ${n} pings; half RTT, ms): p50 ${f2(st.p50)}  p99 ${f2(st.p99)}  max ${f2(st.max)} — any client's frame stamps carry this`);
  }
  sock.destroy();
  echo.kill();
}

// ---------------------------------------------------------------- 2. per-frame cost, in process
const chunks = new VllmChunks('chatcmpl-bench', 'Qwen/Qwen3-0.6B', 1755815405, 'chat');
const words = ['Hello', ' world', ' 数字', ' 🙂', ',', ' and', ' more', ' text'];
let big;
{
  const parts = [sse(chunks.role({ prompt: 9, completion: 0 }))];
  for (let i = 0; i < BIG; i++) parts.push(sse(chunks.content(words[i % words.length], { prompt: 9, completion: i + 1 })));
  parts.push(sse(chunks.finish('length', { prompt: 9, completion: BIG })), sse(chunks.usage({ prompt: 9, completion: BIG })), DONE);
  big = Buffer.from(parts.join(''), 'utf8');
}
const bigFile = join(data, 'big-stream.sse');
writeFileSync(bigFile, big);
const CHUNK = 16 * 1024;
let bestUs = Infinity;
let retainedBytes = 0;
for (let rep = 0; rep < 3; rep++) {
  globalThis.gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  const rec = new req.StreamRecorder('chat');
  for (let off = 0, i = 0; off < big.length; off += CHUNK, i++) rec.push(big.subarray(off, off + CHUNK), i * 0.01);
  rec.end(1e6);
  const record = { frames: rec.frames, timeline: { headersMs: 0, firstByteMs: 0, endMs: 1e6 } };
  const m = req.computeMetrics(record);
  const cpu = process.cpuUsage(cpu0);
  if (m.outputFrames !== BIG) throw new Error('frame count mismatch');
  bestUs = Math.min(bestUs, (cpu.user + cpu.system) / rec.frames.length);
  globalThis.gc?.();
  // Whole heap with this record alive: an upper bound on what a recorded stream costs.
  retainedBytes = process.memoryUsage().heapUsed;
  if (rec.frames.length < 0) console.log(record); // keep rec reachable until measured
  void heap0;
}
const rssAfterParse = process.memoryUsage().rss;
// Memory of a recorded stream, measured in a fresh process so nothing else is on the heap:
// heap after GC with the record alive, minus heap after GC before it.
const memScript = `
const req = require(${JSON.stringify(join(data, 'request.cjs'))});
const big = require('node:fs').readFileSync(${JSON.stringify(bigFile)});
gc(); gc(); const h0 = process.memoryUsage().heapUsed;
const rec = new req.StreamRecorder('chat');
for (let off = 0; off < big.length; off += 16384) rec.push(big.subarray(off, off + 16384), off);
rec.end(1);
gc(); gc(); const h1 = process.memoryUsage().heapUsed;
console.log(JSON.stringify({ frames: rec.frames.length, bytes: h1 - h0, rss: process.resourceUsage().maxRSS * 1024 }));`;
const mem = JSON.parse(spawnSync(process.execPath, ['--expose-gc', '-e', memScript], { encoding: 'utf8' }).stdout);
console.log(`\nPer-frame client cost, in process (${BIG.toLocaleString()} frames, ${(big.length / 1e6).toFixed(1)} MB, 16 KiB chunks, parse + classify + metrics):`);
console.log(`ours: ${bestUs.toFixed(2)} µs CPU per frame (target well under 100 µs); a recorded stream keeps ${(mem.bytes / 1e6).toFixed(1)} MB of JS heap for ${mem.frames.toLocaleString()} frames (${(mem.bytes / mem.frames).toFixed(0)} B per frame; fresh process, after GC), peak RSS of that process ${(mem.rss / 1e6).toFixed(0)} MB incl. the ${(big.length / 1e6).toFixed(0)} MB input file`);
void retainedBytes;

// ---------------------------------------------------------------- 3. end to end, back-to-back frames
const N2 = Math.min(BIG, 50_000);
// nousage: the server sends the same bytes to both clients (the lab asks for no usage stats).
const fast = await startEngine(`first=0,frames=${N2},every=0,imprecise,nousage`);
// Alternate the two clients, twice each; report each one's best run.
let oursBest = null;
let labBest = null;
for (let rep = 0; rep < 2; rep++) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const run = await req.sendTracedRequest({ url: fast.url, engine: 'vllm', model: 'Qwen/Qwen3-0.6B', maxTokens: N2, timeoutMs: 600_000 });
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (run.record.error) throw new Error(run.record.error.message);
  if (run.metrics.outputFrames !== N2) throw new Error(`ours saw ${run.metrics.outputFrames} frames`);
  if (!oursBest || wall < oursBest.wall) oursBest = { wall, cpuUs: (cpu.user + cpu.system) / N2 };
  const labRun = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', 'python3', LAB, '--mode', 'send', '--url', fast.url, '--model', 'Qwen/Qwen3-0.6B', '--max-tokens', String(N2), '--timeout', '600'], { encoding: 'utf8' });
  const [lw, lu, ls, lrss] = labRun.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  if (!labBest || lw * 1000 < labBest.wall) labBest = { wall: lw * 1000, cpuUs: ((lu + ls) * 1e6) / N2, rssMb: lrss / 1024, frames: /content frames\s+(\d+)/.exec(labRun.stdout)?.[1] };
}
fast.proc.kill('SIGTERM');
console.log(`\nEnd to end over loopback, ${N2.toLocaleString()} frames back to back, same bytes to both (server in its own process; best of 2):`);
console.log(`ours: ${oursBest.wall.toFixed(0)} ms wall, ${oursBest.cpuUs.toFixed(2)} µs client CPU per frame`);
console.log(`lab:  ${labBest.wall.toFixed(0)} ms wall, ${labBest.cpuUs.toFixed(2)} µs CPU per frame (whole python process, incl. start-up), max RSS ${labBest.rssMb.toFixed(0)} MB, ${labBest.frames} content frames`);
const peak = process.resourceUsage().maxRSS;
console.log(`\nPeak RSS of this benchmark process (ours, incl. the ${(big.length / 1e6).toFixed(0)} MB stream buffer and ${BIG.toLocaleString()} recorded frames): ${(peak / 1024).toFixed(0)} MB (RSS after the parse pass ${(rssAfterParse / 1e6).toFixed(0)} MB)`);
if (lab.maxRssKb.length) console.log(`lab (send, 40 frames): wall ${pct(lab.wallMs, 50).toFixed(0)} ms p50 incl. interpreter start, max RSS ${(pct(lab.maxRssKb, 50) / 1024).toFixed(0)} MB`);

rmSync(bigFile, { force: true });
