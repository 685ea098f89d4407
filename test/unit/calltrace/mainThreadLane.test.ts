// The command line indexes one file on its own thread (blocking reads) beside the workers, which
// saves a worker's start-up: the trees must be the same as the workers build, file for file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { openTraceFolder } from '../../../src/core/calltrace/callTraceIndex';
import { runPythonTracer } from './helpers';

type WorkerCtor = typeof import('node:worker_threads').Worker;

/** Counts the worker threads started while `fn` runs. */
async function countingWorkers<T>(fn: () => Promise<T>): Promise<{ result: T; started: number }> {
  // The builtin's own exports object: the indexer reads Worker from it at call time.
  const workerThreads = createRequire(__filename)('node:worker_threads') as { Worker: WorkerCtor };
  const Real = workerThreads.Worker;
  let started = 0;
  workerThreads.Worker = class extends Real { constructor(...args: ConstructorParameters<WorkerCtor>) { super(...args); started++; } };
  try {
    return { result: await fn(), started };
  } finally {
    workerThreads.Worker = Real;
  }
}

function treeOf(index: Awaited<ReturnType<typeof openTraceFolder>>): unknown {
  return index.threadSummaries().map((s) => ({
    key: s.key, stats: s.stats, open: s.openStack.length,
    top: index.getChildren(s.key, null, { limit: 1000 }).rows,
  }));
}

test('with this thread as one lane, a real two-thread trace gives the same trees and starts one worker instead of two', async () => {
  const py = runPythonTracer('normal', ['--sleep-ms', '1']);
  assert.equal(py.files.length, 2);
  const workers = await countingWorkers(() => openTraceFolder(py.outDir, { concurrency: 2 }));
  const lane = await countingWorkers(() => openTraceFolder(py.outDir, { concurrency: 2, mainThreadLane: true }));
  assert.equal(workers.started, 2);
  assert.equal(lane.started, 1);
  assert.deepEqual(treeOf(lane.result), treeOf(workers.result));
  assert.ok(lane.result.threadSummaries().every((s) => s.stats.calls > 0 && s.stats.calls === s.stats.returns));
  // A small folder (or one lane) is read by this thread alone: no worker at all.
  const small = await countingWorkers(() => openTraceFolder(py.outDir, { mainThreadLane: true }));
  assert.equal(small.started, 0);
  assert.deepEqual(treeOf(small.result), treeOf(workers.result));
  const alone = await countingWorkers(() => openTraceFolder(py.outDir, { concurrency: 1, mainThreadLane: true }));
  assert.equal(alone.started, 0);
  assert.deepEqual(treeOf(alone.result), treeOf(workers.result));
});
