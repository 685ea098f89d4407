// Lines of a wrapper's `module.func:` layout (NVIDIA Dynamo 0.2/0.3 printing vLLM's records as
// `<ISO>Z  LEVEL module.func: msg`): the statement index knows each call's function, and a line the
// parser left another program's is the engine's only when the checkout has a statement in that
// module and function printing exactly its message at its level. Checked on the real vLLM 0.8.5
// wheel (the release Dynamo 0.2/0.3's patched vLLM followed), and without a checkout (no change).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findLogStatements } from '../../../src/core/source/logStatements';
import { createSourceResolver } from '../../../src/core/source';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { annotateText } from '../../../src/core/session/logSession';
import { realReleaseTrees } from './releaseTrees';
import { TempDirs } from './fixtureCheckout';

test('each logging call knows the function it is in, and none at module or class level', () => {
  const src = [
    'import logging',
    'logger = logging.getLogger(__name__)',
    'def outer():',
    '    def inner():',
    '        logger.info("in inner")',
    '    logger.info("in outer")',
    'x = 1',
    'if x:',
    '    logger.info("at module level")',
    'class Monitor:',
    '    logger.info("in the class body")',
    '    @property',
    '    def run(self):',
    '        for w in self.workers:',
    '            if w.dead:',
    '                logger.error("Worker %s died", w)',
    '        logger.info("after the loop")',
    '    async def serve(self):',
    '        logger.warning("serving")',
    '',
  ].join('\n');
  const byText = Object.fromEntries(findLogStatements(src).map((s) => [String(s.variants[0].pattern[0]).trim(), s.func ?? null]));
  assert.deepEqual(byText, {
    'in inner': 'inner', 'in outer': 'outer', 'at module level': null, 'in the class body': null,
    'Worker': 'run', 'after the loop': 'run', serving: 'serve',
  });
});

// ai-dynamo/dynamo#1492 and #1373 (vLLM 0.8 under Dynamo), #1235 / #1655 (Dynamo's own lines in the same layout).
const DYNAMO_LOG = [
  '025-06-12T11:14:08.162Z ERROR multiproc_worker_utils.run: Worker VllmWorkerProcess pid 8773 died, exit code: -15   ',
  '2025-06-12T11:14:08.162Z  INFO multiproc_worker_utils.run: Killing local vLLM worker processes   ',
  '2025-06-03T23:58:28.344Z  INFO model_runner.capture_model: Graph capturing finished in 15 secs, took 0.24 GiB   ',
  '2025-05-28T06:36:23.583Z  INFO resource._discover_gpus: Discovered 4 GPUs   ',
  '2025-06-25T10:49:23.882Z  WARN utils.save_dynamo_state: Saved state to /root/.dynamo/state/dynamo.json   ',
  // The same message at a level its statement does not log at (*format*): no statement printed it.
  '2025-06-12T11:14:08.162Z DEBUG multiproc_worker_utils.run: Killing local vLLM worker processes',
  // Its text, another function of the module (*format*).
  '2025-06-12T11:14:08.162Z  INFO multiproc_worker_utils.shutdown: Killing local vLLM worker processes',
  '',
].join('\n');

test('without a checkout the wrapper\'s lines stay another program\'s', () => {
  const { records } = annotateText(DYNAMO_LOG);
  assert.deepEqual(records.map((r) => r.engine), Array(7).fill('other'));
});

test('on the real vLLM 0.8.5 tree, vLLM\'s statements in Dynamo\'s layout are vLLM\'s lines, verified where they are, and no other line is', async (t) => {
  const roots = await realReleaseTrees(t, [{ engine: 'vllm', version: '0.8.5' }]);
  if (!roots) return;
  const tmp = new TempDirs();
  t.after(() => tmp.cleanup());
  const resolver = await createSourceResolver(roots[0], 'vllm', { statementIndex: 'eager', cacheDir: tmp.make() });
  const locator = new RecordSourceLocator({ ready: (e) => (e === 'vllm' ? resolver : null) });
  const { records } = annotateText(DYNAMO_LOG);
  const seen = records.map((r) => {
    const at = locator.locate(r);
    return { engine: r.engine, level: r.level, at: at ? `${at.location.path}:${at.location.line}${at.location.verified ? ' verified' : ''}` : null };
  });
  assert.deepEqual(seen, [
    { engine: 'vllm', level: 'ERROR', at: 'vllm/executor/multiproc_worker_utils.py:120 verified' },
    { engine: 'vllm', level: 'INFO', at: 'vllm/executor/multiproc_worker_utils.py:124 verified' },
    // Not V1's gpu_model_runner.py, whose capture_model prints the same text: the module names the file.
    { engine: 'vllm', level: 'INFO', at: 'vllm/worker/model_runner.py:1592 verified' },
    { engine: 'other', level: null, at: null },
    { engine: 'other', level: null, at: null },
    { engine: 'other', level: null, at: null },
    { engine: 'other', level: null, at: null },
  ]);
  // The message is what follows the layout's header, the padding a terminal copy kept taken off.
  assert.equal(records[1].message, 'Killing local vLLM worker processes');
  assert.equal(records[1].func, 'run');
});
