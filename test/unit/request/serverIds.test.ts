// The ids HopLens predicts must find the request's lines in the engines' own log format
// (spec/constructed-examples), and nothing of another request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { newRequestId, serverIdsFor } from '../../../src/core/request/serverIds';
import { parseServerTime } from '../../../src/core/request/logLink';
import { buildRequest, toCurl } from '../../../src/core/request/build';

const fixtures = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'request');
const vllmLog = readFileSync(join(fixtures, 'vllm_info_chat_and_abort.log'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
const sglLog = readFileSync(join(fixtures, 'sglang_tp2_request.log'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));

test('vLLM chat id finds Received, Added (-<8hex>) and Generated lines, and not the other request', () => {
  const { pattern } = serverIdsFor('vllm', 'chat', 'myrun-0001');
  const hits = vllmLog.filter((l) => pattern.test(l));
  assert.equal(hits.length, 6);
  assert.ok(hits.some((l) => l.includes('Added request chatcmpl-myrun-0001-9e1f0c2d.')));
  assert.ok(!hits.some((l) => l.includes('cmpl-5c1d')));
});

test('vLLM completions id finds cmpl-<id>-0, its engine id and both abort lines', () => {
  const ids = serverIdsFor('vllm', 'completions', '5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10');
  assert.deepEqual(ids.ids, ['cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10', 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0']);
  assert.equal(ids.logId, 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0'); // what the request logger prints
  const hits = vllmLog.filter((l) => ids.pattern.test(l));
  assert.deepEqual(hits.map((l) => /\[(\w+\.py):\d+\]/.exec(l)?.[1]), ['request_logger.py', 'async_llm.py', 'async_llm.py', 'async_llm.py']);
});

test('an id that is a prefix of another request\'s id does not match it', () => {
  const { pattern } = serverIdsFor('vllm', 'chat', 'myrun-000');
  assert.equal(vllmLog.filter((l) => pattern.test(l)).length, 0);
  const sgl = serverIdsFor('sglang', 'chat', 'my-req');
  assert.equal(sglLog.filter((l) => sgl.pattern.test(l)).length, 0);
});

test('SGLang rid is raw in Receive, ReqTimeStats, Finish and Abort lines', () => {
  const { pattern, ids } = serverIdsFor('sglang', 'chat', 'my-req-1');
  assert.deepEqual(ids, ['my-req-1']);
  assert.equal(sglLog.filter((l) => pattern.test(l)).length, 5);
});

test('new request ids: hoplens-<UTC time>-<6 hex>, never ending in 8 hex', () => {
  const id = newRequestId(new Date(Date.UTC(2026, 7, 21, 22, 30, 5)), () => 0.5);
  assert.equal(id, 'hoplens-20260821T223005-800000');
  assert.doesNotMatch(newRequestId(), /-[0-9a-f]{8}$/);
});

test('server stamps: vLLM whole seconds with the year inferred, SGLang with and without ms', () => {
  const ref = new Date(2026, 0, 1, 0, 0, 3).getTime();
  const v = parseServerTime('(APIServer pid=1) INFO 12-31 23:59:59 [async_llm.py:439] Added request x.', ref);
  assert.equal(v?.resolution, 's');
  assert.equal(v?.epochMs, new Date(2025, 11, 31, 23, 59, 59).getTime()); // New Year: last year's stamp
  const s = parseServerTime('[2026-08-21 22:50:10.215 TP0] Prefill batch, …', ref);
  assert.deepEqual(s, { epochMs: new Date(2026, 7, 21, 22, 50, 10, 215).getTime(), resolution: 'ms' });
  assert.equal(parseServerTime('[2026-08-21 22:50:10] Receive: obj=…', ref)?.resolution, 's');
  assert.equal(parseServerTime('no stamp here', ref), null);
});

test('request ids go where each engine reads them; curl never shows the key unless asked', () => {
  const v = buildRequest('vllm', 'chat', 'm', 'hoplens-x', { url: 'http://127.0.0.1:8000/' });
  assert.equal(v.url, 'http://127.0.0.1:8000/v1/chat/completions');
  assert.equal(v.headers['X-Request-Id'], 'hoplens-x');
  assert.equal(v.body.request_id, 'hoplens-x');
  const s = buildRequest('sglang', 'sglang-generate', '', 'hoplens-y', { url: 'http://h:30000', maxTokens: 7 });
  assert.equal(s.url, 'http://h:30000/generate');
  assert.equal(s.body.rid, 'hoplens-y');
  assert.deepEqual(s.body.sampling_params, { temperature: 0, max_new_tokens: 7 });
  assert.equal(s.headers['X-Request-Id'], undefined);
  const curl = toCurl(v, { apiKey: 'sk-secret', hasApiKey: true });
  assert.ok(!curl.includes('sk-secret'));
  assert.match(curl, /\$HOPLENS_API_KEY/);
  assert.match(toCurl(v, { apiKey: 'sk-secret', revealKey: true }), /Bearer sk-secret/);
  assert.match(toCurl({ ...v, body: { prompt: "it's" } }), /--data-raw '\{"prompt":"it'\\''s"\}'/);
});
