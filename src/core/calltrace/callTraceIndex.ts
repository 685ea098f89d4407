// A trace folder as instances → processes → threads → call trees. Indexing runs in a small
// pool of worker threads (two by default) that take the files from one queue, so the editor
// never freezes and a folder of thousands of small files costs no thread start per file; the
// finished column arrays are transferred, not copied. Appends to files still being written are read later
// on this thread by `refresh()` (they are small).
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { discoverTraceFiles, type DiscoveryOptions } from './discovery';
import { CancelledError, readTraceFile } from './fileReader';
import type { IndexReply, IndexRequest } from './protocol';
import { ThreadTrace, DEFAULT_MAX_NODES } from './threadTrace';
import type {
  CallRow, ChildrenPage, DiscoveryResult, IgnoredFile, IndexProgress, PageOptions, ProcessRole,
  ThreadSummary, TraceFileInfo,
} from './types';

/** Bytes of trace text per call, roughly (a call line and a return line of ~200 bytes each). */
const BYTES_PER_CALL_ESTIMATE = 400;
/** Even a small file among huge ones keeps this many nodes. */
const MIN_NODES_PER_THREAD = 200_000;
/** A folder smaller than this is read on the main thread alone when it may (a worker's start-up, ~40 ms, buys nothing). */
const MAIN_THREAD_ONLY_BYTES = 32 * 1024 * 1024;

export interface OpenTraceOptions {
  onProgress?: (progress: IndexProgress) => void;
  signal?: AbortSignal;
  /** 'worker' (default): worker threads; 'in-process': on this thread, yielding between chunks (tests, tiny folders). */
  mode?: 'worker' | 'in-process';
  /** Path of the bundled worker (dist/calltraceIndex.js); found next to this file by default. */
  workerPath?: string;
  /**
   * This thread indexes files too, with blocking reads, beside concurrency − 1 workers (one file: no worker at all),
   * which saves a worker's start-up; a folder under 32 MB is then read by this thread alone unless `concurrency` is given.
   * Only for a process with nothing else to do (the CLI), never in the editor.
   */
  mainThreadLane?: boolean;
  /** Files indexed at once (default: min(2, CPUs)). */
  concurrency?: number;
  /** Calls stored as tree nodes over the whole folder (~57 bytes each); shared out by file size. Default 3.5 M. */
  maxNodesTotal?: number;
  /** How the folders are walked: depth limit, links out of the root. */
  discovery?: DiscoveryOptions;
}

export interface ThreadEntry {
  key: string;
  file: TraceFileInfo;
  trace: ThreadTrace | null;
  /** Why the file could not be read (permissions, vanished…). */
  error: string | null;
}

export interface ProcessGroup {
  instanceId: string;
  pid: number;
  role: ProcessRole;
  threads: ThreadSummary[];
}

export interface SearchHit {
  threadKey: string;
  nodeId: number;
  fn: string;
  file: string;
  line: number;
  /** Ancestors outermost first, to reveal the hit in the tree. */
  ancestors: number[];
}

function estimateCalls(size: number): number {
  return Math.ceil(size / BYTES_PER_CALL_ESTIMATE);
}

/** Where the worker bundle is: `preferred` (the extension's dist/), next to the bundled caller, or in the tsc output tree. */
export function findWorkerScript(preferred?: string): string | null {
  const candidates = [
    ...(preferred ? [preferred] : []),
    join(__dirname, 'calltraceIndex.js'),
    join(__dirname, '..', '..', 'workers', 'calltraceIndex.js'),
  ];
  return candidates.find((c) => existsSync(c)) ?? null;
}

export class CallTraceIndex {
  readonly threads = new Map<string, ThreadEntry>();

  constructor(readonly roots: readonly string[], public discovery: DiscoveryResult, private readonly maxNodes: number,
    private readonly discoveryOptions: DiscoveryOptions = {}) {}

  /** Files that were not indexed: non-trace names, unreadable files/folders, folders and links not walked. */
  get ignored(): IgnoredFile[] {
    const unreadable = [...this.threads.values()].filter((t) => t.error).map((t) => ({ path: t.file.path, reason: t.error! }));
    return [...this.discovery.ignored, ...this.discovery.errors, ...this.discovery.skipped, ...unreadable];
  }

  threadSummaries(): ThreadSummary[] {
    const out: ThreadSummary[] = [];
    for (const t of this.threads.values()) {
      if (!t.trace) continue;
      out.push({
        key: t.key, file: t.file, role: t.trace.guessRole(), stats: t.trace.stats,
        topLevelCount: t.trace.topLevelCount, openStack: t.trace.openStack(),
      });
    }
    return out;
  }

  /** Instance → process → threads, for the top of the tree view. */
  processes(): ProcessGroup[] {
    const groups = new Map<string, ProcessGroup>();
    for (const s of this.threadSummaries()) {
      const key = `${s.file.instanceId}\u0000${s.file.pid}`;
      let g = groups.get(key);
      if (!g) { g = { instanceId: s.file.instanceId, pid: s.file.pid, role: 'unknown', threads: [] }; groups.set(key, g); }
      g.threads.push(s);
      if (g.role === 'unknown' || s.role === 'engine-core') g.role = s.role;
    }
    return [...groups.values()].sort((a, b) => a.instanceId.localeCompare(b.instanceId) || a.pid - b.pid);
  }

  trace(threadKey: string): ThreadTrace {
    const t = this.threads.get(threadKey)?.trace;
    if (!t) throw new Error(`No indexed trace for ${threadKey}`);
    return t;
  }

  /** One level of a thread's call tree; `nodeId` null = the top-level calls. O(children). */
  getChildren(threadKey: string, nodeId: number | null, options: PageOptions = {}): ChildrenPage {
    return this.trace(threadKey).children(nodeId ?? -1, options);
  }

  /** The individual calls of a ×N row. */
  getRunMembers(threadKey: string, firstNodeId: number, options: PageOptions = {}): ChildrenPage {
    return this.trace(threadKey).runMembers(firstNodeId, options);
  }

  getNode(threadKey: string, nodeId: number): CallRow {
    return this.trace(threadKey).row(nodeId);
  }

  /** Calls whose function name contains `query`, across all threads. */
  search(query: string, limit = 100): SearchHit[] {
    const hits: SearchHit[] = [];
    for (const [key, t] of this.threads) {
      if (!t.trace || hits.length >= limit) continue;
      for (const id of t.trace.search(query, limit - hits.length)) {
        hits.push({ threadKey: key, nodeId: id, fn: t.trace.fnOf(id), file: t.trace.fileOf(id), line: t.trace.lineOf(id), ancestors: t.trace.ancestorsOf(id) });
      }
    }
    return hits;
  }

  /**
   * Follows files still being written: reads what was appended since the last read, indexes new
   * files, and re-indexes files that shrank. Returns the keys of threads that changed.
   */
  async refresh(options: { signal?: AbortSignal } = {}): Promise<string[]> {
    this.discovery = await discoverTraceFiles(this.roots, this.discoveryOptions);
    const changed: string[] = [];
    for (const inst of this.discovery.instances) {
      for (const file of inst.files) {
        let entry = this.threads.get(file.path);
        if (!entry) {
          entry = { key: file.path, file, trace: null, error: null };
          this.threads.set(file.path, entry);
        }
        entry.file = file;
        // Discovery just read every size: a file that has not grown since is not opened again.
        if (entry.trace && !entry.error && file.size === entry.trace.consumed) continue;
        const before = entry.trace?.consumed ?? -1;
        try {
          if (!entry.trace) entry.trace = new ThreadTrace({ maxNodes: this.maxNodes, expectedCalls: estimateCalls(file.size) });
          const outcome = await readTraceFile(file.path, entry.trace, { signal: options.signal });
          if (outcome === 'shrunk') {
            entry.trace = new ThreadTrace({ maxNodes: this.maxNodes, expectedCalls: estimateCalls(file.size) });
            await readTraceFile(file.path, entry.trace, { signal: options.signal });
            changed.push(entry.key);
          } else if (entry.trace.consumed !== before) changed.push(entry.key);
          entry.error = null;
        } catch (e) {
          if (e instanceof CancelledError) throw e;
          entry.error = (e as Error).message;
        }
      }
    }
    return changed;
  }
}

/** Indexes every trace file under `paths` (folders or files). Rejects with CancelledError on abort. */
export async function openTraceFolder(paths: string | readonly string[], options: OpenTraceOptions = {}): Promise<CallTraceIndex> {
  const roots = typeof paths === 'string' ? [paths] : [...paths];
  const discovery = await discoverTraceFiles(roots, options.discovery);
  const files = discovery.instances.flatMap((i) => i.files);
  const budget = options.maxNodesTotal ?? DEFAULT_MAX_NODES;
  const totalBytes = files.reduce((n, f) => n + f.size, 0);
  // Each file gets a share of the node budget by size, so memory stays bounded however big the folder.
  const capFor = (f: TraceFileInfo): number => Math.max(MIN_NODES_PER_THREAD, Math.floor(budget * (totalBytes > 0 ? f.size / totalBytes : 1)));
  const index = new CallTraceIndex(roots, discovery, Math.max(MIN_NODES_PER_THREAD, Math.floor(budget / Math.max(1, files.length))), options.discovery);
  const progress: IndexProgress = { bytesDone: 0, bytesTotal: totalBytes, filesDone: 0, filesTotal: files.length, currentFile: null };
  // Bytes of finished files plus those of the files being read now: no sum over every file per report.
  let finishedBytes = 0;
  const inFlight = new Map<string, number>();
  const report = (path: string, bytes: number): void => {
    inFlight.set(path, bytes);
    let sum = finishedBytes;
    for (const v of inFlight.values()) sum += v;
    progress.bytesDone = sum;
    progress.currentFile = path;
    options.onProgress?.({ ...progress });
  };
  const fileDone = (path: string, bytes: number): void => {
    inFlight.delete(path);
    finishedBytes += bytes;
    progress.filesDone++;
    report(path, 0);
    inFlight.delete(path);
  };
  for (const f of files) index.threads.set(f.path, { key: f.path, file: f, trace: null, error: null });

  const workerPath = options.mode === 'in-process' ? null : options.workerPath ?? findWorkerScript();
  const alone = options.mainThreadLane === true && totalBytes < MAIN_THREAD_ONLY_BYTES;
  const lanes = options.concurrency ?? (workerPath && !alone ? Math.min(2, availableParallelism()) : 1);
  const concurrency = Math.max(1, Math.min(lanes, Math.max(1, files.length)));
  // The last lane is this thread's own when asked: the workers' lanes start first, so they read while this one blocks.
  const selfLane = workerPath !== null && options.mainThreadLane === true ? concurrency - 1 : -1;
  const pool = workerPath && concurrency - (selfLane >= 0 ? 1 : 0) > 0 ? new IndexWorkerPool(workerPath, concurrency) : null;
  const indexOne = (f: TraceFileInfo, lane: number): Promise<ThreadTrace> => pool && lane !== selfLane
    ? pool.index(f, capFor(f), report, options.signal)
    : indexInProcess(f, capFor(f), report, options.signal, lane === selfLane);

  let next = 0;
  const runLane = async (lane: number): Promise<void> => {
    while (next < files.length) {
      const f = files[next++];
      const entry = index.threads.get(f.path)!;
      try {
        entry.trace = await indexOne(f, lane);
      } catch (e) {
        if (e instanceof CancelledError) throw e;
        entry.error = (e as Error).message;
      }
      fileDone(f.path, entry.trace?.consumed ?? f.size);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, (_, lane) => runLane(lane)));
  } finally {
    await pool?.close();
  }
  return index;
}

async function indexInProcess(
  f: TraceFileInfo, maxNodes: number, report: (p: string, b: number) => void, signal?: AbortSignal, blocking = false,
): Promise<ThreadTrace> {
  const trace = new ThreadTrace({ maxNodes, expectedCalls: estimateCalls(f.size) });
  await readTraceFile(f.path, trace, {
    signal,
    blocking,
    onProgress: (b) => report(f.path, b),
  });
  return trace;
}

/**
 * Worker threads that index one file after another. A worker starts once per pool, not once
 * per file (~50 ms each); one that dies or is cancelled mid-file is replaced for the next file.
 */
class IndexWorkerPool {
  private idle: Worker[] = [];
  private readonly all = new Set<Worker>();

  constructor(private readonly workerPath: string, private readonly size: number) {}

  private take(): Worker {
    const w = this.idle.pop();
    if (w) return w;
    const fresh = new Worker(this.workerPath);
    this.all.add(fresh);
    fresh.once('exit', () => { this.all.delete(fresh); this.idle = this.idle.filter((x) => x !== fresh); });
    return fresh;
  }

  private discard(w: Worker): void {
    this.all.delete(w);
    void w.terminate();
  }

  index(f: TraceFileInfo, maxNodes: number, report: (p: string, b: number) => void, signal?: AbortSignal): Promise<ThreadTrace> {
    return new Promise<ThreadTrace>((resolve, reject) => {
      if (signal?.aborted) { reject(new CancelledError()); return; }
      const worker = this.take();
      let settled = false;
      const finish = (keep: boolean, fn: () => void): void => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage); worker.off('error', onError); worker.off('exit', onExit);
        if (keep && this.idle.length < this.size) this.idle.push(worker); else this.discard(worker);
        fn();
      };
      const onAbort = (): void => finish(false, () => reject(new CancelledError()));
      const onMessage = (msg: IndexReply): void => {
        if (msg.path !== f.path) return;
        if (msg.type === 'progress') report(msg.path, msg.bytesDone);
        else if (msg.type === 'done') finish(true, () => resolve(new ThreadTrace({}, msg.state)));
        else finish(true, () => reject(new Error(msg.message)));
      };
      const onError = (e: Error): void => finish(false, () => reject(e));
      const onExit = (code: number): void => finish(false, () => reject(new Error(`indexing worker exited with code ${code}`)));
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      const request: IndexRequest = { type: 'index', path: f.path, maxNodes, expectedCalls: estimateCalls(f.size) };
      worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    const workers = [...this.all];
    this.all.clear();
    this.idle = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
