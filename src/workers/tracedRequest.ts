// Runs traced requests on their own thread: socket chunks are stamped by this thread's event
// loop, so work on the extension host's thread (other extensions, rendering a big log) cannot
// delay the stamps and fake a stall or a coalesced burst. The thread lives for the session and
// warms its HTTP/SSE path once against a loopback server of its own: a cold V8 isolate would
// add 3–5 ms of JIT to the first TTFT it measures.
import { parentPort } from 'node:worker_threads';
import { sendTracedRequest, sendRepeated } from '../core/request/index';
import { warmUpRequestPath } from '../core/request/warmUp';
import type { OffThreadJob, OffThreadMessage } from '../core/request/offThread';

const port = parentPort!;
const post = (m: OffThreadMessage) => port.postMessage(m);
const running = new Map<number, AbortController>();

const ready = warmUpRequestPath().catch(() => undefined);

port.on('message', (m: { type: 'run'; id: number; job: OffThreadJob } | { type: 'cancel'; id: number }) => {
  if (m.type === 'cancel') { running.get(m.id)?.abort(); return; }
  const { id, job } = m;
  const ac = new AbortController();
  running.set(id, ac);
  let frames = 0;
  const deps = {
    onPhase: (phase: string) => post({ type: 'phase', id, phase }),
    onFrame: () => { if (++frames % 10 === 1) post({ type: 'frames', id, count: frames }); },
  };
  void ready.then(() => (job.runs && job.runs > 1
    ? sendRepeated({ ...job.options, signal: ac.signal }, job.runs, { ...deps, onRun: (run) => post({ type: 'run', id, run }) })
    : sendTracedRequest({ ...job.options, signal: ac.signal }, deps).then((r) => [r])
  )).then(
    (results) => post({ type: 'done', id, results }),
    (e: unknown) => post({ type: 'failed', id, message: e instanceof Error ? e.message : String(e) }),
  ).finally(() => running.delete(id));
});
