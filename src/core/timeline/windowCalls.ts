// The function calls that ran during a request: `VLLM_TRACE_FUNCTION` files matched to the log
// processes by pid (the file name carries it, the log's `(Name pid=N)` prefix too), and, from a
// thread's call index (ThreadTrace, built by the existing indexer), only the calls that overlap
// the request's window. A thread's calls are numbered in the order they were made, so those
// starting inside the window are one contiguous run of ids found by binary search; the calls
// already running when the window opens are the last call started before it and its callers.
import type { ThreadTrace } from '../calltrace/threadTrace';
import type { TraceFileInfo } from '../calltrace/types';
import type { ProcessSeen, RequestLogs } from './requestLogs';

export interface TraceMatch {
  file: TraceFileInfo;
  /** The log whose process has the file's pid. */
  logIndex: number;
  process: ProcessSeen;
}

export interface TraceMatching {
  matched: TraceMatch[];
  /** Trace files whose pid no given log prints (another run, or a process the logs do not show). */
  unmatched: TraceFileInfo[];
  /**
   * The unmatched files of trace runs (vllm-instance-… folders) none of whose files matched: a
   * trace folder keeps every run, so these are other runs rather than processes the logs miss.
   */
  otherRuns: TraceFileInfo[];
  /** A pid printed by processes in several logs (two hosts reuse pids): the first log was taken. */
  ambiguous: number[];
}

const ENGINE_ROLES = new Set(['engine-core', 'worker']);

export function matchTraceFiles(files: readonly TraceFileInfo[], logs: readonly RequestLogs[]): TraceMatching {
  const byPid = new Map<number, { logIndex: number; process: ProcessSeen }[]>();
  for (const [logIndex, log] of logs.entries()) {
    for (const p of log.processes) {
      if (p.pid === null) continue;
      const list = byPid.get(p.pid) ?? [];
      list.push({ logIndex, process: p });
      byPid.set(p.pid, list);
    }
  }
  const out: TraceMatching = { matched: [], unmatched: [], otherRuns: [], ambiguous: [] };
  for (const file of files) {
    const list = byPid.get(file.pid);
    if (!list) { out.unmatched.push(file); continue; }
    // The traced threads are engine processes' (engine core, or workers with TP/PP > 1).
    const best = list.find((c) => c.process.role !== null && ENGINE_ROLES.has(c.process.role)) ?? list[0];
    if (new Set(list.map((c) => c.logIndex)).size > 1 && !out.ambiguous.includes(file.pid)) out.ambiguous.push(file.pid);
    out.matched.push({ file, logIndex: best.logIndex, process: best.process });
  }
  const matchedRuns = new Set(out.matched.map((x) => x.file.instanceId));
  out.otherRuns = out.unmatched.filter((f) => !matchedRuns.has(f.instanceId));
  return out;
}

export interface WindowCalls {
  /** Node ids, outermost levels first when capped, then in call order. */
  nodes: number[];
  /** Depth of each node in the thread's tree. */
  depths: number[];
  /** Calls overlapping the window (before the cap). */
  total: number;
}

/** First id in [lo, hi) whose start is ≥ t, or hi; start times are non-decreasing in id. */
function firstStartingAtOrAfter(trace: ThreadTrace, t: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (trace.startOf(mid) < t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** True when start times never go down with the id (clock steps and synthesised callers can break it). */
function startsInOrder(trace: ThreadTrace): boolean {
  let prev = -Infinity;
  for (let i = 0; i < trace.count; i++) {
    const s = trace.startOf(i);
    if (s < prev) return false;
    prev = s;
  }
  return true;
}

const ordered = new WeakMap<ThreadTrace, { count: number; ok: boolean }>();

/**
 * Calls of `trace` overlapping [fromUs, toUs] (µs of the trace's clock), at most `cap`, the
 * outer levels kept first when there are more (a flame keeps its shape), returned in call order.
 */
export function callsInWindow(trace: ThreadTrace, fromUs: number, toUs: number, cap: number): WindowCalls {
  const lastTs = trace.stats.lastTs;
  const endOf = (id: number): number => {
    const e = trace.endOf(id);
    return Number.isNaN(e) ? lastTs : e;
  };
  const hits: number[] = [];
  let memo = ordered.get(trace);
  if (!memo || memo.count !== trace.count) { memo = { count: trace.count, ok: startsInOrder(trace) }; ordered.set(trace, memo); }
  if (memo.ok) {
    const first = firstStartingAtOrAfter(trace, fromUs, 0, trace.count);
    // Already running at fromUs: the last call started before it, and its callers, while they last.
    const before: number[] = [];
    for (let id = first - 1; id >= 0; id = trace.parentOf(id)) if (endOf(id) > fromUs || trace.isOpen(id)) before.push(id);
    hits.push(...before.reverse());
    for (let id = first; id < trace.count && trace.startOf(id) <= toUs; id++) hits.push(id);
  } else {
    for (let id = 0; id < trace.count; id++) if (trace.startOf(id) <= toUs && (endOf(id) > fromUs || trace.isOpen(id))) hits.push(id);
  }
  const total = hits.length;
  let nodes = hits;
  let depths = hits.map((id) => trace.depthOf(id));
  if (hits.length > cap) {
    const order = hits.map((_, i) => i).sort((a, b) => depths[a] - depths[b] || a - b).slice(0, cap).sort((a, b) => a - b);
    nodes = order.map((i) => hits[i]);
    depths = order.map((i) => depths[i]);
  }
  return { nodes, depths, total };
}
