// SGLang prints no file:line: its lines are matched to statements by text, through the
// hop table's citations and through the index of every logging statement in the checkout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { initRepo, SGLANG_FILES, splitLogLine, TempDirs } from './fixtureCheckout';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source');
const tmp = new TempDirs();
let resolver: CheckoutSourceResolver;

// The constructed log's lines in order, with the hop each one is (spec/hops.json).
const LOG_LINES = readFileSync(join(FIXTURES, 'sglang_tp2_request.log'), 'utf8').split('\n').filter((l) => l.startsWith('['));
const HOPS = ['S9', 'S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S8'];
// S7 is not in the constructed log; this is its format string rendered.
const S7_LINE = '[2026-08-21 22:50:10.512] Streaming backlog: rid=my-req-1, coalescing 23 queued chunks into one. This may inflate P99 ITL for affected requests.';

const MR = 'python/sglang/srt/managers/scheduler_components/metrics_reporter.py';
const RL = 'python/sglang/srt/utils/request_logger.py';
const TM = 'python/sglang/srt/managers/tokenizer_manager.py';

before(async () => {
  const root = tmp.make();
  initRepo(root, SGLANG_FILES);
  resolver = await createSourceResolver(root, 'sglang', { statementIndex: 'eager', workerScript: null, cacheDir: null });
});
after(() => tmp.cleanup());

function message(line: string): string {
  const p = splitLogLine(line);
  assert.ok(p, line);
  return p.message;
}

test('S1–S9 with their hop ids resolve to the hop table citations, verified by the f-string text', () => {
  assert.equal(LOG_LINES.length, 8);
  const got = [...LOG_LINES, S7_LINE].map((line, i) => {
    const loc = resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: message(line), hop: i < 8 ? HOPS[i] : 'S7' });
    assert.ok(loc?.verified, `unverified: ${line}`);
    return `${loc.path}:${loc.line} ${loc.method} ${loc.drift}`;
  });
  assert.deepEqual(got, [
    'python/sglang/srt/managers/scheduler.py:1095 hop-table 0',
    `${RL}:155 hop-table 0`,
    `${RL}:109 hop-table 0`,
    `${MR}:653 hop-table 0`,
    `${MR}:916 hop-table 0`,
    'python/sglang/srt/managers/schedule_batch.py:1812 hop-table 0',
    `${RL}:190 hop-table 0`,
    `${TM}:3128 hop-table 0`,
    `${TM}:1619 hop-table 0`,
  ]);
});

test('without hop ids, the statement index finds the same statements, at the first line of the call (what %(lineno)d prints)', () => {
  assert.equal(resolver.indexState(), 'ready');
  const got = [...LOG_LINES, S7_LINE].map((line) => {
    const loc = resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: message(line), hop: null });
    assert.ok(loc?.verified, `not found: ${line}`);
    assert.equal(loc.method, 'statement-index');
    return `${loc.path}:${loc.line}`;
  });
  assert.deepEqual(got, [
    'python/sglang/srt/managers/scheduler.py:1095',
    `${RL}:155`,
    `${RL}:109`,
    `${MR}:653`,
    `${MR}:916`,
    'python/sglang/srt/managers/schedule_batch.py:1812',
    `${RL}:190`,
    `${TM}:3128`,
    `${TM}:1619`,
  ]);
});

test('specific statements beat generic ones that also match (f"Receive: {obj}", "Abort request %s")', () => {
  const receive = resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: "Receive: obj=GenerateReqInput(rid='x', stream=True)", hop: null });
  assert.equal(receive?.path, RL);
  const generic = resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: 'Receive: something else', hop: null });
  assert.equal(generic?.path, 'python/sglang/srt/entrypoints/http_server.py', 'only the generic one can print this');
  // f"{name}, {value}" can print almost anything but has too little text to claim a line.
  assert.equal(resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: 'alpha, beta', hop: null }), null);
});

test('optional message parts (disaggregation fields, MFU) still match the Prefill statement; missing required parts do not', () => {
  const withExtras = 'Prefill batch [1234], #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, #prealloc-req: 0, #inflight-req: 0, cuda graph: False, input throughput (token/s): 0.00, MFU: 0.12';
  const loc = resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: withExtras, hop: null });
  assert.equal(`${loc?.path}:${loc?.line}`, `${MR}:653`);
  const truncated = resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: 'Prefill batch, #new-seq: 1, #queue-req: 0', hop: 'S3' });
  assert.equal(truncated, null);
});

// The 1 MB line: a catastrophic regex would hang, and the runner's timeout (far above any healthy
// run) ends it; its speed is a figure of bench/source.mjs, not a test.
test('a line of another program entirely is not attributed to SGLang', { timeout: 30_000 }, () => {
  for (const m of ['GET /health 200', 'Traceback (most recent call last):', '', '\u0000\u0001binary']) {
    assert.equal(resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: m, hop: null }), null, JSON.stringify(m));
  }
  // A 1 MB line that shares text with statements: not claimed.
  const huge = 'Receive OpenAI: '.repeat(65536);
  assert.equal(resolver.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: huge, hop: null }), null);
});

test('with HopLens\'s logging config SGLang lines carry a full path and line: resolved like vLLM\'s, through python/sglang', () => {
  const loc = resolver.resolve({
    engine: 'sglang',
    fileinfo: '/usr/local/lib/python3.12/site-packages/sglang/srt/managers/tokenizer_manager.py',
    lineno: 3128,
    message: 'Abort request for rid=my-req-1 not found in rid_to_state; likely already finished/removed.',
    hop: 'S8',
  });
  assert.deepEqual(loc, { path: TM, line: 3128, verified: true, drift: 0, method: 'fileinfo' });
});
