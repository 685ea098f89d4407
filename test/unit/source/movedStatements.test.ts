// Statements that moved to another file between real releases (issue 26 item 5): a line printed by
// one release, read against another release's statement index, is shown as moved only when the rule
// derived from the index holds (the printed name is the module the statement's file became or was
// split from, the named file prints no such text, and no other statement of the tree does); another
// code path with the same text is a similar statement; several are candidates; none is ever verified.
// The releases are the real wheels of the release matrix (test/unit/source/releaseTrees.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { derivedMove, movedName } from '../../../src/core/source/moves';
import type { Engine } from '../../../src/core/logs/model';
import type { SourceLocation, SourceQuery } from '../../../src/core/source/types';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';
import { realReleaseTrees, testReleaseCache } from './releaseTrees';

type Said = Pick<SourceLocation, 'path' | 'line' | 'verified' | 'drift'> & { movedFrom?: string; similar?: boolean; changed?: boolean; candidates?: string[] };

function said(l: SourceLocation | null): Said | null {
  if (!l) return null;
  const out: Said = { path: l.path, line: l.line, verified: l.verified, drift: l.drift };
  if (l.movedFrom) out.movedFrom = l.movedFrom;
  if (l.similar) out.similar = true;
  if (l.changed) out.changed = true;
  if (l.candidates) out.candidates = l.candidates.map((c) => `${c.path}:${c.line}`).sort();
  return out;
}

const trees = new Map<string, CheckoutSourceResolver>();
async function release(t: { skip(m: string): void; diagnostic(m: string): void }, engine: Engine, version: string): Promise<CheckoutSourceResolver | null> {
  const key = `${engine}-${version}`;
  const have = trees.get(key);
  if (have) return have;
  const roots = await realReleaseTrees(t as never, [{ engine, version }]);
  if (!roots) return null;
  const r = await createSourceResolver(roots[0], engine, { statementIndex: 'eager', cacheDir: join(testReleaseCache(), '.statements') });
  trees.set(key, r);
  return r;
}

const ask = (r: CheckoutSourceResolver, q: Partial<SourceQuery> & { message: string }) =>
  said(r.resolve({ engine: r.engine, fileinfo: null, lineno: null, hop: null, ...q }));

// vLLM 0.8.5's config.py:2003 (`logger.info("Chunked prefill is enabled with max_num_batched_tokens=%d.", …)`), which
// 0.10.2 split into the package vllm/config/ (the statement is in config/scheduler.py:222 there).
const CHUNKED = { fileinfo: 'config.py', lineno: 2003, level: 'INFO', message: 'Chunked prefill is enabled with max_num_batched_tokens=2048.' };

test('moved, text unchanged: vLLM 0.8.5 config.py line against 0.10.2 (config.py became the vllm/config/ package)', async (t) => {
  const own = await release(t, 'vllm', '0.8.5');
  const newer = await release(t, 'vllm', '0.10.2');
  if (!own || !newer) return;
  assert.deepEqual(ask(own, CHUNKED), { path: 'vllm/config.py', line: 2003, verified: true, drift: 0 });
  // The line names only `config.py`: the hover and --json say that name, not a folder the line does not show.
  assert.deepEqual(ask(newer, CHUNKED), { path: 'vllm/config/scheduler.py', line: 222, verified: false, drift: 0, movedFrom: 'config.py' });
  // 0.10.2's config/cache.py:214, from 0.8.5's config.py:1442 (`Possibly too large swap space. %s`).
  const swap = ask(newer, { fileinfo: 'config.py', lineno: 1442, level: 'WARNING',
    message: 'Possibly too large swap space. 8.00 GiB out of the 15.49 GiB total CPU memory is allocated for the swap space.' });
  assert.deepEqual(swap, { path: 'vllm/config/cache.py', line: 214, verified: false, drift: 0, movedFrom: 'config.py' });
  // At another level it is not this statement's line: not moved (at most similar).
  assert.equal(ask(newer, { ...CHUNKED, level: 'WARNING' })?.movedFrom, undefined);
});

test('moved, SGLang: a layout that prints the logger (sglang.srt.utils) against 0.5.23, where srt/utils.py became a package', async (t) => {
  const own = await release(t, 'sglang', '0.5.1');
  const newer = await release(t, 'sglang', '0.5.23');
  if (!own || !newer) return;
  const q = { module: 'sglang.srt.utils', level: 'WARNING', message: 'Fail to set RLIMIT_NOFILE: not allowed to raise maximum limit' };
  assert.deepEqual(ask(own, q), { path: 'python/sglang/srt/utils.py', line: 909, verified: true, drift: 0 });
  assert.deepEqual(ask(newer, q), { path: 'python/sglang/srt/utils/common.py', line: 2594, verified: false, drift: 0, movedFrom: 'python/sglang/srt/utils.py' });
  // By basename only (`[utils.py:909]` of a bracketed layout) nothing tells which of 0.5.23's six utils/ packages it left
  // (its multimodal_gen/runtime/utils/ copies 0.5.1's text srt/utils/ changed): a similar statement.
  assert.deepEqual(ask(newer, { ...q, module: null, fileinfo: 'utils.py', lineno: 909 }),
    { path: 'python/sglang/srt/utils/common.py', line: 2594, verified: false, drift: 0, similar: true });
});

test('similar, another code path: V0 lines against V1 statements with the same text are never moved nor verified', async (t) => {
  const r = await release(t, 'vllm', '0.11.2');
  if (!r) return;
  // vLLM 0.8.5's engine/multiprocessing/engine.py:310 (MQLLMEngine) printed this beside V1's async_llm.py.
  const added = { fileinfo: 'engine.py', lineno: 310, level: 'INFO', message: 'Added request chatcmpl-df5dce913d1b4e408c36957694a9163c.' };
  for (const hop of [null, 'V2']) {
    assert.deepEqual(ask(r, { ...added, hop }), { path: 'vllm/v1/engine/async_llm.py', line: 344, verified: false, drift: 0, similar: true }, String(hop));
  }
  // 0.8.5's worker/worker.py:145 (V0's Worker.sleep) beside V1's gpu_worker.py.
  const sleep = ask(r, { fileinfo: 'worker.py', lineno: 145, level: 'INFO', message: 'Sleep mode freed 71.35 GiB memory, 2.06 GiB memory is still in use.' });
  assert.deepEqual(sleep, { path: 'vllm/v1/worker/gpu_worker.py', line: 142, verified: false, drift: 0, similar: true });
});

test('SGLang: a logger whose module file moved is not verified at the file of the same basename elsewhere', async (t) => {
  const r = await release(t, 'sglang', '0.5.23');
  if (!r) return;
  // 0.5.1's managers/template_manager.py:113; 0.5.23 has parser/template_manager.py (another folder: not the module the line names).
  const loc = ask(r, { module: 'sglang.srt.managers.template_manager', level: 'INFO', message: 'Loading chat template from argument: /models/chat_template.jinja' });
  assert.deepEqual(loc, { path: 'python/sglang/srt/parser/template_manager.py', line: 232, verified: false, drift: 0, similar: true });
});

test('the named file is still there but its statement is gone: unverified at the printed line, never moved', async (t) => {
  const r = await release(t, 'vllm', '0.11.2');
  if (!r) return;
  // vLLM 0.10.2's shm_broadcast.py:393; 0.11.2 words it otherwise and nothing else prints it.
  const loc = ask(r, { fileinfo: 'shm_broadcast.py', lineno: 393, level: 'INFO', message: 'No available shared memory broadcast block found in 60 second.' });
  assert.deepEqual(loc, { path: 'vllm/distributed/device_communicators/shm_broadcast.py', line: 393, verified: false, drift: 0 });
});

test('two statements of other files print the text: both are candidates, neither verified nor moved', async (t) => {
  const r = await release(t, 'vllm', '0.11.2');
  if (!r) return;
  // vLLM 0.10.2's worker/model_runner.py:1051 (V0); 0.11.2 prints it in V1's cpu and gpu model runners.
  const loc = ask(r, { fileinfo: 'model_runner.py', lineno: 1051, level: 'INFO', message: 'Starting to load model meta-llama/Llama-3.1-8B-Instruct...' });
  assert.deepEqual(loc, {
    path: 'vllm/v1/worker/cpu_model_runner.py', line: 55, verified: false, drift: 0,
    candidates: ['vllm/v1/worker/cpu_model_runner.py:55', 'vllm/v1/worker/gpu_model_runner.py:3259'],
  });
});

test("the moves table's entries come out as before: logger.py into request_logger.py (0.34.0), changed and moved from async_llm_engine.py", async (t) => {
  const r034 = await release(t, 'vllm', '0.34.0');
  const r066 = await release(t, 'vllm', '0.6.6.post1');
  if (!r034 || !r066) return;
  // 0.11.2's entrypoints/logger.py:47 (`Received request %s: params: %s, lora_request: %s.`); a rename the paths do not tell: the table's.
  const received = ask(r034, { fileinfo: 'logger.py', lineno: 47, level: 'INFO', hop: 'V1', message: 'Received request chatcmpl-a: params: SamplingParams(n=1), lora_request: None.' });
  assert.deepEqual(received, { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 66, verified: false, drift: 0, movedFrom: 'vllm/entrypoints/logger.py' });
  // 0.4.3's async_llm_engine.py:553, gained `params`/`prompt_adapter_request` by 0.6.6 and moved to entrypoints/logger.py.
  const old = ask(r066, { fileinfo: 'async_llm_engine.py', lineno: 554, level: 'INFO',
    message: 'Received request 411b759f6c074472a345a558c475ce1b: prompt: None, params: SamplingParams(n=1, max_tokens=1), prompt_token_ids: [128000, 3947, 374], lora_request: None.' });
  assert.deepEqual(old, { path: 'vllm/entrypoints/logger.py', line: 37, verified: false, drift: 0, movedFrom: 'vllm/engine/async_llm_engine.py', changed: true });
  // What changed, in the note: 0.4.3's line lacks the field 0.6.6's statement gained.
  const oldNote = r066.resolve({ engine: 'vllm', fileinfo: 'async_llm_engine.py', lineno: 554, level: 'INFO', hop: null,
    message: 'Received request 411b759f6c074472a345a558c475ce1b: prompt: None, params: SamplingParams(n=1, max_tokens=1), prompt_token_ids: [128000, 3947, 374], lora_request: None.' })?.note;
  assert.match(oldNote ?? '', /this statement prints `prompt_adapter_request`, which the line does not show$/);
});

test('the "changed since" note names the line\'s own fields the newer statement does not print, not one the line shows elsewhere', async (t) => {
  const r034 = await release(t, 'vllm', '0.34.0');
  if (!r034) return;
  // vLLM 0.8.5's entrypoints/logger.py:39 line; 0.34.0's statement prints `Received request %s: params: %s, lora_request: %s.`
  // The line does show `params:` (after its prompt); a prompt's own `word: ` text is no field.
  const note = r034.resolve({ engine: 'vllm', fileinfo: 'logger.py', lineno: 39, level: 'INFO', hop: 'V1',
    message: "Received request chatcmpl-aaa1: prompt: 'Answer: yes, foo: bar', params: SamplingParams(n=1, temperature=0.7), "
      + 'prompt_token_ids: [1, 2], lora_request: None, prompt_adapter_request: None.' })?.note ?? '';
  assert.match(note, /changed since the release that printed the line: the line shows `prompt`, `prompt_token_ids`, `prompt_adapter_request`, which this statement does not print$/);
  assert.doesNotMatch(note, /`params`|`Answer`|`foo`/);
});

// A tree like 0.10.2's vllm/config/ package whose scheduler statement has gained a field since 0.8.5.
const tmp = new TempDirs();
let changedTree: CheckoutSourceResolver;
before(async () => {
  const root = tmp.make();
  initRepo(root, {
    'pyproject.toml': '[project]\nname = "vllm"\n',
    'vllm/__init__.py': '"""vLLM."""\n',
    'vllm/config/__init__.py': '"""Configs."""\n',
    'vllm/config/scheduler.py': pythonFile({
      222: [
        '            logger.info(',
        '                "Chunked prefill is enabled with max_num_batched_tokens=%d, max_num_seqs=%d.",',
        '                self.max_num_batched_tokens, self.max_num_seqs)',
      ].join('\n'),
    }),
  });
  changedTree = await createSourceResolver(root, 'vllm', { statementIndex: 'eager', cacheDir: null });
});
after(() => tmp.cleanup());

test('moved and changed: the statement of the package the printed module became prints a field the line lacks', () => {
  assert.deepEqual(ask(changedTree, CHUNKED), { path: 'vllm/config/scheduler.py', line: 222, verified: false, drift: 0, movedFrom: 'config.py', changed: true });
});

test('the derived rule on paths: a module that became a package or was split from one, never a parallel tree', () => {
  assert.equal(derivedMove('vllm', 'utils.py', 'vllm/utils/__init__.py'), 'vllm/utils.py');
  assert.equal(derivedMove('vllm', 'config.py', 'vllm/config/scheduler.py'), 'vllm/config.py');
  assert.equal(derivedMove('vllm', 'utils/__init__.py', 'vllm/utils/nccl.py'), 'vllm/utils.py');
  assert.equal(derivedMove('vllm', '__init__.py', 'vllm/utils/nccl.py'), null, 'a bare __init__.py names no module');
  assert.equal(derivedMove('vllm', 'logger.py', 'vllm/entrypoints/serve/utils/request_logger.py'), null, 'a rename is the table\'s');
  assert.equal(derivedMove('vllm', 'engine.py', 'vllm/v1/engine/async_llm.py'), null, 'V1 is another code path');
  assert.equal(derivedMove('vllm', 'v1/engine/core.py', 'vllm/v1/engine/core/client.py'), 'vllm/v1/engine/core.py');
  assert.equal(derivedMove('sglang', 'sglang/srt/managers/template_manager.py', 'python/sglang/srt/parser/template_manager.py'), null);
  assert.equal(movedName('config.py', 'vllm/config.py'), 'config.py');
  assert.equal(movedName('/usr/local/lib/python3.12/site-packages/vllm/config.py', 'vllm/config.py'), 'vllm/config.py');
});
