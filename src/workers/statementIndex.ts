// Worker thread entry (bundled to dist/statementIndex.js): builds the logging-statement
// index of a checkout so the editor's thread never parses thousands of Python files.
import { parentPort, workerData } from 'node:worker_threads';
import { runIndexLoop, type WorkerInput, type WorkerMessage } from '../core/source/statementIndex';

const post = (m: WorkerMessage) => parentPort?.postMessage(m);

runIndexLoop(workerData as WorkerInput, (done, total) => post({ type: 'progress', done, total }), null)
  .then((r) => post({ type: 'done', statements: r.statements, skipped: r.skipped, keys: r.keys }))
  .catch((e: unknown) => post({ type: 'error', message: e instanceof Error ? e.message : String(e) }));
