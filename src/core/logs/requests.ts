// Grouping records into requests: each request's hops in order, the process lane of each,
// deltas with their honest resolution, the hops it never printed and why, and the
// batch-level lines (stats, prefill/decode batches) that overlap it in time as context.
import type { Engine, LogRecord, TimeResolution } from './model';
import { getHopTable, findHop } from '../../engines/index';
import type { HopDef, MissingKind } from '../../engines/index';
import { ENGINE_IDS, engineProfile } from '../../engines/registry';
import type { HopSink } from '../../engines/fastPath';
import { Float64Column, Int32Column, Uint16Column, Uint8Column } from './pagedColumn';

export interface Delta {
  ms: number;
  /** The coarser resolution of the two stamps. */
  resolution: TimeResolution;
  /** "≤1 s", "~3 s", "12 ms", "<1 ms", "250 µs". */
  text: string;
}

export interface RequestHop {
  line: number;
  hop: string;
  process: string | null;
  role: string | null;
  time: number | null;
  resolution: TimeResolution | null;
  sincePrevious: Delta | null;
  sinceFirst: Delta | null;
}

export interface MissingHop {
  hop: string;
  kind: MissingKind;
  reason: string;
  /** Other requests in the same log printed this hop (so the gate is on; this one took another path). */
  seenInOtherRequests: boolean;
}

export interface ContextLine { line: number; hop: string; time: number | null }

export interface RequestGroup {
  rid: string;
  engine: Engine;
  firstLine: number;
  lastLine: number;
  firstTime: number | null;
  lastTime: number | null;
  span: Delta | null;
  hops: RequestHop[];
  missing: MissingHop[];
  context: ContextLine[];
}

const RES_ORDER: TimeResolution[] = ['s', 'ms', 'us', 'ns'];

function coarser(a: TimeResolution, b: TimeResolution): TimeResolution {
  return RES_ORDER.indexOf(a) < RES_ORDER.indexOf(b) ? a : b;
}

/** A time difference stated no finer than the stamps allow. */
export function makeDelta(fromMs: number, toMs: number, resA: TimeResolution, resB: TimeResolution): Delta {
  const resolution = coarser(resA, resB);
  const ms = toMs - fromMs;
  return { ms, resolution, text: formatDelta(ms, resolution) };
}

/** A request's hops in file order, each given the time since the last hop before it that had a time (its sincePrevious). */
export class SincePrevious {
  private prev: number | null = null;
  private prevRes: TimeResolution = 'ns';
  /** The delta of a hop stamped `t` (null when it has no time or none before it had one); `t` is then the previous. */
  next(t: number | null, res: TimeResolution): Delta | null {
    if (t === null) return null;
    const d = this.prev !== null ? makeDelta(this.prev, t, this.prevRes, res) : null;
    this.prev = t; this.prevRes = res;
    return d;
  }
}

export function formatDelta(ms: number, resolution: TimeResolution): string {
  const neg = ms < 0 ? '-' : '';
  const a = Math.abs(ms);
  if (resolution === 's') {
    // Whole-second stamps: a true gap anywhere under a second prints as the same or next second.
    if (a < 1000) return '≤1 s';
    const s = Math.round(a / 1000);
    return `${neg}~${s} s`;
  }
  if (resolution === 'ms') {
    if (a < 1) return '<1 ms';
    if (a < 10000) return `${neg}${Math.round(a)} ms`;
    return `${neg}${(a / 1000).toFixed(1)} s`;
  }
  if (a < 1) return `${neg}${Math.round(a * 1000)} µs`;
  if (a < 10000) return `${neg}${a < 100 ? a.toFixed(2) : Math.round(a)} ms`;
  return `${neg}${(a / 1000).toFixed(2)} s`;
}

const RES_CODE: Record<TimeResolution, number> = { s: 0, ms: 1, us: 2, ns: 3 };

/** A request's entries, materialised from the column store when asked for. */
interface Acc {
  rid: string;
  engine: Engine;
  lines: number[];
  hops: string[];
  times: number[]; // NaN when unknown
  res: number[];
  procs: (string | null)[];
  roles: (string | null)[];
}

const ENGINES: readonly Engine[] = ENGINE_IDS;

/**
 * Per-request heads in columns, by order of first sight: the id, the engine, and the first and last
 * entry (entries live in the column store, linked first -> next -> … -> last). No object per
 * request: a big log's requests cost the garbage collector one string each.
 */
class Heads {
  size = 0;
  readonly ids: string[] = [];
  first = new Int32Array(256);
  last = new Int32Array(256);
  engine = new Uint8Array(256);

  add(rid: string, engine: Engine, first: number, last: number): number {
    const i = this.size++;
    if (i === this.first.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T, C: new (n: number) => T): T => { const b = new C(a.length * 2); b.set(a); return b; };
      this.first = grow(this.first, Int32Array); this.last = grow(this.last, Int32Array); this.engine = grow(this.engine, Uint8Array);
    }
    this.ids.push(rid); this.first[i] = first; this.last[i] = last; this.engine[i] = ENGINES.indexOf(engine);
    return i;
  }
}

/** How far a tracker had got when it last gave its news away (exportSince). */
export interface TrackerMark { requests: number; entries: number; strings: number; batch: number }

/**
 * What a tracker learnt since a mark, in plain data another thread can receive (typed arrays and
 * strings): applied in order to a tracker that has applied every earlier one, it makes that tracker
 * answer the same. `req` is each new entry's request, by order of first sight.
 */
export interface TrackerDelta {
  engine: Engine | null;
  rids: string[];
  /** Each new request's engine: an index into the registry's ENGINE_IDS. */
  engines: ArrayLike<number>;
  strings: string[];
  line: ArrayLike<number>; time: ArrayLike<number>; res: ArrayLike<number>; hop: ArrayLike<number>; proc: ArrayLike<number>; role: ArrayLike<number>;
  req: ArrayLike<number>;
  hopCounts: [string, number][];
  startup: string[];
  /** Batch lines since the mark; their hops are string ids, as the entries'. */
  batchLine: ArrayLike<number>; batchHop: ArrayLike<number>; batchTime: ArrayLike<number>;
}

/**
 * Hop entries of all requests in typed columns (about 20 bytes each), so a million-line log
 * costs tens of megabytes, not hundreds.
 */
class EntryColumns {
  size = 0;
  /** Entries every column has room for. */
  private room = 0;
  readonly line = new Int32Column();
  readonly next = new Int32Column();
  readonly time = new Float64Column();
  readonly hop = new Uint16Column();
  readonly proc = new Uint16Column();
  readonly role = new Uint16Column();
  readonly res = new Uint8Column();
  /** Each entry's request by order of first sight: only when the tracker gives its news away (journal). */
  readonly req: Int32Column | null;
  readonly strings: (string | null)[] = [null];
  constructor(journal: boolean) { this.req = journal ? new Int32Column() : null; }
  private readonly stringIds = new Map<string, number>();
  private lastHop: string | null = null; private lastHopId = 0;
  private lastProc: string | null = null; private lastProcId = 0;
  private lastRole: string | null = null; private lastRoleId = 0;

  intern(s: string | null): number {
    if (s === null) return 0;
    let id = this.stringIds.get(s);
    if (id === undefined) {
      if (this.strings.length >= 65535) return 0; // absurd number of distinct names: drop the name
      id = this.strings.length;
      const own = Buffer.from(s, 'utf8').toString('utf8');
      this.strings.push(own);
      this.stringIds.set(own, id);
    }
    return id;
  }

  str(id: number): string | null { return this.strings[id]; }

  /** The id of a string stored before, or 0 (null's) when it never was. */
  idOf(s: string): number { return this.stringIds.get(s) ?? 0; }

  push(line: number, time: number, res: number, hop: string, proc: string | null, role: string | null, req: number): number {
    const i = this.size++;
    if (i >= this.room) this.reserve(i + 1);
    this.line.put(i, line); this.time.put(i, time); this.res.put(i, res); this.next.put(i, -1);
    // The same names come line after line: the last one of each column is kept at hand.
    if (hop !== this.lastHop) { this.lastHop = hop; this.lastHopId = this.intern(hop); }
    if (proc !== this.lastProc) { this.lastProc = proc; this.lastProcId = this.intern(proc); }
    if (role !== this.lastRole) { this.lastRole = role; this.lastRoleId = this.intern(role); }
    this.hop.put(i, this.lastHopId); this.proc.put(i, this.lastProcId); this.role.put(i, this.lastRoleId);
    if (this.req !== null) this.req.put(i, req);
    return i;
  }

  /** Room in every column for `n` entries. */
  private reserve(n: number): void {
    for (const c of [this.line, this.next, this.time, this.hop, this.proc, this.role, this.res, this.req]) c?.reserve(n);
    this.room = this.line.capacity;
  }

  /** Another tracker's entries, string ids as they are (its strings were added in the same order); links left to the caller. */
  append(d: TrackerDelta): void {
    for (const s of d.strings) { this.stringIds.set(s, this.strings.length); this.strings.push(s); }
    const n = d.line.length;
    const i = this.size;
    this.line.setFrom(d.line, i); this.time.setFrom(d.time, i); this.res.setFrom(d.res, i); this.next.fill(-1, i, i + n);
    this.hop.setFrom(d.hop, i); this.proc.setFrom(d.proc, i); this.role.setFrom(d.role, i);
    if (this.req !== null) this.req.setFrom(d.req, i);
    this.size += n;
  }
}

/** Batch-level lines in paged columns (line, hop as a string id, time or NaN). */
class BatchColumns {
  size = 0;
  readonly line = new Int32Column();
  readonly hop = new Uint16Column();
  readonly time = new Float64Column();

  push(line: number, hop: number, time: number): void {
    const i = this.size++;
    this.line.set(i, line); this.hop.set(i, hop); this.time.set(i, time);
  }
}

export class RequestTracker implements HopSink {
  /** Request id → its order of first sight (the index into heads). */
  private readonly byRid = new Map<string, number>();
  private heads = new Heads();
  private cols: EntryColumns;
  private readonly journal: boolean;
  private readonly hopCounts = new Map<string, number>();
  /** Batch-level lines (stats, batches, HTTP access lines) in file order: the context of requests. */
  private batch = new BatchColumns();
  private readonly keepContext: boolean;
  /** Startup lines seen (V0a etc.): they change the reasons for missing hops. */
  private readonly startupSeen = new Set<string>();
  engine: Engine | null;

  /** `journal`: keep what exportSince needs (4 bytes an entry and the requests in order). */
  constructor(engine: Engine | null = null, opts: { keepContext?: boolean; journal?: boolean } = {}) {
    this.engine = engine;
    this.keepContext = opts.keepContext ?? true;
    this.journal = opts.journal ?? false;
    this.cols = new EntryColumns(this.journal);
  }

  get requestCount(): number { return this.byRid.size; }
  get counts(): ReadonlyMap<string, number> { return this.hopCounts; }
  rids(): IterableIterator<string> { return this.heads.ids.values(); }
  /** The tracker's own copy of a request id it has seen (the same characters), or undefined. */
  storedId(rid: string): string | undefined {
    const ord = this.byRid.get(rid);
    return ord === undefined ? undefined : this.heads.ids[ord];
  }

  add(rec: LogRecord): void {
    if (rec.hop === null || rec.continuation) return;
    this.addHop(rec.engine, rec.hop, rec.rids ?? (rec.rid === null ? null : rec.rid), rec.line, rec.time, rec.timeResolution, rec.process, rec.role);
  }

  /** The same as add() without a record (the byte-level fast path). `ids`: one id, several, or null. */
  addHop(engine: Engine | 'other', hop: string, ids: string | string[] | null, line: number, time: number | null,
    resolution: TimeResolution | null, process: string | null, role: string | null): void {
    this.hopCounts.set(hop, (this.hopCounts.get(hop) ?? 0) + 1);
    if (engine === 'other') return;
    if (this.engine === null) this.engine = engine;
    if (ids === null) {
      const def = findHop(engine, hop);
      if (def?.scope === 'startup') this.startupSeen.add(hop);
      if (this.keepContext && def && (def.scope === 'batch' || def.scope === 'http')) {
        this.batch.push(line, this.cols.intern(hop), time ?? NaN);
      }
      return;
    }
    const res = resolution ? RES_CODE[resolution] : 0;
    if (typeof ids === 'string') { this.addEntry(engine, ids, line, time, res, hop, process, role); return; }
    for (const rid of ids) this.addEntry(engine, rid, line, time, res, hop, process, role);
  }

  private addEntry(engine: Engine, rid: string, line: number, time: number | null, res: number, hop: string, process: string | null,
    role: string | null): void {
    const h = this.heads;
    const ord = this.byRid.get(rid);
    if (ord !== undefined) {
      const e = this.cols.push(line, time ?? NaN, res, hop, process, role, ord);
      this.cols.next.set(h.last[ord], e);
      h.last[ord] = e;
    } else {
      const e = this.cols.push(line, time ?? NaN, res, hop, process, role, h.size);
      // Own copy of the id: the record's is a view into the whole line, which it would keep alive.
      const key = Buffer.from(rid, 'utf8').toString('utf8');
      this.byRid.set(key, h.add(key, engine, e, e));
    }
  }

  /** Where the news starts now (a fresh tracker: all zero). */
  static readonly START: TrackerMark = { requests: 0, entries: 0, strings: 1, batch: 0 };

  /** What this (journal) tracker learnt since `mark`, and the mark to pass next time. */
  exportSince(mark: TrackerMark): { delta: TrackerDelta; mark: TrackerMark } {
    if (!this.journal) throw new Error('exportSince needs a tracker made with { journal: true }');
    const c = this.cols, h = this.heads;
    const a = mark.entries, b = c.size;
    const delta: TrackerDelta = {
      engine: this.engine,
      rids: h.ids.slice(mark.requests), engines: h.engine.slice(mark.requests, h.size),
      strings: c.strings.slice(mark.strings) as string[],
      line: c.line.slice(a, b), time: c.time.slice(a, b), res: c.res.slice(a, b),
      hop: c.hop.slice(a, b), proc: c.proc.slice(a, b), role: c.role.slice(a, b), req: c.req!.slice(a, b),
      hopCounts: [...this.hopCounts], startup: [...this.startupSeen],
      batchLine: this.batch.line.slice(mark.batch, this.batch.size), batchHop: this.batch.hop.slice(mark.batch, this.batch.size),
      batchTime: this.batch.time.slice(mark.batch, this.batch.size),
    };
    return { delta, mark: { requests: h.size, entries: b, strings: c.strings.length, batch: this.batch.size } };
  }

  /** Takes the news of a journal tracker on another thread (every delta in order, from its start or last reset). */
  applyDelta(d: TrackerDelta): void {
    if (!this.journal) throw new Error('applyDelta needs a tracker made with { journal: true }');
    if (d.engine !== null) this.engine = d.engine;
    const h = this.heads;
    for (let i = 0; i < d.rids.length; i++) this.byRid.set(d.rids[i], h.add(d.rids[i], ENGINES[d.engines[i]], -1, -1));
    const c = this.cols;
    const from = c.size;
    c.append(d);
    const next = c.next, first = h.first, last = h.last;
    for (let k = 0; k < d.req.length; k++) {
      const ord = d.req[k];
      const e = from + k;
      if (first[ord] === -1) first[ord] = e; else next.set(last[ord], e);
      last[ord] = e;
    }
    this.hopCounts.clear();
    for (const [hop, n] of d.hopCounts) this.hopCounts.set(hop, n);
    for (const s of d.startup) this.startupSeen.add(s);
    for (let i = 0; i < d.batchLine.length; i++) this.batch.push(d.batchLine[i], d.batchHop[i], d.batchTime[i]);
  }

  private acc(ord: number): Acc {
    const c = this.cols, h = this.heads;
    const a: Acc = { rid: h.ids[ord], engine: ENGINES[h.engine[ord]], lines: [], hops: [], times: [], res: [], procs: [], roles: [] };
    for (let i = h.first[ord]; i !== -1; i = c.next.get(i)) {
      a.lines.push(c.line.get(i)); a.hops.push(c.str(c.hop.get(i))!); a.times.push(c.time.get(i)); a.res.push(c.res.get(i));
      a.procs.push(c.str(c.proc.get(i))); a.roles.push(c.str(c.role.get(i)));
    }
    return a;
  }

  /** Drop everything (the file was truncated or replaced). */
  reset(): void {
    this.byRid.clear(); this.hopCounts.clear(); this.startupSeen.clear(); this.cols = new EntryColumns(this.journal);
    this.heads = new Heads();
    this.batch = new BatchColumns();
  }

  /** Which request hops appear in at least one request (to tell "gate off" from "path not taken"). */
  private hopsSeenInRequests(): Set<string> {
    const seen = new Set<string>();
    for (const [hop, n] of this.hopCounts) if (n > 0) seen.add(hop);
    return seen;
  }

  get(rid: string): RequestGroup | null {
    const ord = this.byRid.get(rid);
    return ord !== undefined ? this.describe(this.acc(ord), this.hopsSeenInRequests()) : null;
  }

  all(): RequestGroup[] {
    const seen = this.hopsSeenInRequests();
    return [...this.byRid.values()].map((ord) => this.describe(this.acc(ord), seen)).sort((a, b) => a.firstLine - b.firstLine);
  }

  /** Each hop line of one request in file order, as stored (no deltas, no context): for readers of the raw stamps. */
  forEachEntry(rid: string, fn: (hop: string, line: number, time: number | null, resolution: TimeResolution) => void): void {
    const ord = this.byRid.get(rid);
    const c = this.cols;
    if (ord === undefined) return;
    for (let i = this.heads.first[ord]; i !== -1; i = c.next.get(i)) {
      const t = c.time.get(i);
      fn(c.str(c.hop.get(i))!, c.line.get(i), Number.isNaN(t) ? null : t, RES_ORDER[c.res.get(i)]);
    }
  }

  /** The line (1-based) of a request's first hop, or null when the log does not have it. */
  firstLine(rid: string): number | null {
    const ord = this.byRid.get(rid);
    return ord === undefined ? null : this.cols.line.get(this.heads.first[ord]);
  }

  /** Cheap view for long lists (no deltas, no context). */
  brief(rid: string): {
    /** `hops`: each hop once, in the order first printed; `hopLines`: how many lines printed a hop (the view's rows). */
    rid: string; firstLine: number; hops: string[]; hopLines: number; firstTime: number | null; firstResolution: TimeResolution | null; span: Delta | null;
  } | null {
    const ord = this.byRid.get(rid);
    if (ord === undefined) return null;
    const acc = this.acc(ord);
    const [t0, t1, r] = this.bounds(acc);
    const at = t0 === null ? -1 : acc.times.indexOf(t0);
    return {
      rid, firstLine: acc.lines[0], hops: [...new Set(acc.hops)], hopLines: acc.hops.length, firstTime: t0,
      firstResolution: at < 0 ? null : RES_ORDER[acc.res[at]],
      span: t0 !== null && t1 !== null ? makeDelta(t0, t1, r, r) : null,
    };
  }

  private bounds(acc: Acc): [number | null, number | null, TimeResolution] {
    let t0: number | null = null, t1: number | null = null, r = 3;
    for (let i = 0; i < acc.times.length; i++) {
      const t = acc.times[i];
      if (Number.isNaN(t)) continue;
      if (t0 === null || t < t0) t0 = t;
      if (t1 === null || t > t1) t1 = t;
      r = Math.min(r, acc.res[i]);
    }
    return [t0, t1, RES_ORDER[r]];
  }

  private describe(acc: Acc, seenAnywhere: Set<string>): RequestGroup {
    const hops: RequestHop[] = [];
    let first: number | null = null, firstRes: TimeResolution = 'ns';
    const since = new SincePrevious();
    for (let i = 0; i < acc.lines.length; i++) {
      const t = Number.isNaN(acc.times[i]) ? null : acc.times[i];
      const res = RES_ORDER[acc.res[i]];
      const h: RequestHop = {
        line: acc.lines[i], hop: acc.hops[i], process: acc.procs[i], role: acc.roles[i],
        time: t, resolution: t === null ? null : res,
        sincePrevious: since.next(t, res),
        sinceFirst: t !== null && first !== null ? makeDelta(first, t, firstRes, res) : null,
      };
      hops.push(h);
      if (t !== null && first === null) { first = t; firstRes = res; }
    }
    const [t0, t1, r] = this.bounds(acc);
    const context = this.contextFor(t0, t1, r, acc.lines[0], acc.lines[acc.lines.length - 1]);
    return {
      rid: acc.rid, engine: acc.engine, firstLine: acc.lines[0], lastLine: acc.lines[acc.lines.length - 1],
      firstTime: t0, lastTime: t1, span: t0 !== null && t1 !== null ? makeDelta(t0, t1, r, r) : null,
      hops, missing: this.missingFor(acc, seenAnywhere, context), context,
    };
  }

  /**
   * For every request hop: how many requests lack it, with the reason (first request's wording).
   * The same answer as missingFor() over every request's describe(), read straight off the
   * columns: a big log has a hundred thousand requests, and nothing per request is built here
   * (the reason only for the first request that lacks a hop, which is the one kept).
   */
  missingSummary(): { hop: string; requests: number; kind: MissingKind; reason: string }[] {
    const seen = this.hopsSeenInRequests();
    const agg = new Map<string, { hop: string; requests: number; kind: MissingKind; reason: string }>();
    const h = this.heads;
    const marks = new Int32Array(this.cols.strings.length);
    const candidates = new Map<Engine, { def: HopDef; id: number }[]>();
    for (const ord of this.byRid.values()) {
      const engine = ENGINES[h.engine[ord]];
      let list = candidates.get(engine);
      if (!list) { list = this.missingCandidates(engine, seen); candidates.set(engine, list); }
      this.eachMissing(ord, list, marks, (def) => {
        const cur = agg.get(def.id);
        if (cur) { cur.requests++; return; }
        const m = this.reasonFor(def, this.acc(ord), seen.has(def.id));
        agg.set(def.id, { hop: m.hop, requests: 1, kind: m.kind, reason: m.reason });
      });
    }
    return [...agg.values()];
  }

  /** How many hops get(rid).missing lists, read off the columns (a row's count, without building the request). */
  missingCount(rid: string): number {
    const ord = this.byRid.get(rid);
    if (ord === undefined) return 0;
    let n = 0;
    const list = this.missingCandidates(ENGINES[this.heads.engine[ord]], this.hopsSeenInRequests());
    this.eachMissing(ord, list, new Int32Array(this.cols.strings.length), () => { n++; });
    return n;
  }

  /** Each of `candidates` that request `ord` lacks, its batch lines' hops counted as its (missingFor's rule); `marks` as missingSummary's. */
  private eachMissing(ord: number, candidates: readonly { def: HopDef; id: number }[], marks: Int32Array, take: (def: HopDef) => void): void {
    const c = this.cols, h = this.heads;
    // Which request a string id (a hop) was last seen in: marks[id] === ord + 1.
    const mark = ord + 1;
    let t0 = NaN, t1 = NaN, r = 3, firstLine = 0, lastLine = 0;
    for (let i = h.first[ord]; i !== -1; i = c.next.get(i)) {
      const line = c.line.get(i);
      if (i === h.first[ord]) firstLine = line;
      lastLine = line;
      marks[c.hop.get(i)] = mark;
      const t = c.time.get(i);
      if (Number.isNaN(t)) continue;
      if (Number.isNaN(t0) || t < t0) t0 = t;
      if (Number.isNaN(t1) || t > t1) t1 = t;
      r = Math.min(r, c.res.get(i));
    }
    // Batch lines printed during the request (a Decode batch line, say) count as seen by it.
    this.markContext(Number.isNaN(t0) ? null : t0, Number.isNaN(t1) ? null : t1, RES_ORDER[r], firstLine, lastLine, marks, mark);
    for (const { def, id } of candidates) if (!(id > 0 && marks[id] === mark)) take(def);
  }

  /** The hops missingFor() may list for a request of this engine, in table order, with their string ids (0: never stored). */
  private missingCandidates(engine: Engine, seenAnywhere: Set<string>): { def: HopDef; id: number }[] {
    const out: { def: HopDef; id: number }[] = [];
    for (const def of getHopTable(engine).hops) {
      if (def.legacy) continue;
      if (def.scope !== 'request' && def.missing.kind !== 'frequency' && !(def.scope === 'batch' && def.missing.kind === 'level')) continue;
      if (def.pd !== undefined && !seenAnywhere.has(def.id)) continue;
      out.push({ def, id: this.cols.idOf(def.id) });
    }
    return out;
  }

  /** contextFor()'s lines, as marks on their hops' string ids instead of a list. */
  private markContext(t0: number | null, t1: number | null, res: TimeResolution, firstLine: number, lastLine: number, marks: Int32Array, mark: number): void {
    const hops = this.batch.hop;
    this.contextLines(t0, t1, res, firstLine, lastLine, (i) => { marks[hops.get(i)] = mark; });
  }

  private missingFor(acc: Acc, seenAnywhere: Set<string>, context: ContextLine[] | null): MissingHop[] {
    const table = getHopTable(acc.engine);
    const own = new Set(acc.hops);
    // A frequency-gated batch line printed during the request is not missing.
    if (context) for (const c of context) own.add(c.hop);
    const out: MissingHop[] = [];
    for (const def of table.hops) {
      if (def.legacy || own.has(def.id)) continue;
      // Batch lines are listed when they could have shown this request's passage: frequency-gated
      // ones, and DEBUG-only ones (vLLM's EngineCore idle/active pair marks the process boundary).
      if (def.scope !== 'request' && def.missing.kind !== 'frequency' && !(def.scope === 'batch' && def.missing.kind === 'level')) continue;
      // A P/D transfer line is missing only from a disaggregated instance's log, which other requests show.
      if (def.pd !== undefined && !seenAnywhere.has(def.id)) continue;
      out.push(this.reasonFor(def, acc, seenAnywhere.has(def.id)));
    }
    return out;
  }

  private reasonFor(def: HopDef, acc: Acc, seenElsewhere: boolean): MissingHop {
    let kind = def.missing.kind;
    let reason = def.missing.text;
    // The engine's own reading of the log (a startup notice, the API path the request took).
    const own = engineProfile(acc.engine).missingReason?.(def, { rid: acc.rid, startupSeen: this.startupSeen });
    if (own) { kind = own.kind; reason = own.text; }
    if (seenElsewhere && (kind === 'gate' || kind === 'level')) {
      reason += ' Other requests in this log do have it, so this one may have taken another path or is still running.';
    }
    return { hop: def.id, kind, reason, seenInOtherRequests: seenElsewhere };
  }

  private contextFor(t0: number | null, t1: number | null, res: TimeResolution, firstLine: number, lastLine: number): ContextLine[] {
    const { line: lines, time: times, hop: hops } = this.batch;
    const out: ContextLine[] = [];
    this.contextLines(t0, t1, res, firstLine, lastLine, (i) => {
      const t = times.get(i);
      out.push({ line: lines.get(i), hop: this.cols.str(hops.get(i))!, time: Number.isNaN(t) ? null : t });
    });
    return out;
  }

  /** The batch lines printed during a request (at most 50), each handed to `take` by its index, in file order. */
  private contextLines(t0: number | null, t1: number | null, res: TimeResolution, firstLine: number, lastLine: number, take: (i: number) => void): void {
    const { size, line: lines, time: times } = this.batch;
    if (!this.keepContext || size === 0) return;
    const CAP = 50;
    // Batch lines are in file order: binary search the first one at or after the request's first line
    // minus the slack of whole-second stamps, then take those inside the window.
    const slack = res === 's' ? 1000 : 0;
    const lo = t0 === null ? NaN : t0 - slack, hi = t1 === null ? NaN : t1 + slack;
    let a = 0, b = size;
    while (a < b) { const m = (a + b) >> 1; if (lines.get(m) < firstLine) a = m + 1; else b = m; }
    // Step back over lines printed just before the request inside the same (coarse) second.
    while (a > 0 && !Number.isNaN(lo) && times.get(a - 1) >= lo && firstLine - lines.get(a - 1) < 10000) a--;
    let n = 0;
    for (let i = a; i < size && n < CAP; i++) {
      const line = lines.get(i);
      const t = times.get(i);
      // Lines without a stamp (uvicorn access lines) are placed by position in the file.
      const inside = Number.isNaN(t) ? line >= firstLine && line <= lastLine : !Number.isNaN(hi) && t >= lo && t <= hi;
      if (!inside && line > lastLine && (Number.isNaN(t) || Number.isNaN(hi) || t > hi)) break;
      if (inside) { take(i); n++; }
    }
  }
}
