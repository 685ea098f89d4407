#!/usr/bin/env node
// Benchmark of source resolution (src/core/source): builds the logging-statement index of a
// generated ~3,000-file vLLM-shaped checkout, then resolves a generated log line by line, and
// compares the throughput with `lab12_run.py --mode annotate` on the same log (the lab only
// regex-matches its hop table; it never opens a checkout, so ours does strictly more work).
//
//   node bench/source.mjs [--files 3000] [--lines 1000000] [--keep]
//
// Everything is generated under bench/data/source/ (git-ignored) and deleted at the end
// unless --keep is given.
import { buildSync } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : dflt; };
const FILES = opt('files', 3000);
const LINES = opt('lines', 1_000_000);
const KEEP = args.includes('--keep');
const LAB = join(repo, '..', 'shared', 'anchors', 'lab12_run.py');

const data = join(repo, 'bench', 'data', 'source');
const build = join(data, 'build');
const checkout = join(data, 'checkout');
const cacheDir = join(data, 'cache');
const logFile = join(data, 'vllm-bench.log');
rmSync(data, { recursive: true, force: true });
mkdirSync(build, { recursive: true });

// The real code, bundled the way esbuild.mjs bundles dist/ (worker included).
const bundle = (entry, out) => buildSync({ entryPoints: [join(repo, entry)], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: join(build, out), logLevel: 'silent' });
bundle('src/core/source/index.ts', 'source.cjs');
bundle('src/workers/statementIndex.ts', 'statementIndex.js');
const { createRequire } = await import('node:module');
const src = createRequire(import.meta.url)(join(build, 'source.cjs'));

// ---------------------------------------------------------------------------------------
// A deterministic vLLM-shaped checkout: many folders, repeated basenames, 5-20 logging
// statements per file in the shapes vLLM uses (printf, f-strings, multi-line, msg variables).
let seed = 12345;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
const pick = (xs) => xs[rnd(xs.length)];
const WORDS = 'request engine worker scheduler cache block token prefill decode batch kv tensor shard rank model weight graph kernel stream queue buffer allocator sampler detokenizer tokenizer lora adapter expert router pipeline stage memory profile compile capture warmup'.split(' ');
const VERBS = 'Allocated Scheduled Finished Loaded Started Stopped Received Sent Skipped Resized Captured Compiled Evicted Preempted Registered Initialized Flushed Reused'.split(' ');
const AREAS = ['v1/engine', 'v1/core/sched', 'v1/worker', 'v1/worker/gpu', 'v1/attention/backends', 'v1/attention/backends/mla', 'v1/metrics', 'v1/executor', 'entrypoints/openai', 'entrypoints/openai/chat_completion', 'entrypoints/serve/utils', 'model_executor/layers', 'model_executor/layers/quantization', 'model_executor/layers/quantization/utils', 'model_executor/models', 'distributed', 'distributed/kv_transfer', 'distributed/device_communicators', 'config', 'transformers_utils', 'lora', 'multimodal', 'compilation', 'platforms', 'utils'];
const NAMES = ['utils', 'core', 'loggers', 'base', 'layer', 'config', 'worker', 'model_runner', 'scheduler', 'serving', 'protocol', 'cache', 'ops', 'backend', 'manager', 'interface', 'registry', 'common', 'platform', 'kernel'];

function makeStatement(i) {
  const verb = pick(VERBS); const a = pick(WORDS); const b = pick(WORDS); const c = pick(WORDS);
  const level = pick(['info', 'info', 'debug', 'warning', 'info', 'error']);
  const id = `${a}_${i}`;
  switch (rnd(5)) {
    case 0: return { code: [`        logger.${level}("${verb} %d ${a} ${b}s for %s in %.2f ms (${id}).", n, name, elapsed)`], msg: (k) => `${verb} ${k} ${a} ${b}s for r-${k} in ${(k / 7).toFixed(2)} ms (${id}).` };
    case 1: return { code: [`        logger.${level}(f"${verb} ${a} {self.${b}_id} on rank {rank}: ${c} size={size:.1f} MiB [${id}]")`], msg: (k) => `${verb} ${a} ${k} on rank ${k % 8}: ${c} size=${(k / 3).toFixed(1)} MiB [${id}]` };
    case 2: return { code: [`        logger.${level}(`, `            "${verb} ${a} %s: ${b} %d, "`, `            "${c} %r (${id}).",`, '            x, y, z,', '        )'], msg: (k) => `${verb} ${a} q${k}: ${b} ${k}, ${c} 'v${k}' (${id}).` };
    case 3: return { code: [`        msg = f"${verb} ${a} {n}, "`, `        msg += f"${b}={v}, ${c} done (${id})"`, `        logger.${level}(msg)`], msg: (k) => `${verb} ${a} ${k}, ${b}=${k * 2}, ${c} done (${id})`, callOffset: 2 };
    default: return { code: [`        logger.${level}("${verb} ${a} ${b} %s (${id})", value)`], msg: (k) => `${verb} ${a} ${b} v${k} (${id})` };
  }
}

const t0 = performance.now();
const statements = []; // { path, line, msg }
let totalBytes = 0;
const linesSoFar = new Map(); // repeated paths are appended to: offset their statement lines
for (let f = 0; linesSoFar.size < FILES; f++) {
  // A quarter of the files share a handful of basenames (vLLM has dozens of utils.py / core.py).
  const path = `vllm/${pick(AREAS)}/${pick(NAMES)}${f % 4 === 0 ? '' : '_' + f}.py`;
  const lines = ['# SPDX-License-Identifier: Apache-2.0', 'import logging', '', 'from vllm.logger import init_logger', '', 'logger = init_logger(__name__)', ''];
  const offset = linesSoFar.get(path) ?? 0;
  const count = 5 + rnd(16);
  for (let s = 0; s < count; s++) {
    lines.push('', `class ${pick(WORDS)[0].toUpperCase()}${pick(WORDS)}${s}:`, `    """${pick(VERBS)} the ${pick(WORDS)} ${pick(WORDS)}; see logger.info("not a call") in docs."""`, '', `    def step_${s}(self, n, name, elapsed, rank=0, size=0.0):`);
    for (let k = rnd(12); k > 0; k--) lines.push(`        ${pick(WORDS)}_${k} = self.${pick(WORDS)}(${k}, "${pick(WORDS)}")  # ${pick(WORDS)}`);
    const st = makeStatement(statements.length);
    const line = offset + lines.length + 1 + (st.callOffset ?? 0);
    lines.push(...st.code);
    statements.push({ path, line, msg: st.msg });
    for (let k = rnd(8); k > 0; k--) lines.push(`        return ${pick(WORDS)}_${k}`);
  }
  const text = lines.join('\n') + '\n';
  linesSoFar.set(path, offset + lines.length);
  totalBytes += text.length;
  mkdirSync(join(checkout, dirname(path)), { recursive: true });
  writeFileSync(join(checkout, path), text, { flag: 'a' }); // repeated paths append: realistic big files
}
// The two hop statements the generated log uses, at the lines vLLM prints (engine-facts §1).
const at = (line, code) => Array.from({ length: line - 1 }, (_, i) => (i === 2 ? 'logger = init_logger(__name__)' : `# ${i}`)).concat(code).join('\n') + '\n';
mkdirSync(join(checkout, 'vllm/v1/engine'), { recursive: true });
mkdirSync(join(checkout, 'vllm/entrypoints/serve/utils'), { recursive: true });
writeFileSync(join(checkout, 'vllm/v1/engine/async_llm.py'), at(439, ['        logger.info("Added request %s.", request.request_id)']));
writeFileSync(join(checkout, 'vllm/entrypoints/serve/utils/request_logger.py'), at(63, ['        logger.info(', '            "Received request %s: params: %s, lora_request: %s.",', '            request_id, params, lora_request,', '        )']));
writeFileSync(join(checkout, 'vllm/__init__.py'), '');
writeFileSync(join(checkout, 'vllm/logger.py'), 'import logging\n');
writeFileSync(join(checkout, 'pyproject.toml'), '[project]\nname = "vllm"\n');
const git = (...a) => execFileSync('git', a, { cwd: checkout, env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
git('init', '-q'); git('add', '-A'); git('commit', '-q', '-m', 'generated');
const genMs = performance.now() - t0;
const fileCount = Number(execFileSync('git', ['ls-files'], { cwd: checkout }).toString().split('\n').filter((l) => l.endsWith('.py')).length);

const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const mb = (b) => `${(b / 1048576).toFixed(1)} MB`;

console.log(`checkout: ${fileCount} Python files, ${mb(totalBytes)}, generated in ${fmt(genMs)}`);

// 1. Index build: in-process and in the worker thread.
const files = await src.listPythonFiles(checkout, 'vllm', { git: true });
let t = performance.now();
const inProc = await src.buildStatementIndex(checkout, files, 'vllm', 'bench', { workerScript: null });
const inProcMs = performance.now() - t;
t = performance.now();
let maxBlock = 0; let last = performance.now();
const ticker = setInterval(() => { const now = performance.now(); maxBlock = Math.max(maxBlock, now - last - 5); last = now; }, 5);
const viaWorker = await src.buildStatementIndex(checkout, files, 'vllm', 'bench', { workerScript: join(build, 'statementIndex.js') });
const workerMs = performance.now() - t;
clearInterval(ticker);
// The worker's index must be the in-process one: a faster wrong answer fails the benchmark.
if (JSON.stringify(viaWorker.statements) !== JSON.stringify(inProc.statements)) {
  throw new Error(`the worker thread's index differs from the in-process one (${viaWorker.statements.length} vs ${inProc.statements.length} statements)`);
}
console.log(`index build: ${inProc.statements.length} statements in ${files.length} files — in-process ${fmt(inProcMs)}, worker thread ${fmt(workerMs)} (longest stall of the calling thread meanwhile: ${fmt(maxBlock)})`);

// 2. Resolver with a cold cache, then a warm one.
t = performance.now();
const cold = await src.createSourceResolver(checkout, 'vllm', { cacheDir, workerScript: join(build, 'statementIndex.js') });
const coldMs = performance.now() - t;
const v8 = await import('node:v8');
const vm = await import('node:vm');
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
gc();
const heapBefore = process.memoryUsage().heapUsed;
t = performance.now();
const resolver = await src.createSourceResolver(checkout, 'vllm', { cacheDir, workerScript: join(build, 'statementIndex.js') });
const warmMs = performance.now() - t;
gc();
const resolverHeap = process.memoryUsage().heapUsed - heapBefore;
const cacheFile = resolver.indexInfo().cacheFile;
console.log(`resolver ready: cold ${fmt(coldMs)} (${cold.indexInfo().source}), warm ${fmt(warmMs)} (${resolver.indexInfo().source}, cache file ${mb(statSync(cacheFile).size)}); the warm resolver holds ${mb(resolverHeap)} of heap`);

const usable = statements;

// The first search fills the index's search maps (on the caller's thread, once per resolver).
{
  const s0 = statements[0];
  const t1 = performance.now();
  resolver.resolve({ engine: 'vllm', fileinfo: null, lineno: null, message: s0.msg(0), hop: null });
  const first = performance.now() - t1;
  const t2 = performance.now();
  resolver.resolve({ engine: 'vllm', fileinfo: null, lineno: null, message: statements[1].msg(1), hop: null });
  console.log(`first index search (fills the search maps): ${fmt(first)}; the next one: ${fmt(performance.now() - t2)}`);
}

// 3. Lookups.
function timeLookups(label, n, makeQuery, check) {
  let ok = 0;
  const qs = Array.from({ length: Math.min(n, 20000) }, (_, i) => makeQuery(i));
  const start = performance.now();
  for (let i = 0; i < n; i++) { const r = resolver.resolve(qs[i % qs.length]); if (check(r, qs[i % qs.length])) ok++; }
  const ms = performance.now() - start;
  console.log(`  ${label.padEnd(52)} ${(ms * 1000 / n).toFixed(2).padStart(7)} µs/lookup   ${ok}/${n} as expected`);
  return ms * 1000 / n;
}
console.log('lookups:');
const stmtAt = (i) => usable[(i * 7919) % usable.length];
const fileinfoQuery = (form) => (i) => {
  const s = stmtAt(i);
  const base = s.path.slice(s.path.lastIndexOf('/') + 1);
  const parts = s.path.split('/').slice(1);
  const shrunk = parts.length > 3 ? `${parts[0]}/.../${parts.slice(-2).join('/')}` : parts.join('/');
  return { engine: 'vllm', fileinfo: form === 'info' ? base : shrunk, lineno: s.line, message: s.msg(i), hop: null, _s: s };
};
const verifiedInFile = (r, q) => r !== null && r.verified && r.path === q._s.path;
const infoUs = timeLookups('vLLM INFO basename [utils.py:N] (many candidates)', 200_000, fileinfoQuery('info'), verifiedInFile);
timeLookups('vLLM DEBUG shrunk path [v1/.../x.py:N]', 200_000, fileinfoQuery('debug'), verifiedInFile);
const searchUs = timeLookups('no file:line (SGLang-style): statement index search', 50_000, (i) => { const s = stmtAt(i); return { engine: 'vllm', fileinfo: null, lineno: null, message: s.msg(i), hop: null, _s: s }; }, (r, q) => r !== null && r.verified && r.path === q._s.path);
timeLookups('unmatched text (another program)', 50_000, (i) => ({ engine: 'vllm', fileinfo: null, lineno: null, message: `GET /metrics ${i} 200 OK from 10.0.0.${i % 255}`, hop: null }), (r) => r === null);
// A 1 MB line (a runaway repr in a message, an id gone wrong): the unit tests only check the answer
// and that it does not hang; what it costs is here, as a multiple of a normal line's lookup.
const MB_TAIL = ' ' + 'x'.repeat(1024 * 1024);
const hugeInfoUs = timeLookups('1 MB line with [file:line] (verify, then give up)', 20, (i) => { const q = fileinfoQuery('info')(i); return { ...q, message: q.message + MB_TAIL }; }, (r) => r === null || !r.verified);
const hugeSearchUs = timeLookups('1 MB line, no file:line (statement index search)', 20, (i) => ({ engine: 'vllm', fileinfo: null, lineno: null, message: stmtAt(i).msg(i) + MB_TAIL, hop: null }), (r) => r === null || !r.verified);
const scanUs = (() => { const t = performance.now(); let n = 0; for (let k = 0; k < 20; k++) n += MB_TAIL.indexOf('\u0000'); return n < 0 ? (performance.now() - t) * 1000 / 20 : 0; })();
console.log(`  1 MB line: ${(hugeInfoUs / infoUs).toFixed(0)}× / ${(hugeSearchUs / searchUs).toFixed(0)}× a normal line's lookup; ${(hugeInfoUs / scanUs).toFixed(0)}× / ${(hugeSearchUs / scanUs).toFixed(0)}× one indexOf over its 1 MB (${scanUs.toFixed(0)} µs)`);

// 4. A generated log, resolved line by line from disk, against the lab's annotate.
const out = createWriteStream(logFile);
const hopLines = [
  (k) => `(APIServer pid=41) INFO 11-29 08:00:${String(k % 60).padStart(2, '0')} [async_llm.py:439] Added request chatcmpl-${k}-0a1b2c3d.`,
  (k) => `(APIServer pid=41) INFO 11-29 08:00:${String(k % 60).padStart(2, '0')} [request_logger.py:63] Received request chatcmpl-${k}: params: SamplingParams(n=1, temperature=0.7, max_tokens=64), lora_request: None.`,
];
for (let k = 0; k < LINES; k++) {
  let line;
  if (k % 10 < 2) line = hopLines[k % 2](k);
  else {
    const s = stmtAt(k);
    line = `(EngineCore pid=77) INFO 11-29 08:00:${String(k % 60).padStart(2, '0')} [${s.path.slice(s.path.lastIndexOf('/') + 1)}:${s.line}] ${s.msg(k)}`;
  }
  if (!out.write(line + '\n')) await new Promise((r) => out.once('drain', r));
}
await new Promise((r) => out.end(r));
const logSize = statSync(logFile).size;
console.log(`log: ${LINES.toLocaleString()} lines, ${mb(logSize)}`);

// Ours in a fresh process, like the CLI: load the resolver (cached index), stream the log,
// parse the prefix, resolve and verify every line. Timed from the outside, like the lab.
const child = join(build, 'resolve-log.cjs');
writeFileSync(child, `
const { createReadStream } = require('node:fs');
const { createInterface } = require('node:readline');
const src = require(${JSON.stringify(join(build, 'source.cjs'))});
const PREFIX = /^(?:\\([^()]+? pid=\\d+\\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\[([^\\]]*?):(\\d+)\\] /;
(async () => {
  const r = await src.createSourceResolver(process.argv[2], 'vllm', { cacheDir: process.argv[3], workerScript: process.argv[4] });
  let total = 0, verified = 0, drifted = 0;
  const rl = createInterface({ input: createReadStream(process.argv[5]), crlfDelay: Infinity });
  for await (const line of rl) {
    total++;
    const m = PREFIX.exec(line);
    if (!m) continue;
    const loc = r.resolve({ engine: 'vllm', fileinfo: m[1], lineno: Number(m[2]), message: line.slice(m[0].length), hop: null });
    if (loc && loc.verified) { verified++; if (loc.drift) drifted++; }
  }
  console.log(JSON.stringify({ total, verified, drifted }));
})();
`);
const timed = (cmd, argv) => {
  const start = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M %U %S', cmd, ...argv], { maxBuffer: 1 << 30 });
  const [rssKb, user, sys] = String(r.stderr).trim().split('\n').pop().split(' ').map(Number);
  return { ms: performance.now() - start, cpuMs: (user + sys) * 1000, rssKb, stdout: String(r.stdout), status: r.status };
};
const ours = timed(process.execPath, [child, checkout, cacheDir, join(build, 'statementIndex.js'), logFile]);
const counts = JSON.parse(ours.stdout.trim().split('\n').pop());
console.log(`ours: node process: load resolver (cached index) + read + resolve + verify every line: ${fmt(ours.ms)} wall, ${fmt(ours.cpuMs)} CPU (${Math.round(LINES / (ours.ms / 1000)).toLocaleString()} lines/s), ${counts.verified.toLocaleString()} of ${counts.total.toLocaleString()} lines verified against the checkout, peak RSS ${mb(ours.rssKb * 1024)}`);
if (spawnSync('python3', ['--version']).status === 0) {
  const lab = timed('python3', [LAB, '--mode', 'annotate', '--engine', 'vllm', '--log', logFile]);
  // A lab that failed (its script not found beside this repository, a Python error) ran in no time: not a figure.
  if (lab.status !== 0) throw new Error(`lab12_run.py at ${LAB} exited ${lab.status}; no comparison`);
  console.log(`lab:  python3 lab12_run.py --mode annotate (hop regexes only, opens no checkout): ${fmt(lab.ms)} wall, ${fmt(lab.cpuMs)} CPU (${Math.round(LINES / (lab.ms / 1000)).toLocaleString()} lines/s), peak RSS ${mb(lab.rssKb * 1024)}`);
  console.log(`ours vs lab: ${(lab.ms / ours.ms).toFixed(1)}× the lab's wall-clock speed (${(lab.cpuMs / ours.cpuMs).toFixed(1)}× by CPU time), ${(lab.rssKb / ours.rssKb).toFixed(1)}× less memory, while also verifying every line against the checkout`);
} else {
  console.log('lab: python3 not available, comparison skipped');
}
const maxRss = process.resourceUsage().maxRSS * 1024;
console.log(`peak RSS of this whole benchmark process: ${mb(maxRss)}`);
if (!KEEP) rmSync(data, { recursive: true, force: true });
