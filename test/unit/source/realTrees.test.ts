// Resolution in the layout of real vLLM trees: a printed basename several files share, with
// logging calls of the shapes vLLM writes (a helper's `logger.warning(msg)` that prints any text).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { sourceFor } from '../../../src/core/source/locate';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';

const tmp = new TempDirs();
let resolver: CheckoutSourceResolver;

before(async () => {
  const root = tmp.make();
  initRepo(root, {
    'pyproject.toml': '[project]\nname = "vllm"\n',
    'vllm/__init__.py': '',
    // 0.4/0.5: print_warning_once logs without stacklevel, so `[utils.py:92]` is the helper's own line.
    'vllm/utils.py': pythonFile({ 90: '@lru_cache\ndef print_warning_once(msg: str) -> None:\n    logger.warning(msg)' }),
    'vllm/distributed/utils.py': pythonFile({ 92: '    logger.info(msg)' }),
    'vllm/lora/utils.py': pythonFile({ 92: '    logger.debug("%s", msg)' }),
  });
  resolver = await createSourceResolver(root, 'vllm', { statementIndex: 'eager', cacheDir: null });
});
after(() => tmp.cleanup());

function resolve(line: string) {
  return sourceFor(parseLine(line, 1, 0, createParseState({ referenceTime: Date.UTC(2024, 5, 10) })), resolver);
}

test('a basename three files share, each with a call at the printed line that prints any text: the call of the printed level', () => {
  // Interleaved so the memo of `utils.py:92` is asked each time.
  const lines: Array<[string, string]> = [
    ["WARNING 06-10 12:00:01 utils.py:92] Using 'pin_memory=False' as WSL is detected. This may slow down the performance.", 'vllm/utils.py'],
    ['INFO 06-10 12:00:02 utils.py:92] Rank 0 ready: tcp://10.0.0.2:29500', 'vllm/distributed/utils.py'],
    ['DEBUG 06-10 12:00:04 utils.py:92] Loaded LoRA adapter sql-lora', 'vllm/lora/utils.py'],
    ['WARNING 06-10 12:00:03 utils.py:92] Casting torch.bfloat16 to torch.float16 for the draft model.', 'vllm/utils.py'],
    ['INFO 06-10 12:00:05 utils.py:92] Rank 1 ready: tcp://10.0.0.3:29500', 'vllm/distributed/utils.py'],
  ];
  for (const [line, path] of lines) {
    const loc = resolve(line);
    assert.deepEqual(loc && { path: loc.path, line: loc.line, verified: loc.verified }, { path, line: 92, verified: true }, line);
  }
});

