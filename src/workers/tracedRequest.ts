// Runs one traced request on its own thread: socket chunks are stamped by this thread's event
// loop, so work on the extension host's thread (other extensions, rendering a big log) cannot
// delay the stamps and fake a stall or a coalesced burst.
import { parentPort, workerData } from 'node:worker_threads';
import { sendTracedRequest, sendRepeated } from '../core/request/index';
import type { OffThreadRequest, OffThreadMessage } from '../core/request/offThread';

const port = parentPort!;
const job = workerData as OffThreadRequest;
const ac = new AbortController();
port.on('message', (m: { type: string }) => { if (m.type === 'cancel') ac.abort(); });
const post = (m: OffThreadMessage) => port.postMessage(m);
let frames = 0;
const deps = {
  onPhase: (phase: string) => post({ type: 'phase', phase }),
  onFrame: () => { if (++frames % 10 === 1) post({ type: 'frames', count: frames }); },
};

(job.runs && job.runs > 1
  ? sendRepeated({ ...job.options, signal: ac.signal }, job.runs, { ...deps, onRun: (run) => post({ type: 'run', run }) })
  : sendTracedRequest({ ...job.options, signal: ac.signal }, deps).then((r) => [r])
).then(
  (results) => post({ type: 'done', results }),
  (e: unknown) => post({ type: 'failed', message: e instanceof Error ? e.message : String(e) }),
);
