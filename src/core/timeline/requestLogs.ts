// The one place where the timeline reads and annotates log files. Everything the timeline
// needs from the log layer comes through here. A log open in the editor is not read again: its
// session (OpenLogSession) already holds every record and the request index, so the request's
// lines come from there (unsaved edits included) and what the pass below keeps besides is
// worked out once per session (fromSession, at the end).
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
import { pathLogSource } from '../logs/pathSource';
import { holdsEveryRecord, type LogReadModel, type LogSource } from '../logs/logSource';
import { processInfo, type ParseState } from '../logs/parseLine';
import { RequestTracker, type RequestGroup } from '../logs/requests';
import { fastPathFor } from '../../engines/grammars';
import { citedSource } from '../source/locate';
import { redactMessage } from '../session/requestExport';
import { LogSession } from '../session/logSession';
import { readLogStream } from '../session/logStream';
import { SHARED_THREAD, Turns, type Pace } from '../session/pace';
import { findHop } from '../../engines/index';
import type { SourceLocation } from '../source/types';
import { keyMatcher, queryKeys, requestKey } from './requestKey';
import { idNeedle, mentionsRequest } from '../logs/requestIds';
import { noteTransferIds, TransferLines, TransferPairs } from '../logs/transferIds';
import { routerLineOf, type RouterLine } from './routerLog';
import { resolutionSpanMs } from './model';
import { StoreTimedStamps } from './storeStamps';
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

}

/**
 * Adds the requests of `tracker` from the `seen`th on (in the order it met them) to `byKey`, by
 * join key; returns how many it has. With `turns`, the event loop gets a turn whenever one is
 * due (60,000 requests are 30–60 ms of work).
 */
async function groupByKey(tracker: RequestTracker, byKey: Map<string, string[]>, turns: Turns | null, seen = 0): Promise<number> {
  let n = 0;
  for (const rid of tracker.rids()) {
    if (n++ < seen) continue;
    const k = requestKey(rid);
    const list = byKey.get(k);
    if (list) list.push(rid); else byKey.set(k, [rid]);
    if (turns !== null && (n & 1023) === 0 && turns.due()) await turns.take();
  }
  return n;
}

/** The stamps of the requests with these ids in `tracker` into `row` of `into`. */
function stampsInto(tracker: RequestTracker, into: RequestStamps, row: number, rids: readonly string[]): void {
  for (const rid of rids) {
    tracker.forEachEntry(rid, (hop, line, time, res) => {
      const slots = HOP_SLOTS[hop];
      if (slots === undefined || time === null) return;
      const resMs = resolutionMs(res);
      for (const slot of slots) into.note(row, slot, time, resMs, line);
    });
  }
}

/**
 * A log's stamps by join key, worked out from its request index when first asked for: the clock
 * rules ask only for the requests another source shares (every request of a log only when every
 * request is shared), and nothing is kept per line while the log is read.
 */
class LogStamps implements StampReader {
  /** Keys of `byKey` already looked at (their stamps are in the store now). */
  private readonly taken = new Set<string>();

  /**
   * `byKey`: the index's requests by join key (read, never changed: an open log's cache shares
   * it); `store` holds what was noted while reading (router lines); the index's requests join it
   * when asked for.
   */
  constructor(private readonly tracker: RequestTracker, private readonly byKey: ReadonlyMap<string, readonly string[]>,
    private readonly store = new RequestStamps()) {}

  /** Requests in the log (one under router lines and engine lines counts twice: harmless for the rules). */
  get size(): number { return this.store.size + this.byKey.size - this.taken.size; }
  *keys(): Iterable<string> {
    yield* this.store.keys();
    for (const k of this.byKey.keys()) if (!this.taken.has(k)) yield k;
  }

  find(key: string): number {
    const rids = this.taken.has(key) ? undefined : this.byKey.get(key);
    if (rids === undefined) return this.store.find(key);
    const row = this.store.row(key);
    stampsInto(this.tracker, this.store, row, rids);
    this.taken.add(key);
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
  /** A line naming only the request's transfer id, which a line of the request names beside its id: that id (`bootstrap_room N`). */
  joinedBy?: string;
}

/** A router line naming the request. */
export interface MentionLine {
  line: number;
  offset: number;
  text: string;
  router: RouterLine;
}

export interface RequestLogs {
  /** The source's stream key: a path for a file (its LogSource, core/logs/logSource.ts). */
  path: string;
  /** What a lane calls this log when the source was given as a LogSource (a pod's name); else the file name. */
  label?: string;
  /** The store's timestamp of a 1-based line, when the source is a store that gave one. */
  storeTimeMs?: (line: number) => number | null;
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
  /**
   * The session of a log open in the editor (every line parsed, records kept), by path: its
   * request index and records are used instead of reading the file (unsaved edits included).
   * Undefined: the file is read from disk.
   */
  openLog?: (path: string) => OpenLogSession | undefined | Promise<OpenLogSession | undefined>;
  /** Logs that are not files (a log store's streams), by the name given in `paths`: read through their LogSource. */
  sources?: ReadonlyMap<string, LogSource>;
  /**
   * How the reading shares its thread (default SHARED_THREAD: the editor's extension host stays
   * responsive); null: each chunk in one pass, as `hoplens annotate` reads.
   */
  pace?: Pace | null;
}

/**
 * A LogSource's feed as the byte input the reader takes (so the byte fast path reads every
 * source): a store's lines become the bytes of those lines, one line per entry (an entry's own
 * line breaks become spaces, so line N is the store's Nth entry), and `onStoreTime` sees each
 * entry's store timestamp by its 1-based line.
 */
async function inputOfSource(source: LogSource, signal?: AbortSignal, onStoreTime?: (line: number, storeTimeMs: number) => void):
  Promise<{ referenceTime: number; fromStore: boolean; chunks(): AsyncIterable<Buffer>; close(): void }> {
  const feed = await source.open(signal);
  if (feed.kind === 'bytes') return { referenceTime: feed.referenceTime, fromStore: false, chunks: () => feed.chunks(), close: () => feed.close() };
  const lines = feed;
  async function* bytes(): AsyncIterable<Buffer> {
    let line = 0;
    for await (const batch of lines.batches()) {
      for (const l of batch) { line++; if (l.storeTimeMs !== null) onStoreTime?.(line, l.storeTimeMs); }
      if (batch.length) yield Buffer.from(`${batch.map((l) => l.text.replace(/\r?\n/g, ' ')).join('\n')}\n`, 'utf8');
    }
  }
  return { referenceTime: feed.referenceTime, fromStore: true, chunks: bytes, close: () => feed.close() };
}

/** Batch lines of a log in file order, one column per field. */
interface BatchColumns {
  line: number[]; time: number[]; res: TimeResolution[]; hop: string[]; proc: (string | null)[]; role: (string | null)[];
}

/** Batch lines stamped inside [fromMs, toMs], at most `cap`, in file order. */
function batchBetween(batch: BatchColumns, fromMs: number, toMs: number, cap: number): ContextLine[] {
  const out: ContextLine[] = [];
  for (let i = 0; i < batch.line.length && out.length < cap; i++) {
    const t = batch.time[i];
    // A stamp of whole seconds is in the window when any part of its second is.
    if (t + resolutionMs(batch.res[i]) <= fromMs || t > toMs) continue;
    out.push({ line: batch.line[i], hop: batch.hop[i], time: t, resolution: batch.res[i], process: batch.proc[i], role: batch.role[i] });
  }
  return out;
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

/** Notes the process a record names, once per name and pid. */
function noteProcess(processes: Map<string, ProcessSeen>, rec: LogRecord): void {
  const k = `${rec.process ?? ''}\u0000${rec.pid ?? ''}`;
  if (!processes.has(k)) processes.set(k, { name: rec.process, pid: rec.pid, role: rec.role });
}

/**
 * A router's line among a log's "other" lines: its received/responded stamp noted in
 * `routerStamps`; returns the line read and its request's join key, or null when it is none.
 */
function noteRouterLine(routerStamps: RequestStamps, rec: LogRecord): { r: RouterLine; key: string } | null {
  const r = routerLineOf(rec);
  if (r === null) return null;
  const key = requestKey(r.requestId);
  if (r.event !== 'other') {
    const slot = r.event === 'received' ? STAMP.routerReceived : STAMP.routerResponded;
    routerStamps.note(routerStamps.row(key), slot, r.time, resolutionMs(r.resolution), rec.line);
  }
  return { r, key };
}

/**
 * The key of the request a line names without being one of its hops (a KV connector's DEBUG
 * line, a scheduler's): any line naming one of the request's ids is one of its lines.
 */
function mentionedKey(rec: LogRecord, keys: readonly string[], matchKey: (rid: string) => string | null): string | null {
  for (const k of keys) if (mentionsRequest(rec.message, [idNeedle(k)], (id) => matchKey(id) === k)) return k;
  return null;
}

/** What one log gives the request: its log, the request's lines by key, and what its lines say of transfer ids. */
interface ReadLog {
  log: Omit<RequestLogs, 'records' | 'group'>;
  collected: Map<string, Collected>;
  /** The transfer ids (SGLang's bootstrap_room) its lines paired with a request, and its lines naming only one. */
  pairs: TransferPairs;
  alone: TransferLines;
}

async function readOne(source: LogSource, path: string, keys: readonly string[], opts: ReadRequestOptions): Promise<ReadLog> {
  const storeTimes = new Map<number, number>();
  const input = await inputOfSource(source, opts.signal, (line, t) => storeTimes.set(line, t));
  const matchKey = keyMatcher(keys);
  const collected = new Map<string, Collected>(keys.map((k) => [k, { records: [], mentions: [] }]));
  let tracker = new TimelineTracker(opts.engine && opts.engine !== 'auto' ? opts.engine : null, { keepContext: true });
  const processes = new Map<string, ProcessSeen>();
  const routerStamps = new RequestStamps();
  let routerLines = 0;
  const pairs = new TransferPairs();
  const alone = new TransferLines();
  const asked = (k: string): boolean => collected.has(k);
  try {
    // The session fills the tracker (parsed lines, and the fast path's through `fast`).
    const onRecord = (rec: LogRecord): void => {
      if (rec.process !== null || rec.pid !== null) noteProcess(processes, rec);
      if (rec.engine === 'other' || rec.role === 'router') {
        const router = noteRouterLine(routerStamps, rec);
        if (router === null) return;
        routerLines++;
        const c = collected.get(router.key);
        if (c) c.mentions.push({ line: rec.line, offset: rec.offset, text: rec.message, router: router.r });
        return;
      }
      if (rec.rid === null) {
        const k = rec.continuation ? null : mentionedKey(rec, keys, matchKey);
        if (k !== null) collected.get(k)!.records.push(rec);
        noteTransferIds(rec, k, requestKey, pairs, alone, asked);
        return;
      }
      let hit: string | null = matchKey(rec.rid);
      if (hit === null && rec.rids) for (const id of rec.rids) { hit = matchKey(id); if (hit !== null) break; }
      noteTransferIds(rec, hit, requestKey, pairs, alone, asked);
      if (hit !== null) collected.get(hit)!.records.push(rec);
      else if (rec.continuation && rec.rid !== null) {
        // A continuation line of one of the request's multi-line records.
        const prev = [...collected.values()].find((c) => c.records.length && c.records[c.records.length - 1].line === rec.line - 1);
        if (prev) prev.records.push(rec);
      }
    };
    const leave = (rid: string): boolean => matchKey(rid) !== null;
    const needles = keys.map((k) => Buffer.from(idNeedle(k), 'latin1'));
    const session = new LogSession({
      engine: opts.engine ?? 'auto',
      referenceTime: input.referenceTime,
      keepRecords: false,
      keepContext: true,
      onRecord,
      newTracker: (forced, o) => (tracker = new TimelineTracker(forced, o)),
      fast: (state, t) => noteProcesses(state, fastPathFor(state, { tracker: t, leaveToParser: leave, leaveMentions: needles }), processes),
    });
    const pace = opts.pace === undefined ? SHARED_THREAD : opts.pace;
    const result = await readLogStream(session, input.chunks(), opts.signal, pace ?? undefined);
    const engine = result.engine;
    // A router's log: its lines are SGLang's (the router is part of SGLang) but name no engine hop.
    const kind: RequestLogs['kind'] = routerLines > 0 && tracker.requestCount === 0 ? 'router'
      : engine !== null ? 'engine' : routerLines > 0 ? 'router' : 'other';
    const byKey = new Map<string, string[]>();
    await groupByKey(tracker, byKey, pace === null ? null : new Turns(pace));
    const logStamps = new LogStamps(tracker, byKey, routerStamps);
    // A store's own stamp of each line, where it reads as the pod's clock, sharpens the printed ones.
    const stamps = storeTimes.size ? new StoreTimedStamps(logStamps, (line) => storeTimes.get(line) ?? null) : logStamps;
    for (const c of collected.values()) {
      const firstRid = c.records.find((r) => !r.continuation)?.rid ?? null;
      c.group = firstRid !== null ? tracker.get(firstRid) : null;
    }
    // What the timeline keeps of this log: its request index (for the stamps, looked at when
    // asked for), batch lines, processes.
    const batch: BatchColumns = {
      line: tracker.batchLine, time: tracker.batchTime, res: tracker.batchRes, hop: tracker.batchHop, proc: tracker.batchProc, role: tracker.batchRole,
    };
    const log = {
      path, engine, lines: result.lines, bytes: result.bytes, kind, mentions: [] as MentionLine[],
      processes: [...processes.values()],
      stamps,
      ...(input.fromStore ? { storeTimeMs: (line: number) => storeTimes.get(line) ?? null } : {}),
      contextBetween: (fromMs: number, toMs: number, cap = 200) => batchBetween(batch, fromMs, toMs, cap),
    };
    return { log, collected, pairs, alone };
  } finally { input.close(); }
}

// ---- a log open in the editor ------------------------------------------------------------------

/**
 * What the timeline reads of a log's session in the editor (LogSession is one): every line of the
 * document parsed into `records` (record i is line i + 1), the request index, and how far it got.
 */
export type OpenLogSession = Pick<LogReadModel, 'generation' | 'engine' | 'records' | 'tracker' | 'linesParsed' | 'bytesParsed'>;

/**
 * What the timeline keeps of an open log beside the session's own index, as readOne keeps it in
 * its one pass: processes, batch lines, router lines. Worked out once per session and extended
 * by the lines appended since (a session grows by appends; a start over makes a new one).
 */
interface SessionExtras {
  generation: number;
  records: readonly LogRecord[];
  tracker: RequestTracker;
  /** Records looked at so far. */
  scanned: number;
  processes: Map<string, ProcessSeen>;
  lastProcess: string | null;
  lastPid: number | null;
  batch: BatchColumns;
  isBatchHop: Map<string, boolean>;
  routerLines: number;
  routerStamps: RequestStamps;
  /** 1-based lines of the router lines naming each request (join key). */
  routerMentions: Map<string, number[]>;
  /** The request index's ids by join key, and how many of its ids that is. */
  ridsByKey: Map<string, string[]>;
  ridsSeen: number;
  /** The catching up under way (catchUp): one at a time, so no record is noted twice. */
  update: Promise<void>;
}

const sessionExtras = new WeakMap<OpenLogSession, SessionExtras>();

function noteRecord(x: SessionExtras, rec: LogRecord): void {
  if ((rec.process !== null || rec.pid !== null) && (rec.process !== x.lastProcess || rec.pid !== x.lastPid)) {
    x.lastProcess = rec.process; x.lastPid = rec.pid;
    noteProcess(x.processes, rec);
  }
  if (rec.engine === 'other' || rec.role === 'router') {
    const router = noteRouterLine(x.routerStamps, rec);
    if (router === null) return;
    x.routerLines++;
    const lines = x.routerMentions.get(router.key);
    if (lines) lines.push(rec.line); else x.routerMentions.set(router.key, [rec.line]);
    return;
  }
  // A batch line, as TimelineTracker.addHop takes it.
  if (rec.hop === null || rec.continuation || rec.rid !== null || rec.rids || rec.time === null) return;
  let batch = x.isBatchHop.get(rec.hop);
  if (batch === undefined) { batch = findHop(rec.engine, rec.hop)?.scope === 'batch'; x.isBatchHop.set(rec.hop, batch); }
  if (batch) {
    const b = x.batch;
    b.line.push(rec.line); b.time.push(rec.time); b.res.push(rec.timeResolution ?? 's');
    b.hop.push(rec.hop); b.proc.push(rec.process); b.role.push(rec.role);
  }
}

/** Notes the records appended since `x` last looked, and groups the index's new requests; gives turns when due. */
async function catchUp(x: SessionExtras, session: OpenLogSession, turns: Turns | null): Promise<void> {
  const records = x.records;
  for (let i = x.scanned; i < records.length; i++) {
    const rec = records[i];
    noteRecord(x, rec);
    if (rec.glued) for (const g of rec.glued) noteRecord(x, g);
    x.scanned = i + 1;
    if (turns !== null && (i & 1023) === 1023 && turns.due()) await turns.take();
  }
  if (session.tracker.requestCount !== x.ridsSeen) x.ridsSeen = await groupByKey(x.tracker, x.ridsByKey, turns, x.ridsSeen);
}

async function extrasOf(session: OpenLogSession, turns: Turns | null): Promise<SessionExtras> {
  let x = sessionExtras.get(session);
  if (!x || x.generation !== session.generation || x.records !== session.records || x.tracker !== session.tracker || x.scanned > session.records.length) {
    x = {
      generation: session.generation, records: session.records, tracker: session.tracker, scanned: 0,
      processes: new Map(), lastProcess: null, lastPid: null,
      batch: { line: [], time: [], res: [], hop: [], proc: [], role: [] }, isBatchHop: new Map(),
      routerLines: 0, routerStamps: new RequestStamps(), routerMentions: new Map(), ridsByKey: new Map(), ridsSeen: 0,
      update: Promise.resolve(),
    };
    sessionExtras.set(session, x);
  }
  const extras = x;
  const done = x.update.then(() => catchUp(extras, session, turns));
  x.update = done.catch(() => undefined);
  await done;
  return x;
}

/** The key of the first of a record's ids that names the request (readOne's rule). */
function hitOf(rec: LogRecord, matchKey: (rid: string) => string | null): string | null {
  if (rec.rid === null) return null;
  let hit = matchKey(rec.rid);
  if (hit === null && rec.rids) for (const id of rec.rids) { hit = matchKey(id); if (hit !== null) break; }
  return hit;
}

/**
 * The same as readOne, from an open log's session: the request's records are found through its
 * request index (no line of the log is looked at for them), the rest from the cache above.
 */
async function fromSession(session: OpenLogSession, path: string, keys: readonly string[], turns: Turns | null): Promise<ReadLog> {
  const x = await extrasOf(session, turns);
  const { records, tracker } = session;
  const matchKey = keyMatcher(keys);
  const collected = new Map<string, Collected>(keys.map((k) => [k, { records: [], mentions: [] }]));
  for (const k of keys) {
    const rids = x.ridsByKey.get(k);
    if (!rids) continue;
    // The request's hop lines (1-based).
    const lines = new Set<number>();
    for (const rid of rids) tracker.forEachEntry(rid, (_hop, line) => { lines.add(line); });
    const c = collected.get(k)!;
    for (const line of [...lines].sort((a, b) => a - b)) {
      const rec = records[line - 1];
      if (!rec || (c.records.length && c.records[c.records.length - 1].line >= line)) continue;
      if (!rec.continuation && hitOf(rec, matchKey) === k) c.records.push(rec);
      if (rec.glued) for (const g of rec.glued) if (hitOf(g, matchKey) === k) c.records.push(g);
      // The continuation lines of a multi-line record of the request.
      for (let j = line; j < records.length && records[j].continuation; j++) {
        const cont = records[j];
        const last = c.records[c.records.length - 1];
        const hit = hitOf(cont, matchKey);
        if (hit === k || (hit === null && cont.rid !== null && last?.line === cont.line - 1)) c.records.push(cont);
        else break;
      }
    }
  }
  // Lines naming the request without being its hops (no request index holds them): one look at each record.
  const named = new Set<string>();
  const pairs = new TransferPairs();
  const alone = new TransferLines();
  const asked = (k: string): boolean => collected.has(k);
  for (let i = 0; i < records.length; i++) {
    if (turns !== null && (i & 1023) === 1023 && turns.due()) await turns.take();
    const rec = records[i];
    if (rec.continuation || rec.engine === 'other' || rec.role === 'router') continue;
    if (rec.rid !== null) { noteTransferIds(rec, hitOf(rec, matchKey), requestKey, pairs, alone, asked); continue; }
    const k = mentionedKey(rec, keys, matchKey);
    if (k !== null) { collected.get(k)!.records.push(rec); named.add(k); }
    noteTransferIds(rec, k, requestKey, pairs, alone, asked);
  }
  for (const k of named) collected.get(k)!.records.sort((a, b) => a.line - b.line);
  for (const k of keys) {
    const lines = x.routerMentions.get(k);
    if (!lines) continue;
    const c = collected.get(k)!;
    for (const line of lines) {
      const rec = records[line - 1];
      const router = rec ? routerLineOf(rec) : null;
      if (rec && router) c.mentions.push({ line, offset: rec.offset, text: rec.message, router });
    }
  }
  for (const c of collected.values()) {
    const firstRid = c.records.find((r) => !r.continuation)?.rid ?? null;
    c.group = firstRid !== null ? tracker.get(firstRid) : null;
  }
  const engine = session.engine;
  const kind: RequestLogs['kind'] = x.routerLines > 0 && tracker.requestCount === 0 ? 'router'
    : engine !== null ? 'engine' : x.routerLines > 0 ? 'router' : 'other';
  const batch = x.batch;
  const log = {
    path, engine, lines: session.linesParsed, bytes: session.bytesParsed, kind, mentions: [] as MentionLine[],
    processes: [...x.processes.values()],
    // The rules add rows to what they read: a copy of the cached router stamps.
    stamps: new LogStamps(tracker, x.ridsByKey, x.routerStamps.clone()),
    contextBetween: (fromMs: number, toMs: number, cap = 200) => batchBetween(batch, fromMs, toMs, cap),
  };
  return { log, collected, pairs, alone };
}

export interface RequestLogsResult {
  /** The join key the request was found under ('' when no file has it). */
  key: string;
  logs: RequestLogs[];
}

/**
 * Reads each log once and returns, per log, the request's lines and the indexes the timeline
 * needs. A log is a LogSource (a path is a file's); one something already holds with every
 * record (its `current()`, or `openLog` by stream key) is not read again. `query` is what the
 * user typed: a base id, `chatcmpl-…`, `cmpl-…`, an engine-internal id, an SGLang rid, or a
 * router's request_id. Throws LogInputError for a log that cannot be read.
 */
export async function readRequestLogs(sources: readonly (string | LogSource)[], query: string, opts: ReadRequestOptions = {}): Promise<RequestLogsResult> {
  const keys = queryKeys(query);
  const read: ReadLog[] = [];
  const labelOf = new Map<string, string>();
  for (const given of sources) {
    if (typeof given !== 'string') labelOf.set(given.stream.key, given.stream.label);
    // A name in `sources` is a store's stream; any other name is a file's path.
    const source = typeof given !== 'string' ? given : opts.sources?.get(given) ?? pathLogSource(given);
    const key = typeof given === 'string' ? given : given.stream.key;
    const open = (source.current ? await source.current() : undefined) ?? (opts.openLog ? await opts.openLog(key) : undefined);
    // A session that keeps no records (a large log's streamed view) has not the request's lines: the file has.
    const turns = opts.pace === null ? null : new Turns(opts.pace ?? SHARED_THREAD);
    read.push(open && holdsEveryRecord(open) ? await fromSession(open, key, keys, turns) : await readOne(source, key, keys, opts));
  }
  // The literal reading of the query wins when it has lines anywhere (see queryKeys).
  const count = (k: string): number => read.reduce((n, r) => n + r.collected.get(k)!.records.length + r.collected.get(k)!.mentions.length, 0);
  const key = keys.find((k) => count(k) > 0) ?? '';
  // A line naming only the request's transfer id (its bootstrap_room) is the request's, wherever the pairing line is.
  const pairs = new TransferPairs();
  for (const r of read) pairs.merge(r.pairs);
  const logs: RequestLogs[] = read.map(({ log, collected, alone }) => {
    const c: Collected = key ? collected.get(key)! : { records: [], mentions: [] };
    const joined = key && !alone.empty ? alone.joinedOf(pairs, key) : [];
    const records = joined.length ? [...c.records, ...joined.map((j) => j.record)].sort((a, b) => a.line - b.line) : c.records;
    const by = joined.length ? new Map(joined.map((j) => [j.record, `${pairs.label ?? 'transfer id'} ${j.id}`])) : null;
    const lineOf = (record: LogRecord): RequestLine => {
      const joinedBy = by?.get(record);
      return joinedBy === undefined ? { record, source: citedSource(record) } : { record, source: citedSource(record), joinedBy };
    };
    return {
      ...log,
      ...(labelOf.has(log.path) ? { label: labelOf.get(log.path) } : {}),
      records: records.map(lineOf),
      mentions: c.mentions,
      group: c.group ?? null,
    };
  });
  return { key, logs };
}
