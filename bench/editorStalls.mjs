#!/usr/bin/env node
// Benchmark: does HopLens ever hold up the editor? In the real extension host (code-server, as
// the integration layer runs it: test/harness), three things a user does, one after the other:
//   log         a 50 MB vLLM log opened, scrolled top to bottom, then lines appended on disk;
//   calltraces  the Call Traces view opening a VLLM_TRACE_FUNCTION folder (1 GiB by default);
//   timeline    HopLens: Show Request Timeline for one request over a 1M-line log set
//               (router + prefill + decode, read from disk).
// While each runs, the extension host records every event-loop block (a 10 ms timer probe's tick
// late by over 15 ms) and a CPU profile of its thread; each block is put down to HopLens (a frame
// of dist/ on the stack for most of its samples) or VS Code (the rest), GC apart, or to the thread
// not running at all (no samples: the machine's cores were busy elsewhere). Figures, not a test:
// it exits 1 only when a scenario failed to do its work (lines not all read, no timeline, …).
//
//   node bench/editorStalls.mjs [--only log,calltraces,timeline] [--runs 1] [--log-mb 50]
//                               [--trace-mb 1024] [--set-lines 1000000] [--keep] [--no-build]
//
// Inputs (bench/generators.mjs, the same bytes every run) go to bench/data/editor-stalls/ (git-
// ignored) and are deleted at the end unless --keep; with --keep they are reused next time.
// Each scenario's CPU profile is kept there as <scenario>-<run>.cpuprofile (open it in DevTools).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTraceInstanceDir, existingCallTraceMb, generateCallTraceFolder, generatePdSet, generateVllmLog } from './generators.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'bench', 'data', 'editor-stalls');
const ws = join(dataDir, 'ws');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const ONLY = opt('--only', 'log,calltraces,timeline').split(',').filter(Boolean);
const RUNS = Number(opt('--runs', '1'));
const LOG_MB = Number(opt('--log-mb', '50'));
const TRACE_MB = Number(opt('--trace-mb', '1024'));
const SET_LINES = Number(opt('--set-lines', '1000000'));
const KEEP = argv.includes('--keep');
/** VS Code hands extensions no text of a document over this (TextModel._MODEL_SYNC_LIMIT): HopLens streams it instead. */
const VSCODE_SYNC_LIMIT = 50 * 1024 * 1024;
const APPENDS = 5;
const APPEND_LINES = 2000;
const BLOCK_MS = 50;

function build() {
  if (argv.includes('--no-build')) return;
  for (const [cmd, args] of [['node', ['esbuild.mjs']], ['node', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json']]]) {
    const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed`);
  }
}

/** The 50 MB log and its appends: one generated log cut in two, so the appended lines are the log's own continuation. */
async function logInputs() {
  const path = join(ws, 'logs', `vllm-${LOG_MB}mb.log`);
  const appendPaths = Array.from({ length: APPENDS }, (_, k) => join(dataDir, `append-${k + 1}.log`));
  // The generator's lines average 194 bytes.
  const lines = Math.round((LOG_MB * 1e6) / 194);
  const meta = join(dataDir, `log-${lines}.json`);
  if (existsSync(meta) && existsSync(path) && appendPaths.every((p) => existsSync(p))) {
    // A run appends to the log: kept for the next run, it is cut back to the generated lines.
    const m = JSON.parse(readFileSync(meta, 'utf8'));
    if (statSync(path).size > m.bytes) truncateSync(path, m.bytes);
    if (statSync(path).size === m.bytes) return m;
  }
  const whole = join(dataDir, 'whole.log');
  process.stdout.write(`generating a ${LOG_MB} MB log (${lines.toLocaleString()} lines + ${APPENDS} × ${APPEND_LINES} to append) … `);
  await generateVllmLog(whole, lines + APPENDS * APPEND_LINES);
  const text = readFileSync(whole);
  rmSync(whole);
  let at = 0;
  const cut = (n) => { const from = at; for (let i = 0; i < n; i++) at = text.indexOf(10, at) + 1; return text.subarray(from, at); };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, cut(lines));
  for (const p of appendPaths) writeFileSync(p, cut(APPEND_LINES));
  const bytes = statSync(path).size;
  if (bytes > VSCODE_SYNC_LIMIT) throw new Error(`${path} is ${bytes} bytes, over VS Code's ${VSCODE_SYNC_LIMIT} for extensions: use a smaller --log-mb`);
  const m = { path, lines, bytes, appendPaths, appendLines: APPEND_LINES };
  writeFileSync(meta, JSON.stringify(m));
  console.log(`${(bytes / 1e6).toFixed(1)} MB`);
  return m;
}

async function traceInputs() {
  const dir = join(ws, 'traces');
  const have = existingCallTraceMb(dir);
  if (have === null || Math.abs(have - TRACE_MB) > 2) {
    process.stdout.write(`generating a ${TRACE_MB} MiB call-trace folder … `);
    generateCallTraceFolder(dir, TRACE_MB / 2);
    console.log('done');
  }
  return { dir: callTraceInstanceDir(dir), threads: 2, mb: existingCallTraceMb(dir) };
}

async function timelineInputs() {
  const dir = join(ws, `pd-${SET_LINES}`);
  const files = ['router.log', 'prefill.log', 'decode.log'].map((f) => join(dir, f));
  const meta = join(dataDir, `pd-${SET_LINES}.json`);
  if (existsSync(meta) && files.every((f) => existsSync(f))) return JSON.parse(readFileSync(meta, 'utf8'));
  process.stdout.write(`generating a ${SET_LINES.toLocaleString()}-line router + prefill + decode set … `);
  const ids = await generatePdSet(dir, SET_LINES);
  const m = { files, rid: ids[Math.floor(ids.length / 2)], lines: SET_LINES, bytes: files.reduce((n, f) => n + statSync(f).size, 0) };
  writeFileSync(meta, JSON.stringify(m));
  console.log(`${(m.bytes / 1e6).toFixed(0)} MB, request ${m.rid}`);
  return m;
}

/** One code-server, one extension host, the scenarios in order; the host's results. */
async function runOnce(plan, run) {
  const require = createRequire(import.meta.url);
  const { resolveTools } = require(join(root, 'out', 'test', 'harness', 'tools.js'));
  const { startCodeServer } = require(join(root, 'out', 'test', 'harness', 'codeServer.js'));
  const { launchBrowser } = require(join(root, 'out', 'test', 'harness', 'browser.js'));
  const tools = resolveTools();
  const out = join(dataDir, `results-${run}.json`);
  rmSync(out, { force: true });
  const browser = await launchBrowser(tools);
  let server;
  try {
    const profiles = join(dataDir, `profiles-${run}`);
    mkdirSync(profiles, { recursive: true });
    server = await startCodeServer({ tools, smokeTestDriver: true, env: { HOPLENS_STALLS_PLAN: JSON.stringify({ ...plan, out, profiles }) } });
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = JSON.stringify([['extensionDevelopmentPath', remote(root)], ['extensionTestsPath', remote(join(root, 'out', 'test', 'bench', 'editorStallsHost.js'))]]);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const exited = new Promise((resolve) => { void page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code))); });
    await page.exposeFunction('codeAutomationLog', () => undefined);
    await page.goto(`${server.url}?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(payload)}`, { timeout: 60_000 });
    const timeout = new Promise((resolve) => setTimeout(() => resolve(-1), 30 * 60_000).unref());
    const code = await Promise.race([exited, timeout]);
    if (code === -1) throw new Error('the scenarios did not finish within 30 minutes');
    if (!existsSync(out)) throw new Error(`the extension host wrote no results (exit ${code})`);
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    await browser.close().catch(() => undefined);
    await server?.stop();
  }
}

const f0 = (x) => (x === undefined || x === null ? '–' : x.toFixed(0));
const fnOf = (s) => (s ? s.replace(/ extension\.js:\d+$/, '') : '–');

/** A scenario's figures: HopLens's longest task and its blocks over the limit, VS Code's apart, and the spans the thread did not run. */
function summarize(r) {
  const of = (owner) => r.report.blocks.filter((b) => b.owner === owner);
  const longest = (bs) => bs.reduce((w, b) => (w && w.blockedMs >= b.blockedMs ? w : b), null);
  const over = (bs) => bs.filter((b) => b.blockedMs > BLOCK_MS);
  const mine = of('hoplens');
  const theirs = [...of('vscode'), ...of('harness')];
  const worst = longest(mine);
  return {
    name: r.name, wallS: r.wallMs / 1000, longestMine: worst?.blockedMs ?? 0, mineWhere: worst?.hopLensEntry ?? null,
    mineCount: over(mine).length, theirsCount: over(theirs).length, theirsMax: longest(theirs)?.blockedMs ?? 0,
    unscheduledCount: over(of('unscheduled')).length, unscheduledMax: longest(of('unscheduled'))?.blockedMs ?? 0,
    hopLensCpuS: r.report.totals.hoplens / 1000, vscodeCpuS: (r.report.totals.vscode + r.report.totals.native) / 1000,
    gcS: r.report.totals.gc / 1000, loopMax: r.loopDelay.maxMs, pass: over(mine).length === 0,
  };
}

function printRun(res, run) {
  console.log(`\nrun ${run}:`);
  for (const r of res.results) {
    console.log(`  ${r.name}: ${(r.wallMs / 1000).toFixed(1)} s; ${Object.entries(r.marks).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}; `
      + `checked ${Object.entries(r.checks).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    const over = r.report.blocks.filter((b) => b.blockedMs > BLOCK_MS || b.owner === 'hoplens').sort((a, b) => b.blockedMs - a.blockedMs).slice(0, 10);
    for (const b of over) {
      const o = b.byOwner;
      console.log(`    block ${f0(b.blockedMs).padStart(5)} ms at ${(b.atMs / 1000).toFixed(1).padStart(6)} s  ${b.owner.padEnd(7)}`
        + ` HopLens ${f0(o.hoplens)} · VS Code ${f0(o.vscode)} · native ${f0(o.native)} · GC ${f0(o.gc)} · harness ${f0(o.harness)}`
        + ` · idle ${f0(o.idle)} · unsampled ${f0(b.unsampledMs)} ms`
        + `${b.hopLensEntry ? `  in ${fnOf(b.hopLensEntry)} → ${fnOf(b.hopLensHot)}` : ''}`);
    }
  }
  for (const e of res.errors) console.log(`  FAILED ${e}`);
}

function table(rows) {
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const span = (xs) => (xs.length > 1 ? ` (${f0(Math.min(...xs))}–${f0(Math.max(...xs))})` : '');
  console.log(`\n| scenario | wall s | HopLens's longest task, ms | HopLens tasks > ${BLOCK_MS} ms | VS Code's > ${BLOCK_MS} ms (longest) |`
    + ` not running > ${BLOCK_MS} ms (longest) | longest loop delay ms | CPU s: HopLens / VS Code / GC | goal: none of HopLens's > ${BLOCK_MS} ms |`);
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const name of [...new Set(rows.map((r) => r.name))]) {
    const rs = rows.filter((r) => r.name === name);
    const m = (k) => med(rs.map((r) => r[k]));
    console.log(`| ${name} | ${m('wallS').toFixed(1)} | ${f0(m('longestMine'))}${span(rs.map((r) => r.longestMine))} | ${m('mineCount')}`
      + ` | ${m('theirsCount')} (${f0(m('theirsMax'))}) | ${m('unscheduledCount')} (${f0(m('unscheduledMax'))}) | ${f0(m('loopMax'))}`
      + ` | ${m('hopLensCpuS').toFixed(1)} / ${m('vscodeCpuS').toFixed(1)} / ${m('gcS').toFixed(1)} | ${rs.every((r) => r.pass) ? 'pass' : 'short'} |`);
  }
}

async function main() {
  mkdirSync(ws, { recursive: true });
  build();
  const plan = { root, scenarios: ONLY };
  if (ONLY.includes('log')) {
    const l = await logInputs();
    plan.log = { path: l.path, lines: l.lines, appendPaths: l.appendPaths, appendLines: l.appendLines, scrollSteps: 100 };
  }
  if (ONLY.includes('calltraces')) plan.traces = await traceInputs();
  if (ONLY.includes('timeline')) { const t = await timelineInputs(); plan.timeline = { files: t.files, rid: t.rid }; }
  console.log(`${RUNS} run(s), each a fresh code-server; load average at start ${loadavg()[0].toFixed(1)} on ${availableParallelism()} CPUs`);
  const rows = [];
  let failed = false;
  for (let run = 1; run <= RUNS; run++) {
    const res = await runOnce(plan, run);
    printRun(res, run);
    rows.push(...res.results.map(summarize));
    if (res.errors.length) failed = true;
  }
  table(rows);
  if (!KEEP) {
    for (const p of [join(ws, 'logs'), join(ws, 'traces'), join(ws, `pd-${SET_LINES}`)]) rmSync(p, { recursive: true, force: true });
    console.log('\ndeleted the generated inputs (use --keep to keep them); profiles and results stay in bench/data/editor-stalls/');
  }
  if (failed) process.exitCode = 1;
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
