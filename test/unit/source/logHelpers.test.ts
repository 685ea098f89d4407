// Statements printed through logging helpers (issue 10): SGLang logs many start-up lines through
// `log_info_on_rank0(logger, msg)`, `print_warning_once(msg)` (stacklevel=2) and methods such as
// request_logger's `self._log(msg)`. Python prints the helper's own logging call; the statement a
// user wants is the caller's, at its first line. Shapes from sgl-project/sglang (see
// test/fixtures/real-logs/README.md, helpers-sglang.corpus).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { buildStatementIndex, StatementIndex } from '../../../src/core/source/statementIndex';
import { findHelperCalls, findLogStatements, type LogHelper } from '../../../src/core/source/logStatements';
import { patternText } from '../../../src/core/source/messagePattern';
import { TempDirs, writeFiles } from './fixtureCheckout';

const tmp = new TempDirs();
after(() => tmp.cleanup());

const UTILS = [
  'import logging',
  'logger = logging.getLogger(__name__)',
  '',
  'def log_info_on_rank0(logger, msg):',
  '    from sglang.srt.distributed import get_tensor_model_parallel_rank',
  '',
  '    if get_tensor_model_parallel_rank() == 0:',
  '        logger.info(msg)',
  '',
  'def print_warning_once(msg: str) -> None:',
  '    # Set the stacklevel to 2 to print the caller\'s line info',
  '    logger.warning(msg, stacklevel=2)',
  '',
  'class Prefill:',
  '    def _log_rank(self, msg):',
  '        logger.info(f"[prefill rank {self.tp_rank}] {msg}")',
  '',
  'def configure(level):',
  '    logger.info(level)',
  '',
  'def rank_log(rank, level, msg):',
  '    if rank == 0:',
  '        logger.log(level, msg)',
  '',
].join('\n');

const CALLER = [
  'import logging',
  'from sglang.srt.utils import log_info_on_rank0, print_warning_once',
  'logger = logging.getLogger(__name__)',
  '',
  'class Runner:',
  '    def capture(self):',
  '        log_info_on_rank0(logger, f"Capture cuda graph bs {self.capture_bs}")',
  '        print_warning_once(',
  '            "No data_token_pairs provided, "',
  '            "RadixAttention might be influenced."',
  '        )',
  '        log_info_on_rank0(',
  '            logger,',
  '            f"AdaptiveSpeculativeParams initialized: "',
  '            f"steps={s.current_steps}, "',
  '            f"candidate_steps={s.candidate_steps}",',
  '        )',
  '        print_warning_once(msg="Using %s as attention backend" % backend)',
  '        self._log_rank("Bootstrap server started.")',
  '        configure("not a message")',
  '        rank_log(self.rank, logging.INFO, f"Warmup done in {t:.2f} s")',
  '',
].join('\n');

function helpersOf(src: string): LogHelper[] {
  const helpers: LogHelper[] = [];
  findLogStatements(src, helpers);
  return helpers;
}

test('a function that logs one of its parameters is a logging helper, with the text it adds around it', () => {
  const byName = new Map(helpersOf(UTILS).map((h) => [h.name, h]));
  // `configure(level)` logs its parameter as the whole message: a helper too, whatever its name.
  assert.deepEqual([...byName.keys()].sort(), ['_log_rank', 'configure', 'log_info_on_rank0', 'print_warning_once', 'rank_log']);
  // `logger.log(level, msg)`: the message is its second argument, the level is not known.
  assert.equal(byName.get('rank_log')!.index, 2);
  assert.equal(byName.get('rank_log')!.level, null);
  assert.equal(byName.get('log_info_on_rank0')!.index, 1);
  assert.equal(byName.get('print_warning_once')!.level, 'warning');
  const rank = byName.get('_log_rank')!;
  assert.equal(rank.method, true);
  assert.equal(rank.index, 0);
  assert.equal(patternText(rank.before), '[prefill rank …] ');
});

test("the helpers' callers are statements at the call's first line, with what they pass as the message", () => {
  const helpers = new Map<string, LogHelper[]>();
  for (const h of helpersOf(UTILS)) helpers.set(h.name, [...(helpers.get(h.name) ?? []), h]);
  const calls = findHelperCalls(CALLER, helpers);
  const got = calls.map((s) => `${s.line} ${s.level} ${s.variants.map((v) => patternText(v.pattern)).join(' | ')}`);
  assert.deepEqual(got, [
    '7 info Capture cuda graph bs …',
    '8 warning No data_token_pairs provided, RadixAttention might be influenced.',
    '12 info AdaptiveSpeculativeParams initialized: steps=…, candidate_steps=…',
    '18 warning Using … as attention backend',
    '19 info [prefill rank …] Bootstrap server started.',
    '20 info not a message',
    '21 null Warmup done in … s',
  ]);
});

test('the checkout index finds a line printed through a helper in another file, at the caller', async () => {
  const root = tmp.make();
  writeFiles(root, { 'sglang/srt/utils.py': UTILS, 'sglang/srt/model_executor/cuda_graph_runner.py': CALLER });
  const data = await buildStatementIndex(root, ['sglang/srt/utils.py', 'sglang/srt/model_executor/cuda_graph_runner.py'], 'sglang', 'k', { workerScript: null });
  const index = new StatementIndex(data);
  const [best] = index.search('Capture cuda graph bs [1, 2, 4, 8, 12, 16, 24, 32]');
  assert.equal(`${best.statement.path}:${best.statement.line}`, 'sglang/srt/model_executor/cuda_graph_runner.py:7');
  const [rank] = index.search('[prefill rank 0] Bootstrap server started.');
  assert.equal(`${rank.statement.path}:${rank.statement.line}`, 'sglang/srt/model_executor/cuda_graph_runner.py:19');
});

test('building the index reads each checkout file once, the helpers\' callers too, and finds the same statements', async (t) => {
  const root = tmp.make();
  writeFiles(root, { 'sglang/srt/utils.py': UTILS, 'sglang/srt/model_executor/cuda_graph_runner.py': CALLER });
  const files = ['sglang/srt/utils.py', 'sglang/srt/model_executor/cuda_graph_runner.py'];
  const reads = new Map<string, number>();
  const original = fs.readFileSync;
  const read = t.mock.method(fs, 'readFileSync', (...args: Parameters<typeof fs.readFileSync>) => {
    const path = String(args[0]);
    if (path.startsWith(root)) reads.set(path.slice(root.length + 1), (reads.get(path.slice(root.length + 1)) ?? 0) + 1);
    return original(...args);
  });
  const data = await buildStatementIndex(root, files, 'sglang', 'k', { workerScript: null });
  read.mock.restore();
  assert.deepEqual(Object.fromEntries(reads), { 'sglang/srt/utils.py': 1, 'sglang/srt/model_executor/cuda_graph_runner.py': 1 });
  // The callers are statements, at their first line, as when each file was read twice.
  const callers = data.statements.filter((s) => s.path.endsWith('cuda_graph_runner.py')).map((s) => s.line);
  assert.ok(callers.includes(7) && callers.includes(19), callers.join(','));
});

// SGLang 0.5.23's mem_cache/hicache_storage.py (HiCacheFile.get) and lora/eviction_policy.py (LRU's remove): methods
// named as a dict's and a list's own, logging their parameter inside a sentence. Taken as helpers, every `x.get("k")` and
// `xs.remove(y)` of the tree was a statement (5,407 of 11,703 in 0.5.23's index, none printing anything).
const STORAGE = [
  'import logging',
  'logger = logging.getLogger(__name__)',
  '',
  'class HiCacheFile:',
  '    def get(self, key, target_location=None, target_sizes=None):',
  '        if not self.exists(key):',
  '            logger.warning(f"Failed to fetch {key} from HiCacheFile storage.")',
  '            return None',
  '',
  'class LRUEvictionPolicy:',
  '    def remove(self, uid):',
  '        logger.debug(f"Removed LoRA {uid} from LRU tracking")',
  '',
  '    def mark_used(self, uid):',
  '        logger.debug(f"LoRA {uid} marked as used")',
  '',
].join('\n');

test("a method named as a dict's, list's or file's own (get, remove, …) is no helper: its name's calls are the built-ins'", () => {
  const names = helpersOf(STORAGE).map((h) => h.name);
  assert.deepEqual(names, ['mark_used']);
  const helpers = new Map<string, LogHelper[]>();
  for (const h of helpersOf(STORAGE)) helpers.set(h.name, [...(helpers.get(h.name) ?? []), h]);
  const caller = 'def f(cfg, xs, policy):\n    model = cfg.get("model")\n    xs.remove("base")\n    policy.mark_used("base")\n';
  assert.deepEqual(findHelperCalls(caller, helpers).map((s) => s.line), [4]);
});
