// A log file read on another thread (src/workers/streamedLog.ts) for a view on this one: the
// reader parses the file in slices and gives away, after each, what it learnt (a StreamDelta:
// typed columns and the new request ids); the replica on the view's thread applies them and
// answers the Requests view and the slices around a line. The view's thread then never parses,
// never holds a line's garbage, and is busy for well under a millisecond per slice.
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { LogSession } from './logSession';
import { LogFileFeed } from './logStream';
import { RequestTracker, type TrackerDelta, type TrackerMark } from '../logs/requests';
import { fastPathFor } from '../../engines/grammars';
import type { Engine } from '../logs/model';

/** Every 1024th line's offset is kept, to cut slices around a line without reading from the top. */
export const OFFSET_SAMPLE_EVERY = 1024;

export interface StreamDelta {
  /** The file was truncated or replaced: the replica starts over before applying the rest. */
  reset: boolean;
  /** Bytes this slice parsed (0: nothing was appended). */
  bytes: number;
  bytesParsed: number;
  linesParsed: number;
  engine: Engine | null;
  tracker: TrackerDelta;
  /** Offsets sampled since the last delta (see OFFSET_SAMPLE_EVERY). */
  samples: number[];
}

/** The parsing side: one file, one session, only requests kept; common vLLM lines take the byte fast path. */
export class StreamedLogReader {
  private readonly session = new LogSession({
    engine: 'auto', keepRecords: false, offsetSampleEvery: OFFSET_SAMPLE_EVERY,
    fast: (state, tracker) => fastPathFor(state, { tracker }),
    newTracker: (forced, opts) => new RequestTracker(forced, { ...opts, journal: true }),
  });
  private readonly feed: LogFileFeed;
  private mark: TrackerMark = RequestTracker.START;
  private samples = 0;

  constructor(readonly path: string) {
    this.feed = new LogFileFeed(path, this.session);
  }

  /** Parses at most `maxBytes` more and says what was learnt. */
  async step(maxBytes: number): Promise<StreamDelta> {
    const { reset, bytes } = await this.feed.poll(maxBytes);
    if (reset) { this.mark = RequestTracker.START; this.samples = 0; }
    const { delta, mark } = this.session.tracker.exportSince(this.mark);
    this.mark = mark;
    const samples = this.session.sampledOffsetsFrom(this.samples);
    this.samples += samples.length;
    return {
      reset, bytes, bytesParsed: this.session.bytesParsed, linesParsed: this.session.linesParsed,
      engine: this.session.engine, tracker: delta, samples,
    };
  }
}

/** The view's side: the same requests and sampled offsets as the reader, from its deltas in order. */
export class StreamedLogReplica {
  tracker = new RequestTracker(null, { journal: true });
  engine: Engine | null = null;
  linesParsed = 0;
  bytesParsed = 0;
  private samples: number[] = [];

  apply(d: StreamDelta): void {
    if (d.reset) { this.tracker = new RequestTracker(null, { journal: true }); this.samples = []; }
    this.tracker.applyDelta(d.tracker);
    for (const s of d.samples) this.samples.push(s);
    this.engine = d.engine;
    this.linesParsed = d.linesParsed;
    this.bytesParsed = d.bytesParsed;
  }

  /** Byte offset of the start of 0-based line `sample * OFFSET_SAMPLE_EVERY`, when it was read. */
  sampledOffset(sample: number): number | undefined { return this.samples[sample]; }
}

/** Bytes a reader parses per delta: on its own thread a few milliseconds of work; on the view's, a slice that keeps it free. */
const THREAD_SLICE_BYTES = 1024 * 1024;
const IN_PROCESS_SLICE_BYTES = 256 * 1024;

export type StreamedLogMessage =
  | { type: 'delta'; delta: StreamDelta }
  | { type: 'end' }
  | { type: 'failed'; message: string };

export type StreamedLogRequest = { type: 'read' } | { type: 'stop' };

/**
 * One file followed by a reader on its own thread (the worker bundle), else on this one in slices
 * with a turn of the event loop between them (tests of the core, a missing bundle).
 */
export class StreamedLogThread {
  private worker: Worker | undefined;
  private reader: StreamedLogReader | undefined;
  private listener: ((m: StreamedLogMessage) => void) | undefined;
  private reading: Promise<void> | null = null;

  constructor(readonly path: string, private readonly workerScript?: string) {}

  private start(): Worker | undefined {
    if (this.worker) return this.worker;
    if (!this.workerScript || !existsSync(this.workerScript)) return undefined;
    const w = new Worker(this.workerScript, { workerData: { path: this.path } });
    w.unref(); // a log that is not being read never keeps the process alive
    w.on('message', (m: StreamedLogMessage) => this.listener?.(m));
    const fail = (e: Error) => { this.worker = undefined; this.listener?.({ type: 'failed', message: e.message }); };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`the log reading thread stopped (exit ${code})`)));
    this.worker = w;
    return w;
  }

  /** Reads what is in the file now, to its end; `onDelta` sees each slice's news in order. A second call joins the first. */
  read(onDelta: (d: StreamDelta) => void, signal?: AbortSignal): Promise<void> {
    this.reading ??= this.readOnce(onDelta, signal).finally(() => { this.reading = null; });
    return this.reading;
  }

  private readOnce(onDelta: (d: StreamDelta) => void, signal?: AbortSignal): Promise<void> {
    const w = this.start();
    if (!w) return this.readInProcess(onDelta, signal);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => w.postMessage({ type: 'stop' } satisfies StreamedLogRequest);
      this.listener = (m) => {
        if (m.type === 'delta') { if (!signal?.aborted) onDelta(m.delta); return; }
        this.listener = undefined;
        signal?.removeEventListener('abort', onAbort);
        if (m.type === 'end') resolve(); else reject(new Error(m.message));
      };
      w.postMessage({ type: 'read' } satisfies StreamedLogRequest);
      if (signal?.aborted) onAbort(); else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async readInProcess(onDelta: (d: StreamDelta) => void, signal?: AbortSignal): Promise<void> {
    this.reader ??= new StreamedLogReader(this.path);
    for (;;) {
      if (signal?.aborted) return;
      const d = await this.reader.step(IN_PROCESS_SLICE_BYTES);
      if (d.bytes === 0 && !d.reset) return;
      onDelta(d);
      await new Promise((r) => setImmediate(r)); // let the caller's thread breathe between slices
    }
  }

  dispose(): void {
    const w = this.worker;
    this.worker = undefined;
    this.listener = undefined;
    if (w) { w.removeAllListeners('exit'); void w.terminate(); }
  }
}

/**
 * The delta's columns as plain arrays for the trip to the view's thread. Typed arrays arrive as
 * ArrayBuffers of their own, counted as external memory there (about 40 MB while a 200 MB log is
 * read); with them the extension host's longest mark-compact was 143–329 ms (3 runs, 2-core box
 * under load), with plain arrays 25–124 ms (3 runs). Plain arrays die young in the scavenger.
 */
function plainColumns(t: TrackerDelta): TrackerDelta {
  const a = (x: ArrayLike<number>) => Array.from(x);
  return {
    ...t, engines: a(t.engines), line: a(t.line), time: a(t.time), res: a(t.res), hop: a(t.hop), proc: a(t.proc), role: a(t.role), req: a(t.req),
    batchLine: a(t.batchLine), batchHop: a(t.batchHop), batchTime: a(t.batchTime),
  };
}

/** The loop of the reading thread: reads on request, a delta per slice, stops when asked. */
export function serveStreamedLog(path: string, port: {
  postMessage(m: StreamedLogMessage, transfer?: ArrayBuffer[]): void;
  on(ev: 'message', fn: (m: StreamedLogRequest) => void): void;
}): void {
  const reader = new StreamedLogReader(path);
  let stop = false;
  let running = false;
  port.on('message', (m) => {
    if (m.type === 'stop') { stop = true; return; }
    if (running) return;
    running = true;
    stop = false;
    void (async () => {
      try {
        for (;;) {
          if (stop) break;
          const d = await reader.step(THREAD_SLICE_BYTES);
          if (d.bytes === 0 && !d.reset) break;
          port.postMessage({ type: 'delta', delta: { ...d, tracker: plainColumns(d.tracker) } });
          await new Promise((r) => setImmediate(r)); // a `stop` gets in between slices
        }
        port.postMessage({ type: 'end' });
      } catch (e) {
        port.postMessage({ type: 'failed', message: e instanceof Error ? e.message : String(e) });
      } finally { running = false; }
    })();
  });
}
