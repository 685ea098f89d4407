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
    'vllm/distributed/utils.py': pythonFile({ 92: '    logger.info(msg)', 299: '    logger.info(msg)' }),
    // 0.11 on: the logo, one multi-line message from a string.Template, logged at line 299.
    'vllm/entrypoints/utils.py': pythonFile({
      288: [
        'def log_version_and_model(lgr, version, model_name):',
        '    if disabled:',
        '        message = "vLLM server version %s, serving model %s"',
        '    else:',
        '        logo = Template(',
        '            "\\n       ${w}█     █     █▄   ▄█${r}\\n"',
        '            " ${o}▄▄${r} ${b}▄█${r} ${w}█     █     █ ▀▄▀ █${r}  version ${w}%s${r}\\n"',
        '            "  ${o}█${r}${b}▄█▀${r} ${w}█     █     █     █${r}  model   ${w}%s${r}\\n"',
        '            "   ${b}▀▀${r}  ${w}▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀${r}\\n"',
        '        )',
        '        message = logo.substitute(palette)',
        '    lgr.info(message, version, model_name)',
      ].join('\n'),
    }),
    // V0's config line: the format string, then some sixty arguments.
    'vllm/engine/llm_engine.py': pythonFile({
      200: ['        logger.info(', '            "Initializing an LLM engine (v%s) with config: "', '            "model=%r, seed=%d)",', ...Array.from({ length: 90 }, (_, i) => `            arg_${i},`), '        )'].join('\n'),
    }),
    // 0.6: print_warning_once logs with stacklevel=2, so the caller's line is printed.
    'vllm/model_executor/layers/quantization/fp8.py': pythonFile({
      52: '            print_warning_once("Detected fp8 checkpoint. Please note that the "\n                               "format is experimental and subject to change.")',
    }),
    'vllm/lora/utils.py': pythonFile({ 92: '    logger.debug("%s", msg)', 299: '    logger.debug("%s", msg)' }),
    // 0.2/0.3: a Ray worker's failure, logged with its traceback; a plain call beside it.
    'vllm/engine/ray_utils.py': pythonFile({
      44: '            logger.exception(\n                f"Error executing method {method}. "\n                "This might cause deadlock in distributed execution.")',
      60: '        logger.info(f"Ray worker {rank} ready.")',
    }),
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


test('the lines of a multi-line message pasted without their line-break marks open the call that prints them, not a call that prints anything', () => {
  const lines = [
    '(APIServer pid=1) INFO 04-23 22:37:35 [utils.py:299] Rank 0 ready: tcp://10.0.0.2:29500',
    '(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:299] ',
    '(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:299]        █     █     █▄   ▄█',
    '(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.19.2rc1.dev8+g4b7f5ea1a',
    '(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:299]   █▄█▀ █     █     █     █  model   RedHatAI/gemma-4-26B-A4B-it-NVFP4',
    '(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:299]    ▀▀  ▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀',
    '(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:299] ',
  ];
  const got = lines.map((l) => { const loc = resolve(l); return loc && `${loc.path}:${loc.line}${loc.verified ? '' : '?'}`; });
  assert.deepEqual(got, ['vllm/distributed/utils.py:299', ...Array(6).fill('vllm/entrypoints/utils.py:299')]);
});

test('a line of the logo printed a few lines away (another commit) is found by its own line of the text', () => {
  const loc = resolve('(APIServer pid=1) INFO 04-23 22:37:36 [utils.py:305]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.19.0');
  assert.deepEqual(loc && { path: loc.path, line: loc.line, verified: loc.verified, drift: loc.drift }, { path: 'vllm/entrypoints/utils.py', line: 299, verified: true, drift: -6 });
});

test('a printed line deep inside a long call (older Pythons) names the call', () => {
  const loc = resolve('INFO 06-10 12:00:09 llm_engine.py:290] Initializing an LLM engine (v0.5.4) with config: model=\'m\', seed=0)');
  // The printed line is the call's (no drift), not a moved statement.
  assert.deepEqual(loc && { path: loc.path, line: loc.line, verified: loc.verified, drift: loc.drift }, { path: 'vllm/engine/llm_engine.py', line: 200, verified: true, drift: 0 });
});

test('a print_warning_once caller (stacklevel=2 prints its line) is the statement of the line it printed', () => {
  for (const n of [52, 53]) {
    const loc = resolve(`WARNING 02-14 22:25:52 fp8.py:${n}] Detected fp8 checkpoint. Please note that the format is experimental and subject to change.`);
    assert.deepEqual(loc && { path: loc.path, line: loc.line, verified: loc.verified, drift: loc.drift }, { path: 'vllm/model_executor/layers/quantization/fp8.py', line: 52, verified: true, drift: 0 });
  }
});

test('a call that prints the text beats one of the printed level that prints any text (a level read wrong does not move the line)', () => {
  const loc = resolve('(APIServer pid=1) DEBUG 04-23 22:37:36 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.19.2rc1');
  assert.equal(loc && `${loc.path}:${loc.line}`, 'vllm/entrypoints/utils.py:299');
});

test('a traceback pasted without its line-break marks (vLLM repeats the header on each line): its lines are the exception call\'s, verified; not a plain call\'s', () => {
  const lines = [
    '(RayWorkerVllm pid=1135) ERROR 04-03 14:52:49 ray_utils.py:44] Error executing method load_model. This might cause deadlock in distributed execution.',
    '(RayWorkerVllm pid=1135) ERROR 04-03 14:52:49 ray_utils.py:44] Traceback (most recent call last):',
    '(RayWorkerVllm pid=1135) ERROR 04-03 14:52:49 ray_utils.py:44]   File "/usr/local/lib/python3.10/dist-packages/vllm/engine/ray_utils.py", line 37, in execute_method',
    '(RayWorkerVllm pid=1135) ERROR 04-03 14:52:49 ray_utils.py:44]     return executor(*args, **kwargs)',
    '(RayWorkerVllm pid=1135) ERROR 04-03 14:52:49 ray_utils.py:44] torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 112.00 MiB.',
  ];
  for (const line of lines) {
    const loc = resolve(line);
    assert.deepEqual(loc && [loc.path, loc.line, loc.verified], ['vllm/engine/ray_utils.py', 44, true], line);
  }
  const plain = resolve('(RayWorkerVllm pid=1135) INFO 04-03 14:52:49 ray_utils.py:60] Traceback (most recent call last):');
  assert.deepEqual(plain && [plain.line, plain.verified], [60, false], 'a call that prints no traceback does not print one');
});
