// The fake vLLM server with VLLM_TRACE_FUNCTION on (what the demo runs): its engine core's trace
// file is named and written exactly as vLLM's tracer does (spec §C), the log prints the traced
// process's two tracer lines, and a request's timeline built from that log and folder shows the
// engine steps that ran during the request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { loadTimeline } from '../../../src/core/timeline/load';
import { makeTempDir } from '../../harness/tempDirs';

// The tracer's line regexes, as the spec gives them (Python's (?P<…>) → (?<…>)).
const CALL = /^(?<ts>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) Call to (?<fn>\S+) in (?<file>.+):(?<line>\d+) from (?<cfn>\S*) in (?<cfile>.*):(?<cline>\d+)$/;
const RETURN = /^(?<ts>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) Return from (?<fn>\S+) in (?<file>.+):(?<line>\d+) to (?<cfn>\S*) in (?<cfile>.*):(?<cline>\d+)$/;

test('a traced request: the tracer\'s file and lines, the log\'s tracer lines, and the steps on the request\'s timeline', async () => {
  const tmp = makeTempDir('hoplens-fake-trace-');
  const logFile = join(tmp.path, 'live-vllm.log');
  const traceRoot = join(tmp.path, 'traces');
  const engine = await startFakeEngine({ engine: 'vllm', logFile, traceDir: traceRoot, schedule: 'first=40,frames=5,every=25' });
  try {
    const core = engine.engineCoreTrace!;
    assert.ok(core, 'the engine core is traced');
    const res = await fetch(`${engine.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'demo-trace-1' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    await res.text();
    await engine.idle();

    // <root>/<user>/vllm/vllm-instance-<time_ns>/VLLM_TRACE_FUNCTION_for_process_<pid>_thread_<tid>_at_<datetime>.log
    const rel = relative(traceRoot, core.path).split(sep);
    assert.equal(rel.length, 4, rel.join('/'));
    assert.equal(rel[1], 'vllm');
    assert.match(rel[2], /^vllm-instance-\d{19}$/);
    assert.match(rel[3], new RegExp(`^VLLM_TRACE_FUNCTION_for_process_${core.pid}_thread_\\d+_at_\\d{4}-\\d{2}-\\d{2}_\\d{2}:\\d{2}:\\d{2}\\.\\d{6}\\.log$`));
    assert.deepEqual(readdirSync(core.instanceDir), [rel[3]]);

    const lines = readFileSync(core.path, 'utf8').split('\n').filter((l) => l !== '');
    assert.ok(lines.length >= 6 * 5, `${lines.length} trace lines`);
    for (const l of lines) assert.ok(CALL.test(l) || RETURN.test(l), `a tracer line: ${l}`);
    // Calls and returns pair up, innermost first, in time order.
    const stack: string[] = [];
    let last = '';
    for (const l of lines) {
      const c = CALL.exec(l) ?? RETURN.exec(l)!;
      assert.ok(c.groups!.ts >= last, `in time order: ${l}`);
      last = c.groups!.ts;
      if (CALL.test(l)) stack.push(c.groups!.fn);
      else assert.equal(stack.pop(), c.groups!.fn, l);
      assert.match(c.groups!.file, /\/site-packages\/vllm\/v1\/engine\/core\.py$/);
    }
    assert.deepEqual(stack, []);
    assert.equal(lines.filter((l) => / Call to step in /.test(l)).length, 5, 'one engine step per frame');

    const log = readFileSync(logFile, 'utf8');
    assert.ok(log.includes(`(EngineCore_DP0 pid=${core.pid}) INFO `) && log.includes(`[logger.py:308] Trace frame log is saved to ${core.path}\n`), log);
    assert.match(log, new RegExp(`^\\(EngineCore_DP0 pid=${core.pid}\\) WARNING \\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\[logger\\.py:301\\] VLLM_TRACE_FUNCTION is enabled\\. It will record every function executed by Python\\.`, 'm'));

    const { timeline } = await loadTimeline({ query: 'demo-trace-1', logs: [logFile], traceDirs: [traceRoot], indexMode: 'in-process' });
    const calls = timeline.lanes.find((l) => l.kind === 'calls');
    assert.ok(calls, `lanes: ${timeline.lanes.map((l) => l.title).join(' | ')}; warnings: ${timeline.warnings.join(' | ')}`);
    assert.match(calls.title, new RegExp(`EngineCore_DP0 pid ${core.pid}`));
    assert.equal(calls.items.filter((c) => c.label === 'step').length, 5, calls.items.map((c) => c.label).join(' '));
  } finally {
    await engine.close();
    tmp.remove();
  }
});

test('the demo\'s call traces: each call cites a file of the demo checkout at its def line, and an earlier run in the folder is no warning', async () => {
  const tmp = makeTempDir('hoplens-demo-trace-');
  const checkout = join(tmp.path, 'checkouts', 'vllm');
  cpSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source', 'vllm-checkout'), checkout, { recursive: true });
  const traceRoot = join(tmp.path, 'traces');
  // The demo's other trace folder: a real sys.settrace run (its own process, in no log).
  execFileSync('python3', [join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'calltrace', 'make_trace.py'), traceRoot, '--sleep-ms', '1']);
  const logFile = join(tmp.path, 'live-vllm.log');
  const engine = await startFakeEngine({ engine: 'vllm', logFile, traceDir: traceRoot, traceSourceRoot: checkout, schedule: 'first=20,frames=3,every=10' });
  try {
    const res = await fetch(`${engine.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'demo-trace-2' },
      body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    await res.text();
    await engine.idle();
    const calls = readFileSync(engine.engineCoreTrace!.path, 'utf8').split('\n').map((l) => CALL.exec(l)).filter((m) => m !== null);
    assert.ok(calls.length >= 6);
    for (const c of calls) {
      const { file, line, fn } = c.groups!;
      assert.ok(file.startsWith(checkout + sep), `cites the demo checkout: ${file}`);
      const text = readFileSync(file, 'utf8').split('\n')[Number(line) - 1] ?? '';
      assert.match(text, new RegExp(`^\\s*def ${fn}\\(`), `${file}:${line} is the def of ${fn}: '${text}'`);
    }
    const { timeline } = await loadTimeline({ query: 'demo-trace-2', logs: [logFile], traceDirs: [traceRoot], indexMode: 'in-process' });
    assert.ok(timeline.lanes.some((l) => l.kind === 'calls'), timeline.lanes.map((l) => l.title).join(' | '));
    assert.deepEqual(timeline.warnings.filter((w) => /trace file/.test(w)), [], 'the happy path has no trace-file warning');
  } finally {
    await engine.close();
    tmp.remove();
  }
});
