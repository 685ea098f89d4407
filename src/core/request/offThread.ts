// Traced requests on a worker thread (see src/workers/tracedRequest.ts), with the same result
// as sendTracedRequest; in process when the worker bundle is not there (tests of the core).
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { sendTracedRequest, sendRepeated, type TracedRequest } from './client';
import type { TraceOptions } from './build';

export interface OffThreadRequest {
  options: Omit<TraceOptions, 'signal'>;
  /** More than 1: Repeat Traced Request. */
  runs?: number;
}

export type OffThreadMessage =
  | { type: 'phase'; phase: string }
  | { type: 'frames'; count: number }
  | { type: 'run'; run: number }
  | { type: 'done'; results: TracedRequest[] }
  | { type: 'failed'; message: string };

export interface OffThreadDeps {
  /** dist/tracedRequest.js; when missing the request runs on the calling thread. */
  workerScript?: string;
  signal?: AbortSignal;
  onPhase?: (phase: string) => void;
  onFrames?: (count: number) => void;
  onRun?: (run: number) => void;
}

export function sendOffThread(job: OffThreadRequest, deps: OffThreadDeps = {}): Promise<TracedRequest[]> {
  if (!deps.workerScript || !existsSync(deps.workerScript)) {
    let frames = 0;
    const inner = { onPhase: deps.onPhase, onFrame: () => deps.onFrames?.(++frames) };
    const options = { ...job.options, signal: deps.signal };
    return job.runs && job.runs > 1
      ? sendRepeated(options, job.runs, { ...inner, onRun: (run) => deps.onRun?.(run) })
      : sendTracedRequest(options, inner).then((r) => [r]);
  }
  return new Promise<TracedRequest[]>((resolve, reject) => {
    // Options are plain data; a JSON copy also drops proxies (VS Code settings objects) that
    // cannot cross to another thread.
    const worker = new Worker(deps.workerScript!, { workerData: JSON.parse(JSON.stringify(job)) as OffThreadRequest });
    const onAbort = () => worker.postMessage({ type: 'cancel' });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      deps.signal?.removeEventListener('abort', onAbort);
      fn();
      void worker.terminate();
    };
    if (deps.signal?.aborted) onAbort(); else deps.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: OffThreadMessage) => {
      switch (m.type) {
        case 'phase': deps.onPhase?.(m.phase); break;
        case 'frames': deps.onFrames?.(m.count); break;
        case 'run': deps.onRun?.(m.run); break;
        case 'done': finish(() => resolve(m.results)); break;
        case 'failed': finish(() => reject(new Error(m.message))); break;
      }
    });
    worker.on('error', (e) => finish(() => reject(e)));
    worker.on('exit', (code) => finish(() => reject(new Error(`the request worker stopped (exit ${code})`))));
  });
}
