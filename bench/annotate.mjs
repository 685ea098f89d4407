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
import { createWriteStream, existsSync, mkdirSync, statSync, unlinkSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

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

// Deterministic pseudo-random numbers, so every run measures the same file.
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const hex = (n) => { let s = ''; for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rnd() * 16)]; return s; };
const WORDS = ['Hello', ' world', ',', ' the', ' answer', ' is', ' 42', '.', ' How', ' can', ' I', ' help', '?', ' Sure', '!'];

/** A vLLM log in the current format with request logging and output logging on. */
async function generate(path, lines) {
  mkdirSync(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  let n = 0;
  let sec = Date.UTC(2026, 7, 21, 22, 0, 0) / 1000;
  const buf = [];
  const api = '(APIServer pid=2101) ';
  const stamp = () => {
    const d = new Date(sec * 1000);
    const p = (x) => String(x).padStart(2, '0');
    return `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  };
  const emit = (s) => { buf.push(s); n++; };
  let lastStats = sec;
  let reqNo = 0;
  while (n < lines) {
    if (rnd() < 0.5) sec += 1;
    const ts = stamp();
    const base = rnd() < 0.3 ? `run-${reqNo}` : hex(32);
    reqNo++;
    const chat = rnd() < 0.8;
    const ext = chat ? `chatcmpl-${base}` : `cmpl-${base}-0`;
    const internal = `${ext}-${hex(8)}`;
    const maxTok = 16 + Math.floor(rnd() * 240);
    emit(`${api}INFO ${ts} [request_logger.py:63] Received request ${ext}: params: SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=${(rnd()).toFixed(1)}, top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=${maxTok}, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True), lora_request: None.`);
    emit(`${api}INFO ${ts} [async_llm.py:439] Added request ${internal}.`);
    emit(`${api}INFO:     127.0.0.1:${40000 + Math.floor(rnd() * 20000)} - "POST /v1/${chat ? 'chat/' : ''}completions HTTP/1.1" 200 OK`);
    if (rnd() < 0.3) emit(`(EngineCore pid=2150) INFO ${ts} [v1/core/sched/scheduler.py:${400 + Math.floor(rnd() * 50)}] Scheduled ${1 + Math.floor(rnd() * 8)} requests, ${Math.floor(rnd() * 4096)} tokens in this step.`);
    if (rnd() < 0.2) emit(`(Worker_TP${Math.floor(rnd() * 2)} pid=${2170 + Math.floor(rnd() * 2)}) INFO ${ts} [v1/worker/gpu_model_runner.py:${2000 + Math.floor(rnd() * 100)}] Forward step took ${(rnd() * 40).toFixed(2)} ms for batch of ${1 + Math.floor(rnd() * 64)} sequences.`);
    if (chat) {
      const deltas = 3 + Math.floor(rnd() * 8);
      let text = '';
      for (let i = 0; i < deltas; i++) {
        const w = pick(WORDS) + pick(WORDS);
        text += w;
        emit(`${api}INFO ${stamp()} [request_logger.py:98] Generated response ${ext} (streaming delta): output: '${w}', finish_reason: None`);
      }
      if (rnd() < 0.05) {
        emit(`${api}INFO ${stamp()} [async_llm.py:761] Aborted request(s) ${internal}.`);
        emit(`${api}INFO ${stamp()} [async_llm.py:623] Request ${ext} aborted.`);
      } else {
        emit(`${api}INFO ${stamp()} [request_logger.py:98] Generated response ${ext} (streaming complete): output: '${text}', finish_reason: streaming_complete`);
      }
    } else if (rnd() < 0.1) {
      emit(`${api}INFO ${stamp()} [async_llm.py:761] Aborted request(s) ${internal}.`);
      emit(`${api}INFO ${stamp()} [async_llm.py:623] Request ${ext} aborted.`);
    }
    if (sec - lastStats >= 10) {
      lastStats = sec;
      emit(`${api}INFO ${stamp()} [loggers.py:310] Engine 000: Avg prompt throughput: ${(rnd() * 5000).toFixed(1)} tokens/s, Avg generation throughput: ${(rnd() * 3000).toFixed(1)} tokens/s, Running: ${Math.floor(rnd() * 64)} reqs, Waiting: ${Math.floor(rnd() * 8)} reqs, GPU KV cache usage: ${(rnd() * 100).toFixed(1)}%, Prefix cache hit rate: ${(rnd() * 100).toFixed(1)}%`);
    }
    if (buf.length > 5000) {
      if (!out.write(buf.join('\n') + '\n')) await new Promise((r) => out.once('drain', r));
      buf.length = 0;
    }
  }
  // Trim to exactly `lines` lines.
  const extra = n - lines;
  if (extra > 0) buf.length -= extra;
  if (buf.length) out.write(buf.join('\n') + '\n');
  await new Promise((r) => out.end(r));
}

/** Run a command under /usr/bin/time -v; wall seconds and peak RSS in MB. */
function timed(cmd, args) {
  const hasTime = existsSync('/usr/bin/time');
  const t0 = process.hrtime.bigint();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-v', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 })
    : spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const err = r.stderr.toString();
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
  const user = /User time \(seconds\): ([\d.]+)/.exec(err);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
  const cpu = user && sys ? Number(user[1]) + Number(sys[1]) : null;
  return { wall, cpu, rssMB: rss ? Number(rss[1]) / 1024 : null, status: r.status, err };
}

async function main() {
  const logPath = join(dataDir, `vllm_${LINES}.log`);
  if (!existsSync(logPath)) {
    process.stdout.write(`generating ${LINES.toLocaleString()} lines -> ${logPath} … `);
    const t0 = Date.now();
    await generate(logPath, LINES);
    console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const size = statSync(logPath).size;
  console.log(`input: ${logPath}  ${(size / 1e6).toFixed(1)} MB, ${LINES.toLocaleString()} lines`);

  if (!existsSync(join(root, 'dist', 'cli.js'))) spawnSync('node', ['esbuild.mjs'], { cwd: root, stdio: 'inherit' });
  if (COMPARE) {
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const cur = [], old = [];
    for (let i = 0; i < RUNS; i++) {
      old.push(timed('node', [COMPARE, 'annotate', logPath, '--json']));
      cur.push(timed('node', [join(root, 'dist', 'cli.js'), 'annotate', logPath, '--json']));
    }
    const cpu = (rs) => median(rs.map((r) => r.cpu ?? r.wall));
    const wall = (rs) => median(rs.map((r) => r.wall));
    console.log(`annotate --json, ${RUNS} alternating runs each (median): this build ${wall(cur).toFixed(2)} s wall / ${cpu(cur).toFixed(2)} s CPU; ${COMPARE}: ${wall(old).toFixed(2)} s wall / ${cpu(old).toFixed(2)} s CPU`);
    console.log(`this build / compared build: wall ${(wall(cur) / wall(old)).toFixed(3)}, CPU ${(cpu(cur) / cpu(old)).toFixed(3)}`);
  }
  const ours = timed('node', [join(root, 'dist', 'cli.js'), 'annotate', logPath, '--json']);
  if (ours.status !== 0) { console.error(`hoplens annotate failed (exit ${ours.status}):\n${ours.err}`); process.exitCode = 1; }
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
  await esbuild.build({ entryPoints: [join(root, 'src/core/logs/annotate.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
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
