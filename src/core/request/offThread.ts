// Traced requests on a long-lived, warmed-up worker thread (src/workers/tracedRequest.ts), with
// the same results as sendTracedRequest; on the calling thread when the worker bundle is not
// there (tests of the core).
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { sendTracedRequest, sendRepeated, type TracedRequest } from './client';
import type { TraceOptions } from './build';

export interface OffThreadJob {
  options: Omit<TraceOptions, 'signal'>;
  /** More than 1: Repeat Traced Request. */
  runs?: number;
}

export type OffThreadMessage =
  | { type: 'phase'; id: number; phase: string }
  | { type: 'frames'; id: number; count: number }
  | { type: 'run'; id: number; run: number }
  | { type: 'done'; id: number; results: TracedRequest[] }
  | { type: 'failed'; id: number; message: string };

export interface OffThreadDeps {
  signal?: AbortSignal;
  onPhase?: (phase: string) => void;
  onFrames?: (count: number) => void;
  onRun?: (run: number) => void;
}

interface Pending { deps: OffThreadDeps; resolve(r: TracedRequest[]): void; reject(e: Error): void }

export class TracedRequestWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** @param workerScript dist/tracedRequest.js; when it does not exist, requests run on the calling thread. */
  constructor(private readonly workerScript: string | undefined) {}

  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    if (!this.workerScript || !existsSync(this.workerScript)) return undefined;
    const w = new Worker(this.workerScript);
    w.unref(); // an idle request thread never keeps the process alive
    w.on('message', (m: OffThreadMessage) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      switch (m.type) {
        case 'phase': p.deps.onPhase?.(m.phase); break;
        case 'frames': p.deps.onFrames?.(m.count); break;
        case 'run': p.deps.onRun?.(m.run); break;
        case 'done': this.pending.delete(m.id); p.resolve(m.results); break;
        case 'failed': this.pending.delete(m.id); p.reject(new Error(m.message)); break;
      }
    });
    const fail = (e: Error) => {
      this.worker = undefined;
      for (const [id, p] of this.pending) { this.pending.delete(id); p.reject(e); }
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the request thread stopped (exit ${code})`)));
    this.worker = w;
    return w;
  }

  /** Starts the thread now (it warms up in the background), so the first request finds it ready. */
  prepare(): void { this.start(); }

  send(job: OffThreadJob, deps: OffThreadDeps = {}): Promise<TracedRequest[]> {
    const w = this.start();
    if (!w) return sendInProcess(job, deps);
    const id = this.nextId++;
    return new Promise<TracedRequest[]>((resolve, reject) => {
      const onAbort = () => w.postMessage({ type: 'cancel', id });
      const cleanup = () => deps.signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, { deps, resolve: (r) => { cleanup(); resolve(r); }, reject: (e) => { cleanup(); reject(e); } });
      // Options are plain data; a JSON copy drops proxies (VS Code settings objects) that cannot cross threads.
      w.postMessage({ type: 'run', id, job: JSON.parse(JSON.stringify(job)) as OffThreadJob });
      if (deps.signal?.aborted) onAbort(); else deps.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  dispose(): void {
    const w = this.worker;
    this.worker = undefined;
    void w?.terminate();
  }
}

function sendInProcess(job: OffThreadJob, deps: OffThreadDeps): Promise<TracedRequest[]> {
  let frames = 0;
  const inner = { onPhase: deps.onPhase, onFrame: () => deps.onFrames?.(++frames) };
  const options = { ...job.options, signal: deps.signal };
  return job.runs && job.runs > 1
    ? sendRepeated(options, job.runs, { ...inner, onRun: (run) => deps.onRun?.(run) })
    : sendTracedRequest(options, inner).then((r) => [r]);
}
