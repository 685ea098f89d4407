// Every line shape from the spec (engine-facts.md, hops.json, constructed examples), and the
// wrappers real logs put in front of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine, detectEngine } from '../../../src/core/logs/parseLine';
import type { LogRecord } from '../../../src/core/logs/model';

const REF = Date.UTC(2026, 7, 22, 12, 0, 0); // the log was last written in August 2026

function parse(line: string, engine: 'auto' | 'vllm' | 'sglang' = 'auto'): LogRecord {
  return parseLine(line, 1, 0, createParseState({ engine, referenceTime: REF }));
}

const ADDED = '(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-myrun-0001-9e1f0c2d.';

test('vLLM current format: process, pid, role, level, time (year inferred), fileinfo, hop, rid', () => {
  const r = parse(ADDED);
  assert.equal(r.engine, 'vllm');
  assert.equal(r.format, 'vllm');
  assert.equal(r.process, 'APIServer');
  assert.equal(r.pid, 2101);
  assert.equal(r.role, 'api-server');
  assert.equal(r.level, 'INFO');
  assert.equal(r.time, Date.UTC(2026, 7, 21, 22, 30, 5));
  assert.equal(r.timeResolution, 's');
  assert.equal(r.fileinfo, 'async_llm.py');
  assert.equal(r.lineno, 439);
  assert.equal(r.message, 'Added request chatcmpl-myrun-0001-9e1f0c2d.');
  assert.equal(r.hop, 'V2');
  assert.equal(r.rid, 'chatcmpl-myrun-0001');
});

test('vLLM DEBUG shrunk paths are kept as printed', () => {
  const a = parse('(EngineCore pid=3050) DEBUG 08-21 22:41:01 [v1/engine/core.py:1429] EngineCore waiting for work.');
  assert.equal(a.fileinfo, 'v1/engine/core.py');
  assert.equal(a.hop, 'V3');
  assert.equal(a.role, 'engine-core');
  const b = parse('(APIServer pid=3001) INFO 08-21 22:41:02 [entrypoints/.../utils/request_logger.py:63] Received request chatcmpl-4e2b: params: SamplingParams(n=1), lora_request: None.');
  assert.equal(b.fileinfo, 'entrypoints/.../utils/request_logger.py');
  assert.equal(b.lineno, 63);
  assert.equal(b.hop, 'V1');
  assert.equal(b.rid, 'chatcmpl-4e2b');
});

test('every vLLM process prefix variant gives name, pid, role and ranks', () => {
  const cases: [string, string, string, Record<string, number> | null][] = [
    ['APIServer', 'APIServer', 'api-server', null],
    ['ApiServer_1', 'ApiServer_1', 'api-server', { index: 1 }],
    ['APIServer_DP1', 'APIServer_DP1', 'api-server', { DP: 1 }],
    ['DPSupervisor', 'DPSupervisor', 'dp-supervisor', null],
    ['EngineCore', 'EngineCore', 'engine-core', null],
    ['EngineCore_0', 'EngineCore_0', 'engine-core', { index: 0 }],
    ['EngineCore_DP3', 'EngineCore_DP3', 'engine-core', { DP: 3 }],
    ['Worker', 'Worker', 'worker', null],
    ['Worker_TP0', 'Worker_TP0', 'worker', { TP: 0 }],
    ['Worker_DP1_TP0_EP8', 'Worker_DP1_TP0_EP8', 'worker', { DP: 1, TP: 0, EP: 8 }],
    ['Worker_PP1_TP3', 'Worker_PP1_TP3', 'worker', { PP: 1, TP: 3 }],
    ['VllmWorker TP0', 'VllmWorker TP0', 'worker', { TP: 0 }],
    ['VllmWorker rank=0', 'VllmWorker rank=0', 'worker', { rank: 0 }],
    ['VllmWorkerProcess', 'VllmWorkerProcess', 'worker', null],
  ];
  for (const [prefix, name, role, ranks] of cases) {
    const r = parse(`(${prefix} pid=77) INFO 08-21 22:30:05 [gpu_model_runner.py:2000] Loading model weights took 1.0 GiB`);
    assert.equal(r.process, name, prefix);
    assert.equal(r.pid, 77, prefix);
    assert.equal(r.role, role, prefix);
    assert.deepEqual(r.ranks, ranks, prefix);
    assert.equal(r.lineno, 2000, prefix);
  }
  const ray = parse('(RayWorkerWrapper pid=4242, ip=10.0.0.5) INFO 08-21 22:30:05 [worker.py:88] Ready');
  assert.equal(ray.process, 'RayWorkerWrapper');
  assert.equal(ray.pid, 4242);
  assert.equal(ray.role, 'worker');
});

test('nested prefixes: the innermost process wins; Ray repetition is read and removed', () => {
  const r = parse('(EngineCore_DP0 pid=1) (RayWorkerWrapper pid=2) INFO 08-21 22:30:05 [gpu_worker.py:120] Memory profiling takes 3.2 seconds [repeated 7x across cluster]');
  assert.equal(r.process, 'RayWorkerWrapper');
  assert.equal(r.pid, 2);
  assert.equal(r.repeated, 7);
  assert.equal(r.message, 'Memory profiling takes 3.2 seconds');
});

test('older vLLM (<=0.7) without the opening bracket, and without a process prefix', () => {
  const r = parse('INFO 02-27 14:34:54 metrics.py:161] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 12.4 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.');
  assert.equal(r.format, 'vllm-legacy');
  assert.equal(r.fileinfo, 'metrics.py');
  assert.equal(r.lineno, 161);
  assert.equal(r.hop, 'V5');
  assert.equal(r.process, null);
  assert.equal(r.time, Date.UTC(2026, 1, 27, 14, 34, 54));
  const old = parse('INFO 02-27 14:34:54 logger.py:39] Received request chatcmpl-abc: prompt: \'Hi\', params: SamplingParams(n=1), prompt_token_ids: [1, 2], lora_request: None.');
  assert.equal(old.hop, 'V1');
  assert.equal(old.rid, 'chatcmpl-abc');
  const v0 = parse('INFO 02-27 14:34:55 async_llm_engine.py:140] Aborted request cmpl-abc-0.');
  assert.equal(v0.hop, 'V8');
  assert.equal(v0.rid, 'cmpl-abc-0');
});

test('multi-line record: continuation lines repeat the header after CR LF', () => {
  const st = createParseState({ referenceTime: REF });
  const lines = [
    '(Worker_TP1 pid=3072) INFO 08-21 22:41:02 [v1/worker/gpu_worker.py:120] Memory profiling takes 3.20 seconds',
    '(Worker_TP1 pid=3072) ERROR 08-21 22:41:03 [v1/executor/multiproc_executor.py:1050] WorkerProc hit an exception.\r',
    '(Worker_TP1 pid=3072) ERROR 08-21 22:41:03 [v1/executor/multiproc_executor.py:1050] Traceback (most recent call last):\r',
    '(Worker_TP1 pid=3072) ERROR 08-21 22:41:03 [v1/executor/multiproc_executor.py:1050] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
    '(Worker_TP1 pid=3072) ERROR 08-21 22:41:03 [v1/executor/multiproc_executor.py:1050] A new record.',
  ];
  const recs = lines.map((l, i) => parseLine(l, i + 1, 0, st));
  assert.deepEqual(recs.map((r) => r.continuation), [false, false, true, true, false]);
  assert.ok(recs.every((r) => r.process === 'Worker_TP1' && !r.message.endsWith('\r')));
});

// Two `Added request` lines of the same second share their whole header: in a CRLF file the
// second one was taken for a continuation of the first and lost its hop.
const SAME_HEADER = [
  '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-a-0a1b2c3d.',
  '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-b-1a2b3c4d.',
  '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-c-2a3b4c5d.',
];

test('CRLF line endings (Windows, docker logs of a -t container): every line is its own record', () => {
  const st = createParseState({ referenceTime: REF });
  const recs = SAME_HEADER.map((l, i) => parseLine(l + '\r', i + 1, 0, st));
  assert.deepEqual(recs.map((r) => [r.hop, r.rid, r.continuation]), [['V2', 'chatcmpl-a', false], ['V2', 'chatcmpl-b', false], ['V2', 'chatcmpl-c', false]]);
  assert.ok(recs.every((r) => !r.message.includes('\r')));
});

test('CRLF file through a tty: the multi-line marker is CR CR LF and still joins continuation lines', () => {
  const st = createParseState({ referenceTime: REF });
  const lines = [
    SAME_HEADER[0] + '\r',
    '(EngineCore pid=9) ERROR 08-21 22:41:03 [core.py:700] EngineCore failed to start.\r\r',
    '(EngineCore pid=9) ERROR 08-21 22:41:03 [core.py:700] Traceback (most recent call last):\r',
    SAME_HEADER[1] + '\r',
  ];
  const recs = lines.map((l, i) => parseLine(l, i + 1, 0, st));
  assert.deepEqual(recs.map((r) => r.continuation), [false, false, true, false]);
  assert.equal(recs[3].hop, 'V2');
});

test('a UTF-8 byte order mark in front of line 1 is not part of the line', () => {
  const st = createParseState({ referenceTime: REF });
  const v = parseLine('\ufeff' + SAME_HEADER[0], 1, 0, st);
  assert.equal(v.engine, 'vllm');
  assert.equal(v.hop, 'V2');
  assert.equal(v.process, 'APIServer');
  const sg = parseLine('\ufeff[2026-08-21 22:50:10 TP0] Decode batch, #running-req: 1, #token: 49, token usage: 0.00, cuda graph: True, gen throughput (token/s): 93.24, #queue-req: 0', 1, 0, createParseState({ referenceTime: REF }));
  assert.equal(sg.hop, 'S4');
});

test('uvicorn access lines, with and without the process prefix', () => {
  const a = parse('(APIServer pid=2101) INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
  assert.equal(a.format, 'uvicorn');
  assert.equal(a.engine, 'vllm');
  assert.equal(a.hop, 'V10');
  assert.equal(a.process, 'APIServer');
  const b = parse('INFO:     127.0.0.1:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK', 'vllm');
  assert.equal(b.format, 'uvicorn');
  assert.equal(b.hop, 'V10');
  assert.equal(b.level, 'INFO');
  assert.equal(b.rid, null);
});

test('SGLang main format: seconds, milliseconds, every rank combination, no ranks', () => {
  const ms = parse('[2026-08-21 22:50:10.215 TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00');
  assert.equal(ms.engine, 'sglang');
  assert.equal(ms.timeResolution, 'ms');
  assert.equal(ms.time, Date.UTC(2026, 7, 21, 22, 50, 10, 215));
  assert.deepEqual(ms.ranks, { TP: 0 });
  assert.equal(ms.hop, 'S3');
  assert.equal(ms.role, 'scheduler');
  const combos: [string, Record<string, number>][] = [
    ['DP0 TP1', { DP: 0, TP: 1 }], ['PP0 TP3', { PP: 0, TP: 3 }], ['TP2 EP2', { TP: 2, EP: 2 }],
    ['DP1 PP1 ATTN_CP1 MOE_DP0 TP1 EP3', { DP: 1, PP: 1, ATTN_CP: 1, MOE_DP: 0, TP: 1, EP: 3 }],
  ];
  for (const [tag, ranks] of combos) {
    const r = parse(`[2026-08-21 22:50:10 ${tag}] Decode batch, #running-req: 1, #token: 49, token usage: 0.00, cuda graph: True, gen throughput (token/s): 93.24, #queue-req: 0`);
    assert.equal(r.process, tag);
    assert.deepEqual(r.ranks, ranks, tag);
    assert.equal(r.hop, 'S4', tag);
    assert.equal(r.timeResolution, 's');
  }
  const bare = parse('[2026-08-21 22:30:01] Prefill batch. #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0');
  assert.equal(bare.hop, 'S3', 'older "Prefill batch." wording, TP=1 with no rank tag');
  assert.equal(bare.ranks, null);
  assert.equal(bare.role, 'scheduler');
});

test('SGLang\'s bracket holds rank tags and its process names only: a level word or another word there is another program\'s', () => {
  // Another program's `[%(asctime)s %(levelname)s]` and similar: no SGLang line, no process.
  for (const line of [
    '[2025-01-01 12:00:00 INFO] Application started',
    '[2025-01-01 12:00:00 WARNING] Disk usage above 80%',
    '[2025-01-01 12:00:00 MainThread] Connected to the broker',
    '[2025-01-01 12:00:00 UTC] Backup finished',
    '[12:00:00 INFO] Application started',
  ]) {
    const r = parse(line);
    assert.equal(r.engine, 'other', line);
    assert.equal(r.process, null, line);
  }
  // SGLang's own: the encoder's process names, and a PP fork's `TP1, PP0`.
  const enc = parse('[2026-08-21 22:50:10 encode_dp_worker[1]] DP worker 1 exiting');
  assert.equal(enc.engine, 'sglang');
  assert.equal(enc.process, 'encode_dp_worker[1]');
  assert.equal(parse('[2026-08-21 22:50:10 encode_server] Encoder server started').process, 'encode_server');
  const pp = parse('[2025-03-20 10:00:00 TP1, PP0] Decode batch. #running-req: 1, #token: 49, token usage: 0.00, gen throughput (token/s): 93.24, #queue-req: 0');
  assert.equal(pp.hop, 'S4');
  assert.deepEqual(pp.ranks, { TP: 1, PP: 0 });
  // SGLang's messages written through a `[%(asctime)s %(levelname)s] %(message)s` config: a custom layout, its level kept.
  const cfg = parse('[2026-08-21 22:50:10 WARNING] Decode batch, #running-req: 1, #token: 49, token usage: 0.00, cuda graph: True, gen throughput (token/s): 93.24, #queue-req: 0');
  assert.equal(cfg.engine, 'sglang');
  assert.equal(cfg.format, 'sglang-custom');
  assert.equal(cfg.level, 'WARNING');
  assert.equal(cfg.hop, 'S4');
  assert.equal(cfg.ranks, null);
  // SGLang's `[date]` copied by a framework that adds %(filename)s:%(lineno)d (slime): its own line, not SGLang's.
  const slime = parse('[2026-03-22 13:50:41] train.py:123 - Start training step 1');
  assert.equal(slime.engine, 'other');
  assert.equal(parse('[2026-03-22 13:50:41] Start training step 1 at train.py:123 - resumed').engine, 'sglang', 'a file:line later in the message is text');
});

test('lines pasted from a web page: wide and zero-width spaces, markdown escapes, HTML entities, doubled spaces', () => {
  const want = (line: string, rid: string) => {
    const r = parse(line);
    assert.equal(r.engine, 'vllm', line);
    assert.equal(r.format, 'vllm', line);
    assert.equal(r.fileinfo, 'async_llm.py', line);
    assert.equal(r.lineno, 439, line);
    assert.equal(r.hop, 'V2', line);
    assert.equal(r.rid, rid, line);
    assert.equal(r.message, `Added request ${rid}-9e1f0c2d.`, line);
  };
  const nb = '\u00a0';
  want(`(APIServer${nb}pid=1)${nb}INFO${nb}08-21${nb}22:30:05${nb}[async_llm.py:439]${nb}Added${nb}request${nb}chatcmpl-nb1-9e1f0c2d.`, 'chatcmpl-nb1');
  want(`(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439]${nb}Added request chatcmpl-nb2-9e1f0c2d.`, 'chatcmpl-nb2');
  want('(APIServer pid=1) INFO\u200b 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-zw2-9e1f0c2d.', 'chatcmpl-zw2');
  want('(APIServer pid=1) INFO 08-21 22:30:05 \ufeff[async_llm.py:439] Added request chatcmpl-zw3-9e1f0c2d.', 'chatcmpl-zw3');
  want('(APIServer pid=1) INFO  08-21 22:30:05  [async_llm.py:439]  Added request chatcmpl-ds2-9e1f0c2d.', 'chatcmpl-ds2');
  want('\\(APIServer pid=1\\) INFO 08-21 22:30:05 \\[async\\_llm.py:439\\] Added request chatcmpl-md2-9e1f0c2d.', 'chatcmpl-md2');
  want('\\*\\*(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-md4-9e1f0c2d.\\*\\*', 'chatcmpl-md4');
  const sg = parse(`\\[2026-08-21 22:50:10\\] Receive: obj=GenerateReqInput(rid='md-req-1', session\\_id=None, text='Hi', stream=True)`);
  assert.equal(sg.hop, 'S2');
  assert.equal(sg.rid, 'md-req-1');
  const uv = parseLine('INFO:&nbsp;&nbsp;&nbsp;&nbsp; 127.0.0.1:5555 - &quot;POST /v1/chat/completions HTTP/1.1&quot; 200 OK', 1, 0, { ...createParseState({ referenceTime: REF }), detected: 'vllm' });
  assert.equal(uv.hop, 'V10');
  // The same characters in another program's text: still no engine's line.
  const text = 'Hello\u00a0world, see \\[the docs\\] &amp; the\u200b FAQ';
  assert.deepEqual([parse(text).engine, parse(text).message], ['other', text], 'another program\'s text is kept as read');
  assert.equal(parse('\\[2025-01-01 12:00:00 INFO\\] Application started').engine, 'other');
});

test('SGLang 2024 form [HH:MM:SS TP0] and the request logger format', () => {
  const old = parse('[10:00:00 TP0] Decode batch. #running-req: 3, #token: 500, token usage: 0.01, gen throughput (token/s): 120.00, #queue-req: 0');
  assert.equal(old.format, 'sglang-2024');
  assert.equal(old.hop, 'S4');
  assert.deepEqual(old.ranks, { TP: 0 });
  assert.equal(old.timeResolution, 's');
  const recv = parse("[2026-08-21 22:50:10] Receive: obj=GenerateReqInput(rid='my-req-1', session_id=None, text=None, stream=True)");
  assert.equal(recv.format, 'sglang-request');
  assert.equal(recv.hop, 'S2');
  assert.equal(recv.rid, 'my-req-1');
  assert.equal(recv.role, 'tokenizer');
  const fin = parse("[2026-08-21 22:50:10] Finish: obj=GenerateReqInput(rid='my-req-1', stream=True), out={'text': 'Hello', 'meta_info': {'id': 'my-req-1'}}");
  assert.equal(fin.hop, 'S6');
  assert.equal(fin.rid, 'my-req-1');
  const stats = parse('[2026-08-21 22:50:10.790 TP0] ReqTimeStats(rid=my-req-1, input_len=9, cached_input_len=0, output_len=52, attempts=1, type=unified): queue_duration=0.41ms, forward_duration=574.93ms, entry_time=1755816610.215');
  assert.equal(stats.hop, 'S5');
  assert.equal(stats.rid, 'my-req-1');
  const backlog = parse('[2026-08-21 22:50:10.800] Streaming backlog: rid=abc123, coalescing 25 queued chunks into one. This may inflate P99 ITL for affected requests.');
  assert.equal(backlog.hop, 'S7');
  assert.equal(backlog.rid, 'abc123');
});

test('outer wrappers: docker --timestamps, compose, journald, kubectl/stern, slurm, launcher stamp', () => {
  const docker = parse(`2026-08-21T22:30:05.123456789Z ${ADDED}`);
  assert.equal(docker.hop, 'V2');
  assert.equal(docker.timeResolution, 'ns');
  assert.equal(docker.timeIsUtc, true);
  assert.equal(Math.floor(docker.time!), Date.UTC(2026, 7, 21, 22, 30, 5, 123));
  assert.deepEqual(docker.wrappers, ['docker']);

  const compose = parse(`vllm-1  | ${ADDED}`);
  assert.equal(compose.hop, 'V2');
  assert.deepEqual(compose.wrappers, ['compose']);
  const composeTs = parse(`vllm-1  | 2026-08-21T22:30:05.5Z ${ADDED}`);
  assert.deepEqual(composeTs.wrappers, ['compose', 'docker']);
  assert.equal(composeTs.timeResolution, 'ms');

  const journald = parse(`Aug 21 22:30:05 gpu-node-3 vllm[123]: ${ADDED}`);
  assert.equal(journald.hop, 'V2');
  assert.equal(journald.process, 'APIServer');
  assert.deepEqual(journald.wrappers, ['journald']);

  const stern = parse(`vllm-7d9f8b-abcde vllm ${ADDED}`);
  assert.equal(stern.hop, 'V2');
  assert.deepEqual(stern.wrappers, ['kubectl']);
  const kprefix = parse(`[pod/vllm-7d9f8b-abcde/vllm] ${ADDED}`);
  assert.equal(kprefix.hop, 'V2');

  const slurm = parse(`0: ${ADDED}`);
  assert.equal(slurm.hop, 'V2');
  assert.deepEqual(slurm.wrappers, ['slurm']);

  const launcher = parse(`[2026-08-21T22:30:05.250+02:00] ${ADDED}`);
  assert.equal(launcher.hop, 'V2');
  assert.equal(launcher.timeResolution, 'ms');
  assert.equal(launcher.time, Date.UTC(2026, 7, 21, 20, 30, 5, 250));

  const sgDocker = parse("2026-08-21T22:50:10.000000001Z [2026-08-21 22:50:10] Receive: obj=GenerateReqInput(rid='r1', stream=True)");
  assert.equal(sgDocker.hop, 'S2');
  assert.equal(sgDocker.rid, 'r1');
});

test('ANSI colour as real escapes and as visible remnants', () => {
  const real = parse('\x1b[0;36m(APIServer pid=2101)\x1b[0;0m \x1b[32mINFO\x1b[0m \x1b[90m08-21 22:30:05\x1b[0m \x1b[90m[async_llm.py:439]\x1b[0m Added request chatcmpl-x-9e1f0c2d.');
  assert.equal(real.hop, 'V2');
  assert.equal(real.rid, 'chatcmpl-x');
  const visible = parse('[0;36m(APIServer pid=2101)[0;0m [32mINFO[0m 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-y-9e1f0c2d.');
  assert.equal(visible.hop, 'V2');
  const caret = parse('^[[1;36m(APIServer pid=2101)^[[0m INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-z-9e1f0c2d.');
  assert.equal(caret.hop, 'V2');
  assert.equal(caret.rid, 'chatcmpl-z');
});

test('our logging config formats (milliseconds, full path) are read', () => {
  const v = parse('(EngineCore pid=9) DEBUG 2026-08-21 22:41:01.042 [/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py:1429] EngineCore waiting for work.');
  assert.equal(v.format, 'vllm-hoplens');
  assert.equal(v.time, Date.UTC(2026, 7, 21, 22, 41, 1, 42));
  assert.equal(v.timeResolution, 'ms');
  assert.equal(v.hop, 'V3');
  const s = parse('[2026-08-21 22:50:10.215 pid=77 INFO /src/sglang/python/sglang/srt/managers/scheduler.py:1095] max_total_num_tokens=412345, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=2048, context_len=40960, available_gpu_mem=21.37 GB');
  assert.equal(s.format, 'sglang-hoplens');
  assert.equal(s.pid, 77);
  assert.equal(s.lineno, 1095);
  assert.equal(s.hop, 'S9');
});

test('lines of other programs stay "other" and keep their text', () => {
  for (const l of ['', 'hello world', 'Traceback (most recent call last):', '2026/08/21 12:00:00 nginx: started', '[x] something']) {
    const r = parse(l);
    assert.equal(r.engine, 'other', l);
    assert.equal(r.hop, null);
    assert.equal(r.message, l);
  }
  // A vLLM-prefixed print (not a log record) is still the process's line.
  const p = parse('(EngineCore pid=3050) Traceback (most recent call last):');
  assert.equal(p.engine, 'vllm');
  assert.equal(p.format, 'vllm-output');
  assert.equal(p.process, 'EngineCore');
});

test('year inference rolls over from December to January', () => {
  const st = createParseState({ referenceTime: Date.UTC(2027, 0, 2) });
  const dec = parseLine('INFO 12-31 23:59:59 [loggers.py:310] x', 1, 0, st);
  const jan = parseLine('INFO 01-01 00:00:01 [loggers.py:310] x', 2, 0, st);
  assert.equal(dec.time, Date.UTC(2026, 11, 31, 23, 59, 59));
  assert.equal(jan.time, Date.UTC(2027, 0, 1, 0, 0, 1));
});

test('engine detection and forced engines', () => {
  assert.equal(detectEngine(['# comment', ADDED]), 'vllm');
  assert.equal(detectEngine(['[2026-08-21 22:50:10 TP0] Decode batch, #running-req: 1']), 'sglang');
  assert.equal(detectEngine(['nothing', 'here']), null);
  assert.equal(parse('[2026-08-21 22:50:10 TP0] Decode batch, #running-req: 1', 'vllm').engine, 'other');
});

test('a launcher\'s indented stamp in front of vLLM\'s line, and its own words in that stamp, are not SGLang\'s (vllm-dgx-spark#7)', () => {
  const state = createParseState({ referenceTime: REF });
  const relayed = parseLine("[2026-01-26 16:56:13]      INFO 01-26 16:56:12 [utils.py:253] non-default args: {'model_tag': 'microsoft/Ph", 1, 0, state);
  assert.equal(relayed.engine, 'vllm');
  assert.equal(relayed.fileinfo, 'utils.py');
  assert.equal(relayed.lineno, 253);
  const own = parseLine('[2026-01-26 16:57:25]   ⏳ Still loading... (1m 14s) - this is normal for large models', 2, 0, state);
  assert.equal(own.engine, 'other');
  // An SGLang hop in the same stamp is still SGLang's, and a log that is SGLang's keeps its untagged lines.
  assert.equal(parseLine('[2026-01-26 16:57:26] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0', 3, 0, state).hop, 'S3');
  assert.equal(parse('[2026-01-26 16:57:25] Load weight begin. avail mem=23.33 GB').engine, 'sglang');
});

test('hop wordings found in the wild: typographic quotes, a batch\'s rid list, a label where the iteration stands', () => {
  const quoted = parse('(APIServer pid=35049) INFO: 116.228.58.210:2075 - “POST /v1/chat/completions HTTP/1.1” 200 OK');
  assert.equal(quoted.hop, 'V10');
  const batch = parse("[2025-02-26 15:52:28] Receive: obj=GenerateReqInput(text=['Hello', 'Bye'], input_ids=None, rid=['4f1c2a9be0d34b7c8e5f60718293a4b5', '9a8b7c6d5e4f40312a1b0c9d8e7f6a5b'], stream=False)");
  assert.equal(batch.hop, 'S2');
  assert.equal(batch.rid, '4f1c2a9be0d34b7c8e5f60718293a4b5');
  assert.deepEqual(batch.rids, ['4f1c2a9be0d34b7c8e5f60718293a4b5', '9a8b7c6d5e4f40312a1b0c9d8e7f6a5b']);
  const one = parse("[2025-02-26 15:44:36] Finish: obj=GenerateReqInput(text=['Hi'], rid=['53b7e9ce96c24d36ae58a27eac23cd55'], stream=False), out=[{'text': 'Hello'}]");
  assert.equal(one.hop, 'S6');
  assert.equal(one.rid, '53b7e9ce96c24d36ae58a27eac23cd55');
  assert.equal(parse('[2026-05-19 00:34:42 DP0 TP0 EP0] Decode batch [first graph replay], #running-req: 32, cuda graph: True, #queue-req: 0').hop, 'S4');
});

test('the access line with its quotes escaped in a page\'s HTML source is still the access hop', () => {
  assert.equal(parse('(APIServer pid=1) INFO:     127.0.0.1:52186 - &quot;POST /v1/chat/completions HTTP/1.1&quot; 200 OK').hop, 'V10');
  assert.equal(parse('(APIServer pid=1) INFO:     127.0.0.1:52200 - &#34;POST /v1/chat/completions HTTP/1.1&#34; 200 OK').hop, 'V10');
  // Escaped quotes elsewhere in a line make no access line of it.
  assert.equal(parse('(APIServer pid=1) INFO:     Application &quot;startup&quot; complete.').hop, null);
});

test('dynamo-run\'s relayed lines: vLLM\'s header without its level and stamp, SGLang\'s without its untagged stamp', () => {
  const state = createParseState({ referenceTime: REF });
  const init = parseLine('2025-05-07T23:03:01.161Z DEBUG dynamo_run::subprocess: [llm_engine.py:507] init engine (profile, create kv cache, warmup model) took 9.76 seconds', 1, 0, state);
  assert.equal(init.engine, 'vllm');
  assert.equal(init.fileinfo, 'llm_engine.py');
  assert.equal(init.lineno, 507);
  assert.equal(init.time, Date.UTC(2025, 4, 7, 23, 3, 1, 161));
  const added = parseLine('2025-05-07T23:03:02.161Z DEBUG dynamo_run::subprocess: [async_llm.py:252] Added request 7c1e2f40', 2, 0, state);
  assert.equal(added.hop, 'V2');
  assert.equal(added.rid, '7c1e2f40');
  assert.equal(parseLine('2025-05-07T23:03:01.161Z DEBUG dynamo_run::subprocess: Traceback (most recent call last):', 3, 0, state).engine, 'other');
  assert.equal(parse('2025-05-07T23:03:03.161Z DEBUG dynamo_run::subprocess: Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0').hop, 'S3');
  // The bare form counts when it prints a hop; another tool's `[name.py:N] text` does not.
  assert.equal(parse('[async_llm.py:252] Added request 1').hop, 'V2');
  assert.equal(parse('[train.py:88] epoch 3 done').engine, 'other');
  // Another Rust program's target in the same layout stays its own.
  assert.equal(parse('2025-05-07T23:03:03.161Z  INFO dynamo_run: Model ready').engine, 'other');
});
