#!/usr/bin/env node
// Benchmark: `hoplens annotate --json` vs the lab script's `--mode annotate` on the same
// generated 1,000,000-line vLLM log, plus the in-process parse of a 50,000-line document
// (what the editor needs for CodeLens and decorations).
//
//   node bench/annotate.mjs [--lines 1000000] [--keep] [--skip-python] [--compare OLD/dist/cli.js] [--runs N]
//
// --compare times another build on the same log in the same run (alternating, N runs each, medians):
// how a change moves the plain-log path, as a ratio that the machine's load mostly cancels out of.
//
// Inputs go to bench/data/ (git-ignored); the big log is deleted at the end unless --keep.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { generateVllmLog } from './generators.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'bench', 'data');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const LINES = Number(opt('--lines', '1000000'));
const KEEP = argv.includes('--keep');
const SKIP_PY = argv.includes('--skip-python');
const COMPARE = opt('--compare', null);
const RUNS = Number(opt('--runs', '3'));
const LAB = join(root, '..', 'shared', 'anchors', 'lab12_run.py');

/** Run a command under /usr/bin/time -v, its output into `out` when given; wall seconds and peak RSS in MB. */
function timed(cmd, args, out = null) {
  const hasTime = existsSync('/usr/bin/time');
  const fd = out === null ? 'ignore' : openSync(out, 'w');
  const t0 = process.hrtime.bigint();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-v', cmd, ...args], { stdio: ['ignore', fd, 'pipe'], maxBuffer: 64 << 20 })
    : spawnSync(cmd, args, { stdio: ['ignore', fd, 'pipe'], maxBuffer: 64 << 20 });
  if (fd !== 'ignore') closeSync(fd);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const err = r.stderr.toString();
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
  const user = /User time \(seconds\): ([\d.]+)/.exec(err);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
  const cpu = user && sys ? Number(user[1]) + Number(sys[1]) : null;
  return { wall, cpu, rssMB: rss ? Number(rss[1]) / 1024 : null, status: r.status, err };
}

/** sha1 of a file. */
function digestOf(path) { return createHash('sha1').update(readFileSync(path)).digest('hex'); }

/** Why `annotate --json`'s output at `path` is not one `{"kind":"line"}` object per input line in order, or null. */
function checkLineObjects(path, lines) {
  let next = 1;
  for (const l of readFileSync(path, 'utf8').split('\n')) {
    if (!l.startsWith('{"kind":"line"')) continue;
    const m = /^\{"kind":"line","line":(\d+),/.exec(l);
    if (!m || Number(m[1]) !== next) return `line object ${next} reads ${l.slice(0, 60)}`;
    next++;
  }
  return next - 1 === lines ? null : `${next - 1} line objects for ${lines} input lines`;
}

async function main() {
  const logPath = join(dataDir, `vllm_${LINES}.log`);
  const outPath = join(dataDir, `annotate-out-${process.pid}.jsonl`);
  if (!existsSync(logPath)) {
    process.stdout.write(`generating ${LINES.toLocaleString()} lines -> ${logPath} … `);
    const t0 = Date.now();
    await generateVllmLog(logPath, LINES);
    console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const size = statSync(logPath).size;
  console.log(`input: ${logPath}  ${(size / 1e6).toFixed(1)} MB, ${LINES.toLocaleString()} lines`);

  if (!existsSync(join(root, 'dist', 'cli.js'))) spawnSync('node', ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
  if (COMPARE) {
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const cur = [], old = [];
    const digests = { cur: new Set(), old: new Set() };
    for (let i = 0; i < RUNS; i++) {
      old.push(timed('node', [COMPARE, 'annotate', logPath, '--json'], outPath));
      digests.old.add(digestOf(outPath));
      cur.push(timed('node', [join(root, 'dist', 'cli.js'), 'annotate', logPath, '--json'], outPath));
      digests.cur.add(digestOf(outPath));
    }
    // The same outputs as the build compared with (issue 28's constraint), every run.
    if (digests.cur.size !== 1 || digests.old.size !== 1 || [...digests.cur][0] !== [...digests.old][0]) {
      console.error(`[annotate] WRONG: the two builds' --json outputs differ (this build ${[...digests.cur].join(',')}, ${COMPARE} ${[...digests.old].join(',')})`);
      process.exitCode = 1;
    } else console.log(`check: both builds wrote the same --json in every run (sha1 ${[...digests.cur][0].slice(0, 12)}…)`);
    const cpu = (rs) => median(rs.map((r) => r.cpu ?? r.wall));
    const wall = (rs) => median(rs.map((r) => r.wall));
    console.log(`annotate --json, ${RUNS} alternating runs each (median): this build ${wall(cur).toFixed(2)} s wall / ${cpu(cur).toFixed(2)} s CPU; ${COMPARE}: ${wall(old).toFixed(2)} s wall / ${cpu(old).toFixed(2)} s CPU`);
    console.log(`this build / compared build: wall ${(wall(cur) / wall(old)).toFixed(3)}, CPU ${(cpu(cur) / cpu(old)).toFixed(3)}`);
  }
  const ours = timed('node', [join(root, 'dist', 'cli.js'), 'annotate', logPath, '--json'], outPath);
  if (ours.status !== 0) { console.error(`hoplens annotate failed (exit ${ours.status}):\n${ours.err}`); process.exitCode = 1; }
  // The answer, checked against the input (a faster wrong answer fails): one line object per input line, in order.
  const wrong = checkLineObjects(outPath, LINES);
  if (wrong) { console.error(`[annotate] WRONG: ${wrong}`); process.exitCode = 1; } else console.log(`check: ${LINES.toLocaleString()} line objects, lines 1…${LINES.toLocaleString()} in order`);
  rmSync(outPath, { force: true });
  console.log(`hoplens annotate --json : ${ours.wall.toFixed(2)} s wall, ${ours.cpu?.toFixed(2) ?? '?'} s CPU, peak RSS ${ours.rssMB?.toFixed(0) ?? '?'} MB (target < 200 MB)`);

  if (!SKIP_PY) {
    const lab = timed('python3', [LAB, '--mode', 'annotate', '--engine', 'vllm', '--log', logPath]);
    console.log(`lab12_run.py annotate  : ${lab.wall.toFixed(2)} s wall, ${lab.cpu?.toFixed(2) ?? '?'} s CPU, peak RSS ${lab.rssMB?.toFixed(0) ?? '?'} MB (exit ${lab.status})`);
    const ratio = lab.wall / ours.wall;
    console.log(`speed-up (wall): ${ratio.toFixed(1)}x (target >= 10x) ${ratio >= 10 ? 'OK' : 'BELOW TARGET'}`);
    // On a shared machine wall time mostly measures the neighbours; CPU time is the fairer ratio.
    if (lab.cpu && ours.cpu) console.log(`speed-up (CPU):  ${(lab.cpu / ours.cpu).toFixed(1)}x   load average now: ${(await import('node:os')).loadavg()[0].toFixed(1)}`);
  }

  // In-process: the editor's path for a 50,000-line document.
  const lib = join(dataDir, 'annotate-lib.cjs');
  await esbuild.build({ entryPoints: [join(root, 'src/core/session/logSession.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
  const { annotateText } = createRequire(import.meta.url)(lib);
  const all = readFileSync(logPath, 'latin1');
  let cut = 0;
  for (let i = 0; i < 50000; i++) cut = all.indexOf('\n', cut) + 1;
  const text = all.slice(0, cut);
  annotateText(text.slice(0, 200000)); // warm-up of the regexes
  const times = [];
  const cpus = [];
  let groups = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const a = annotateText(text, 'auto');
    const g = a.tracker.all();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
    groups = g.length;
  }
  times.sort((a, b) => a - b);
  cpus.sort((a, b) => a - b);
  console.log(`in-process annotateText + request groups, 50,000 lines (${(text.length / 1e6).toFixed(1)} MB, ${groups} requests): wall median ${times[2].toFixed(0)} ms, best ${times[0].toFixed(0)} ms; CPU median ${cpus[2].toFixed(0)} ms (target < 150 ms)`);

  unlinkSync(lib);
  if (!KEEP) { unlinkSync(logPath); console.log('deleted the generated log (use --keep to keep it)'); }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
