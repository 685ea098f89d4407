// A hop's line with no line number printed (a JSON record, a custom layout without %(lineno)d)
// against a release where two statements of the hop's file print the same text: vLLM 0.34.0's
// v1/engine/async_llm.py logs `Added request %s.` at 575 (each child of an n>1 request) and at 601
// (a request). Being nearer the hop table's line does not tell which printed it: two candidates,
// never "verified" at one of them. With the line printed, that statement is verified.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';

const tmp = new TempDirs();
let vllm: CheckoutSourceResolver;

before(async () => {
  const root = tmp.make();
  initRepo(root, {
    'pyproject.toml': '[project]\nname = "vllm"\n',
    'vllm/__init__.py': '"""vLLM."""\n',
    'vllm/v1/engine/async_llm.py': pythonFile({
      575: '                    logger.info("Added request %s.", child_request.request_id)',
      601: '            logger.info("Added request %s.", request.request_id)',
      973: '            logger.info("Aborted request(s) %s.", ",".join(request_ids))',
    }),
  });
  vllm = await createSourceResolver(root, 'vllm', { statementIndex: 'eager' });
});
after(() => tmp.cleanup());

const ADDED = 'Added request chatcmpl-8f3a2c1d9e7b4a60-b41f0e2a.';

test('a hop line without its line number, printed by either of two same-text statements of the file: two candidates, not verified', () => {
  for (const module of [null, 'vllm.v1.engine.async_llm']) {
    const loc = vllm.resolve({ engine: 'vllm', fileinfo: null, lineno: null, message: ADDED, hop: 'V2', module });
    assert.equal(loc?.verified, false, String(module));
    assert.deepEqual(loc?.candidates, [{ path: 'vllm/v1/engine/async_llm.py', line: 575 }, { path: 'vllm/v1/engine/async_llm.py', line: 601 }]);
  }
});

test('the same line with its file and line printed is verified at that statement; a text one statement prints is verified without them', () => {
  const printed = vllm.resolve({ engine: 'vllm', fileinfo: 'async_llm.py', lineno: 601, message: ADDED, hop: 'V2' });
  assert.deepEqual([printed?.path, printed?.line, printed?.verified], ['vllm/v1/engine/async_llm.py', 601, true]);
  const aborted = vllm.resolve({ engine: 'vllm', fileinfo: null, lineno: null, message: 'Aborted request(s) chatcmpl-1-a0c3.', hop: 'V8', module: 'vllm.v1.engine.async_llm' });
  assert.deepEqual([aborted?.path, aborted?.line, aborted?.verified], ['vllm/v1/engine/async_llm.py', 973, true]);
});

test('a line printed at a number neither statement is at: candidates, unless one is clearly the nearer (a checkout a few commits away)', () => {
  // vllm-project/vllm#34503's server printed `[async_llm.py:382]`: 575 and 601 are both some 200 lines away.
  const far = vllm.resolve({ engine: 'vllm', fileinfo: 'async_llm.py', lineno: 382, message: ADDED, hop: 'V2' });
  assert.equal(far?.verified, false);
  assert.deepEqual(far?.candidates?.map((c) => c.line), [575, 601]);
  // Printed at 598: 601 is 3 lines away, 575 is 23: the statement a few commits moved.
  const near = vllm.resolve({ engine: 'vllm', fileinfo: 'async_llm.py', lineno: 598, message: ADDED, hop: 'V2' });
  assert.deepEqual([near?.line, near?.verified, near?.candidates], [601, true, undefined]);
});
