// Statement shapes of older engine releases that the index must read to find the line that
// printed a message: a variable spliced into an f-string, a trailing space the printed line
// lost, and the module path a logging layout prints instead of the file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findLogStatements } from '../../../src/core/source/logStatements';
import { compilePattern, cutShortWeight, matchesPattern, patternText } from '../../../src/core/source/messagePattern';
import { createSourceResolver } from '../../../src/core/source/index';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';

// SGLang's schedule_batch.py of 2025 built the request's timing line in two steps.
const REQ_TIME_STATS = [
  '    def log_time_stats(self):',
  '        prefix = f"Req Time Stats(rid={self.rid}{bootstrap_info}, input len={len(self.origin_input_ids)}, output len={len(self.output_ids)}, type={self.time_stats.disagg_mode_str()})"',
  '        logger.info(f"{prefix}: {self.time_stats.convert_to_duration()}")',
].join('\n');

test('an f-string field that is a local variable prints that variable\'s own text', () => {
  const [s] = findLogStatements(pythonFile({ 10: REQ_TIME_STATS }));
  assert.equal(s.line, 12);
  assert.equal(patternText(s.variants[0].pattern), 'Req Time Stats(rid=…, input len=…, output len=…, type=…): …');
  const printed = 'Req Time Stats(rid=23b2f003434b476aa6d3bf6706e710c0, input len=38, output len=484, type=unified): queue_duration=0.00ms, forward_duration=12.38ms, start_time=0.0';
  assert.ok(matchesPattern(compilePattern(s.variants[0].pattern), printed));
  // A field with a format spec or a call is a value, not the variable's text.
  const [t] = findLogStatements(pythonFile({ 10: '        name = "x"\n        logger.info(f"{name!r}: {name:>8} done")' }));
  assert.equal(patternText(t.variants[0].pattern), '…: … done');
});

test('a statement whose text ends in a space matches the printed line without it (terminals and pastes drop it)', () => {
  const [s] = findLogStatements(pythonFile({ 10: '        logger.info(f"Decode batch. #running-req: {n}, #queue-req: {q}, ")' }));
  const c = compilePattern(s.variants[0].pattern);
  assert.ok(matchesPattern(c, 'Decode batch. #running-req: 8, #queue-req: 0,'));
  assert.ok(!matchesPattern(c, 'Decode batch. #running-req: 8, #queue-req: 0; more'));
});

test('a line cut short is known by the text it still shows; a line missing a part is not', () => {
  const [s] = findLogStatements(pythonFile({ 10: '        logger.info(\n            "Avg prompt throughput: %.1f tokens/s, "\n            "Avg generation throughput: %.1f tokens/s, "\n            "Running: %d reqs, Swapped: %d reqs, Pending: %d reqs",\n            a, b, c, d, e)' }));
  const c = compilePattern(s.variants[0].pattern);
  // Cut inside a literal (vllm-project/vllm#3094's title field) and inside a value.
  assert.ok(cutShortWeight(c, 'Avg prompt throughput: 0.0 tokens/s, Avg generation thro') >= 40);
  assert.ok(cutShortWeight(c, 'Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 12') >= 60);
  // Whole lines are matchesPattern's to judge; a line that skips a part and goes on is another wording.
  assert.equal(cutShortWeight(c, 'Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 1.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs'), -1);
  assert.equal(cutShortWeight(c, 'Avg prompt throughput: 0.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs'), -1);
  assert.equal(cutShortWeight(c, 'Something else entirely'), -1);
});

// SGLang's scheduler_metrics_mixin.py (mid-2025 to late 2025) picks the token-usage part of its
// batch lines in branches (hybrid SWA, hybrid linear attention, plain) and splices it into the line.
const DECODE_STATS = [
  '    def log_decode_stats(self, can_run_cuda_graph):',
  '        if self.is_hybrid:',
  '            token_usage_msg = (',
  '                f"#full token: {full_num_used}, "',
  '                f"full token usage: {full_token_usage:.2f}, "',
  '                f"#swa token: {swa_num_used}, "',
  '                f"swa token usage: {swa_token_usage:.2f}, "',
  '            )',
  '        elif self.is_hybrid_gdn:',
  '            token_usage_msg = f"#full token: {full_num_used}, full token usage: {full_token_usage:.2f}, mamba num: {mamba_used}, mamba usage: {mamba_usage:.2f}, "',
  '        else:',
  '            token_usage_msg = f"#token: {num_used}, token usage: {token_usage:.2f}, "',
  '        iter_msg = f" [{self.forward_ct}]" if LOG_FORWARD_ITERS else ""',
  '        msg = f"Decode batch{iter_msg}, #running-req: {num_running_reqs}, {token_usage_msg}"',
  '        msg += (',
  '            f"cuda graph: {can_run_cuda_graph}, "',
  '            f"gen throughput (token/s): {self.last_gen_throughput:.2f}, "',
  '            f"#queue-req: {len(self.waiting_queue)}, "',
  '        )',
  '        logger.info(msg)',
].join('\n');

test('a variable assigned in branches and spliced into the message prints any branch\'s text', () => {
  const [s] = findLogStatements(pythonFile({ 200: DECODE_STATS }));
  assert.equal(s.line, 219);
  const matches = (line: string) => s.variants.some((v) => matchesPattern(compilePattern(v.pattern, v.openEnded), line));
  // Each branch's line as the scheduler prints it (a gpt-oss SWA model, Qwen3-Next, a dense model).
  assert.ok(matches('Decode batch, #running-req: 1, #full token: 4242, full token usage: 0.01, #swa token: 4242, swa token usage: 0.02, cuda graph: True, gen throughput (token/s): 75.23, #queue-req: 0,'));
  assert.ok(matches('Decode batch, #running-req: 2, #full token: 1200, full token usage: 0.00, mamba num: 4, mamba usage: 0.01, cuda graph: True, gen throughput (token/s): 101.50, #queue-req: 0,'));
  assert.ok(matches('Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0,'));
  assert.ok(matches('Decode batch [1234], #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0,'));
  // Text no branch prints is still refused.
  assert.ok(!matches('Decode batch, #running-req: 5, #pages: 20, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0,'));
  // A variable reassigned in sequence holds its last text only; one overridden under a condition holds either.
  const [t] = findLogStatements(pythonFile({ 10: '        part = "first"\n        part = "second"\n        logger.info(f"Using {part} backend")' }));
  assert.deepEqual(t.variants.map((v) => patternText(v.pattern)), ['Using second backend']);
  const [u] = findLogStatements(pythonFile({ 10: '        part = "default"\n        if fast:\n            part = "fast"\n        logger.info(f"Using {part} backend")' }));
  assert.deepEqual(u.variants.map((v) => patternText(v.pattern)), ['Using default backend', 'Using fast backend']);
});

test('a conditional expression as the message prints either text', () => {
  const [s] = findLogStatements(pythonFile({ 10: [
    '        logger.info(',
    '            "Overlap scheduler is disabled because of using eagle speculative decoding."',
    '            if self.spec_algorithm.is_eagle()',
    '            else "Overlap scheduler is disabled for embedding models."',
    '        )',
  ].join('\n') }));
  assert.deepEqual(s.variants.map((v) => patternText(v.pattern)), [
    'Overlap scheduler is disabled because of using eagle speculative decoding.',
    'Overlap scheduler is disabled for embedding models.',
  ]);
  // A comprehension is a value, not a choice.
  const [t] = findLogStatements(pythonFile({ 10: '        logger.info(", ".join(x for x in names if x else y))' }));
  assert.deepEqual(t.variants.map((v) => patternText(v.pattern)), ['…']);
});

test('a module\'s text constant logged by name prints the constant\'s text, unless a parameter of that name shadows it', () => {
  // The idiom of public code such as `logging.debug(RECURRENT_DROPOUT_WARNING_MSG)` (index id 30935792694).
  const src = [
    'import logging',
    'logger = logging.getLogger(__name__)',
    'UNBALANCED_MSG = (',
    '    "The memory capacity is unbalanced. "',
    '    "Some GPUs may be occupied by other processes."',
    ')',
    'def check(self):',
    '    logger.warning(UNBALANCED_MSG)',
    '    logger.warning(f"{UNBALANCED_MSG} min={self.min_mem}")',
    'def report(UNBALANCED_MSG):',
    '    logger.warning(UNBALANCED_MSG)',
  ].join('\n');
  assert.deepEqual(findLogStatements(src).map((s) => [s.line, patternText(s.variants[0].pattern)]), [
    [8, 'The memory capacity is unbalanced. Some GPUs may be occupied by other processes.'],
    [9, 'The memory capacity is unbalanced. Some GPUs may be occupied by other processes. min=…'],
    [11, '…'],
  ]);
});

test('text appended in one branch belongs to that branch\'s message; text appended after the branches to every one', () => {
  const [s] = findLogStatements(pythonFile({ 10: [
    '    def pick(self, fast):',
    '        if fast:',
    '            msg = "Using the fast path"',
    '        else:',
    '            msg = "Using the slow path"',
    '            msg += " because the cache is cold"',
    '        msg += "."',
    '        logger.info(msg)',
  ].join('\n') }));
  assert.deepEqual(s.variants.map((v) => patternText(v.pattern)), ['Using the fast path.', 'Using the slow path because the cache is cold.']);
});

test('a message extended by reassigning it (`msg = msg + …`) prints the whole text, not the text a later line replaced', () => {
  const [s] = findLogStatements(pythonFile({ 10: [
    '    def report(self, avail):',
    '        msg = "Memory pool end."',
    '        msg = msg + f" avail mem={avail:.2f} GB"',
    '        logger.info(msg)',
  ].join('\n') }));
  assert.deepEqual(s.variants.map((v) => patternText(v.pattern)), ['Memory pool end. avail mem=… GB']);
  assert.ok(matchesPattern(compilePattern(s.variants[0].pattern), 'Memory pool end. avail mem=61.02 GB'));
});

const tmp = new TempDirs();
let root = '';
before(() => {
  root = tmp.make();
  initRepo(root, {
    'python/pyproject.toml': '[project]\nname = "sglang"\n',
    'python/sglang/__init__.py': '',
    'python/sglang/srt/managers/schedule_batch.py': pythonFile({ 700: REQ_TIME_STATS }),
    'python/sglang/srt/managers/tokenizer_manager.py': pythonFile({ 3128: '            logger.info(\n                "Abort request for rid=%s not found in rid_to_state; likely already finished/removed.",\n                rid,\n            )' }),
    // The same words in another module: only the named module may claim the line.
    'python/sglang/srt/entrypoints/http_server.py': pythonFile({ 40: '    logger.info("Abort request for rid=%s not found in rid_to_state; likely already finished/removed.", rid)' }),
  });
});
after(() => tmp.cleanup());

test('a layout\'s logger name (a module path) names the file; with its lineno the statement is verified there', async () => {
  const r = await createSourceResolver(root, 'sglang', { statementIndex: 'eager', cacheDir: null, workerScript: null });
  const message = 'Abort request for rid=abc not found in rid_to_state; likely already finished/removed.';
  const withLine = r.resolve({ engine: 'sglang', fileinfo: null, lineno: 3128, message, hop: 'S8', module: 'sglang.srt.managers.tokenizer_manager' });
  assert.deepEqual(withLine && [withLine.path, withLine.line, withLine.verified], ['python/sglang/srt/managers/tokenizer_manager.py', 3128, true]);
  const nameOnly = r.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message, hop: null, module: 'sglang.srt.entrypoints.http_server' });
  assert.deepEqual(nameOnly && [nameOnly.path, nameOnly.line, nameOnly.verified], ['python/sglang/srt/entrypoints/http_server.py', 40, true]);
  const stats = r.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: 'Req Time Stats(rid=r1, input len=3, output len=4, type=unified): queue_duration=0.10ms', hop: 'S5' });
  assert.deepEqual(stats && [stats.path, stats.line, stats.verified], ['python/sglang/srt/managers/schedule_batch.py', 702, true]);
});
