// `hoplens calltrace` output shapes and exit codes, on real traces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { bufferIO } from '../../../src/cli/io';
import { runCalltrace } from '../../../src/cli/calltrace';
import { runPythonTracer, tempDir } from './helpers';

test('--json prints one file object per trace file, its filtered calls, then a summary', async () => {
  const py = runPythonTracer('stuck', ['--sleep-ms', '2']);
  const io = bufferIO();
  assert.equal(await runCalltrace([py.outDir, '--json', '--filter', 'execute_model,step'], io), 0);
  const objs = io.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const file = objs[0];
  assert.equal(file.kind, 'file');
  assert.equal(file.path, py.files[0]);
  assert.equal(typeof file.pid, 'number');
  assert.equal(file.calls, 12);
  assert.equal(file.returns, 9);
  assert.equal(file.maxDepth, 3);
  assert.deepEqual(file.open.map((o: { fn: string }) => o.fn), ['run_busy_loop', 'step', 'execute_model']);
  const calls = objs.filter((o) => o.kind === 'call');
  assert.deepEqual(calls.map((c) => c.fn), ['step', 'execute_model', 'step', 'execute_model', 'step', 'execute_model']);
  const c = calls[1];
  assert.deepEqual(Object.keys(c).sort(), ['caller', 'depth', 'durationUs', 'file', 'fn', 'kind', 'line', 'pid', 'tid', 'ts'].sort());
  assert.match(c.ts, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
  assert.equal(c.caller, 'step');
  assert.equal(c.depth, 2);
  assert.ok(c.durationUs >= 2000);
  assert.equal(calls[5].durationUs, null, 'the hung execute_model has no duration');
  assert.deepEqual(objs[objs.length - 1], { kind: 'summary', files: 1, calls: 12, returns: 9 });
});

test('readable output lists calls like the lab, with --limit and the open stack', async () => {
  const py = runPythonTracer('stuck', ['--sleep-ms', '1']);
  const io = bufferIO();
  assert.equal(await runCalltrace([py.outDir, '--filter', '', '--limit', '4'], io), 0);
  assert.match(io.stdout, /^1 trace file\(s\) under /);
  assert.match(io.stdout, /run_busy_loop\s+vllm\/v1\/engine\/core\.py:\d+\s+<- main/);
  assert.match(io.stdout, /\.\.\. 8 more \(raise --limit\)/);
  assert.match(io.stdout, /still open at the end of the file/);
  assert.match(io.stdout, /12 call events scanned\./);
});

test('--perfetto writes a trace file; exit 1 with no traces; exit 2 on bad input', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', '1']);
  const out = join(tempDir(), 'p.json');
  const io = bufferIO();
  assert.equal(await runCalltrace([py.outDir, '--perfetto', out], io), 0);
  const events = JSON.parse(readFileSync(out, 'utf8')).traceEvents as Array<{ ph: string }>;
  assert.equal(events.filter((e) => e.ph === 'X').length, 23);
  assert.match(io.stderr, /wrote \d+ events/);

  const empty = bufferIO();
  assert.equal(await runCalltrace([tempDir()], empty), 1);
  assert.match(empty.stderr, /no VLLM_TRACE_FUNCTION_for_process_\*\.log files/);

  for (const argv of [[], [join(tempDir(), 'missing')], [py.outDir, '--limit', 'ten'], [py.outDir, '--bogus']]) {
    const bad = bufferIO();
    assert.equal(await runCalltrace(argv, bad), 2, argv.join(' '));
    assert.ok(bad.stderr.length > 0);
  }
});

test('an unreadable trace file is reported and the readable ones are still listed', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', '1']);
  const dangling = join(py.instanceDir, 'VLLM_TRACE_FUNCTION_for_process_9_thread_9_at_2026-08-21_22:30:01.000001.log');
  symlinkSync(join(py.outDir, 'gone.log'), dangling);
  mkdirSync(join(py.instanceDir, 'VLLM_TRACE_FUNCTION_for_process_8_thread_8_at_x.log'));
  const io = bufferIO();
  assert.equal(await runCalltrace([py.outDir, '--json'], io), 0);
  assert.match(io.stderr, /cannot read .*process_9_thread_9.*ENOENT/);
  const summary = JSON.parse(io.stdout.trim().split('\n').pop()!);
  assert.deepEqual(summary, { kind: 'summary', files: 2, calls: 23, returns: 23 });
});
