// A real checkout writes some messages in several files (a hardware backend's copy of the model
// runner, short words like "Shutting down."). SGLang's header names no file, so a line printed
// with such words is only claimed when something tells the statements apart: a statement whose
// text is the whole message, or the files this log's other lines came from. A wrong file is
// worse than none.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SourceLocation } from '../../../src/core/source/types';
import { createSourceResolver } from '../../../src/core/source/index';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';

const RUNNER = 'python/sglang/srt/model_executor/model_runner.py';
const MLX_RUNNER = 'python/sglang/srt/hardware_backend/mlx/model_runner.py';
const tmp = new TempDirs();
let root = '';

before(() => {
  root = tmp.make();
  initRepo(root, {
    'python/pyproject.toml': '[project]\nname = "sglang"\n',
    'python/sglang/__init__.py': '',
    [RUNNER]: pythonFile({
      560: '    def init_torch_distributed(self):\n        logger.info("Init torch distributed begin.")',
      640: '        logger.info(\n            f"Init torch distributed ends. elapsed={time.perf_counter() - tic:.2f} s, "\n            f"mem usage={(before_avail_memory - local_gpu_memory):.2f} GB"\n        )',
    }),
    [MLX_RUNNER]: pythonFile({ 120: '    def init_torch_distributed(self):\n        logger.info("Init torch distributed begin.")' }),
    // Words so short that thirty modules write them.
    ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`python/sglang/srt/tools/step_${i}.py`, pythonFile({ 10: `    def run_${i}(self):\n        logger.info("Done.")\n        logger.info("Step ${i} of the tools finished.")` })])),
    'python/sglang/srt/managers/detokenizer_manager.py': pythonFile({ 300: '    def handle_shutdown(self):\n        logger.info("Shutting down.")' }),
    // SGLang 0.4.5's two import loops: the model registry's and the multimodal processors' (one character apart).
    'python/sglang/srt/models/registry.py': pythonFile({ 88: '            except Exception as e:\n                logger.warning(f"Ignore import error when loading {name}. " f"{e}")' }),
    'python/sglang/srt/managers/multimodal_processor.py': pythonFile({ 31: '            except Exception as e:\n                logger.warning(f"Ignore import error when loading {name}: " f"{e}")' }),
    'python/sglang/srt/entrypoints/engine.py': pythonFile({ 1900: '    def sigterm_watchdog(self):\n        logger.info(f"{self.log_prefix}Shutting down.")' }),
  });
});
after(() => tmp.cleanup());

const open = () => createSourceResolver(root, 'sglang', { statementIndex: 'eager', workerScript: null, cacheDir: null });
const line = (message: string) => ({ engine: 'sglang' as const, fileinfo: null, lineno: null, message, hop: null });

/** Issue 26 item 4: words several statements print are offered as candidates, none verified (before: no answer). */
function assertOnlyCandidates(loc: SourceLocation | null): void {
  assert.equal(loc?.verified, false);
  assert.deepEqual(loc?.candidates?.map((c) => c.path).sort(), ['python/sglang/srt/hardware_backend/mlx/model_runner.py', 'python/sglang/srt/model_executor/model_runner.py']);
}

test('words two files write are not claimed while the log has named neither; once its lines come from one file, they are that file\'s', async () => {
  const r = await open();
  assertOnlyCandidates(r.resolve(line('Init torch distributed begin.')));
  // A line from managers/ shares only python/sglang/srt/ with either runner: still neither.
  assert.equal(r.resolve(line('Shutting down.'))?.path, 'python/sglang/srt/managers/detokenizer_manager.py');
  assertOnlyCandidates(r.resolve(line('Init torch distributed begin.')));
  const ends = r.resolve(line('Init torch distributed ends. elapsed=1.84 s, mem usage=0.51 GB'));
  assert.deepEqual([ends?.path, ends?.line, ends?.verified], [RUNNER, 640, true]);
  // The same shape asked again (TP1's line) is searched anew now that the log named a file.
  const again = r.resolve(line('Init torch distributed begin.'));
  assert.deepEqual([again?.path, again?.line, again?.verified], [RUNNER, 561, true]);
});

test('a statement whose text is the whole message beats one that prints more around the same words', async () => {
  const r = await open();
  const whole = r.resolve(line('Shutting down.'));
  assert.deepEqual([whole?.path, whole?.line], ['python/sglang/srt/managers/detokenizer_manager.py', 301]);
  const longer = r.resolve(line('[DP0] Shutting down.'));
  assert.deepEqual([longer?.path, longer?.line], ['python/sglang/srt/entrypoints/engine.py', 1901]);
});

test('words more statements write than a line is compared with are not claimed, even in a file the log named', async () => {
  const r = await open();
  const named = r.resolve(line('Step 29 of the tools finished.'));
  assert.deepEqual([named?.path, named?.line], ['python/sglang/srt/tools/step_29.py', 12]);
  assert.equal(r.resolve(line('Done.')), null);
});

test('of two statements a line fits alike, the one whose words come first in it: its field holds a module name, not half the error', async () => {
  const r = await open();
  const registry = 'python/sglang/srt/models/registry.py';
  const processors = 'python/sglang/srt/managers/multimodal_processor.py';
  // An error text with its own colon (or full stop) fits both statements' wildcards.
  const a = r.resolve(line('Ignore import error when loading sglang.srt.models.mllama4. libcudart.so.12: cannot open shared object file: No such file or directory'));
  assert.deepEqual([a?.path, a?.line, a?.verified], [registry, 89, true]);
  const b = r.resolve(line('Ignore import error when loading sglang.srt.managers.multimodal_processors.mllama4: libcudart.so.12: cannot open shared object file. No such file'));
  assert.deepEqual([b?.path, b?.line, b?.verified], [processors, 32, true]);
  // Words the two files write alike still name neither.
  assertOnlyCandidates(r.resolve(line('Init torch distributed begin.')));
});
