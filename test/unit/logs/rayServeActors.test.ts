// vLLM served by Ray Serve (ray.serve.llm, KubeRay): Ray writes `(ActorName pid=N)` in front of every line
// of an actor's process, so vLLM's lines and Ray Serve's own stand behind the same replica prefix. A
// prefix does not make a line vLLM's: the header behind it must be. Lines as ray-project/ray#54732,
// #55754, #66230 and Ray Serve's docs of 2022–2024 print them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import { citedSource } from '../../../src/core/source/locate';
import { fastJson } from './fastJson';

// A vLLM log: its first line is vLLM's own, so the parser knows the engine before Ray Serve's lines come.
const VLLM_FIRST = "(ServeReplica:default:LLMDeploymentdeepseek pid=42953) INFO 07-18 10:00:24 [chat_utils.py:444] Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this.";

function parse(lines: string[]) {
  const st = createParseState({ referenceTime: Date.UTC(2025, 7, 29) });
  return [VLLM_FIRST, ...lines].map((l, i) => parseLine(l, i + 1, 0, st)).slice(1);
}

test("Ray Serve's own lines behind a replica, controller or proxy prefix are no vLLM line, in a vLLM log", () => {
  const recs = parse([
    '(ServeReplica:default:LLMDeploymentdeepseek pid=42953) INFO 2025-07-18 09:58:20,002 default_LLMDeploymentdeepseek xwbqmpbj d015bf14-74e9-49e0-8abe-db6b1d79df0a -- CALL llm_config OK 2.7ms',
    "PASSED(ServeController pid=521647) INFO 2025-08-29 18:02:42,949 controller 521647 -- Removing 1 replica from Deployment(name='meta-llama/Llama-2-7b-hf:meta-llama--Llama-2-7b-hf', app='default').",
    '(ServeController pid=19243) This may be caused by a slow __init__ or reconfigure method.',
    '(ServeReplica:default:LLMRouter pid=523305) 2025-08-29 18:02:41,771     WARNING deprecation.py:50 -- DeprecationWarning: `ray.serve.llm.LLMRouter` has been deprecated.',
    '(ServeReplica:SayHello pid=71162) INFO 2022-08-02 16:17:02,501 SayHello SayHello#kKGBoa replica.py:482 - HANDLE __call__ OK 0.3ms',
    '(ProxyActor pid=25282) INFO:     Started server process [25282]',
    '(ProxyActor pid=25282) INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "(AsyncvLLMServer pid=588113) instance_id: 6b1f20db-4134-41d9-a084-253ff6bd41a1:MT87lQ:2:0 initializes with external actors: ['MT87lQWorkerDict_0:0']",
  ]);
  for (const r of recs) {
    assert.deepEqual([r.engine, r.hop, r.rid, r.fileinfo, r.process], ['other', null, null, null, null], r.message);
    assert.equal(citedSource(r), null, r.message);
  }
});

test("vLLM's lines behind the same prefixes stay vLLM's, with hop, request id and file:line (V1 and V0)", () => {
  const [v1, v0, nested, verl] = parse([
    '(ServeReplica:default:LLMServer:llama pid=1234) INFO 08-29 10:00:00 [async_llm.py:382] Added request chatcmpl-a269fdcb7c6ce890-a8a65d16.',
    '(ServeReplica:default:VLLMDeployment pid=1234) INFO 11-18 01:46:40 async_llm_engine.py:173] Added request chat-5f0c2e7d1b3a4c9e8f6d2a1b0c9e8d7f.',
    '(ServeReplica:anthropic-direct:LLMServer:claude-sonnet-4-5-20250929 pid=28488) (EngineCore pid=29087) INFO 08-19 18:00:30 [core.py:340] init engine (profile, create kv cache, warmup model) took 36.54 s (compilation: 19.48 s)',
    '(AsyncvLLMServer pid=588113) WARNING 08-05 01:28:55 [cuda.py:93] To see benefits of async output processing, enable CUDA graph.',
  ]);
  assert.deepEqual([v1.engine, v1.hop, v1.rid, v1.fileinfo, v1.lineno], ['vllm', 'V2', 'chatcmpl-a269fdcb7c6ce890', 'async_llm.py', 382]);
  assert.deepEqual([v0.engine, v0.format, v0.hop, v0.rid, v0.fileinfo], ['vllm', 'vllm-legacy', 'V2', 'chat-5f0c2e7d1b3a4c9e8f6d2a1b0c9e8d7f', 'async_llm_engine.py']);
  assert.deepEqual([nested.engine, nested.process, nested.fileinfo], ['vllm', 'EngineCore', 'core.py']);
  assert.deepEqual([verl.engine, verl.fileinfo, verl.lineno], ['vllm', 'cuda.py', 93]);
});

test("vLLM's own processes keep their plain output and uvicorn lines; Ray's workers of every vLLM era too", () => {
  const recs = parse([
    '(APIServer pid=90458) INFO:     10.80.23.18:51408 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    '(EngineCore_DP0 pid=2003562)     self.run()',
    '(RayWorker pid=5120) Traceback (most recent call last):',
    '(RayWorkerProc pid=29271) Traceback (most recent call last):',
  ]);
  assert.deepEqual(recs.map((r) => r.engine), ['vllm', 'vllm', 'vllm', 'vllm']);
  assert.equal(recs[0].hop, 'V10');
});

test("the byte fast path leaves another actor's uvicorn access line alone, as the parser does", () => {
  const lines = [VLLM_FIRST,
    '(ProxyActor pid=25282) INFO:     127.0.0.1:50312 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    '(APIServer pid=7) INFO:     127.0.0.1:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK'];
  const json = fastJson(lines, Date.UTC(2025, 7, 29)).json.map((s) => JSON.parse(s) as { engine: string; hop: string | null });
  assert.deepEqual(json.map((j) => [j.engine, j.hop]), [['vllm', null], ['other', null], ['vllm', 'V10']]);
});
