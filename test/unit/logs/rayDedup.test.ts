// Ray's log deduplication: `[repeated Nx across cluster]` after a worker's line, and on the first
// one of a session the note Ray adds on how to turn it off. Lines as a vllm-ascend 0.7.3 Ray
// cluster printed them (test/fixtures/real-logs/vllm-eras.corpus has the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

const REF = Date.UTC(2026, 7, 22, 12, 0, 0);

test('Ray\'s first dedup count and its note are no part of the message; the count is kept', () => {
  const st = createParseState({ referenceTime: REF });
  const first = parseLine('(RayWorkerWrapper pid=44970, ip=10.240.34.77) INFO 04-14 13:53:43 __init__.py:30] Available plugins for group vllm.platform_plugins: [repeated 15x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/ray-logging.html#log-deduplication for more options.)', 1, 0, st);
  assert.equal(first.message, 'Available plugins for group vllm.platform_plugins:');
  assert.equal(first.repeated, 15);
  assert.equal(first.process, 'RayWorkerWrapper');
  assert.equal(first.lineno, 30);
  // The note in the newer docs' wording (configure-logging.html) reads the same.
  const later = parseLine('(RayWorkerWrapper pid=44970, ip=10.240.34.77) INFO 04-14 13:53:43 __init__.py:32] name=ascend, value=vllm_ascend:register [repeated 3x across cluster] (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)', 2, 0, st);
  assert.equal(later.message, 'name=ascend, value=vllm_ascend:register');
  assert.equal(later.repeated, 3);
});

test('VLLM_LOGGING_PREFIX between decorate_logs\' process prefix and the level: the header is still read', () => {
  const st = createParseState({ referenceTime: REF });
  const r = parseLine('(APIServer pid=1) [node-3] INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-p1-9e1f0c2d.', 1, 0, st);
  assert.equal(r.format, 'vllm');
  assert.equal(r.process, 'APIServer');
  assert.equal(r.level, 'INFO');
  assert.equal(r.lineno, 439);
  assert.equal(r.hop, 'V2');
  assert.equal(r.rid, 'chatcmpl-p1');
  // A traceback line under the same prefixes stays the process's output.
  const tb = parseLine('(EngineCore_DP0 pid=8) [node-3]   File "/usr/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap', 2, 0, st);
  assert.equal(tb.format, 'vllm-output');
  assert.equal(tb.level, null);
});
