// The byte-level fast path of `annotate --json` must print exactly what the string parser
// prints for every line it accepts, and leave every other line to the parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import { RequestTracker } from '../../../src/core/logs/requests';
import { RecordJsonWriter } from '../../../src/core/session/recordJson';
import { citedSource } from '../../../src/core/source/locate';
import { vllmFastPath } from '../../../src/engines/vllm/fastPath';
import { fastJson as fastJsonAt } from './fastJson';
import { ridQueryMatcher } from '../../../src/core/logs/requestIds';
import { StatementTable, statementJson } from '../../../src/core/logs/statements';

const FIX = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs');
const REF = Date.UTC(2026, 7, 22);
const fastJson = (lines: string[]) => fastJsonAt(lines, REF);

const EXTRA = [
  // A paste's wide space after the header (the parser drops it and tags the hop) and a message that starts with other non-ASCII text.
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439]\u00a0Added request chatcmpl-nb-0a1b2c3d.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] \u5df2\u6dfb\u52a0 request chatcmpl-nb-0a1b2c3d.',
  // Another launcher's prefix (SkyPilot): not vLLM's process prefix, the header behind it is.
  '(task, pid=2024) INFO 08-21 22:30:05 [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000',
  '(APIServer pid=7) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-a: prompt: \'Hi, there\', params: SamplingParams(n=1), prompt_token_ids: [1], lora_request: None.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-a:b: params: x, lora_request: None.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-a no colon',
  '(APIServer pid=7) INFO 08-21 22:30:05 [other.py:63] Received request chatcmpl-a: params: x',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] Added request 2_chatcmpl-n-0a1b2c3d.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] Added request with space.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] Added request \'quoted-0a1b2c3d\'.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:761] Aborted request(s) chatcmpl-a-0a1b2c3d,chatcmpl-b-1a2b3c4d.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:623] Request chatcmpl-a aborted.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:623] Request chatcmpl-a aborted. again',
  '(APIServer pid=7) ERROR 08-21 22:30:05 [serving.py:175] Request chatcmpl-a failed with an internal error during generation',
  '(APIServer pid=7) DEBUG 08-21 22:30:05 [entrypoints/.../utils/request_logger.py:53] Request chatcmpl-a details: prompt: \'x\', prompt_token_ids: [1], prompt_embeds shape: None.',
  '(APIServer pid=7) INFO 08-21 22:30:05 [request_logger.py:98] Generated response chatcmpl-a: output: \'a, finish_reason: b\', finish_reason: stop',
  '(APIServer pid=7) INFO 08-21 22:30:05 [request_logger.py:98] Generated response chatcmpl-a (streaming delta): output: \'x\', finish_reason: None',
  '(APIServer pid=7) INFO 08-21 22:30:05 [request_logger.py:98] Generated response chatcmpl-a (streaming complete): output: \'x y\', finish_reason: bad reason',
  '(APIServer pid=7) INFO 08-21 22:30:05 [loggers.py:310] Engine 001: Avg prompt throughput: 1.5 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%',
  '(APIServer pid=7) INFO 08-21 22:30:05 [loggers.py:310] 2 Engines Aggregated: Avg prompt throughput: 1.5 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%',
  '(APIServer pid=7) INFO 08-21 22:30:05 [loggers.py:310] Engine 000: Avg prompt throughput: fast',
  '(EngineCore_DP1 pid=8) DEBUG 08-21 22:30:05 [v1/engine/core.py:1441] EngineCore loop active.',
  '(EngineCore_DP1 pid=8) DEBUG 08-21 22:30:05 [v1/engine/core.py:1441] EngineCore loop active. (not quite)',
  '(Worker_TP1 pid=9) INFO 08-21 22:30:06 [v1/worker/gpu_model_runner.py:2000] Avg prompt is not a hop here',
  '(Worker_TP1 pid=9) WARNING 08-21 22:30:06 [model_executor/.../quantization/awq.py:12] "quoted" message',
  'INFO 08-21 22:30:06 [async_llm.py:439] Added request chatcmpl-noprefix-0a1b2c3d.',
  '(APIServer pid=7) INFO:     127.0.0.1:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
  '(APIServer pid=7) INFO:     Started server process [7]',
  'INFO:     127.0.0.1:5555 - "GET /health HTTP/1.1" 200 OK',
  '(RayWorkerWrapper pid=2, ip=10.0.0.5) INFO 08-21 22:30:05 [worker.py:88] Ready',
  '(EngineCore_DP0 pid=1) (RayWorkerWrapper pid=2) INFO 08-21 22:30:05 [gpu_worker.py:120] x [repeated 7x across cluster]',
  '(RayWorkerWrapper pid=2, ip=10.0.0.5) INFO 08-21 22:30:05 [gpu_worker.py:120] x [repeated 7x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/ray-logging.html#log-deduplication for more options.)',
  '\x1b[0;36m(APIServer pid=7)\x1b[0;0m \x1b[32mINFO\x1b[0m 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-c-0a1b2c3d.',
  '(APIServer pid=7) INFO 12-31 23:59:59 [async_llm.py:439] Added request chatcmpl-d-0a1b2c3d.',
  '(APIServer pid=7) INFO 01-01 00:00:01 [async_llm.py:439] Added request chatcmpl-e-0a1b2c3d.',
  '(Prozeß pid=7) INFO 01-01 00:00:01 [x.py:1] non-ASCII name',
  '(APIServer pid=7) INFO 01-01 00:00:01 [x y.py:1] space in fileinfo',
  '(APIServer pid=7) INFO 01-01 00:00:01 [x.py:1]',
  'vllm-1  | (APIServer pid=7) INFO 01-01 00:00:02 [async_llm.py:439] Added request chatcmpl-f-0a1b2c3d.',
  '(APIServer pid=7) [node-3] INFO 01-01 00:00:02 [async_llm.py:439] Added request chatcmpl-g-0a1b2c3d.',
  '(EngineCore_DP0 pid=8) [node-3]   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap',
  // Wrapped by a terminal: the rest is on the next line (the parser looks there).
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] Added request',
  '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-h-0a1b',
  '(APIServer pid=7) INFO 08-21 22:30:05 [logger.py:43] Received',
];

function slowJson(lines: string[]): { json: string[]; counts: Record<string, number> } {
  const st = createParseState({ referenceTime: REF });
  const tr = new RequestTracker();
  const writer = new RecordJsonWriter();
  const json = lines.map((l, i) => { const r = parseLine(l, i + 1, 0, st); tr.add(r); return writer.line(r, citedSource(r)); });
  return { json, counts: Object.fromEntries(tr.counts) };
}


test('fast path and string parser agree line by line (fixtures and edge cases)', () => {
  const lines = [
    ...readFileSync(join(FIX, 'vllm_info_chat_and_abort.log'), 'utf8').replace(/\n$/, '').split('\n'),
    ...readFileSync(join(FIX, 'vllm_debug_tp2_multiline.log'), 'utf8').replace(/\n$/, '').split('\n'),
    ...EXTRA,
  ];
  const slow = slowJson(lines);
  const fast = fastJson(lines);
  assert.ok(fast.handled > 25, `the fast path took ${fast.handled} lines`);
  assert.equal(fast.json.length, slow.json.length);
  for (let i = 0; i < lines.length; i++) assert.equal(fast.json[i], slow.json[i], `line ${i + 1}: ${lines[i]}`);
  assert.deepEqual(fast.counts, slow.counts);
});

test('fast path and string parser agree on stamps it writes from the line\'s digits and on ids it has just seen', () => {
  const long = `chatcmpl-${'ab'.repeat(70)}`;
  const lines = [
    // A leap second (Date rolls it into the next minute), the last day of a month, an impossible day.
    '(APIServer pid=7) INFO 06-30 23:59:60 [async_llm.py:439] Added request chatcmpl-ls-0a1b2c3d.',
    '(APIServer pid=7) INFO 07-31 23:59:59 [async_llm.py:439] Added request chatcmpl-ls-0a1b2c3d.',
    '(APIServer pid=7) INFO 04-31 10:00:00 [async_llm.py:439] Added request chatcmpl-ls-0a1b2c3d.',
    '(APIServer pid=7) INFO 08-01 00:00:00 [request_logger.py:98] Generated response chatcmpl-ls (streaming delta): output: \'a\', finish_reason: None',
    // The same bytes as an engine-side (internal) id and as an id the client chose: two different requests.
    '(APIServer pid=7) INFO 08-01 00:00:01 [async_llm.py:439] Added request chatcmpl-x-0a1b2c3d.',
    '(APIServer pid=7) INFO 08-01 00:00:01 [request_logger.py:98] Generated response chatcmpl-x-0a1b2c3d (streaming delta): output: \'a\', finish_reason: None',
    '(APIServer pid=7) INFO 08-01 00:00:01 [async_llm.py:439] Added request chatcmpl-x-0a1b2c3d.',
    '(APIServer pid=7) INFO 08-01 00:00:02 [request_logger.py:98] Generated response chatcmpl-x (streaming delta): output: \'b\', finish_reason: None',
    // An id longer than the recent ids' slots, twice, and ids of one length that differ only in their last bytes.
    `(APIServer pid=7) INFO 08-01 00:00:02 [request_logger.py:98] Generated response ${long} (streaming delta): output: 'c', finish_reason: None`,
    `(APIServer pid=7) INFO 08-01 00:00:02 [request_logger.py:98] Generated response ${long} (streaming delta): output: 'c', finish_reason: None`,
    ...Array.from({ length: 12 }, (_, i) => `(APIServer pid=7) INFO 08-01 00:00:0${3 + (i % 3)} [request_logger.py:98] Generated response chatcmpl-n${i % 10}`
      + ` (streaming delta): output: 'd', finish_reason: None`),
    '(APIServer pid=7) INFO 08-01 00:00:09 [request_logger.py:98] Generated response chatcmpl-"q" (streaming delta): output: \'e\', finish_reason: None',
  ];
  const slow = slowJson(lines);
  const fast = fastJson(lines);
  assert.ok(fast.handled >= lines.length - 3, `the fast path took ${fast.handled} lines`);
  for (let i = 0; i < lines.length; i++) assert.equal(fast.json[i], slow.json[i], `line ${i + 1}: ${lines[i]}`);
  assert.match(fast.json[0], /"time":"2026-07-01T00:00:00"/);
  assert.match(fast.json[1], /"time":"2026-07-31T23:59:59"/);
  assert.match(fast.json[5], /"rid":"chatcmpl-x-0a1b2c3d"/);
  assert.match(fast.json[6], /"rid":"chatcmpl-x"/);
  assert.deepEqual(fast.counts, slow.counts);
});

test('annotate --rid: the fast path leaves only that request\'s lines to the parser and feeds the tracker the same', () => {
  const lines = [
    ...readFileSync(join(FIX, 'vllm_info_chat_and_abort.log'), 'utf8').replace(/\n$/, '').split('\n'),
    ...readFileSync(join(FIX, 'vllm_debug_tp2_multiline.log'), 'utf8').replace(/\n$/, '').split('\n'),
    ...EXTRA,
  ];
  const slowState = createParseState({ referenceTime: REF });
  const slow = new RequestTracker();
  const records = lines.map((l, i) => { const r = parseLine(l, i + 1, 0, slowState); slow.add(r); return r; });
  const rids = [...slow.rids()];
  assert.ok(rids.length >= 4, `requests in the sample: ${rids.join(' ')}`);
  /** One scan as `annotate` runs it: the line numbers the parser got, and the tracker. */
  const scan = (wanted: ((rid: string) => boolean) | null) => {
    const st = createParseState({ referenceTime: REF });
    const tr = new RequestTracker();
    const fast = vllmFastPath(st, tr, null, { handled: 0, unmatched: 0 }, wanted);
    const buf = Buffer.from(lines.join('\n') + '\n');
    const parsed = new Set<number>();
    let pos = 0;
    lines.forEach((l, i) => {
      const end = buf.indexOf(10, pos);
      if (!fast(buf, pos, end, i + 1, pos)) { parsed.add(i + 1); tr.add(parseLine(l, i + 1, pos, st)); }
      pos = end + 1;
    });
    return { parsed, tr };
  };
  const plain = scan(null);
  assert.ok(lines.length - plain.parsed.size > 25, `the fast path took ${lines.length - plain.parsed.size} lines`);
  for (const query of [...rids, '5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10', 'no-such-request']) {
    const wanted = ridQueryMatcher(query);
    const { parsed, tr } = scan(wanted);
    const own = records.filter((r) => r.rid !== null && wanted(r.rid)).map((r) => r.line);
    assert.deepEqual([...parsed].sort((a, b) => a - b), [...new Set([...plain.parsed, ...own])].sort((a, b) => a - b), query);
    assert.deepEqual(Object.fromEntries(tr.counts), Object.fromEntries(slow.counts));
    assert.deepEqual([...tr.rids()], rids);
    for (const rid of rids) assert.deepEqual(tr.get(rid), slow.get(rid), rid);
  }
});

test('a line holding a second record (a paste lost its newline) is left to the parser, which splits it', () => {
  const st = createParseState({ referenceTime: REF });
  const fast = vllmFastPath(st, new RequestTracker(), null, { handled: 0, unmatched: 0 });
  // The second header at every offset modulo the fast path's 7-byte stride.
  for (let k = 0; k < 7; k++) {
    for (const first of [
      `(APIServer pid=7) INFO 08-21 22:30:05 [chat_utils.py:470] Detected the chat template content format to be 'string'${'.'.repeat(k + 1)}`,
      `INFO 08-21 22:30:05 [loggers.py:310] Engine 000: Avg prompt throughput: 1.5 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%${' '.repeat(k + 1)}`,
    ]) {
      const line = `${first}(APIServer pid=7) INFO 08-21 22:30:06 [async_llm.py:439] Added request chatcmpl-g-0a1b2c3d.`;
      const buf = Buffer.from(line + '\n');
      assert.equal(fast(buf, 0, buf.length - 1, 1, 0), false, line);
      const r = parseLine(line, 1, 0, createParseState({ referenceTime: REF }));
      assert.equal(r.glued?.length, 1, line);
      assert.equal(r.glued![0].hop, 'V2');
      assert.equal(r.glued![0].rid, 'chatcmpl-g');
      assert.equal(r.glued![0].part, 2);
    }
  }
  // A date in a message is no record: the fast path may decline, the parser keeps one record.
  const dated = '(APIServer pid=7) INFO 08-21 22:30:05 [x.py:1] checkpoint of 08-21 22:30:00 restored';
  assert.equal(parseLine(dated, 1, 0, createParseState({ referenceTime: REF })).glued, undefined);
});

test('annotate --summary: the fast path counts every statement as the string parser does (count, first, last, source, example)', () => {
  const lines = [
    ...readFileSync(join(FIX, 'vllm_info_chat_and_abort.log'), 'utf8').replace(/\n$/, '').split('\n'),
    ...readFileSync(join(FIX, 'vllm_debug_tp2_multiline.log'), 'utf8').replace(/\n$/, '').split('\n'),
    ...EXTRA,
    // The same statements again, a second later: first and last differ.
    ...readFileSync(join(FIX, 'vllm_info_chat_and_abort.log'), 'utf8').replace(/\n$/, '').split('\n').map((l) => l.replace(/(\d\d:\d\d):(\d\d) /, (_, hm, sec) => `${hm}:${String(Number(sec) + 1).padStart(2, '0')} `)),
  ];
  const slowTable = new StatementTable();
  const slowState = createParseState({ referenceTime: REF });
  lines.forEach((l, i) => { const r = parseLine(l, i + 1, 0, slowState); slowTable.addRecord(r, citedSource(r)); });

  const fastTable = new StatementTable();
  const st = createParseState({ referenceTime: REF });
  const counters = { handled: 0, unmatched: 0 };
  const fast = vllmFastPath(st, null, null, counters, null, null, fastTable); // as `annotate --summary` runs it: no request index
  const buf = Buffer.from(lines.join('\n') + '\n');
  let pos = 0;
  lines.forEach((l, i) => {
    const end = buf.indexOf(10, pos);
    if (!fast(buf, pos, end, i + 1, pos)) { const r = parseLine(l, i + 1, pos, st); fastTable.addRecord(r, citedSource(r)); }
    pos = end + 1;
  });
  assert.ok(counters.handled > 40, `the fast path took ${counters.handled} lines`);
  assert.equal(fastTable.lines, lines.length);
  assert.deepEqual(fastTable.sorted().map(statementJson), slowTable.sorted().map(statementJson));
  const added = fastTable.sorted().find((s) => s.fileinfo === 'async_llm.py' && s.lineno === 439 && s.hop === 'V2');
  assert.ok(added && added.count > 5 && added.firstTime !== null && added.lastTime! > added.firstTime, JSON.stringify(added && statementJson(added)));
});
