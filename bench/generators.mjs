// The inputs the benchmarks share, generated deterministically (the same bytes on every run):
// a vLLM server log (bench/annotate.mjs, bench/peers.mjs) and a VLLM_TRACE_FUNCTION folder
// (bench/calltrace.mjs, bench/peers.mjs). Both are shaped exactly as the engine and its tracer
// write them.
import { closeSync, createWriteStream, existsSync, mkdirSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

// ------------------------------------------------------------------ vLLM server log
// Deterministic pseudo-random numbers, so every run measures the same file (the seed is reset
// by each call, so a script that generates both inputs gets the same files as one that makes one).
let logSeed = 12345;
const rnd = () => ((logSeed = (logSeed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const hex = (n) => { let s = ''; for (let i = 0; i < n; i++) s += '0123456789abcdef'[Math.floor(rnd() * 16)]; return s; };
const WORDS = ['Hello', ' world', ',', ' the', ' answer', ' is', ' 42', '.', ' How', ' can', ' I', ' help', '?', ' Sure', '!'];

/**
 * A vLLM log in the current format with request logging and output logging on: exactly `lines`
 * lines, ~215 bytes a line (the 1M-line log is ~215 MB).
 */
export async function generateVllmLog(path, lines) {
  logSeed = 12345;
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
    // Exactly `lines` lines: the last request's lines past the count are dropped before they are written.
    if (n > lines) buf.length -= n - lines;
    if (buf.length > 5000 || n >= lines) {
      if (!out.write(buf.join('\n') + '\n')) await new Promise((r) => out.once('drain', r));
      buf.length = 0;
    }
  }
  await new Promise((r) => out.end(r));
}

// ------------------------------------------------------------------ call-trace generator
const SITE = '/usr/local/lib/python3.12/dist-packages';
const F = {
  core: `${SITE}/vllm/v1/engine/core.py`,
  sched: `${SITE}/vllm/v1/core/sched/scheduler.py`,
  kv: `${SITE}/vllm/v1/core/kv_cache_manager.py`,
  pool: `${SITE}/vllm/v1/core/block_pool.py`,
  exec: `${SITE}/vllm/v1/executor/uniproc_executor.py`,
  worker: `${SITE}/vllm/v1/worker/gpu_worker.py`,
  runner: `${SITE}/vllm/v1/worker/gpu_model_runner.py`,
  llama: `${SITE}/vllm/model_executor/models/llama.py`,
  module: `${SITE}/torch/nn/modules/module.py`,
  attn: `${SITE}/vllm/attention/layer.py`,
  sampler: `${SITE}/vllm/v1/sample/sampler.py`,
  output: `${SITE}/vllm/v1/engine/output_processor.py`,
  stop: `${SITE}/vllm/v1/core/sched/utils.py`,
};

let traceSeed = 12345;
const rand = (n) => { traceSeed = (Math.imul(traceSeed, 1103515245) + 12345) >>> 0; return traceSeed % n; };

class TraceWriter {
  constructor(path, startUs) {
    this.fd = openSync(path, 'w');
    this.parts = []; this.size = 0; this.total = 0; this.calls = 0;
    this.us = startUs; this.stack = [{ fn: '', file: '', line: 0, cur: 0 }];
    this.secKey = -1; this.secText = '';
  }
  ts() {
    this.us += 1 + rand(12);
    const sec = Math.floor(this.us / 1e6);
    if (sec !== this.secKey) {
      this.secKey = sec;
      this.secText = new Date(sec * 1000).toISOString().replace('T', ' ').slice(0, 19);
    }
    return `${this.secText}.${String(this.us - sec * 1e6).padStart(6, '0')}`;
  }
  write(s) {
    this.parts.push(s); this.size += s.length;
    if (this.size > 8 << 20) this.flush();
  }
  flush() { const b = Buffer.from(this.parts.join('')); writeSync(this.fd, b); this.total += b.length; this.parts = []; this.size = 0; }
  call(fn, file, line) {
    const caller = this.stack[this.stack.length - 1];
    caller.cur = caller.line + 1 + rand(30);
    this.write(`${this.ts()} Call to ${fn} in ${file}:${line} from ${caller.fn} in ${caller.file}:${caller.cur}\n`);
    this.stack.push({ fn, file, line, cur: line });
    this.calls++;
  }
  ret() {
    const f = this.stack.pop();
    const caller = this.stack[this.stack.length - 1];
    this.write(`${this.ts()} Return from ${f.fn} in ${f.file}:${f.line + 3 + rand(20)} to ${caller.fn} in ${caller.file}:${caller.cur}\n`);
  }
  leaf(fn, file, line, busyUs = 0) { this.call(fn, file, line); this.us += busyUs; this.ret(); }
  close() { this.flush(); closeSync(this.fd); }
}

function torchModule(w, name, line, depth, inner) {
  w.call('_wrapped_call_impl', F.module, 1771);
  w.call('_call_impl', F.module, 1779);
  w.call('forward', F.llama, line);
  inner(depth + 1);
  w.ret(); w.ret(); w.ret();
}

function step(w, stepNo, layers) {
  w.call('step', F.core, 390);
  w.call('schedule', F.sched, 213);
  w.call('_schedule_running', F.sched, 260);
  for (let r = 0; r < 3; r++) {
    w.call('allocate_slots', F.kv, 201);
    w.call('get_new_blocks', F.pool, 300);
    w.leaf('popleft_n', F.pool, 410);
    w.ret(); w.ret();
  }
  w.ret();
  w.ret();
  w.call('execute_model', F.exec, 95);
  w.call('collective_rpc', F.exec, 60);
  w.call('run_method', `${SITE}/vllm/utils/__init__.py`, 2500);
  w.call('execute_model', F.worker, 350);
  w.call('execute_model', F.runner, 1500);
  w.leaf('_prepare_inputs', F.runner, 700, 40);
  torchModule(w, 'model', 380, 0, () => {
    for (let l = 0; l < layers; l++) {
      torchModule(w, 'layer', 300, 1, () => {
        torchModule(w, 'attn', 200, 2, () => { w.call('forward', F.attn, 250); w.leaf('unified_attention', F.attn, 500, 20); w.ret(); });
        torchModule(w, 'mlp', 90, 2, () => { w.leaf('silu_and_mul', `${SITE}/vllm/model_executor/layers/activation.py`, 80, 5); });
      });
    }
  });
  w.call('sample_tokens', F.runner, 1800);
  w.leaf('forward', F.sampler, 60, 10);
  w.ret();
  w.ret(); w.ret(); w.ret(); w.ret(); w.ret();
  w.call('update_from_output', F.sched, 800);
  const reqs = 2 + rand(6);
  for (let r = 0; r < reqs; r++) w.leaf('check_stop', F.stop, 20);
  if (stepNo % 50 === 49) {
    w.call('finish_requests', F.sched, 1000);
    w.call('_free_request', F.sched, 1100);
    w.leaf('_free_blocks', F.sched, 1120);
    w.ret(); w.ret();
  }
  w.ret();
  w.call('process_outputs', F.output, 400);
  for (let r = 0; r < reqs; r++) w.leaf('make_request_output', F.output, 600);
  w.ret();
  w.ret();
}

function generateFile(path, targetBytes, startUs, wideNode) {
  const w = new TraceWriter(path, startUs);
  w.call('run_engine_core', F.core, 900);
  w.call('run_busy_loop', F.core, 940);
  let n = 0;
  while (w.total + w.size < targetBytes - 512 * 1024) {
    w.leaf('_process_input_queue', F.core, 960);
    step(w, n++, 8);
    if (wideNode && n === 100) {
      // One node with a very wide level: 100 000 children, mostly one repeated call (×N row).
      w.call('_free_blocks', F.sched, 1120);
      for (let i = 0; i < 100_000; i++) w.leaf(i % 1000 === 999 ? 'touch' : 'free', F.pool, 250);
      w.ret();
    }
  }
  w.ret(); w.ret();
  w.close();
  return { bytes: w.total, calls: w.calls };
}

// ------------------------------------------------------------------ call-trace folder
/** Where the tracer puts its files under VLLM_TRACE_FUNCTION's root, and their names. */
export const CALLTRACE_FILE_NAMES = [
  'VLLM_TRACE_FUNCTION_for_process_4567_thread_139872651200320_at_2026-08-21_22:30:01.123456.log',
  'VLLM_TRACE_FUNCTION_for_process_4568_thread_139872651200321_at_2026-08-21_22:30:01.223456.log',
];
export const callTraceInstanceDir = (dataDir) => join(dataDir, 'root', 'vllm', 'vllm-instance-1755815123456789012');

/** Total MiB of an existing generated folder, or null when a file is missing. */
export function existingCallTraceMb(dataDir) {
  const dir = callTraceInstanceDir(dataDir);
  if (!CALLTRACE_FILE_NAMES.every((n) => existsSync(join(dir, n)))) return null;
  return CALLTRACE_FILE_NAMES.reduce((s, n) => s + statSync(join(dir, n)).size, 0) / 1024 / 1024;
}

/**
 * A fresh VLLM_TRACE_FUNCTION folder under `dataDir` (emptied first): two threads' files of
 * `mbPerFile` MiB each, deep vLLM/torch-like stacks, and in the first file one node with
 * 100 000 children.
 */
export function generateCallTraceFolder(dataDir, mbPerFile) {
  traceSeed = 12345;
  const instanceDir = callTraceInstanceDir(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(instanceDir, { recursive: true });
  const target = mbPerFile * 1024 * 1024;
  const start = Date.UTC(2026, 7, 21, 22, 30, 1) * 1000;
  const a = generateFile(join(instanceDir, CALLTRACE_FILE_NAMES[0]), target, start, true);
  const b = generateFile(join(instanceDir, CALLTRACE_FILE_NAMES[1]), target, start + 100000, false);
  return { instanceDir, bytes: a.bytes + b.bytes, calls: a.calls + b.calls };
}

// ------------------------------------------------------------ a router + prefill + decode set
let pdSeed = 4242;
const pdRnd = () => ((pdSeed = (pdSeed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const p2 = (x) => String(x).padStart(2, '0');
const vllmStamp = (ms) => { const d = new Date(Math.floor(ms / 1000) * 1000); return `${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`; };
const routerStamp = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('T', ' ').slice(0, 19);
const PARAMS = (mt, kv) => `SamplingParams(n=1, presence_penalty=0.0, frequency_penalty=0.0, repetition_penalty=1.0, temperature=0.7, top_p=1.0, top_k=0, min_p=0.0, seed=None, stop=[], stop_token_ids=[], bad_words=[], include_stop_str_in_output=False, ignore_eos=False, max_tokens=${mt}, min_tokens=0, logprobs=None, prompt_logprobs=None, skip_special_tokens=True, extra_args={'kv_transfer_params': {'do_remote_decode': ${kv === 'P' ? 'True' : 'False'}, 'do_remote_prefill': ${kv === 'D' ? 'True' : 'False'}}})`;

/**
 * A router + prefill + decode log set of `lines` lines in all (every request in all three files,
 * the engines' clocks off by −1.25 s and +2.7 s); returns the request ids, oldest first.
 */
export async function generatePdSet(dir, lines) {
  pdSeed = 4242;
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
    t += 5 + pdRnd() * 20;
    const id = `bench-${(req++).toString(36)}-${Math.floor(pdRnd() * 1e9).toString(16)}`;
    ids.push(id);
    const ext = `chatcmpl-${id}`;
    const pRecv = t + 1 + pdRnd() * 3, pDone = pRecv + 30 + pdRnd() * 400, dRecv = pDone + 2 + pdRnd() * 4, rOut = dRecv + 1 + pdRnd() * 3;
    const R = (at, s) => emit('router', at, `${routerStamp(at)}  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="${id}"${s}`);
    R(t, '}: sglang_router_rs::request: src/middleware.rs:230: started processing request');
    R(rOut, ` status_code=200 latency="${(rOut - t).toFixed(6)}ms"}: sglang_router_rs::response: src/middleware.rs:272: finished processing request`);
    const P = (at, s) => emit('prefill', at, `(APIServer pid=3101) INFO ${vllmStamp(at + OFF.prefill)} ${s}`);
    const D = (at, s) => emit('decode', at, `(APIServer pid=4101) INFO ${vllmStamp(at + OFF.decode)} ${s}`);
    P(pRecv, `[request_logger.py:63] Received request ${ext}: params: ${PARAMS(1, 'P')}, lora_request: None.`);
    P(pRecv + 4, `[async_llm.py:439] Added request ${ext}-${Math.floor(pdRnd() * 0xffffffff).toString(16).padStart(8, '0')}.`);
    P(pDone, `[request_logger.py:98] Generated response ${ext}: output: 'The', finish_reason: length`);
    emit('prefill', pDone, `(APIServer pid=3101) INFO:     10.0.0.5:${40000 + (req % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`);
    D(dRecv, `[request_logger.py:63] Received request ${ext}: params: ${PARAMS(64, 'D')}, lora_request: None.`);
    emit('decode', dRecv, `(APIServer pid=4101) INFO:     10.0.0.5:${41000 + (req % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK`);
    D(dRecv + 4, `[async_llm.py:439] Added request ${ext}-${Math.floor(pdRnd() * 0xffffffff).toString(16).padStart(8, '0')}.`);
    let at = dRecv + 4;
    const k = 3 + Math.floor(pdRnd() * 8);
    for (let i = 0; i < k; i++) { at += 20 + pdRnd() * 40; D(at, `[request_logger.py:98] Generated response ${ext} (streaming delta): output: ' word', finish_reason: None`); }
    D(at + 1, `[request_logger.py:98] Generated response ${ext} (streaming complete): output: '${' word'.repeat(k)}', finish_reason: streaming_complete`);
    if (req % 2000 === 0) await flush();
  }
  await flush();
  await Promise.all(Object.values(files).map((s) => new Promise((r) => s.end(r))));
  return ids;
}
