#!/usr/bin/env node
// Benchmark: `hoplens timeline --rid` on a 1M-line log set, beside `hoplens annotate --rid` on
// the same files and `cat` of them (the read floor), alternating runs, medians, as ratios.
//
//   node bench/timeline.mjs [--lines 1000000] [--runs 3] [--keep]
//
// Two sets of `--lines` lines in all: the 1M-line vLLM log of bench/annotate.mjs (one file), and
// a router + prefill + decode set (three files, every request in all three, clocks off by
// −1.25 s and +2.7 s) generated here. Plus, in process, the editor's path: the set read once
// (the request index), then the timeline built from it, as a view does each time it opens.
// Inputs go to bench/data/ (git-ignored) and are deleted at the end unless --keep.
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { generateVllmLog } from './generators.mjs';
import { median, timed } from './measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'bench', 'data');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const LINES = Number(opt('--lines', '1000000'));
const RUNS = Number(opt('--runs', '3'));
const KEEP = argv.includes('--keep');
const CLI = join(root, 'dist', 'cli.js');

// ------------------------------------------------------------ a router + prefill + decode set
let seed = 4242;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const p2 = (x) => String(x).padStart(2, '0');
const vllmStamp = (ms) => { const d = new Date(Math.floor(ms / 1000) * 1000); return `${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`; };
const routerStamp = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('T', ' ').slice(0, 19);
const PARAMS = (mt, kv) => `SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=${mt}, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, extra_args={'kv_transfer_params': {'do_remote_decode': ${kv === 'P' ? 'True' : 'False'}, 'do_remote_prefill': ${kv === 'D' ? 'True' : 'False'}}})`;

async function generatePdSet(dir, lines) {
  seed = 4242;
  mkdirSync(dir, { recursive: true });
  const files = { router: createWriteStream(join(dir, 'router.log')), prefill: createWriteStream(join(dir, 'prefill.log')), decode: createWriteStream(join(dir, 'decode.log')) };
  const OFF = { router: 0, prefill: -1250, decode: 2700 };
  let n = 0, t = Date.UTC(2026, 7, 21, 20, 0, 0), req = 0;
  const ids = [];
  let chunk = { router: [], prefill: [], decode: [] };
  const flush = async () => {
    for (const k of Object.keys(files)) {
      chunk[k].sort((a, b) => a[0] - b[0]);
      if (!files[k].write(chunk[k].map((x) => x[1]).join('\n') + (chunk[k].length ? '\n' : ''))) await new Promise((r) => files[k].once('drain', r));
    }
    chunk = { router: [], prefill: [], decode: [] };
  };
  const emit = (f, at, text) => { chunk[f].push([at, text]); n++; };
  while (n < lines) {
    t += 5 + rnd() * 20;
    const id = `bench-${(req++).toString(36)}-${Math.floor(rnd() * 1e9).toString(16)}`;
    ids.push(id);
    const ext = `chatcmpl-${id}`;
    const pRecv = t + 1 + rnd() * 3, pDone = pRecv + 30 + rnd() * 400, dRecv = pDone + 2 + rnd() * 4, rOut = dRecv + 1 + rnd() * 3;
    const R = (at, s) => emit('router', at, `${routerStamp(at)}  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="${id}"${s}`);
    R(t, '}: sglang_router_rs::request: src/middleware.rs:230: started processing request');
    R(rOut, ` status_code=200 latency="${(rOut - t).toFixed(6)}ms"}: sglang_router_rs::response: src/middleware.rs:272: finished processing request`);
    const P = (at, s) => emit('prefill', at, `(APIServer pid=3101) INFO ${vllmStamp(at + OFF.prefill)} ${s}`);
    const D = (at, s) => emit('decode', at, `(APIServer pid=4101) INFO ${vllmStamp(at + OFF.decode)} ${s}`);
    P(pRecv, `[request_logger.py:63] Received request ${ext}: params: ${PARAMS(1, 'P')}, lora_request: None.`);
    P(pRecv + 4, `[async_llm.py:439] Added request ${ext}-${Math.floor(rnd() * 0xffffffff).toString(16).padStart(8, '0')}.`);
    P(pDone, `[request_logger.py:98] Generated response ${ext}: output: 'The', finish_reason: length`);
    emit('prefill', pDone, `(APIServer pid=3101) INFO:     10.0.0.5:${40000 + (req % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`);
    D(dRecv, `[request_logger.py:63] Received request ${ext}: params: ${PARAMS(64, 'D')}, lora_request: None.`);
    emit('decode', dRecv, `(APIServer pid=4101) INFO:     10.0.0.5:${41000 + (req % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`);
    D(dRecv + 4, `[async_llm.py:439] Added request ${ext}-${Math.floor(rnd() * 0xffffffff).toString(16).padStart(8, '0')}.`);
    let at = dRecv + 4;
    const k = 3 + Math.floor(rnd() * 8);
    for (let i = 0; i < k; i++) { at += 20 + rnd() * 40; D(at, `[request_logger.py:98] Generated response ${ext} (streaming delta): output: ' word', finish_reason: None`); }
    D(at + 1, `[request_logger.py:98] Generated response ${ext} (streaming complete): output: '${' word'.repeat(k)}', finish_reason: streaming_complete`);
    if (req % 2000 === 0) await flush();
  }
  await flush();
  await Promise.all(Object.values(files).map((s) => new Promise((r) => s.end(r))));
  return ids;
}

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
  await esbuild.build({ stdin: { contents: "export { readRequestLogs } from './src/core/timeline/requestLogs'; export { buildTimeline } from './src/core/timeline/build';", resolveDir: root, loader: 'ts' }, bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
  const { readRequestLogs, buildTimeline } = createRequire(import.meta.url)(lib);
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
    for (let i = 0; i < 9; i++) {
      const t0 = process.hrtime.bigint();
      t = buildTimeline({ query: s.rid, logs });
      builds.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const items = t.lanes.reduce((n, l) => n + l.items.length, 0);
    const shared = Math.min(...logs.logs.map((l) => l.stamps.size));
    console.log(`in process, ${s.name}: read once (the index) ${median(reads).toFixed(0)} ms; the timeline from it ${median(builds).toFixed(1)} ms (${items} items, clocks from ${shared.toLocaleString()} shared requests) = ${(median(builds) / median(reads)).toFixed(4)} of a read`);
  }
  unlinkSync(lib);
  if (!KEEP) { unlinkSync(single); rmSync(pdDir, { recursive: true, force: true }); console.log('deleted the generated logs (use --keep to keep them)'); }
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
