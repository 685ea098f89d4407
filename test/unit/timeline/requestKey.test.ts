// One request under its names in different sources joins on one key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyMatcher, queryKeys, requestKey } from '../../../src/core/timeline/requestKey';
import { parseLine, createParseState } from '../../../src/core/logs/parseLine';

test('the ids vLLM, SGLang, a router and the client print for one request share a key', () => {
  // As the log parser leaves them: engine-side suffixes already taken off.
  const st = createParseState({ engine: 'vllm' });
  const added = parseLine('(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-myrun-0001-9e1f0c2d.', 1, 0, st);
  const recvCmpl = parseLine('(APIServer pid=1) INFO 08-21 22:30:05 [request_logger.py:63] Received request cmpl-myrun-0001-0: params: SamplingParams(n=1), lora_request: None.', 2, 0, st);
  assert.equal(requestKey(added.rid!), 'myrun-0001');
  assert.equal(requestKey(recvCmpl.rid!), 'myrun-0001');
  assert.equal(requestKey('cmpl-myrun-0001-0'), 'myrun-0001');
  assert.equal(requestKey('myrun-0001'), 'myrun-0001', 'an SGLang rid or a router request_id');
  // A client id that ends like an engine suffix is kept whole: only the API prefix goes.
  assert.equal(requestKey('chatcmpl-c0ffee01'), 'c0ffee01');
  assert.equal(requestKey('chatcmpl-'), 'chatcmpl-');
});

test('a query for an engine-internal id also stands for its request, the literal reading first', () => {
  assert.deepEqual(queryKeys('chatcmpl-myrun-0001-9e1f0c2d'), ['myrun-0001-9e1f0c2d', 'myrun-0001']);
  assert.deepEqual(queryKeys('  myrun-0001 '), ['myrun-0001']);
  assert.deepEqual(queryKeys('1_chatcmpl-abc'), ['1_chatcmpl-abc', 'abc']);
  // The SSE id of a completion (cmpl-<id>) reads like a logged one (cmpl-<id>-<prompt index>).
  assert.deepEqual(queryKeys('cmpl-myrun-0001'), ['myrun', 'myrun-0001']);
});

test('the matcher accepts every form of the request and no other request', () => {
  const m = keyMatcher(['run-7']);
  assert.equal(m('chatcmpl-run-7'), 'run-7');
  assert.equal(m('cmpl-run-7-0'), 'run-7');
  assert.equal(m('run-7'), 'run-7');
  assert.equal(m('chatcmpl-run-70'), null);
  assert.equal(m('chatcmpl-xrun-7'), null);
  assert.equal(m('cmpl-run-77-0'), null);
});
