// SGLang's header behind what a paste or a launcher put in front of it: a Ray actor's prefix (RL
// frameworks run SGLang inside `(SGLangEngine pid=N)` / `(WorkerDict pid=N, ip=…)` actors: lines of
// Gen-Verse/OpenClaw-RL#44 and verl's pastes), and the header's `[` lost when a selection began at
// the date (a public digest's paste of an sglang issue). The actor's own plain output is nobody's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

function parse(lines: string[]) {
  const st = createParseState({ referenceTime: Date.UTC(2026, 2, 22) });
  return lines.map((l, i) => parseLine(l, i + 1, 0, st));
}

test("SGLang's line behind a Ray actor's prefix is SGLang's, with its rank and hop; the prefix is kept", () => {
  const [a, b] = parse([
    '(SGLangEngine pid=41820) [2026-03-22 13:53:37 TP0] Decode batch, #running-req: 6, #token: 42414, token usage: 0.04, cuda graph: True, gen throughput (token/s): 1374.02, #queue-req: 0,',
    '\x1b[36m(WorkerDict pid=616, ip=192.168.149.159)\x1b[0m [2026-03-22 13:53:36 TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00',
  ]);
  assert.deepEqual([a.engine, a.process, a.role, a.hop, a.prefix], ['sglang', 'TP0', 'scheduler', 'S4', '(SGLangEngine pid=41820) ']);
  assert.equal(a.time, Date.UTC(2026, 2, 22, 13, 53, 37));
  assert.ok(a.message.startsWith('Decode batch, #running-req: 6'), a.message);
  assert.deepEqual([b.engine, b.process, b.hop], ['sglang', 'TP0', 'S3']);
});

test("a training framework's actor printing plain text is no vLLM line; vLLM's own processes still are", () => {
  const recs = parse([
    "(TaskRunner pid=4617)                                  'use_shm': False},",
    "^[[36m(WorkerDict pid=39179)^[[0m self.sampling_params={'n': 5, 'max_new_tokens': 1024}^[[32m [repeated 3x across cluster]^[[0m",
    '(WorkerDict pid=559716) frame #23: _PyObject_FastCallDictTstate + 0xd0 (0x5578c75d3f50 in sglang::scheduler_TP0)',
  ]);
  assert.deepEqual(recs.map((r) => r.engine), ['other', 'other', 'other']);
  const [v, w, x] = parse([
    '(EngineCore_DP0 pid=2003562)     self.run()',
    '(VllmWorker rank=7 pid=1030) Process SpawnProcess-1:8:',
    '(WorkerDict pid=2201) INFO 03-22 13:53:37 [llm_engine.py:431] init engine (profile, create kv cache, warmup model) took 12.31 seconds',
  ]);
  assert.deepEqual([v.engine, v.format, v.process], ['vllm', 'vllm-output', 'EngineCore_DP0']);
  assert.deepEqual([w.engine, w.format], ['vllm', 'vllm-output']);
  const [y] = parse(['(DPEngineCoreActor pid=3301) Traceback (most recent call last):']);
  assert.deepEqual([y.engine, y.process], ['vllm', 'DPEngineCoreActor']);
  // vLLM's header behind a framework's actor is vLLM's; the actor's plain output stays the actor's even in a
  // vLLM log: a prefix does not make a line vLLM's, only vLLM's header behind it does.
  assert.deepEqual([x.engine, x.process, x.fileinfo], ['vllm', 'WorkerDict', 'llm_engine.py']);
  const st = createParseState({ referenceTime: Date.UTC(2026, 2, 22) });
  parseLine('(WorkerDict pid=2201) INFO 03-22 13:53:37 [llm_engine.py:431] init engine took 12.31 seconds', 1, 0, st);
  assert.equal(parseLine('(WorkerDict pid=2201) Loading weights...', 2, 0, st).engine, 'other');
});

test("SGLang's header that lost its `[`: parsed with its rank tag or its hop, not a date that merely ends in `]`", () => {
  const [a, b, c, d, e] = parse([
    '```2025-02-19 11:45:37 TP0] Prefill batch. #new-seq: 1, #new-token: 1, #cached-token: 0, cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue',
    '2025-02-19 11:45:38 TP0] Decode batch. #running-req: 1, #token: 64, token usage: 0.00, gen throughput (token/s): 85.12, #queue-req: 0',
    '2025-02-19 11:45:39] Decode batch. #running-req: 1, #token: 104, token usage: 0.00, gen throughput (token/s): 85.40, #queue-req: 0',
    '2025-02-19 11:45:40] job 12 finished in 3.2 s',
    '2025-02-19 11:45:40 INFO] worker ready',
  ]);
  assert.deepEqual([a.engine, a.process, a.hop, a.prefix], ['sglang', 'TP0', 'S3', '```']);
  assert.equal(a.time, Date.UTC(2025, 1, 19, 11, 45, 37));
  assert.deepEqual([b.engine, b.hop, b.prefix], ['sglang', 'S4', undefined]);
  assert.deepEqual([c.engine, c.process, c.hop], ['sglang', 'Scheduler', 'S4']);
  assert.equal(d.engine, 'other');
  assert.equal(e.engine, 'other');
});
