// Call trees built from traces written by a real sys.settrace run (test/fixtures/calltrace/make_trace.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTraceFolder, type CallTraceIndex } from '../../../src/core/calltrace/callTraceIndex';
import { hopSequenceMarkdown, writePerfettoTrace } from '../../../src/core/calltrace/export';
import { mapToCheckout, displayPath } from '../../../src/core/calltrace/paths';
import { runPythonTracer, repoRoot, tempDir } from './helpers';

const SLEEP_MS = 30;

function engineThread(index: CallTraceIndex): string {
  const s = index.threadSummaries().find((t) => t.role === 'engine-core');
  assert.ok(s, 'an engine-core thread');
  return s.key;
}

test('a real trace becomes instance → process → threads with roles guessed from the frames', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', String(SLEEP_MS)]);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const procs = index.processes();
  assert.equal(procs.length, 1);
  assert.equal(procs[0].role, 'engine-core');
  assert.equal(procs[0].threads.length, 2);
  assert.deepEqual(procs[0].threads.map((t) => t.role).sort(), ['engine-core', 'worker']);
  assert.match(procs[0].instanceId, /^\d+$/);
  for (const t of procs[0].threads) {
    assert.equal(t.stats.garbledLines, 0);
    assert.equal(t.stats.calls, t.stats.returns);
    assert.equal(t.openStack.length, 0);
  }
});

test('nesting, ×N collapse, durations and self time match what the Python program did', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', String(SLEEP_MS)]);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const key = engineThread(index);
  const top = index.getChildren(key, null);
  assert.equal(top.total, 1);
  const loop = top.rows[0];
  assert.equal(loop.fn, 'run_busy_loop');
  assert.equal(displayPath(loop.file), 'vllm/v1/engine/core.py');
  assert.equal(loop.callSite?.fn, 'main');

  const steps = index.getChildren(key, loop.nodeId);
  assert.equal(steps.total, 1, 'three consecutive step() calls collapse into one ×3 row');
  const run = steps.rows[0];
  assert.equal(run.fn, 'step');
  assert.equal(run.count, 3);
  const members = index.getRunMembers(key, run.nodeId);
  assert.equal(members.total, 3);
  const memberSum = members.rows.reduce((n, r) => n + r.durationUs!, 0);
  assert.equal(run.durationUs, memberSum);
  assert.equal(index.getChildren(key, loop.nodeId, { collapse: false }).total, 3);

  const stepKids = index.getChildren(key, members.rows[1].nodeId);
  assert.deepEqual(stepKids.rows.map((r) => r.fn), ['schedule', 'execute_model', 'update_from_output']);
  const exec = stepKids.rows[1];
  // execute_model sleeps SLEEP_MS: the duration (return − call) must show it.
  assert.ok(exec.durationUs! >= SLEEP_MS * 1000 - 1000, `execute_model took ${exec.durationUs} µs`);
  assert.equal(exec.selfUs, exec.durationUs, 'a leaf: self time = duration');
  const step = members.rows[1];
  // Paired with its own return, not a later one: it fits inside the step that called it.
  assert.ok(exec.durationUs! <= step.durationUs!, `execute_model ${exec.durationUs} µs in a step of ${step.durationUs} µs`);
  const kidsSum = stepKids.rows.reduce((n, r) => n + r.durationUs!, 0);
  assert.equal(step.selfUs, step.durationUs! - kidsSum);
  assert.ok(step.durationUs! >= exec.durationUs!);
  assert.equal(step.depth, 1);
  assert.equal(exec.depth, 2);
  // Call site: execute_model is called from step() on the line `out = execute_model(…)`.
  const coreSource = readFileSync(mapToCheckout(exec.file, { checkouts: { vllm: py.engineRoot } }).path, 'utf8').split('\n');
  assert.equal(exec.callSite?.fn, 'step');
  assert.match(coreSource[exec.callSite!.line - 1], /out = execute_model\(/);
  assert.match(coreSource[exec.line - 1], /^def execute_model\(/);
});

test('clicking a call maps its path onto the checkout and lands on the def line (paths with spaces too)', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', '1', '--space']);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const key = engineThread(index);
  const loop = index.getChildren(key, null).rows[0];
  assert.ok(loop.file.includes('/engine src/'), loop.file);
  const mapped = mapToCheckout(loop.file, { checkouts: { vllm: py.engineRoot } });
  assert.equal(mapped.via, 'checkout');
  assert.ok(existsSync(mapped.path));
  assert.match(readFileSync(mapped.path, 'utf8').split('\n')[loop.line - 1], /^def run_busy_loop\(/);
});

test('a process that died inside a call shows the open calls: where it is stuck', async () => {
  const py = runPythonTracer('stuck', ['--sleep-ms', '1']);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const [s] = index.threadSummaries();
  assert.deepEqual(s.openStack.map((o) => o.fn), ['run_busy_loop', 'step', 'execute_model']);
  const loop = index.getChildren(s.key, null).rows[0];
  assert.equal(loop.open, true);
  assert.equal(loop.durationUs, null);
  const steps = index.getChildren(s.key, loop.nodeId, { collapse: false }).rows;
  assert.equal(steps.length, 3);
  assert.equal(steps[0].open, false);
  assert.equal(steps[2].open, true);
  const last = index.getChildren(s.key, steps[2].nodeId).rows;
  assert.deepEqual(last.map((r) => [r.fn, r.open]), [['schedule', false], ['execute_model', true]]);
  // A ×N row that contains an open call has no total.
  const collapsed = index.getChildren(s.key, loop.nodeId).rows[0];
  assert.equal(collapsed.count, 3);
  assert.equal(collapsed.durationUs, null);
});

test('tracing switched on mid-stack: returns without a call get synthetic parents that adopt what ran inside them', async () => {
  const py = runPythonTracer('midstack', ['--sleep-ms', '5']);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const key = engineThread(index);
  const s = index.threadSummaries().find((t) => t.key === key)!;
  assert.equal(s.stats.orphanReturns, 3, 'execute_model, step and run_busy_loop were running when tracing began');
  const top = index.getChildren(key, null).rows;
  assert.equal(top.length, 1);
  assert.equal(top[0].fn, 'run_busy_loop');
  assert.equal(top[0].synthetic, true);
  const kids = index.getChildren(key, top[0].nodeId, { collapse: false }).rows;
  assert.deepEqual(kids.map((r) => [r.fn, r.synthetic]), [['step', true], ['step', false], ['step', false]]);
  const first = index.getChildren(key, kids[0].nodeId).rows;
  assert.deepEqual(first.map((r) => r.fn), ['execute_model', 'update_from_output']);
});

test('the filter keeps matches and their ancestors; search finds a call and its path from the root', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', '1']);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const key = engineThread(index);
  const filter = ['execute_model'];
  const loop = index.getChildren(key, null, { filter }).rows[0];
  assert.equal(loop.fn, 'run_busy_loop');
  const steps = index.getChildren(key, loop.nodeId, { filter, collapse: false }).rows;
  assert.equal(steps.length, 3);
  const kids = index.getChildren(key, steps[0].nodeId, { filter }).rows;
  assert.deepEqual(kids.map((r) => r.fn), ['execute_model'], 'schedule and update_from_output are hidden');
  assert.equal(index.getChildren(key, null, { filter: ['no_such_function'] }).total, 0);

  const hits = index.search('EXECUTE_mod').filter((h) => h.threadKey === key);
  assert.equal(hits.length, 3);
  assert.deepEqual(hits[0].ancestors.map((id) => index.getNode(key, id).fn), ['run_busy_loop', 'step']);
});

test('worker-thread indexing gives the same tree as in-process, reports progress and can be cancelled', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', '1']);
  const workerPath = join(repoRoot, 'out', 'src', 'workers', 'calltraceIndex.js');
  assert.ok(existsSync(workerPath), 'tsc output of the worker');
  const progress: number[] = [];
  const viaWorker = await openTraceFolder(py.outDir, { workerPath, onProgress: (p) => progress.push(p.filesDone) });
  const inProcess = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const key = engineThread(viaWorker);
  const dump = (ix: CallTraceIndex): unknown[] => {
    const out: unknown[] = [];
    const visit = (id: number | null): void => {
      for (const r of ix.getChildren(key, id, { collapse: false, limit: 1000 }).rows) { out.push([r.fn, r.line, r.durationUs, r.depth]); visit(r.nodeId); }
    };
    visit(null);
    return out;
  };
  assert.deepEqual(dump(viaWorker), dump(inProcess));
  assert.equal(progress[progress.length - 1], 2);

  const controller = new AbortController();
  controller.abort();
  await assert.rejects(openTraceFolder(py.outDir, { workerPath, signal: controller.signal }), /cancelled/);
});

test('exports: Perfetto JSON with complete events, and the filtered hop sequence as Markdown', async () => {
  const py = runPythonTracer('stuck', ['--sleep-ms', '2']);
  const index = await openTraceFolder(py.outDir, { mode: 'in-process' });
  const [s] = index.threadSummaries();
  const out = join(tempDir(), 'trace.json');
  const r = await writePerfettoTrace(index, [{ threadKey: s.key }], out);
  assert.equal(r.truncated, false);
  type TraceEvent = { ph: string; name: string; pid: number; tid: number; dur: number; args: { open?: boolean; file: string; line: number } };
  const json = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: TraceEvent[] };
  const complete = json.traceEvents.filter((e) => e.ph === 'X');
  assert.equal(complete.length, s.stats.calls);
  const exec = complete.find((e) => e.name === 'execute_model' && !e.args.open)!;
  assert.equal(exec.pid, s.file.pid);
  assert.equal(exec.tid, s.file.tid);
  assert.ok(exec.dur >= 1000, `execute_model dur ${exec.dur}`);
  assert.ok(exec.args.file.endsWith('/vllm/v1/engine/core.py'));
  assert.equal(typeof exec.args.line, 'number');
  assert.equal(complete.filter((e) => e.args.open).length, 3);

  // A subtree export, and a size limit that cuts it short but keeps valid JSON.
  const step = index.getChildren(s.key, index.getChildren(s.key, null).rows[0].nodeId, { collapse: false }).rows[1];
  const sub = await writePerfettoTrace(index, [{ threadKey: s.key, nodeId: step.nodeId }], out);
  const subEvents = (JSON.parse(readFileSync(out, 'utf8')).traceEvents as Array<{ ph: string; name: string }>).filter((e) => e.ph === 'X');
  assert.deepEqual(subEvents.map((e) => e.name), ['step', 'schedule', 'execute_model', 'update_from_output']);
  assert.equal(sub.truncated, false);
  const small = await writePerfettoTrace(index, [{ threadKey: s.key }], out, { maxBytes: 1200 });
  assert.equal(small.truncated, true);
  assert.ok(readFileSync(out).length <= 1200);
  assert.ok(Array.isArray(JSON.parse(readFileSync(out, 'utf8')).traceEvents));

  const md = hopSequenceMarkdown(index, ['execute_model', 'schedule']);
  assert.match(md, /\| time \| function \| source \| caller \| duration \|/);
  assert.match(md, /`execute_model` \| `vllm\/v1\/engine\/core\.py:\d+` \| `step` \| [\d.]+ ms \|/);
  assert.match(md, /`execute_model` \| `vllm\/v1\/engine\/core\.py:\d+` \| `step` \| open \|/);
  assert.doesNotMatch(md, /update_from_output/);
});
