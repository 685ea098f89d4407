import { test } from 'node:test';
import assert from 'node:assert/strict';
import { externalFromInternal, normaliseRid, splitIdList, serverIdsFor, ridMatchesQuery } from '../../../src/core/logs/requestIds';

test('vLLM internal ids drop the engine suffix and the n>1 child index', () => {
  assert.equal(externalFromInternal('chatcmpl-myrun-0001-9e1f0c2d'), 'chatcmpl-myrun-0001');
  assert.equal(externalFromInternal('cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0-4c5d6e7f'), 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0');
  assert.equal(externalFromInternal('1_chatcmpl-abc-0a1b2c3d'), 'chatcmpl-abc');
  assert.equal(externalFromInternal('chatcmpl-abc'), 'chatcmpl-abc');
  assert.equal(normaliseRid('vllm', 'chatcmpl-abc', 'external'), 'chatcmpl-abc');
  assert.equal(normaliseRid('sglang', "'my-req-1'", 'sglang'), 'my-req-1');
});

test('Aborted request(s) lists split on commas', () => {
  assert.deepEqual(splitIdList('chatcmpl-a-0a1b2c3d,chatcmpl-b-1a2b3c4d'), ['chatcmpl-a-0a1b2c3d', 'chatcmpl-b-1a2b3c4d']);
  assert.deepEqual(splitIdList("['x', 'y']"), ['x', 'y']);
});

test('the ids a server prints for a client-chosen id', () => {
  const chat = serverIdsFor('trace-1', 'vllm', 'chat');
  assert.equal(chat.normalised, 'chatcmpl-trace-1');
  assert.equal(chat.streamId, 'chatcmpl-trace-1');
  assert.ok(chat.patterns[0].test('chatcmpl-trace-1-0a1b2c3d'));
  assert.ok(chat.patterns[0].test('2_chatcmpl-trace-1-0a1b2c3d'));
  assert.ok(!chat.patterns[0].test('chatcmpl-trace-10-0a1b2c3d'));
  const cmpl = serverIdsFor('trace-1', 'vllm', 'completions');
  assert.equal(cmpl.normalised, 'cmpl-trace-1-0');
  assert.equal(cmpl.streamId, 'cmpl-trace-1');
  assert.ok(cmpl.patterns[0].test('cmpl-trace-1-0-4c5d6e7f'));
  const sg = serverIdsFor('r.1', 'sglang', 'generate');
  assert.ok(sg.patterns[0].test('r.1_3'));
  assert.ok(!sg.patterns[0].test('rx1'));
});

test('a user query matches the normalised id in any of its printed forms', () => {
  assert.ok(ridMatchesQuery('chatcmpl-myrun-0001', 'myrun-0001'));
  assert.ok(ridMatchesQuery('chatcmpl-myrun-0001', 'chatcmpl-myrun-0001-9e1f0c2d'));
  assert.ok(ridMatchesQuery('cmpl-abc-0', 'abc'));
  assert.ok(!ridMatchesQuery('chatcmpl-myrun-0001', 'myrun'));
});
