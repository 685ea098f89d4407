// Hop lines cut short (a terminal's width, a digest's excerpt, `cut -c`): the hop whose wording
// the message begins, when enough of its constant words are left, and its id only when whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchHop } from '../../../src/engines/index';

function hop(engine: 'vllm' | 'sglang', message: string, fileinfo: string | null = null) {
  const m = matchHop(engine, message, fileinfo, engine);
  return m ? { id: m.hop.id, rid: m.groups.rid ?? m.groups.internal_rid ?? null } : null;
}

test('a vLLM hop line cut inside its words or its values is still the hop', () => {
  assert.deepEqual(hop('vllm', 'Engine 000: Avg prompt t...', 'loggers.py'), { id: 'V5', rid: null });
  assert.deepEqual(hop('vllm', 'Avg prompt throughput: 0.0 tok', 'metrics.py'), { id: 'V5', rid: null });
  assert.deepEqual(hop('vllm', 'Received request chatcmpl-a269fdcb7c6ce890: par', 'logger.py'), { id: 'V1', rid: 'chatcmpl-a269fdcb7c6ce890' });
  assert.deepEqual(hop('vllm', 'Request chatcmpl-1 abor', 'async_llm.py'), { id: 'V7', rid: 'chatcmpl-1' });
  assert.deepEqual(hop('vllm', 'Generated response chatcmpl-p1 (streaming delta): outp', 'request_logger.py'), { id: 'V6', rid: 'chatcmpl-p1' });
});

test('an id cut short is no id: the hop without it', () => {
  assert.deepEqual(hop('vllm', 'Received request chatcmpl-a269fdcb7', 'logger.py'), { id: 'V1', rid: null });
});

test('SGLang batch lines cut short keep their hop', () => {
  assert.equal(hop('sglang', 'Prefill batch, #new-seq: 1, #new-to')?.id, 'S3');
  assert.equal(hop('sglang', 'Decode batch. #running-re')?.id, 'S4');
});

test('no hop for too few words, for a whole message of another statement, or from another file', () => {
  assert.equal(hop('vllm', 'Avg prompt', 'metrics.py'), null);
  assert.equal(hop('vllm', 'Request ID is not known', 'async_llm.py'), null);
  assert.equal(hop('vllm', 'Received request for a model that does not exist', 'logger.py'), null);
  assert.equal(hop('vllm', 'Request chatcmpl-1 abor', 'utils.py'), null);
  assert.equal(hop('sglang', 'Prefill batch size is 8'), null);
});
