// The calls of a traced thread inside a request's window, from the thread's call index, and
// trace files matched to log processes by pid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadTrace } from '../../../src/core/calltrace/threadTrace';
import { callsInWindow, matchTraceFiles } from '../../../src/core/timeline/windowCalls';
import type { TraceFileInfo } from '../../../src/core/calltrace/types';
import type { RequestLogs } from '../../../src/core/timeline/requestLogs';
import { CORE, SCHED, callLine, returnLine } from '../calltrace/helpers';

/** A thread trace from lines exactly as vLLM's tracer writes them. */
function traceOf(lines: string[]): ThreadTrace {
  const t = new ThreadTrace({});
  const buf = Buffer.from(lines.join('\n') + '\n');
  t.feed(buf, 0, buf.length, 0);
  return t;
}

const us = (ts: string): number => Date.UTC(2026, 7, 21, 22, 30, Number(ts.slice(0, 2))) * 1000 + Number(ts.slice(3));

// busy_loop [01.000000 … open]: step A [01.100000 … 01.200000] (schedule inside), step B
// [02.000000 … 02.500000] (schedule, execute_model), step C [03.000000 … 03.100000].
const LINES = [
  callLine('01.000000', 'run_busy_loop', CORE, 10, 'run_engine_core', CORE, 5),
  callLine('01.100000', 'step', CORE, 20, 'run_busy_loop', CORE, 12),
  callLine('01.110000', 'schedule', SCHED, 30, 'step', CORE, 21),
  returnLine('01.120000', 'schedule', SCHED, 40, 'step', CORE, 21),
  returnLine('01.200000', 'step', CORE, 25, 'run_busy_loop', CORE, 12),
  callLine('02.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 12),
  callLine('02.010000', 'schedule', SCHED, 30, 'step', CORE, 21),
  returnLine('02.020000', 'schedule', SCHED, 40, 'step', CORE, 21),
  callLine('02.030000', 'execute_model', CORE, 50, 'step', CORE, 22),
  returnLine('02.490000', 'execute_model', CORE, 60, 'step', CORE, 22),
  returnLine('02.500000', 'step', CORE, 25, 'run_busy_loop', CORE, 12),
  callLine('03.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 12),
  returnLine('03.100000', 'step', CORE, 25, 'run_busy_loop', CORE, 12),
];

const names = (t: ThreadTrace, ids: number[]): string[] => ids.map((i) => `${t.fnOf(i)}@${(t.startOf(i) / 1e6 % 60).toFixed(2)}`);

test('calls overlapping the window: those running when it opens, then those starting inside it', () => {
  const t = traceOf(LINES);
  // Window 02.015 … 02.600: inside step B, after its schedule started.
  const w = callsInWindow(t, us('02.015000'), us('02.600000'), 100);
  assert.deepEqual(names(t, w.nodes), ['run_busy_loop@1.00', 'step@2.00', 'schedule@2.01', 'execute_model@2.03']);
  assert.deepEqual(w.depths, [0, 1, 2, 2]);
  assert.equal(w.total, 4);
  // Step A and step C lie outside it; so does a window between two steps but the loop, still open.
  assert.deepEqual(names(t, callsInWindow(t, us('01.500000'), us('01.900000'), 100).nodes), ['run_busy_loop@1.00']);
  assert.deepEqual(names(t, callsInWindow(t, us('05.000000'), us('06.000000'), 100).nodes), ['run_busy_loop@1.00'], 'still running when the file ends');
});

test('over the cap the outer levels are kept, in call order', () => {
  const t = traceOf(LINES);
  const w = callsInWindow(t, us('00.000000'), us('09.000000'), 4);
  assert.equal(w.total, 7);
  assert.deepEqual(names(t, w.nodes), ['run_busy_loop@1.00', 'step@1.10', 'step@2.00', 'step@3.00']);
});

test('a clock that stepped back in the trace still finds the calls (by a full look)', () => {
  const t = traceOf([
    callLine('05.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 12),
    returnLine('05.100000', 'step', CORE, 25, 'run_busy_loop', CORE, 12),
    callLine('02.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 12),
    returnLine('02.100000', 'step', CORE, 25, 'run_busy_loop', CORE, 12),
  ]);
  assert.deepEqual(names(t, callsInWindow(t, us('01.900000'), us('02.050000'), 10).nodes), ['step@2.00']);
});

function file(pid: number, tid = 1): TraceFileInfo {
  return { path: `/t/VLLM_TRACE_FUNCTION_for_process_${pid}_thread_${tid}_at_x.log`, pid, tid, tidText: String(tid), startedAt: 'x', flavor: 'vllm', instanceId: '1', size: 1 };
}

test('trace files go to the log whose process prints their pid, engine processes first', () => {
  const log = (processes: RequestLogs['processes']) => ({ processes }) as RequestLogs;
  const logs = [
    log([{ name: 'APIServer', pid: 100, role: 'api-server' }]),
    log([{ name: 'EngineCore_DP0', pid: 200, role: 'engine-core' }, { name: 'Worker_TP1', pid: 201, role: 'worker' }]),
    log([{ name: 'APIServer', pid: 200, role: 'api-server' }]),
  ];
  const m = matchTraceFiles([file(200), file(200, 2), file(201), file(999)], logs);
  assert.deepEqual(m.matched.map((x) => [x.file.pid, x.logIndex, x.process.name]), [[200, 1, 'EngineCore_DP0'], [200, 1, 'EngineCore_DP0'], [201, 1, 'Worker_TP1']]);
  assert.deepEqual(m.unmatched.map((f) => f.pid), [999]);
  assert.deepEqual(m.ambiguous, [200], 'two hosts print pid 200');
});

test('a trace folder keeps other runs: their files are set apart from a matched run\'s missing processes', () => {
  const log = (processes: RequestLogs['processes']) => ({ processes }) as RequestLogs;
  const logs = [log([{ name: 'EngineCore_DP0', pid: 200, role: 'engine-core' }])];
  const inRun = (pid: number, instanceId: string, tid = 1): TraceFileInfo => ({ ...file(pid, tid), instanceId });
  // The demo's folder: the server's engine core (run A) and an earlier offline run (run B, two threads).
  const m = matchTraceFiles([inRun(200, 'A'), inRun(201, 'A'), inRun(7000, 'B'), inRun(7000, 'B', 2)], logs);
  assert.deepEqual(m.matched.map((x) => x.file.pid), [200]);
  assert.deepEqual(m.unmatched.map((f) => f.pid), [201, 7000, 7000]);
  assert.deepEqual(m.otherRuns.map((f) => `${f.instanceId}:${f.pid}`), ['B:7000', 'B:7000'], 'run B is another run, not a process the logs miss');
});
