// The one place where the timeline reads and annotates log files. Everything the timeline
// needs from the log layer comes through here, so moving it onto another read model (one
// session per log) is a change to this file only.
//
// Each log is read once, as `hoplens annotate --rid` reads it: the byte-level fast path feeds
// the request index (RequestTracker) for every other request, and the request's own lines are
// left to the parser and kept as records. Alongside, in the same pass and nowhere else:
//   - batch lines (stats, EngineCore idle/active, SGLang prefill/decode batches) with their
//     times and process, for the lanes of processes that print no request id;
//   - every process prefix `(Name pid=N)`, for matching call-trace files by pid;
//   - router lines (routerLog.ts) naming a request, for logs of a router or proxy.
// Afterwards, per request (join key) and only when a clock rule asks, the first or last stamp
// of the hops the rules compare (received, added, output, finished), from the index.
import type { Engine, LogRecord, TimeResolution } from '../logs/model';
import { LogInputError } from '../logs/scanner';
import { openLogInput } from '../logs/logInput';
import { processInfo, type ParseState } from '../logs/parseLine';
import { RequestTracker, type RequestGroup } from '../logs/requests';
import { vllmFastPath } from '../logs/fastVllm';
import { citedSource } from '../source/locate';
import { redactMessage } from '../session/requestExport';
import { LogSession } from '../session/logSession';
import { readLogStream } from '../session/logStream';
import { findHop } from '../../hops/index';
import type { SourceLocation } from '../source/types';
import { keyMatcher, queryKeys, requestKey } from './requestKey';
import { parseRouterLine, type RouterLine } from './routerLog';
import { resolutionSpanMs } from './model';
import { RequestStamps, STAMP, type Stamp, type StampReader, type StampSlot } from './requestStamps';

export { STAMP, type StampSlot } from './requestStamps';

export { LogInputError };
/** Prompts and generated text out of a log message (the log layer's rules). */
export const redactLogMessage: (message: string) => string = redactMessage;

/** Milliseconds one stamp spans (a stamp of unknown resolution counts as whole seconds). */
function resolutionMs(res: TimeResolution | null): number {
  return resolutionSpanMs(res ?? 's');
}

/** Which slots each request hop fills (hop ids are unique across engines). */
const HOP_SLOTS: Record<string, StampSlot[] | undefined> = {
  V1: [STAMP.arrive, STAMP.beforeHeaders, STAMP.beforeResponse], V1b: [STAMP.arrive, STAMP.beforeHeaders, STAMP.beforeResponse],
  V2: [STAMP.admit, STAMP.beforeResponse], V6: [STAMP.beforeResponse], V11: [STAMP.beforeResponse],
  S1: [STAMP.arrive, STAMP.beforeHeaders], S2: [STAMP.arrive], S5: [STAMP.engineFinish], S6: [STAMP.apiFinish],
};

/** A line of the log about no request in particular, placed by its time. */
export interface ContextLine {
  line: number;
  hop: string;
  time: number;
  resolution: TimeResolution;
  process: string | null;
  role: string | null;
}

/**
 * The request index of one log, plus what the timeline keeps in the same pass. Extends the
 * tracker rather than wrapping it so the byte fast path, which feeds `addHop` directly, feeds
 * this too.
 */
class TimelineTracker extends RequestTracker {
  readonly batchLine: number[] = [];
  readonly batchTime: number[] = [];
  readonly batchRes: TimeResolution[] = [];
  readonly batchHop: string[] = [];
  readonly batchProc: (string | null)[] = [];
  readonly batchRole: (string | null)[] = [];
  private readonly isBatchHop = new Map<string, boolean>();

  override addHop(engine: Engine | 'other', hop: string, ids: string | string[] | null, line: number, time: number | null,
    resolution: TimeResolution | null, process: string | null, role: string | null): void {
    super.addHop(engine, hop, ids, line, time, resolution, process, role);
    if (ids !== null || engine === 'other' || time === null) return;
    let batch = this.isBatchHop.get(hop);
    if (batch === undefined) { batch = findHop(engine, hop)?.scope === 'batch'; this.isBatchHop.set(hop, batch); }
    if (batch) {
      this.batchLine.push(line); this.batchTime.push(time); this.batchRes.push(resolution ?? 's');
      this.batchHop.push(hop); this.batchProc.push(process); this.batchRole.push(role);
    }
  }

  /** The stamps of the requests with these ids into `row` of `into`. */
  stampsInto(into: RequestStamps, row: number, rids: readonly string[]): void {
    for (const rid of rids) {
      this.forEachEntry(rid, (hop, line, time, res) => {
        const slots = HOP_SLOTS[hop];
        if (slots === undefined || time === null) return;
        const resMs = resolutionMs(res);
        for (const slot of slots) into.note(row, slot, time, resMs, line);
      });
    }
  }
}

/**
 * A log's stamps by join key, worked out from its request index when first asked for: the clock
 * rules ask only for the requests another source shares (every request of a log only when every
 * request is shared), and nothing is kept per line while the log is read.
 */
class LogStamps implements StampReader {
  /** Requests of the index not yet looked at, by join key. */
  private readonly pending = new Map<string, string[]>();

  /** `store` holds what was noted while reading (router lines); the index's requests join it when asked for. */
  constructor(private readonly tracker: TimelineTracker | null, private readonly store = new RequestStamps()) {
    if (tracker) {
      for (const rid of tracker.rids()) {
        const k = requestKey(rid);
        const list = this.pending.get(k);
        if (list) list.push(rid); else this.pending.set(k, [rid]);
      }
    }
  }

  /** Requests in the log (one under router lines and engine lines counts twice: harmless for the rules). */
  get size(): number { return this.store.size + this.pending.size; }
  *keys(): Iterable<string> { yield* this.store.keys(); yield* this.pending.keys(); }

  find(key: string): number {
    const rids = this.pending.get(key);
    if (rids === undefined) return this.store.find(key);
    const row = this.store.row(key);
    this.tracker!.stampsInto(this.store, row, rids);
    this.pending.delete(key);
    return row;
  }

  has(row: number, slot: StampSlot): boolean { return this.store.has(row, slot); }
  time(row: number, slot: StampSlot): number { return this.store.time(row, slot); }
  resMs(row: number, slot: StampSlot): number { return this.store.resMs(row, slot); }
  line(row: number, slot: StampSlot): number { return this.store.line(row, slot); }
  get(row: number, slot: StampSlot): Stamp | null { return this.store.get(row, slot); }
}

export interface ProcessSeen {
  /** vLLM's `(Name pid=N)` name, or SGLang's rank tag / process. */
  name: string | null;
  pid: number | null;
  role: string | null;
}

/** One of the request's lines, with where its source is (the log's own citation; no checkout). */
export interface RequestLine {
  record: LogRecord;
  source: SourceLocation | null;
}

/** A router line naming the request. */
export interface MentionLine {
  line: number;
  offset: number;
  text: string;
  router: RouterLine;
}

export interface RequestLogs {
  path: string;
  engine: Engine | null;
  lines: number;
  bytes: number;
  /** 'router' when the log has router lines naming requests and no engine hops. */
  kind: 'engine' | 'router' | 'other';
  /** The request's own lines, in file order. */
  records: RequestLine[];
  mentions: MentionLine[];
  /** Deltas and missing hops of the request in this file (the request index's view), when it has lines here. */
  group: RequestGroup | null;
  processes: ProcessSeen[];
  /** Per request (join key): the stamps the clock rules compare. */
  stamps: StampReader;
  /** Batch lines stamped inside [fromMs, toMs] of this file's clock, at most `cap`, in file order. */
  contextBetween(fromMs: number, toMs: number, cap?: number): ContextLine[];
}

export interface ReadRequestOptions {
  engine?: Engine | 'auto';
  signal?: AbortSignal;
}

interface Collected {
  records: LogRecord[];
  mentions: MentionLine[];
  /** The request index's view of the request in this file (worked out before the index is let go). */
  group?: RequestGroup | null;
}

/**
 * A byte-level wrapper around the fast path that notes each new `(Name pid=N)` prefix (lines
 * the fast path takes make no record, so their process would be lost).
 */
function noteProcesses(state: ParseState, inner: ((b: Buffer, s: number, e: number, n: number, o: number) => boolean) | null,
  seen: Map<string, ProcessSeen>): (b: Buffer, s: number, e: number, n: number, o: number) => boolean {
  let last = Buffer.alloc(0);
  return (b, s, e, n, o) => {
    if (b[s] === 40 /* ( */) {
      const limit = Math.min(e, s + 200);
      let close = s + 1;
      while (close < limit && b[close] !== 41) close++;
      if (close < limit) {
        const len = close - s;
        let same = len === last.length;
        for (let i = 0; same && i < len; i++) if (b[s + i] !== last[i]) same = false;
        if (!same) {
          last = Buffer.from(b.subarray(s, close));
          const m = /^\(([^()]*?) pid=(\d+)/.exec(last.toString('latin1'));
          if (m) {
            const info = processInfo(state, m[1]);
            const k = `${m[1]}\u0000${m[2]}`;
            if (!seen.has(k)) seen.set(k, { name: info.name, pid: Number(m[2]), role: info.role });
          }
        }
      }
    }
    return inner !== null && inner(b, s, e, n, o);
  };
}

async function readOne(path: string, keys: readonly string[], opts: ReadRequestOptions): Promise<{ log: Omit<RequestLogs, 'records' | 'group'>; collected: Map<string, Collected> }> {
  const input = await openLogInput(path);
  const matchKey = keyMatcher(keys);
  const collected = new Map<string, Collected>(keys.map((k) => [k, { records: [], mentions: [] }]));
  let tracker = new TimelineTracker(opts.engine && opts.engine !== 'auto' ? opts.engine : null, { keepContext: true });
  const processes = new Map<string, ProcessSeen>();
  const routerStamps = new RequestStamps();
  let routerLines = 0;
  try {
    // The session fills the tracker (parsed lines, and the fast path's through `fast`).
    const onRecord = (rec: LogRecord): void => {
      if (rec.process !== null || rec.pid !== null) {
        const k = `${rec.process ?? ''}\u0000${rec.pid ?? ''}`;
        if (!processes.has(k)) processes.set(k, { name: rec.process, pid: rec.pid, role: rec.role });
      }
      if (rec.engine === 'other') {
        const r = parseRouterLine(rec.message);
        if (r === null) return;
        routerLines++;
        if (r.event !== 'other') {
          routerStamps.note(routerStamps.row(requestKey(r.requestId)), r.event === 'received' ? STAMP.routerReceived : STAMP.routerResponded, r.time, resolutionMs(r.resolution), rec.line);
        }
        const c = collected.get(requestKey(r.requestId));
        if (c) c.mentions.push({ line: rec.line, offset: rec.offset, text: rec.message, router: r });
        return;
      }
      if (rec.rid === null) return;
      let hit: string | null = matchKey(rec.rid);
      if (hit === null && rec.rids) for (const id of rec.rids) { hit = matchKey(id); if (hit !== null) break; }
      if (hit !== null) collected.get(hit)!.records.push(rec);
      else if (rec.continuation && rec.rid !== null) {
        // A continuation line of one of the request's multi-line records.
        const prev = [...collected.values()].find((c) => c.records.length && c.records[c.records.length - 1].line === rec.line - 1);
        if (prev) prev.records.push(rec);
      }
    };
    const leave = (rid: string): boolean => matchKey(rid) !== null;
    const useFast = opts.engine !== 'sglang';
    const session = new LogSession({
      engine: opts.engine ?? 'auto',
      referenceTime: input.referenceTime,
      keepRecords: false,
      keepContext: true,
      onRecord,
      newTracker: (forced, o) => (tracker = new TimelineTracker(forced, o)),
      fast: (state, t) => noteProcesses(state, useFast ? vllmFastPath(state, t, null, undefined, leave) : null, processes),
    });
    const result = await readLogStream(session, input.chunks(), opts.signal);
    const engine = result.engine;
    const kind: RequestLogs['kind'] = engine !== null ? 'engine' : routerLines > 0 ? 'router' : 'other';
    const stamps = new LogStamps(tracker, routerStamps);
    for (const c of collected.values()) {
      const firstRid = c.records.find((r) => !r.continuation)?.rid ?? null;
      c.group = firstRid !== null ? tracker.get(firstRid) : null;
    }
    // What the timeline keeps of this log: its request index (for the stamps, looked at when
    // asked for), batch lines, processes.
    const batch = { line: tracker.batchLine, time: tracker.batchTime, res: tracker.batchRes, hop: tracker.batchHop, proc: tracker.batchProc, role: tracker.batchRole };
    const log = {
      path, engine, lines: result.lines, bytes: result.bytes, kind, mentions: [] as MentionLine[],
      processes: [...processes.values()],
      stamps,
      contextBetween(fromMs: number, toMs: number, cap = 200): ContextLine[] {
        const out: ContextLine[] = [];
        for (let i = 0; i < batch.line.length && out.length < cap; i++) {
          const t = batch.time[i];
          // A stamp of whole seconds is in the window when any part of its second is.
          if (t + resolutionMs(batch.res[i]) <= fromMs || t > toMs) continue;
          out.push({ line: batch.line[i], hop: batch.hop[i], time: t, resolution: batch.res[i], process: batch.proc[i], role: batch.role[i] });
        }
        return out;
      },
    };
    return { log, collected };
  } finally { input.close(); }
}

export interface RequestLogsResult {
  /** The join key the request was found under ('' when no file has it). */
  key: string;
  logs: RequestLogs[];
}

/**
 * Reads each log once and returns, per log, the request's lines and the indexes the timeline
 * needs. `query` is what the user typed: a base id, `chatcmpl-…`, `cmpl-…`, an engine-internal
 * id, an SGLang rid, or a router's request_id. Throws LogInputError for a file that cannot be read.
 */
export async function readRequestLogs(paths: readonly string[], query: string, opts: ReadRequestOptions = {}): Promise<RequestLogsResult> {
  const keys = queryKeys(query);
  const read: Awaited<ReturnType<typeof readOne>>[] = [];
  for (const path of paths) read.push(await readOne(path, keys, opts));
  // The literal reading of the query wins when it has lines anywhere (see queryKeys).
  const count = (k: string): number => read.reduce((n, r) => n + r.collected.get(k)!.records.length + r.collected.get(k)!.mentions.length, 0);
  const key = keys.find((k) => count(k) > 0) ?? '';
  const logs: RequestLogs[] = read.map(({ log, collected }) => {
    const c: Collected = key ? collected.get(key)! : { records: [], mentions: [] };
    return {
      ...log,
      records: c.records.map((record) => ({ record, source: citedSource(record) })),
      mentions: c.mentions,
      group: c.group ?? null,
    };
  });
  return { key, logs };
}
