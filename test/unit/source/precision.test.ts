// Precision of the statement index on lines as the engines print them (issue 26 items 3 and 5):
// a message kept with its trailing space, statements that changed since the printing release in
// either direction, statements that moved to another file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { join } from 'node:path';
import { compilePattern, droppedFit, labelledFields, labelsInValues, WILD } from '../../../src/core/source/messagePattern';
import type { SourceLocation } from '../../../src/core/source/types';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';
import { realReleaseTrees, testReleaseCache } from './releaseTrees';

const tmp = new TempDirs();
let vllm: CheckoutSourceResolver;

// NIXL's pull worker as vLLM 0.34.0 writes it (kv_connector/v1/nixl/pull_worker.py:61): the format ends in ". ".
const PULL_WORKER = pythonFile({
  61: [
    '            logger.debug(',
    '                "start_load_kv for request %s from remote engine %s. "',
    '                "Num local_block_ids: %s. Num remote_block_ids: %s. ",',
    '                req_id,',
    '                remote_engine_id,',
    '                len(meta.local_physical_block_ids),',
    '                len(meta.remote.block_ids),',
    '            )',
  ].join('\n'),
});

before(async () => {
  const root = tmp.make();
  initRepo(root, {
    'pyproject.toml': '[project]\nname = "vllm"\n',
    'vllm/__init__.py': '"""vLLM."""\n',
    'vllm/distributed/kv_transfer/kv_connector/v1/nixl/pull_worker.py': PULL_WORKER,
  });
  vllm = await createSourceResolver(root, 'vllm', { statementIndex: 'eager' });
});
after(() => tmp.cleanup());

test('a message printed with its trailing space (NIXL start_load_kv) is found by the index, with no file named', () => {
  const message = 'start_load_kv for request chatcmpl-pd-7-1f2e3d4c from remote engine 6f1e2d3c-aaaa-bbbb-cccc-0123456789ab. Num local_block_ids: 4. Num remote_block_ids: 4. ';
  for (const hop of [null, 'V14']) {
    const loc = vllm.resolve({ engine: 'vllm', fileinfo: null, lineno: null, message, hop });
    assert.equal(loc?.path, 'vllm/distributed/kv_transfer/kv_connector/v1/nixl/pull_worker.py', String(hop));
    assert.equal(loc?.line, 61);
    assert.equal(loc?.verified, true);
  }
});

// Real release trees: a line of one release's request-logger wording against another release's tree.
const RECEIVED_06 = "Received request cmpl-c52dbd9a95114d1cbfa182e588138c86-0: prompt: 'How to make pizza', params: SamplingParams(n=1), prompt_token_ids: [1, 1128], lora_request: None, prompt_adapter_request: None.";
const RECEIVED_010 = "Received request cmpl-5f0c1e2a-0: prompt: 'How to make pizza', params: SamplingParams(n=1), prompt_token_ids: [1, 1128], prompt_embeds shape: None, lora_request: None.";
const RECEIVED_043 = 'Received request 411b759f6c074472a345a558c475ce1b: prompt: None, params: SamplingParams(n=1, max_tokens=1), prompt_token_ids: [128000, 3947, 374], lora_request: None.';

test('real vLLM trees: a request-logger line of another release is "changed since" (a field gained or lost), moved when the file moved, verified in its own release', async (t) => {
  const versions = ['0.4.3', '0.6.6.post1', '0.8.5', '0.10.2'];
  const roots = await realReleaseTrees(t, versions.map((version) => ({ engine: 'vllm' as const, version })));
  if (!roots) return;
  const tree = Object.fromEntries(await Promise.all(versions.map(async (v, i) => [v, await createSourceResolver(roots[i], 'vllm', { statementIndex: 'eager', cacheDir: join(testReleaseCache(), '.statements') })] as const)));
  const ask = (v: string, fileinfo: string, lineno: number, message: string, hop: string | null = 'V1') => tree[v].resolve({ engine: 'vllm', fileinfo, lineno, message, hop, level: 'INFO' });
  const brief = (l: SourceLocation | null) => l && { at: `${l.path}:${l.line}`, verified: l.verified, changed: l.changed, movedFrom: l.movedFrom };
  // Each wording in its own release: verified.
  assert.deepEqual(brief(ask('0.6.6.post1', 'logger.py', 38, RECEIVED_06)), { at: 'vllm/entrypoints/logger.py:37', verified: true, changed: undefined, movedFrom: undefined });
  assert.deepEqual(brief(ask('0.10.2', 'logger.py', 41, RECEIVED_010)), { at: 'vllm/entrypoints/logger.py:40', verified: true, changed: undefined, movedFrom: undefined });
  // The statement gained `prompt_embeds shape` since 0.6 (0.10.2), or still has `prompt_adapter_request` the 0.10 line lacks (0.8.5).
  assert.deepEqual(brief(ask('0.10.2', 'logger.py', 38, RECEIVED_06)), { at: 'vllm/entrypoints/logger.py:40', verified: false, changed: true, movedFrom: undefined });
  assert.deepEqual(brief(ask('0.8.5', 'logger.py', 41, RECEIVED_010)), { at: 'vllm/entrypoints/logger.py:39', verified: false, changed: true, movedFrom: undefined });
  // The statement lost a field the line shows (0.4.3's `…, lora_request: %s.` would print the 0.6 line): changed, with or without the hop.
  for (const hop of ['V1', null]) {
    assert.deepEqual(brief(ask('0.4.3', 'async_llm_engine.py', 554, RECEIVED_06, hop)), { at: 'vllm/engine/async_llm_engine.py:553', verified: false, changed: true, movedFrom: undefined }, String(hop));
  }
  // 0.4.3's line from engine/async_llm_engine.py: in 0.6.6 the request logger is entrypoints/logger.py, with one more field.
  assert.deepEqual(brief(ask('0.6.6.post1', 'async_llm_engine.py', 554, RECEIVED_043)), { at: 'vllm/entrypoints/logger.py:37', verified: false, changed: true, movedFrom: 'vllm/engine/async_llm_engine.py' });
});

test('a labelled field whose value holds another label is a field the statement lacks; a value built elsewhere or quoted is not judged', () => {
  const received = compilePattern(['Received request ', WILD, ': prompt: ', WILD, ', params: ', WILD, ', lora_request: ', WILD, '.']);
  assert.equal(labelledFields(received), true);
  assert.deepEqual(
    labelsInValues(received, "Received request x: prompt: 'a, b: c', params: SamplingParams(n=1, seed: 2), lora_request: None, prompt_adapter_request: None."),
    ['prompt_adapter_request'],
  );
  assert.deepEqual(labelsInValues(received, "Received request x: prompt: 'a', params: SamplingParams(n=1), lora_request: None."), []);
  // SGLang's `Decode batch. #running-req: {n}, {token_msg}gen throughput …`: token_msg holds `token usage: …` of its own.
  const decode = compilePattern(['Decode batch. #running-req: ', WILD, ', ', WILD, 'gen throughput (token/s): ', WILD, ', #queue-req: ', WILD, ', ']);
  assert.deepEqual(labelsInValues(decode, 'Decode batch. #running-req: 8, #token: 62531, token usage: 0.12, gen throughput (token/s): 186.64, #queue-req: 0, '), []);
});

test('a statement that gained a field fits the older line but for that field; a line of other words does not fit', () => {
  const v010 = compilePattern(['Received request ', WILD, ': prompt: ', WILD, ', params: ', WILD, ', prompt_token_ids: ', WILD, ', prompt_embeds shape: ', WILD, ', lora_request: ', WILD, '.']);
  assert.deepEqual(droppedFit(v010, RECEIVED_06)?.missing, [', prompt_embeds shape: ']);
  assert.equal(droppedFit(v010, RECEIVED_010), null, 'its own wording fits whole');
  assert.equal(droppedFit(v010, 'Received request abc: cancelled'), null, 'does not end as the statement does');
  // A statement ending in a value: a line cut short lacks its last pieces, and is not "changed".
  const generated = compilePattern(['Generated response ', WILD, ': output: ', WILD, ', output_token_ids: ', WILD, ', finish_reason: ', WILD]);
  assert.equal(droppedFit(generated, "Generated response chatcmpl-cut2 (streaming complete): output: 'Once upon a time there was a"), null);
  assert.deepEqual(droppedFit(generated, "Generated response chatcmpl-1: output: 'Once', finish_reason: stop")?.missing, [', output_token_ids: ']);
});
