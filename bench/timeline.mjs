#!/usr/bin/env node
// Benchmark: `hoplens timeline --rid` on a 1M-line log set, beside `hoplens annotate --rid` on
// the same files and `cat` of them (the read floor), alternating runs, medians, as ratios.
//
//   node bench/timeline.mjs [--lines 1000000] [--runs 3] [--keep]
//
// Two sets of `--lines` lines in all: the 1M-line vLLM log of bench/annotate.mjs (one file), and
// a router + prefill + decode set (three files, every request in all three, clocks off by
// −1.25 s and +2.7 s) generated here. Plus, in process, the editor's path: the set read once
// (the request index; at the editor's pace, in slices with turns of the event loop between),
// then the timeline built from it, as a view does each time it opens: in one go and at the
// editor's pace (checked to be the same timeline).
// Inputs go to bench/data/ (git-ignored) and are deleted at the end unless --keep.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { generatePdSet, generateVllmLog } from './generators.mjs';
import { median, timed } from './measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'bench', 'data');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const LINES = Number(opt('--lines', '1000000'));
const RUNS = Number(opt('--runs', '3'));
const KEEP = argv.includes('--keep');
const CLI = join(root, 'dist', 'cli.js');

function ridNearMiddle(path) {
  const text = readFileSync(path, 'latin1');
  const from = text.indexOf('\n', Math.floor(text.length / 2));
  const m = /Received request chatcmpl-(run-\d+|bench-\S+?):/.exec(text.slice(from, from + 400000));
  return m[1];
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  if (!existsSync(CLI)) spawnSync('node', ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
  const single = join(dataDir, `vllm_${LINES}.log`);
  if (!existsSync(single)) { process.stdout.write(`generating ${single} … `); await generateVllmLog(single, LINES); console.log('done'); }
  const pdDir = join(dataDir, `pd_${LINES}`);
  let pdIds = null;
  if (!existsSync(join(pdDir, 'decode.log'))) { process.stdout.write(`generating ${pdDir}/{router,prefill,decode}.log … `); pdIds = await generatePdSet(pdDir, LINES); console.log('done'); }
  const pdFiles = ['router.log', 'prefill.log', 'decode.log'].map((f) => join(pdDir, f));
  const sets = [
    { name: '1 vLLM log', files: [single], rid: ridNearMiddle(single) },
    { name: 'router + prefill + decode', files: pdFiles, rid: pdIds ? pdIds[Math.floor(pdIds.length / 2)] : ridNearMiddle(pdFiles[1]) },
  ];
  const os = await import('node:os');
  console.log(`${RUNS} alternating runs each, medians; load average at start ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} CPUs`);
  const rows = [];
  for (const s of sets) {
    const lines = s.files.reduce((n, f) => n + readFileSync(f, 'latin1').split('\n').length - 1, 0);
    const mb = s.files.reduce((n, f) => n + statSync(f).size, 0) / 1e6;
    const tl = [], ann = [], cat = [], tlRss = [], annRss = [];
    for (let i = 0; i < RUNS; i++) {
      const a = timed('node', [CLI, 'timeline', '--rid', s.rid, ...s.files]);
      if (a.status !== 0) throw new Error(`hoplens timeline failed (${a.status}): ${a.err}`);
      tl.push(a.wall); tlRss.push(a.rssMB ?? 0);
      let sum = 0, rss = 0;
      for (const f of s.files) {
        const b = timed('node', [CLI, 'annotate', f, '--rid', s.rid]);
        if (b.status !== 0 && b.status !== 1) throw new Error(`hoplens annotate failed (${b.status}): ${b.err}`);
        sum += b.wall; rss = Math.max(rss, b.rssMB ?? 0);
      }
      ann.push(sum); annRss.push(rss);
      cat.push(timed('cat', s.files).wall);
    }
    rows.push({ set: s.name, files: s.files.length, lines, mb, timeline: median(tl), annotate: median(ann), cat: median(cat), tlRss: median(tlRss), annRss: median(annRss) });
  }
  console.log('');
  console.log('set                          files  lines      MB   timeline  annotate --rid (each file)  cat     timeline/annotate  timeline/cat  peak RSS timeline/annotate');
  for (const r of rows) {
    console.log(`${r.set.padEnd(28)} ${String(r.files).padStart(5)}  ${(r.lines / 1e6).toFixed(2)}M  ${r.mb.toFixed(0).padStart(5)}  ${r.timeline.toFixed(2).padStart(6)} s  ${r.annotate.toFixed(2).padStart(14)} s            ${r.cat.toFixed(2)} s  ${(r.timeline / r.annotate).toFixed(2).padStart(10)}         ${(r.timeline / r.cat).toFixed(1).padStart(6)}       ${r.tlRss.toFixed(0)} / ${r.annRss.toFixed(0)} MB = ${(r.tlRss / r.annRss).toFixed(2)}`);
  }

  // In process: the set read once (its request index), then the timeline built from it.
  const lib = join(dataDir, 'timeline-lib.cjs');
  await esbuild.build({ stdin: { contents: "export { readRequestLogs } from './src/core/timeline/requestLogs'; export { buildTimeline, buildTimelinePaced } from './src/core/timeline/build';", resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
  const { readRequestLogs, buildTimeline, buildTimelinePaced } = createRequire(import.meta.url)(lib);
  console.log('');
  for (const s of sets) {
    const reads = [], builds = [];
    let logs = null;
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      logs = await readRequestLogs(s.files, s.rid);
      reads.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    let t = null;
    const paced = [];
    // Alternating: the build in one go (the command line's before the editor's pace) and the editor's, in slices with turns between.
    for (let i = 0; i < 9; i++) {
      let t0 = process.hrtime.bigint();
      t = buildTimeline({ query: s.rid, logs });
      builds.push(Number(process.hrtime.bigint() - t0) / 1e6);
      t0 = process.hrtime.bigint();
      const p = await buildTimelinePaced({ query: s.rid, logs });
      paced.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (JSON.stringify(p) !== JSON.stringify(t)) throw new Error(`${s.name}: the paced build gave another timeline than the build in one go`);
    }
    const items = t.lanes.reduce((n, l) => n + l.items.length, 0);
    const shared = Math.min(...logs.logs.map((l) => l.stamps.size));
    console.log(`in process, ${s.name}: read once (the index) ${median(reads).toFixed(0)} ms; the timeline from it ${median(builds).toFixed(1)} ms (${items} items, clocks from ${shared.toLocaleString()} shared requests) = ${(median(builds) / median(reads)).toFixed(4)} of a read; `
      + `paced (the editor's) ${median(paced).toFixed(1)} ms = ${(median(paced) / median(builds)).toFixed(2)}× in one go`);
  }
  unlinkSync(lib);
  if (!KEEP) { unlinkSync(single); rmSync(pdDir, { recursive: true, force: true }); console.log('deleted the generated logs (use --keep to keep them)'); }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
