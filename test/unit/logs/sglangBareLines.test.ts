// SGLang lines that reach the user with less than SGLang's header: the request logger of releases
// whose log_utils gave its handler the formatter `%(message)s` (0.5.x: sgl-project/sglang#25887,
// behind an aggregator's epoch and ISO columns), and the scheduler's header with its date taken off
// by a log platform, leaving `TP0] ` (a production log as a public SGLang log replayer parses it).
// Someone else's text with the same words stays nobody's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

function parse(lines: string[], forced?: 'vllm' | 'sglang') {
  const st = createParseState({ referenceTime: Date.UTC(2026, 4, 20), ...(forced ? { engine: forced } : {}) });
  return lines.map((l, i) => parseLine(l, i + 1, 0, st));
}

const FINISH = "Finish: obj=GenerateReqInput(rid='bf890d9ca8ce4008bef7ef25d97f8fba', http_worker_ipc=None, video_data=None, stream=True, log_metrics=True), out={'meta_info': {'id': 'bf890d9ca8ce4008bef7ef25d97f8fba', 'finish_reason': {'type': 'abort', 'message': 'Request running timeout reached.', 'status_code': 503, 'err_type': None}, 'prompt_tokens': 32472}}";

test("SGLang's request logger with no stamp: Finish / Receive / Receive OpenAI are its hops with their rid, alone or behind an aggregator's columns", () => {
  const [dec, fin, rec, openai, alone] = parse([
    '1779264164496\t2026-05-20T08:02:44.496Z\t[2026-05-20 08:02:44 PP0 ATTN_CP0 TP0] Decode batch, #running-req: 4, #token: 477376, token usage: 0.90, cuda graph: True, gen throughput (token/s): 199.95, #queue-req: 6',
    `1779264164565\t2026-05-20T08:02:44.565Z\t${FINISH}`,
    "Receive: obj=GenerateReqInput(rid='5b1d7c0e9a2f4b3c8d6e1f0a2b3c4d5e', http_worker_ipc=None, text='Hi', stream=True)",
    "Receive OpenAI: obj={'model': 'default', 'messages': [{'role': 'user', 'content': 'Hi'}], 'stream': True}",
    FINISH,
  ]);
  assert.deepEqual([dec.engine, dec.hop], ['sglang', 'S4']);
  assert.deepEqual([fin.engine, fin.hop, fin.rid, fin.role], ['sglang', 'S6', 'bf890d9ca8ce4008bef7ef25d97f8fba', 'tokenizer']);
  assert.equal(fin.prefix, '1779264164565\t2026-05-20T08:02:44.565Z\t');
  assert.ok(fin.message.startsWith('Finish: obj=GenerateReqInput('), fin.message);
  assert.deepEqual([rec.engine, rec.hop, rec.rid], ['sglang', 'S2', '5b1d7c0e9a2f4b3c8d6e1f0a2b3c4d5e']);
  assert.deepEqual([openai.engine, openai.hop], ['sglang', 'S1']);
  assert.deepEqual([alone.engine, alone.hop, alone.rid], ['sglang', 'S6', 'bf890d9ca8ce4008bef7ef25d97f8fba']);
});

test('the same words in code, prose or a vLLM log are no SGLang line', () => {
  const recs = parse([
    '            self._log(f"Finish: obj={obj_str}{headers_str}{out_str}")',
    "    msg = f\"Receive: obj={dataclass_to_string_truncated(obj, max_length)}\"",
    'Finish: obj=..., out={...}',
    'Receive: obj=the request object as printed',
  ]);
  for (const r of recs) assert.deepEqual([r.engine, r.hop], ['other', null], r.message);
  const [v] = parse([FINISH], 'vllm');
  assert.equal(v.hop, null);
});

test("SGLang's header whose date a log platform took off (`… INFO TP0] Prefill batch, …`) is the scheduler's hop line with its rank", () => {
  const [p, d, bare] = parse([
    '2026-09-27T00:15:24.123Z 5ylyr21v-rhkt6 INFO TP0] Prefill batch, #new-seq: 1, #new-token: 4096, #cached-token: 0, full token usage: 0.49, mamba usage: 0.33, #running-req: 4, #queue-req: 2, #pending-token: 118201, cuda graph: False, input throughput (token/s): 13874.93',
    '2026-09-27T00:15:25.500Z 5ylyr21v-rhkt6 INFO TP0] Decode batch, #running-req: 10, #full token: 685000, full token usage: 0.49, mamba num: 12, mamba usage: 0.67, accept len: 2.77, accept rate: 0.69, cuda graph: True, gen throughput (token/s): 8.44, #queue-req: 0',
    'TP0] Decode batch, #running-req: 1, #full token: 1000, full token usage: 0.10, mamba num: 1, mamba usage: 0.04, accept len: 2.70, accept rate: 0.70, cuda graph: True, gen throughput (token/s): 180.00, #queue-req: 0',
  ]);
  assert.deepEqual([p.engine, p.hop, p.process, p.prefix], ['sglang', 'S3', 'TP0', '2026-09-27T00:15:24.123Z 5ylyr21v-rhkt6 INFO ']);
  assert.deepEqual(p.ranks, { TP: 0 });
  assert.deepEqual([d.engine, d.hop, d.process], ['sglang', 'S4', 'TP0']);
  assert.deepEqual([bare.engine, bare.hop, bare.process], ['sglang', 'S4', 'TP0']);
});

test('a rank-like tag and `] ` before words that are no SGLang hop stay nobody\'s', () => {
  const recs = parse([
    '2026-09-27T00:15:24.123Z w1 INFO TP0] worker ready',
    '[ OK ] CPU0] started',
    'step 12 ID3] Decode batch finished in 3 s',
  ]);
  for (const r of recs) assert.deepEqual([r.engine, r.hop], ['other', null], r.message);
});
