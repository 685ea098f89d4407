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
