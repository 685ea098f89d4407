// Reading logging calls out of Python source: what each call can print.
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { findLogStatements } from '../../../src/core/source/logStatements';
import { compilePattern, matchesPattern, patternText, WILD } from '../../../src/core/source/messagePattern';

function only(src: string) {
  const all = findLogStatements(src);
  assert.equal(all.length, 1, `expected one statement, got ${JSON.stringify(all)}`);
  return all[0];
}

function prints(src: string, message: string): boolean {
  return only(src).variants.some((v) => matchesPattern(compilePattern(v.pattern, v.openEnded), message));
}

test('printf-style call: %s becomes a value, the trailing period stays literal', () => {
  const s = only('logger.info("Added request %s.", request.request_id)\n');
  assert.deepEqual(s.variants[0].pattern, ['Added request ', WILD, '.']);
  assert.ok(prints('logger.info("Added request %s.", rid)\n', 'Added request chatcmpl-myrun-0001-9e1f0c2d.'));
  assert.ok(!prints('logger.info("Added request %s.", rid)\n', 'Added request chatcmpl-myrun-0001-9e1f0c2d'));
});

test('a call spanning lines reports the first line, and implicit concatenation joins the parts', () => {
  const src = ['x = 1', 'logger.debug(', '    "Request %s details: prompt: %r, "', '    "prompt_token_ids: %s, "', '    "prompt_embeds shape: %s.",', '    a, b, c, d,', ')', ''].join('\n');
  const s = only(src);
  assert.equal(s.line, 2);
  assert.equal(s.textLine, 3);
  assert.equal(s.endLine, 7);
  assert.equal(s.level, 'debug');
  assert.ok(prints(src, "Request chatcmpl-1 details: prompt: '<|im_start|>user\\nHi', prompt_token_ids: [1, 2], prompt_embeds shape: None."));
});

test('%% is a percent sign only when the call has arguments (logging skips formatting otherwise)', () => {
  assert.ok(prints('logger.info("GPU KV cache usage: %.1f%%", u)\n', 'GPU KV cache usage: 12.5%'));
  assert.ok(prints('logger.info("100%% sure")\n', '100%% sure'));
  assert.ok(!prints('logger.info("100%% sure")\n', '100% sure'));
});

test('f-strings: placeholders with conversions, format specs, nested quotes, doubled braces, debug =', () => {
  const src = `logger.warning(f"rid={req.rid!r} mem={avail:.2f} GB key={d["k"]} {{literal}} {n=}")\n`;
  assert.equal(patternText(only(src).variants[0].pattern), 'rid=… mem=… GB key=… {literal} n=…');
  assert.ok(prints(src, "rid='a' mem=21.37 GB key=v {literal} n=3"));
});

test('+ concatenation, .format() and .join() (a join is a value, not text)', () => {
  assert.equal(patternText(only('logger.info("a: " + str(x) + " b")\n').variants[0].pattern), 'a: … b');
  assert.equal(patternText(only('logger.info("Engine {:03d}: {}".format(i, s))\n').variants[0].pattern), 'Engine …: …');
  assert.equal(patternText(only('logger.info(prefix + ", ".join(parts), *args)\n').variants[0].pattern), '…');
});

test('logger.log(level, msg), *_once helpers, exception, and wrapper methods like self._log', () => {
  const all = findLogStatements([
    'logger.log(logging.INFO, "level %d", 3)',
    'logger.info_once("once %s", x, scope="local")',
    'logger.exception("WorkerProc hit an exception.")',
    'self._log(f"Receive: obj={obj}{headers_str}")',
    'warnings.warn("not a log call")',
    '',
  ].join('\n'));
  assert.deepEqual(all.map((s) => [s.method, s.level, patternText(s.variants[0].pattern), s.withTraceback]), [
    ['log', null, 'level …', false],
    ['info_once', 'info', 'once …', false],
    ['exception', 'exception', 'WorkerProc hit an exception.', true],
    ['_log', null, 'Receive: obj=…', false],
  ]);
});

test('comments and strings that look like calls are not calls', () => {
  const src = ['# logger.info("in a comment")', 's = "logger.info(\'in a string\')"', '"""', 'logger.info("in a docstring")', '"""', 'logger.info("real")', ''].join('\n');
  const all = findLogStatements(src);
  assert.deepEqual(all.map((s) => s.line), [6]);
});

test('a message built in a variable: unconditional += parts are required, conditional ones are gaps', () => {
  const src = [
    'def report(self):',
    '    msg = f"Prefill batch{iter_msg}, #new-seq: {n}, "',
    '    msg += f"#new-token: {t}, "',
    '    if disagg:',
    '        msg += f"#prealloc-req: {p}, "',
    '    msg += f"cuda graph: {g}, input throughput (token/s): {x:.2f}"',
    '    logger.info(msg)',
    '',
  ].join('\n');
  const s = only(src);
  assert.equal(s.line, 7);
  assert.equal(s.textLine, 2);
  assert.ok(prints(src, 'Prefill batch, #new-seq: 1, #new-token: 9, cuda graph: False, input throughput (token/s): 0.00'));
  assert.ok(prints(src, 'Prefill batch, #new-seq: 1, #new-token: 9, #prealloc-req: 0, cuda graph: False, input throughput (token/s): 0.00'));
  assert.ok(!prints(src, 'Prefill batch, #new-seq: 1, cuda graph: False'), 'the unconditional #new-token part is required');
});

test('a message assigned in branches gives one variant per branch', () => {
  const src = ['def f():', '    if mm:', '        msg = f"Finish: obj={o}"', '    else:', '        msg = f"Finish: obj={o}, out={out}"', '    logger.info(msg)', ''].join('\n');
  assert.deepEqual(only(src).variants.map((v) => v.textLine), [3, 5]);
});

test('a logger method bound to a name and called later is a logging call', () => {
  const src = ['def log(self):', '    log_fn = logger.info if busy else logger.debug', '    log_fn(', '        self.log_prefix + ", ".join(parts),', '        *args,', '    )', ''].join('\n');
  assert.equal(only(src).line, 3);
});

test('binary content is refused with a clear error, not parsed', () => {
  assert.throws(() => findLogStatements('logger.info("x")\0\0\x01'), /NUL bytes/);
});

test('unterminated strings and unbalanced brackets do not hang or throw', () => {
  const src = 'logger.info("never closed\nlogger.info(f"{x" \nlogger.info(((((\n';
  assert.doesNotThrow(() => findLogStatements(src));
});

test('vLLM stat logger shape: `log_fn = logger.info`, reassigned to debug when idle, then log_fn("Engine %03d: " …)', () => {
  const src = [
    'def log(self):',
    '    log_fn = logger.info',
    '    if not any((a, b)):',
    '        # Avoid log noise on an idle production system',
    '        log_fn = logger.debug',
    '    log_fn(',
    '        "Engine %03d: "',
    '        "Avg prompt throughput: %.1f tokens/s, "',
    '        "GPU KV cache usage: %.1f%%, "',
    '        "Prefix cache hit rate: %.1f%%",',
    '        self.engine_index, p, k, h,',
    '    )',
    '    self.spec_decoding_logging.log(log_fn=log_fn)',
    '',
  ].join('\n');
  assert.equal(only(src).line, 6);
  assert.ok(prints(src, 'Engine 000: Avg prompt throughput: 1.8 tokens/s, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%'));
});

test('call lines agree with Python\'s own parser (ast) on tricky source', { skip: spawnSync('python3', ['--version']).status !== 0 ? 'python3 not available' : false }, () => {
  const src = [
    'import logging',
    'logger = logging.getLogger(__name__)',
    'x = """',
    'logger.info("inside a docstring")',
    '"""',
    'def f(a, b):',
    '    logger.info(',
    '        "multi %s"',
    '        " line %d", a,',
    '        b)',
    '    logging.getLogger(__name__).exception("via getLogger")',
    '    s = f"{a!r:>{b}} {{}} {logger.info}"',
    '    logger.warning(f"nested {\'q\'} {d[\'k\']}")  # comment logger.info("no")',
    '    self.logger.debug(\'single\' \\',
    '        "continued")',
    "    r = r'\\'' ; logger.error(r\"raw \\d\")",
    '    logger.log(logging.INFO, "lvl")',
    '',
  ].join('\n');
  const script = [
    'import ast, sys, json',
    'tree = ast.parse(sys.stdin.read())',
    'print(json.dumps(sorted(n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("info","debug","warning","error","exception","log"))))',
  ].join('\n');
  const py = spawnSync('python3', ['-c', script], { input: src, encoding: 'utf8' });
  assert.equal(py.status, 0, py.stderr);
  assert.deepEqual(findLogStatements(src).map((s) => s.line), JSON.parse(py.stdout));
});

test('string.Template: a message made by Template(…).substitute(…) prints its text, $fields and %s as values', () => {
  // vLLM's logo (entrypoints/utils.py, 0.11 on): a multi-line Template, substituted with colours, then %-formatted.
  const src = [
    'def log_version_and_model(lgr, version, model_name):',
    '    if disabled:',
    '        message = "vLLM server version %s, serving model %s"',
    '    else:',
    '        logo = Template(',
    '            "\\n   ${w}█   █${r}\\n"',
    '            " ${o}▄▄${r} ${w}█ █${r}  version ${w}%s${r}\\n"',
    '            "  model   $w%s$r, cost $$0\\n"',
    '        )',
    '        message = logo.substitute(palette)',
    '    lgr.info(message, version, model_name)',
    '',
  ].join('\n');
  const s = only(src);
  assert.equal(s.variants.length, 2);
  assert.deepEqual(s.variants[1].pattern, ['\n   ', WILD, '█   █', WILD, '\n ', WILD, '▄▄', WILD, ' ', WILD, '█ █', WILD, '  version ', WILD, '\n  model   ', WILD, ', cost $0\n']);
  assert.deepEqual(s.variants[0].pattern, ['vLLM server version ', WILD, ', serving model ', WILD]);
});

test('an empty line of a multi-line message prints the empty string only', () => {
  assert.ok(matchesPattern(compilePattern([]), ''));
  assert.ok(!matchesPattern(compilePattern([]), 'Loaded LoRA adapter sql-lora'));
});

test('a conditional inside brackets is a value of its own operand, not of the whole message', () => {
  const s = only('logger.info("Using %s backend" + (" with CUDA graphs" if graphs else "") + ".", name)\n');
  assert.deepEqual(s.variants.map((v) => v.pattern), [['Using ', WILD, ' backend with CUDA graphs.'], ['Using ', WILD, ' backend.']]);
  // At the top level the whole message is the choice: `A if c else B + C` is `A if c else (B + C)`.
  assert.deepEqual(only('logger.info("a" if c else "b" + "c")\n').variants.map((v) => v.pattern), [['a'], ['bc']]);
});

test('a logger method passed as a parameter default is a logging call where the parameter is called', () => {
  // vLLM's SpecDecodingLogging.log / KVConnectorLogging.log: the stats logger passes its log_fn.
  const src = [
    'class SpecDecodingLogging:',
    '    def log(self, log_fn=logger.info):',
    '        if not self.num_drafts:',
    '            return',
    '        log_fn(',
    '            "SpecDecoding metrics: "',
    '            "Mean acceptance length: %.2f, "',
    '            "Accepted: %d tokens, "',
    '            "Avg Draft acceptance rate: %.1f%%",',
    '            mean_acceptance_length, num_accepted_tokens, rate,',
    '        )',
    '',
  ].join('\n');
  const s = only(src);
  assert.equal(s.line, 5);
  assert.ok(prints(src, 'SpecDecoding metrics: Mean acceptance length: 3.03, Accepted: 337 tokens, Avg Draft acceptance rate: 67.7%'));
  // A keyword argument of a call that is not a logger method binds nothing.
  assert.equal(findLogStatements('run(log_fn=print)\nlog_fn("x")\n').length, 0);
});
