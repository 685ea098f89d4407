// Records joined by a paste that lost its line breaks: a record ends where the next header begins,
// also when what follows is no record of its own (a uvicorn access line, a last header cut short),
// so its hop and rid come from its own words (lines of vllm-project/vllm#5697 and #34503 as
// flattened pastes keep them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, nextRecordAt, parseLine } from '../../../src/core/logs/parseLine';
import { citedSource } from '../../../src/core/source/locate';

const ABORTS = 'issue on Github. See stack trace above for theactual cause. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request cmpl-7347d49f836c40a6b8d00fff45f5998d. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request cmpl-10f955208ce04051aeb80f37a1b930b4. INFO 06-19 11:';
const ADDED = 'lora_request: None. (APIServer pid=90458) INFO 02-13 11:33:33 [async_llm.py:382] Added request chatcmpl-a269fdcb7c6ce890-a8a65d16. (APIServer pid=90458) INFO: 10.80.23.18:51408 - "POST /v1/chat/completions HTTP/1.1" 200 OK (APIServer pid=90458) INFO 02-13 11:33:39 [loggers.py:257] Engine 000: Avg p...';

/** The first record's words of a message that may hold several. */
function firstRecord(message: string): string {
  const at = nextRecordAt(message);
  return at < 0 ? message : message.slice(0, at);
}

function parse(line: string) {
  return parseLine(line, 1, 0, createParseState({ referenceTime: Date.UTC(2024, 6, 1) }));
}

test('a hop whose record has another glued on is tagged with its own request id', () => {
  const a = parse(ABORTS);
  assert.equal(a.engine, 'vllm');
  assert.equal(a.hop, 'V8');
  assert.equal(a.rid, 'cmpl-7347d49f836c40a6b8d00fff45f5998d');
  const b = parse(ADDED);
  assert.equal(b.hop, 'V2');
  assert.equal(b.rid, 'chatcmpl-a269fdcb7c6ce890');
  // The access line glued after it is no record of its own: it stays in the message, shown as printed.
  assert.ok(b.message.endsWith('"POST /v1/chat/completions HTTP/1.1" 200 OK'), b.message);
});

test('the first record ends at a whole header of vLLM, SGLang or uvicorn, never at a level word or a date alone', () => {
  assert.equal(firstRecord('Aborted request cmpl-1. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request cmpl-2.'), 'Aborted request cmpl-1.');
  assert.equal(firstRecord('Added request x. (APIServer pid=1) INFO 02-13 11:33:33 [async_llm.py:382] Added request y.'), 'Added request x.');
  assert.equal(firstRecord('Added request x. (APIServer pid=1) INFO:     10.0.0.1:5 - "POST /v1/completions HTTP/1.1" 200 OK'), 'Added request x.');
  assert.equal(firstRecord('Decode batch. #running-req: 1 [2025-02-27 04:46:41 TP0] Decode batch. #running-req: 2'), 'Decode batch. #running-req: 1');
  assert.equal(firstRecord('Aborted request cmpl-2. INFO 06-19 11:'), 'Aborted request cmpl-2.');
  assert.equal(firstRecord('Error in chat completion stream generator. ERROR 07-07 18:10:2...'), 'Error in chat completion stream generator.');
  assert.equal(firstRecord('Added request x. (APIServer pid=1) INFO 02-13 11:3'), 'Added request x.', 'a cut header keeps its process prefix');
  // Every header the parser reads: nested process prefixes (Ray under an engine core), a logging config's dated header.
  assert.equal(firstRecord('Added request x. (EngineCore_DP0 pid=1) (RayWorkerWrapper pid=2) INFO 08-21 22:30:05 [gpu_worker.py:120] Loading weights took 1.2 s'), 'Added request x.');
  assert.equal(firstRecord('Added request x. INFO 2025-04-11 12:45:10,123 [/opt/venv/lib/python3.12/site-packages/vllm/engine/async_llm_engine.py:211] Added request y.'), 'Added request x.');
  for (const whole of [
    'Finished request cmpl-1.',
    'Setting level INFO 06-19 for the run',
    'see logs at [2025-02-27] for details',
    'INFO 06-19 11:25:01 starts the message itself',
    'Route: /v1/chat/completions, Methods: POST',
    'Set the level to INFO',
    'retrying in 5 s (INFO 3)',
    'the job ran at [12:00:01] and again at [13:00:01] today',
  ]) assert.equal(nextRecordAt(whole), -1, whole);
});

test('without a checkout, a hop printed from another release\'s file is not cited at the pin\'s file', () => {
  // V0's async_llm_engine.py prints V8; the table cites V1's async_llm.py: line 134 of that file is no answer.
  const v0 = parse('INFO 01-17 03:11:25 async_llm_engine.py:134] Aborted request 0e89f1d2d94c4a039f868222c100cc8a.');
  assert.equal(v0.hop, 'V8');
  assert.equal(citedSource(v0), null);
  const v1 = parse('(APIServer pid=1) INFO 09-10 19:12:31 [async_llm.py:761] Aborted request(s) chatcmpl-1.');
  assert.deepEqual(citedSource(v1) && { path: citedSource(v1)!.path, line: citedSource(v1)!.line }, { path: 'vllm/v1/engine/async_llm.py', line: 761 });
});

test('each record pasted onto a line knows the column its header starts at on the line as read', () => {
  // vllm-project/vllm#34503 lines joined by a space; SGLang #3909 decode lines joined by nothing and by two spaces.
  const received = '(APIServer pid=90458) INFO 02-13 11:33:33 [logger.py:49] Received request chatcmpl-a269fdcb7c6ce890: params: SamplingParams(n=1, temperature=0.7, top_p=0.95, max_tokens=100), lora_request: None.';
  const added = '(APIServer pid=90458) INFO 02-13 11:33:33 [async_llm.py:382] Added request chatcmpl-a269fdcb7c6ce890-a8a65d16.';
  const vllm = parse(`${received} ${added}`);
  assert.equal(vllm.column, undefined, 'the first record starts the line');
  assert.deepEqual(vllm.glued?.map((g) => [g.part, g.hop, g.column]), [[2, 'V2', received.length + 1]]);

  const d1 = '[2025-02-27 04:46:49 TP0] Decode batch. #running-req: 8, #token: 64451, token usage: 0.13, gen throughput (token/s): 185.33, #queue-req: 0';
  const d2 = '[2025-02-27 04:46:51 TP0] Decode batch. #running-req: 8, #token: 64771, token usage: 0.13, gen throughput (token/s): 184.02, #queue-req: 0';
  const d3 = '[2025-02-27 04:46:53 TP0] Decode batch. #running-req: 7, #token: 65091, token usage: 0.13, gen throughput (token/s): 181.60, #queue-req: 0';
  const sgl = parse(`${d1}${d2}  ${d3}`);
  assert.deepEqual(sgl.glued?.map((g) => [g.part, g.column]), [[2, d1.length], [3, d1.length + d2.length + 2]]);

  // Colour codes in front of each level (VLLM_LOGGING_COLOR=1 written to a file) and a BOM; a markdown quote with a bold header.
  const esc = (l: string) => `\x1b[32m${l.slice(0, 4)}\x1b[0m${l.slice(4)}`;
  const s1 = 'INFO 07-30 17:41:09 [loggers.py:122] Engine 000: Avg prompt throughput: 72.5 tokens/s, Avg generation throughput: 33.7 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.7%, Prefix cache hit rate: 24.5%';
  const s2 = 'INFO 07-30 17:41:19 [loggers.py:122] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 35.1 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.8%, Prefix cache hit rate: 24.5%';
  const coloured = `\ufeff${esc(s1)} ${esc(s2)}`;
  const c = parse(coloured);
  assert.equal(c.glued?.[0].hop, 'V5');
  assert.equal(coloured.slice(c.glued?.[0].column), esc(s2));
  const quoted = `> **${s1.slice(0, 36)}**${s1.slice(36)} ${s2}`;
  const q = parse(quoted);
  assert.equal(q.hop, 'V5');
  assert.equal(quoted.slice(q.glued?.[0].column), s2);
});

test("a hop the engine's crash ended, with uvicorn's `ERROR: Exception in ASGI application` glued on, keeps its hop and id; a message that merely says `ERROR:` keeps its words", () => {
  const line = 'NG 12-07 23:54:18 scheduler.py:161] Input prompt (6095 tokens) is too long and exceeds the capacity of block_manager INFO 12-07 23:54:18 async_llm_engine.py:111] Finished request cmpl-04b5ec1223bb4cbfa095ad34f921b62a. ERROR: Exception in ASGI application Traceback (most recent call last): File "/root/miniconda3/envs/chatglm_etuning/lib/p';
  const r = parse(line);
  assert.deepEqual([r.engine, r.hop, r.rid], ['vllm', 'V11', 'cmpl-04b5ec1223bb4cbfa095ad34f921b62a']);
  assert.equal(firstRecord('Finished request cmpl-1. ERROR: Exception in ASGI application'), 'Finished request cmpl-1.');
  assert.equal(firstRecord('Model load failed with ERROR: out of memory'), 'Model load failed with ERROR: out of memory');
});

test('a flattened paste: uvicorn\'s access line glued on with its spaces collapsed ends the hop\'s words; a last hop cut inside its opening words is still the hop', () => {
  const a = parse('rrent environment ### 🐛 Describe the bug truncate_prompt_tokens=None, guided_decoding=None), prompt_token_ids: None, lora_request: None, prompt_adapter_request: None. INFO 02-14 08:44:26 engine.py:275] Added request chatcmpl-4fb99a59-2bdd-455f-97b8-99b8908e83de. INFO:172.16.18.69:52036- "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error CRITICAL 02-14 08:44:33 launcher.py:101] MQLLMEngine is already dead, term');
  assert.deepEqual([a.engine, a.hop, a.rid], ['vllm', 'V2', 'chatcmpl-4fb99a59-2bdd-455f-97b8-99b8908e83de']);
  const b = parse('### Your current environment vllm:0.7.2 it\'s a problem! ### 🐛 Describe the bug INFO 02-13 07:19:11 async_llm_engine.py:211] Added request chatcmpl-59c408fd038b4931bcaa80f61817574b. WARNING 02-13 07:19:11 scheduler.py:949] Input prompt (32889 tokens) is too long and exceeds limit of 2048 INFO 02-13 07:19:11 async_llm_engine.py:179] Finished reque');
  const last = b.glued?.[b.glued.length - 1];
  assert.deepEqual([b.hop, last?.fileinfo, last?.hop], ['V2', 'async_llm_engine.py', 'V11']);
});
