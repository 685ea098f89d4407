#!/usr/bin/env node
// Benchmark: the command line at hostile scale — peak memory and time of
//   - `annotate --json` on the 1,000,000-line log into a file, a fast pipe, a slow reader, `| head -1`,
//     from standard input and from a .gz, beside `cat` and `grep -c` on the same log;
//   - `calltrace` over 2,000 and 10,000 small trace files and one stack a million calls deep;
//   - `send` against a 127.0.0.1 server that floods 400 MB of valid frames.
// Figures mean something only as ratios to the peer measured in the same run.
//
//   node bench/hostile.mjs [--baseline path/to/other/cli.js] [--skip-send] [--skip-calltrace] [--files10k]
//
// --baseline runs the same cases with another build (e.g. main's) for a before/after table.
// Inputs go to bench/data/ (git-ignored) and are removed at the end.
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const data = join(root, 'bench', 'data', 'hostile');
const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const CLI = join(root, 'dist', 'cli.js');
const BASELINE = opt('--baseline');
const builds = [['this build', CLI], ...(BASELINE ? [['baseline', BASELINE]] : [])];
mkdirSync(data, { recursive: true });
const bigLog = join(root, 'bench', 'data', 'vllm_1000000.log');

/** Runs `sh -c script` under /usr/bin/time; wall seconds, peak RSS (MB) of the measured command and exit code. */
function timed(script, env = {}) {
  const t0 = performance.now();
  const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 26 });
  const wall = (performance.now() - t0) / 1000;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const code = /HOPLENS_EXIT=(\d+)/.exec(r.stderr);
  return { wall, rssMB: rss ? Number(rss[1]) / 1024 : NaN, exit: code ? Number(code[1]) : r.status, stderr: r.stderr };
}
const TIME = '/usr/bin/time -v';
const timeFile = join(data, 'time.txt');

/** `producer | consumer`, measuring the producer: its stderr and /usr/bin/time's report go to a file. */
function piped(producer, consumer) {
  const t0 = performance.now();
  spawnSync('sh', ['-c', `${TIME} ${producer} 2>${q(timeFile)} | ${consumer}`], { stdio: 'ignore' });
  const wall = (performance.now() - t0) / 1000;
  const text = readFileSync(timeFile, 'utf8');
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(text);
  const exit = /Exit status: (\d+)/.exec(text);
  const own = text.split('\tCommand being timed')[0];
  return { wall, rssMB: rss ? Number(rss[1]) / 1024 : NaN, exit: exit ? Number(exit[1]) : '?', stack: /Error|EPIPE/.test(own) };
}
const q = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
/** The measured command's exit code, printed by the shell to stderr (pipelines report the last command's). */
const measured = (cmd) => `${TIME} ${cmd}; echo HOPLENS_EXIT=$? >&2`;

// A reader that takes 64 KB every 2 ms (≈ 32 MB/s): a terminal, ssh, or a slow consumer.
const SLOW_READER = `node -e "const fs=require('fs');const b=Buffer.alloc(65536);const w=new Int32Array(new SharedArrayBuffer(4));for(;;){let n=0;try{n=fs.readSync(0,b,0,b.length,null)}catch(e){if(e.code==='EAGAIN'){Atomics.wait(w,0,0,2);continue}throw e}if(!n)break;Atomics.wait(w,0,0,2)}"`;

const rows = [];
const row = (section, what, build, r, peer) => rows.push({ section, what, build, wall: r.wall, rss: r.rssMB, exit: r.exit, peer });
const fmt = (v, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '?');

let generatedLog = false;
function annotateCases() {
  if (!existsSync(bigLog)) {
    generatedLog = true;
    process.stdout.write('generating the 1,000,000-line log with bench/annotate.mjs … ');
    spawnSync(process.execPath, [join(root, 'bench', 'annotate.mjs'), '--keep', '--skip-python'], { stdio: 'ignore' });
    console.log('done');
  }
  const size = statSync(bigLog).size;
  console.log(`\nannotate: ${bigLog} (${(size / 1e6).toFixed(0)} MB, 1,000,000 lines)`);
  const gz = join(data, 'vllm.log.gz');
  spawnSync('sh', ['-c', `gzip -1 -c ${q(bigLog)} > ${q(gz)}`]);
  const cat = timed(measured(`cat ${q(bigLog)} > /dev/null`));
  const grep = timed(measured(`grep -c 'Added request' ${q(bigLog)} > /dev/null`));
  row('annotate', 'peer: cat LOG > /dev/null', '-', cat);
  row('annotate', "peer: grep -c 'Added request' LOG", '-', grep);
  for (const [name, cli] of builds) {
    const c = `node ${q(cli)}`;
    row('annotate', '--json > file', name, timed(measured(`${c} annotate ${q(bigLog)} --json > ${q(join(data, 'out.jsonl'))}`)));
    row('annotate', '--json | cat > /dev/null (fast pipe)', name, piped(`${c} annotate ${q(bigLog)} --json`, 'cat > /dev/null'));
    row('annotate', '--json | slow reader (32 MB/s)', name, piped(`${c} annotate ${q(bigLog)} --json`, SLOW_READER));
    const head = piped(`${c} annotate ${q(bigLog)} --json`, 'head -1 > /dev/null');
    row('annotate', `--json | head -1${head.stack ? ' (stack trace on stderr)' : ''}`, name, head);
    row('annotate', 'cat LOG | annotate - --json > /dev/null', name, timed(`cat ${q(bigLog)} | ${TIME} ${c} annotate - --json > /dev/null; echo HOPLENS_EXIT=$? >&2`));
    row('annotate', 'annotate LOG.gz --json > /dev/null', name, timed(measured(`${c} annotate ${q(gz)} --json > /dev/null`)));
  }
  rmSync(join(data, 'out.jsonl'), { force: true });
  rmSync(gz, { force: true });
}

function smallTraceFolder(n) {
  const dir = join(data, `traces-${n}`);
  rmSync(dir, { recursive: true, force: true });
  const inst = join(dir, 'vllm-instance-restarts');
  mkdirSync(inst, { recursive: true });
  const F = '/usr/lib/python3/site-packages/vllm/v1/engine/core.py';
  const lines = [];
  for (let i = 0; i < 20; i++) {
    const us = String(i + 1).padStart(6, '0');
    lines.push(`2026-08-21 22:30:01.${us} Call to step in ${F}:380 from run_busy_loop in ${F}:870`, `2026-08-21 22:30:01.${us} Return from step in ${F}:380 to run_busy_loop in ${F}:870`);
  }
  const body = lines.join('\n') + '\n';
  for (let i = 0; i < n; i++) writeFileSync(join(inst, `VLLM_TRACE_FUNCTION_for_process_${100_000 + i}_thread_7_at_2026-08-21_22:30:01.000001.log`), body);
  return dir;
}

function deepTraceFolder(depth) {
  const dir = join(data, 'deep');
  const inst = join(dir, 'vllm-instance-hung');
  mkdirSync(inst, { recursive: true });
  const fd = openSync(join(inst, 'VLLM_TRACE_FUNCTION_for_process_7_thread_7_at_2026-08-21_22:30:01.000001.log'), 'w');
  const F = '/usr/lib/python3/site-packages/vllm/model_executor/recurse.py';
  const line = `2026-08-21 22:30:01.000001 Call to recurse in ${F}:10 from recurse in ${F}:12\n`;
  const block = line.repeat(10_000);
  for (let i = 0; i < depth / 10_000; i++) writeSync(fd, block);
  closeSync(fd);
  return dir;
}

function calltraceCases() {
  const sizes = argv.includes('--files10k') ? [2000, 10_000] : [2000];
  for (const n of sizes) {
    const dir = smallTraceFolder(n);
    const ls = timed(measured(`ls -R ${q(dir)} > /dev/null`));
    row('calltrace', `peer: ls -R (${n.toLocaleString('en-US')} files)`, '-', ls);
    for (const [name, cli] of builds) {
      if (name === 'baseline' && n > 2000) continue; // ~60 ms per file: 10,000 files do not finish in minutes
      row('calltrace', `${n.toLocaleString('en-US')} small files`, name, timed(measured(`node ${q(cli)} calltrace ${q(dir)} --json > /dev/null`)));
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const deep = deepTraceFolder(1_000_000);
  row('calltrace', 'peer: wc -l on the 1M-deep trace', '-', timed(measured(`wc -l ${q(deep)}/vllm-instance-hung/*.log > /dev/null`)));
  for (const [name, cli] of builds) {
    if (name === 'baseline') continue; // quadratic: does not finish
    row('calltrace', 'stack 1,000,000 deep, --filter recurse --limit 0', name, timed(measured(`node ${q(cli)} calltrace ${q(deep)} --filter recurse --limit 0 > /dev/null`)));
  }
  rmSync(deep, { recursive: true, force: true });
}

async function sendCases() {
  const TOTAL = 400 * 1024 * 1024;
  const frame = `data: {"id":"chatcmpl-flood","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}\n\n`;
  const batch = frame.repeat(256);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < TOTAL) { sent += batch.length; if (!res.write(batch)) { res.once('drain', pump); return; } }
        res.end('data: [DONE]\n\n');
      };
      pump();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const frames = Math.ceil(TOTAL / batch.length) * 256;
  console.log(`\nsend: a 127.0.0.1 server floods ${(TOTAL / 1024 / 1024).toFixed(0)} MB (${frames.toLocaleString('en-US')} frames)`);
  // The server lives in this process: run the client asynchronously so it can serve.
  const run = (cmd) => new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn('sh', ['-c', cmd], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b) => { err += b; });
    child.on('close', (code) => {
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      resolve({ wall: (performance.now() - t0) / 1000, rssMB: rss ? Number(rss[1]) / 1024 : NaN, exit: code });
    });
  });
  row('send', 'peer: curl -sN > /dev/null', '-', await run(`${TIME} curl -sN -X POST -d '{}' ${url}/v1/chat/completions > /dev/null`));
  for (const [name, cli] of builds) {
    row('send', '400 MB of frames, --json', name, await run(`${TIME} node ${q(cli)} send --url ${url} --engine vllm --model m --json --timeout-ms 600000 > /dev/null`));
  }
  server.closeAllConnections();
  server.close();
}

if (!argv.includes('--skip-annotate')) annotateCases();
if (!argv.includes('--skip-calltrace')) calltraceCases();
if (!argv.includes('--skip-send')) await sendCases();

console.log('\n| case | build | wall s | peak RSS MB | exit |');
console.log('|---|---|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.section}: ${r.what} | ${r.build} | ${fmt(r.wall)} | ${fmt(r.rss, 0)} | ${r.exit ?? ''} |`);
rmSync(data, { recursive: true, force: true });
if (generatedLog) rmSync(bigLog, { force: true });
