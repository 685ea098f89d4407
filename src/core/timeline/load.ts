// A request's timeline from files on disk (the command line, benchmarks) or, for logs open in
// the editor, from their sessions: the logs through requestLogs.ts, OTLP JSON files into a SpanStore, and, when trace folders are given, only the
// trace files whose pid a log's process prints, indexed by the existing call-trace indexer.
import { basename } from 'node:path';
import { stat } from 'node:fs/promises';
import type { Engine } from '../logs/model';
import type { LogSource } from '../logs/logSource';
import { SpanStore } from '../otlp/engineTiming';
import { NotOtlpError, readCollectorFile } from '../otlp/collectorFile';
import { discoverTraceFiles } from '../calltrace/discovery';
import { openTraceFolder } from '../calltrace/callTraceIndex';
import { buildTimelinePaced, logClockId, type TracedThread } from './build';
import type { Pace } from '../session/pace';
import type { RequestTimeline } from './model';
import type { ClientRequest } from './clientRequest';
import { readRequestLogs, type OpenLogSession } from './requestLogs';
import { matchTraceFiles } from './windowCalls';

/** Input the user gave that cannot be used (the command line answers it with exit code 2). */
export class TimelineInputError extends Error {}

export interface LoadTimelineOptions {
  query: string;
  /** The logs: paths of files (or `-`), or any LogSource (core/logs/logSource.ts: a store's stream). */
  logs: readonly (string | LogSource)[];
  otlpFiles?: readonly string[];
  /** Spans already in memory (the editor's receiver); OTLP files are added to a copy, not to it. */
  spans?: SpanStore | null;
  traceDirs?: readonly string[];
  client?: ClientRequest | null;
  /** Offsets the user set, ms ahead of the reference, by log path or file name, or 'client' / 'otlp'. */
  userOffsets?: ReadonlyMap<string, number>;
  engine?: Engine | 'auto';
  includeText?: boolean;
  maxCalls?: number;
  /** How trace files are indexed: worker threads (default) or on this thread. */
  indexMode?: 'worker' | 'in-process';
  signal?: AbortSignal;
  /** A log open in the editor, by path: its session is read instead of the file (requestLogs.ts). */
  openLog?: (path: string) => OpenLogSession | undefined | Promise<OpenLogSession | undefined>;
  /** Logs in `logs` that are not files (a store's streams, one per pod), read through their source. */
  sources?: ReadonlyMap<string, LogSource>;
  /** How the work shares its thread: long passes (the logs read, the clocks lined up) give the event loop turns (default SHARED_THREAD). */
  pace?: Pace;
}

export interface LoadedTimeline {
  timeline: RequestTimeline;
  /** Lines read per log, for the summary. */
  linesRead: number[];
  spans: number;
  traceFiles: { matched: number; unmatched: number };
}

/** The clock id an --offset key names. */
function clockForOffset(key: string, logs: readonly string[]): string {
  if (key === 'client' || key === 'otlp') return key;
  const exact = logs.indexOf(key);
  if (exact >= 0) return logClockId(exact);
  const byName = logs.map((p, i) => ({ p, i })).filter(({ p }) => basename(p) === key || basename(p) === basename(key));
  if (byName.length === 1) return logClockId(byName[0].i);
  if (byName.length > 1) throw new TimelineInputError(`--offset ${key}: several logs have that name; give the path as on the command line`);
  throw new TimelineInputError(`--offset ${key}: not one of the logs given (nor client or otlp)`);
}

export async function loadTimeline(o: LoadTimelineOptions): Promise<LoadedTimeline> {
  const userOffsets = new Map<string, number>();
  for (const [k, v] of o.userOffsets ?? []) userOffsets.set(clockForOffset(k, o.logs.map((l) => (typeof l === 'string' ? l : l.stream.key))), v);
  const warnings: string[] = [];

  const logs = await readRequestLogs(o.logs, o.query, { engine: o.engine, signal: o.signal, openLog: o.openLog, sources: o.sources, pace: o.pace });

  let spans: SpanStore | null = o.otlpFiles?.length ? null : o.spans ?? null;
  if (o.otlpFiles?.length && o.spans) { spans = new SpanStore(); spans.add(o.spans.spans()); }
  for (const path of o.otlpFiles ?? []) {
    spans ??= new SpanStore();
    const store = spans;
    try {
      const r = await readCollectorFile(path, { onSpans: (s) => store.add(s), signal: o.signal });
      if (r.badLineCount) warnings.push(`${path}: ${r.badLineCount} line(s) are not OTLP JSON and were skipped`);
    } catch (e) {
      if (e instanceof NotOtlpError) throw new TimelineInputError(`--otlp ${path}: ${e.message}`);
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new TimelineInputError(`--otlp ${path}: no such file`);
      if (code === 'EISDIR') throw new TimelineInputError(`--otlp ${path}: a folder, not an OTLP JSON file`);
      throw new TimelineInputError(`--otlp ${path}: ${(e as Error).message}`);
    }
  }

  const threads: TracedThread[] = [];
  let traceFiles = { matched: 0, unmatched: 0 };
  if (o.traceDirs && o.traceDirs.length) {
    for (const d of o.traceDirs) {
      const st = await stat(d).catch(() => null);
      if (!st) throw new TimelineInputError(`--trace-dir ${d}: no such folder`);
    }
    const found = await discoverTraceFiles(o.traceDirs);
    const files = found.instances.flatMap((i) => i.files);
    if (files.length === 0) warnings.push(`no VLLM_TRACE_FUNCTION_for_process_*.log files under ${o.traceDirs.join(', ')}`);
    const m = matchTraceFiles(files, logs.logs);
    traceFiles = { matched: m.matched.length, unmatched: m.unmatched.length };
    // A run some of whose processes are in the logs, with others missing, is worth a warning;
    // other runs in the same folder are not, unless no file at all belongs to these logs.
    const pidList = (fs: readonly { pid: number }[]) => {
      const pids = [...new Set(fs.map((f) => f.pid))];
      return `pid ${pids.slice(0, 8).join(', ')}${pids.length > 8 ? ', …' : ''}`;
    };
    const missing = m.unmatched.filter((f) => !m.otherRuns.includes(f));
    if (missing.length) warnings.push(`${missing.length} trace file(s) belong to no process of the logs given (${pidList(missing)})`);
    if (!m.matched.length && m.otherRuns.length) {
      warnings.push(`none of the ${m.otherRuns.length} trace file(s) belongs to a process of the logs given (${pidList(m.otherRuns)}): another run?`);
    }
    for (const pid of m.ambiguous) warnings.push(`pid ${pid} is printed by processes in several logs; its trace was matched to the first`);
    if (m.matched.length) {
      // Only the matched files are indexed: a folder holds every process of every run.
      const index = await openTraceFolder(m.matched.map((x) => x.file.path), { mode: o.indexMode, signal: o.signal });
      for (const x of m.matched) {
        const entry = index.threads.get(x.file.path);
        threads.push({ file: x.file, logIndex: x.logIndex, process: x.process, trace: entry?.trace ?? null, error: entry?.error ?? null });
      }
    }
  }

  const timeline = await buildTimelinePaced({ query: o.query, logs, client: o.client ?? null, spans, threads, userOffsets, warnings },
    { includeText: o.includeText, maxCalls: o.maxCalls }, o.pace);
  return { timeline, linesRead: logs.logs.map((l) => l.lines), spans: spans?.stats().spans ?? 0, traceFiles };
}
