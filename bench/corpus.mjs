#!/usr/bin/env node
// Scores `hoplens annotate --json --checkout` on the real-shapes corpus (test/fixtures/real-logs):
// per class, how many engine lines are parsed as the engine's, hop lines tagged (with their
// request id), lines resolved to the true statement (verified), and the precision of every
// claim made. With --before, a second build is scored on the same inputs in the same run.
//
//   node bench/corpus.mjs [--before path/to/old/dist/cli.js] [--misses] [--only name,name]
//
// The mini checkouts are built with git under a temporary folder, which is removed at the end.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const BEFORE = opt('--before');
const MISSES = argv.includes('--misses');
const ONLY = opt('--only');
const AFTER = join(root, 'dist', 'cli.js');
const CORPUS = join(root, 'test', 'fixtures', 'real-logs');

if (!existsSync(AFTER)) spawnSync('node', ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
const work = mkdtempSync(join(tmpdir(), 'hoplens-corpus-'));
const lib = join(work, 'corpus-lib.cjs');
await esbuild.build({ entryPoints: [join(root, 'test', 'corpus', 'corpus.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
const C = createRequire(import.meta.url)(lib);

// Which item of the issue each corpus file measures.
const CLASS = {
  'prefixes-vllm': '1 prefixes (vLLM)', 'prefixes-sglang': '1 prefixes (SGLang)', colour: '2 colour codes',
  'vllm-eras': '3 vLLM headers/prefixes', 'layouts-vllm': '3/4 vLLM custom layouts', 'layouts-sglang': '4 SGLang tags/layouts',
  'hops-vllm-v0': '5 hops vLLM V0', 'hops-vllm-v1': '5 hops vLLM V1', 'hops-sglang-0.4': '5 hops SGLang 0.4/6 call line',
  'hops-sglang-pin': '5 hops SGLang pin/6 call line', 'drift-vllm': '7 drift', 'line-endings': '11.2 CRLF + BOM', foreign: 'foreign logs (precision)',
  'foreign-in-vllm': 'foreign lines in a vLLM log', 'helpers-sglang': '1b SGLang logging helpers', 'cut-sglang': '2b SGLang cut / elided lines', 'relayout-sglang': '4b SGLang layout changes partway', 'joined-sglang': '3b records pasted onto one line', 'joined-vllm': '3b vLLM records on one line', 'cut-vllm': '2b vLLM cut / elided lines',
  'flattened-vllm-v0': '3c flattened pastes (V0)', 'flattened-vllm': '3c flattened pastes (V1)', 'cut-hops-vllm': '5b vLLM hop lines cut short', 'exports-vllm': '1c vLLM lines quoted in exports',
  'wrappers-sglang': '1d SGLang inside other frameworks', 'router-sglang': '1e SGLang router (Rust)', 'ray-sglang': '1f SGLang behind Ray actors', 'lostbracket-sglang': '1g SGLang header without its [', 'real-shapes-sglang': '1h SGLang real statement shapes', 'real-shapes-sglang-04': '1j SGLang 0.4-era statement shapes', 'rayserve-vllm': '1i vLLM under Ray Serve (actor prefixes)',
  'mined-vllm': '5c mined: launcher stamps, relays, quotes (vLLM)', 'mined-sglang': '5c mined: batch rids, labels, relays (SGLang)',
  'foreign-sweep': 'foreign formats beside vLLM (precision)', 'foreign-sglang': 'foreign [date word] beside SGLang (precision)', 'pasted-vllm': '3d vLLM lines pasted from web pages', 'pasted-sglang': '3d SGLang lines pasted from web pages',
  'mined2-sglang': '5d mined 2: bare request logger, date-less rank header (SGLang)',
  'mined2-vllm': '5e mined 2: hop lines wrapped onto the next line (vLLM)',
  'real-shapes-vllm-v0': '3e real vLLM trees 0.4–0.6', 'real-shapes-vllm': '3e real vLLM trees 0.7–0.19',
  'real-shapes-vllm-03': '3e real vLLM trees 0.2.4–0.3.3',
  'precision-vllm': '26.5 no wrong verified (vLLM)',
  'bracketed-sglang': '26.4 [date][file:N][LEVEL] (SGLang)', 'bracketed-vllm': '26.4 [date][file:N][LEVEL] (vLLM)',
  'batch-2026-sglang': '26.4 SGLang batch lines 2025-26', 'candidates-sglang': '26.4 same text, several statements',
  'yearless-vllm': '26.4 [MM-DD time][file:N] year-less (vLLM)', 'yearless-sglang': '26.4 [MM-DD time][file:N] year-less (SGLang)',
  'changed-vllm': '26.5 changed since (field gained/lost)', 'mined3-vllm': '26.d Ray Serve, KServe, web pastes (vLLM)',
  'json-vllm': '26.d vLLM JSON records (formatter json, 0.34)', 'wrappers-vllm': '26.d KServe, production-stack, vLLM router beside vLLM',
  'newest-vllm': '26.d 2026 lines against 0.34.0 (joined stats, ties)', 'mined4-sglang': '26.d SGLang 2025-26 pastes (SWA, P/D, cut middles)', 'json-sglang': '26.d SGLang JSON records (logging config)',
  'mined5-vllm': '26.d mined 5: V1 tracebacks, Ray nesting, Dynamo (vLLM)', 'mined5-sglang': '26.d mined 5: DP ranks, 2025-26 batch lines, smg (SGLang)',
  'stamps-vllm': '1k wrapper stamps with a year', 'dynamo-vllm': "26.4 vLLM in Dynamo's module.func layout",
  'foreign-aibrix': 'AIBrix klog, vLLM router beside SGLang (precision)', 'foreign-skypilot': "SkyPilot's one-letter header beside vLLM (precision)", 'json-bare-vllm': '26.b JSON records with only message (vLLM)', 'json-bare-sglang': '26.b JSON records with only message (SGLang)',
};

function run(cli, file, checkoutDir) {
  const log = join(work, `${file.name}.log`);
  writeFileSync(log, C.logText(file));
  utimesSync(log, C.CORPUS_WRITTEN, C.CORPUS_WRITTEN); // the year of year-less stamps, for time= labels
  const args = [cli, 'annotate', log, '--json'];
  if (checkoutDir) args.push('--checkout', checkoutDir);
  const r = spawnSync('node', args, { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, HOPLENS_CACHE_DIR: join(work, 'cache') } });
  return C.outcomesFromJson(r.stdout ?? '');
}

const files = C.readCorpus(CORPUS).filter((f) => !ONLY || ONLY.split(',').includes(f.name));
const checkouts = new Map();
const rows = [];
const totals = { vllm: [C.emptyScore(), C.emptyScore()], sglang: [C.emptyScore(), C.emptyScore()], all: [C.emptyScore(), C.emptyScore()] };
for (const f of files) {
  let dir = null;
  if (f.checkout) {
    dir = checkouts.get(f.checkout);
    if (!dir) { dir = join(work, 'checkouts', f.checkout); C.buildCheckout(f.checkout, dir, CORPUS); checkouts.set(f.checkout, dir); }
  }
  const scores = [BEFORE, AFTER].map((cli) => {
    if (!cli) return null;
    const outcomes = run(cli, f, dir);
    const s = C.emptyScore();
    for (const l of f.lines) C.scoreLine(s, l, outcomes.get(C.outcomeKey(l)));
    C.scoreUnlabelled(s, f, outcomes);
    return s;
  });
  rows.push({ f, before: scores[0], after: scores[1] });
  const engine = f.lines.some((l) => l.engine === 'sglang') ? 'sglang' : f.lines.some((l) => l.engine === 'vllm') ? 'vllm' : null;
  for (const [i, s] of scores.entries()) {
    if (!s) continue;
    C.addScore(totals.all[i], s);
    if (engine) C.addScore(totals[engine][i], s);
  }
}

const pct = (a, b) => (b === 0 ? '   —  ' : `${((100 * a) / b).toFixed(1).padStart(5)}%`);
const cell = (s, a, b) => (s ? pct(s[a], s[b]) : '');
const prec = (s) => (s ? `${pct(s.claims - s.wrong, s.claims)}` : '');
const pair = (before, after, f) => (before ? `${f(before)} → ${f(after)}` : f(after));
const head = `${'class'.padEnd(32)} ${'lines'.padStart(5)}  ${'parsed (n)'.padEnd(BEFORE ? 22 : 12)}  ${'hops tagged (n)'.padEnd(BEFORE ? 22 : 12)}  ${'resolved (n)'.padEnd(BEFORE ? 22 : 12)}  precision`;
console.log(head);
console.log('-'.repeat(head.length + 10));
const line = (label, lines, b, a) => console.log(`${label.padEnd(32)} ${String(lines).padStart(5)}  ${`${pair(b, a, (s) => cell(s, 'parsed', 'engineLines'))} (${a.engineLines})`.padEnd(BEFORE ? 22 : 12)}  ${`${pair(b, a, (s) => cell(s, 'tagged', 'hopLines'))} (${a.hopLines})`.padEnd(BEFORE ? 22 : 12)}  ${`${pair(b, a, (s) => cell(s, 'resolved', 'statementLines'))} (${a.statementLines})`.padEnd(BEFORE ? 22 : 12)}  ${pair(b, a, prec)} (${a.claims} claims)${a.timeLines ? `  times ${pair(b, a, (x) => cell(x, 'timed', 'timeLines'))} (${a.timeLines})` : ''}`);
for (const r of rows) line(CLASS[r.f.name] ?? r.f.name, r.f.lines.length, r.before, r.after);
console.log('-'.repeat(head.length + 10));
for (const k of ['vllm', 'sglang', 'all']) line(k === 'all' ? 'all classes' : `all ${k} classes`, totals[k][1].lines, BEFORE ? totals[k][0] : null, totals[k][1]);
if (MISSES) {
  for (const r of rows) for (const m of r.after.misses) console.log(`  ${r.f.name}:${m.n}  ${m.why}`);
}
rmSync(work, { recursive: true, force: true });
