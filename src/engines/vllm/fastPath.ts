// Byte-level fast path for the common vLLM line shape, used by `hoplens annotate --json` on big
// logs: `(Name pid=N) LEVEL MM-DD HH:MM:SS [fileinfo:lineno] message` and uvicorn access lines
// under a process prefix. It reads the bytes in place (no string per line), writes the JSON
// object straight into the output buffer and feeds the request tracker. Anything it is not sure
// about (colour, wrappers, continuations, rare hops, bytes that JSON must escape) it declines,
// and the line goes through parseLine: the output is the same either way (a unit test checks).
import { formatTime, stampUtc } from '../civilTime';
import { rangesEqual } from '../bytes';
import { externalFromInternal } from '../ids';
import { anotherEngineForced, inferYear } from '../grammar';
import { findHop, getHopTable } from '../index';
import type { HopDef } from '../types';
import type { ByteSink, FastLineHandler, FastPathCounters, FastPathState, HopSink, StatementSink, StatementSource } from '../fastPath';
import { processInfo } from './grammar';
import { VLLM_PROCESS } from './lines';
import { vllmPathFromFileinfo } from './source';

const enc = (s: string) => Buffer.from(s, 'latin1');

/** A literal the reader compares lines with, four bytes at a time. */
class Lit {
  readonly bytes: Buffer;
  readonly view: DataView;
  readonly length: number;
  readonly first: number;
  constructor(text: string) {
    this.bytes = enc(text);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.length);
    this.length = this.bytes.length;
    this.first = this.bytes[0];
  }
}
const lit = (s: string) => new Lit(s);
const LEVELS = ['INFO', 'DEBUG', 'WARNING', 'ERROR', 'CRITICAL'].map((l) => ({ name: l, bytes: lit(l + ' ') }));
const P_RECEIVED = lit('Received request ');
const P_REQUEST = lit('Request ');
const P_ADDED = lit('Added request ');
const P_GENERATED = lit('Generated response ');
const P_ENGINE = lit('Engine ');
const S_PARAMS = lit('params: ');
const S_PROMPT = lit('prompt: ');
const S_COMMA_PARAMS = lit(', params: ');
const S_DETAILS = lit(' details: prompt: ');
const S_ABORTED = lit(' aborted.');
const S_FAILED = lit(' failed with an internal error during generation');
const S_OUTPUT = lit(': output: ');
const S_DELTA = lit(' (streaming delta): output: ');
const S_COMPLETE = lit(' (streaming complete): output: ');
const S_FINISH = lit(', finish_reason: ');
const S_AVG1 = lit(': Avg prompt throughput: ');
const S_AVG2 = lit(' tokens/s, Avg generation throughput: ');
const S_AVG3 = lit(' tokens/s, ');
const S_WAITING = lit('EngineCore waiting for work.');
const S_ACTIVE = lit('EngineCore loop active.');
const S_HTTP = lit(' HTTP/');
const STAMP_DIGITS = [0, 1, 3, 4, 6, 7, 9, 10, 12, 13];
/** Index into LEVELS by the level's first letter. */
const LEVEL_BY_FIRST: (number | undefined)[] = [];
LEVELS.forEach((l, i) => { LEVEL_BY_FIRST[l.name.charCodeAt(0)] = i; });

/** The line's bytes at p are `l` (v: a view of the line's buffer). */
function at(v: DataView, p: number, l: Lit, end: number): boolean {
  return p + l.length <= end && rangesEqual(v, p, l.view, 0, l.length);
}

function isDigit(c: number): boolean { return c >= 48 && c <= 57; }

/** First index of `lit` inside [from, end), or -1. */
function findLit(b: Buffer, v: DataView, l: Lit, from: number, end: number): number {
  const last = end - l.length;
  const c0 = l.first;
  for (let i = from; i <= last; i++) if (b[i] === c0 && at(v, i, l, end)) return i;
  return -1;
}

/** Last index of `lit` inside [from, end), or -1. */
function findLastLit(b: Buffer, v: DataView, l: Lit, from: number, end: number): number {
  const c0 = l.first;
  for (let i = end - l.length; i >= from; i--) if (b[i] === c0 && at(v, i, l, end)) return i;
  return -1;
}

/** Index of byte c in [from, end), or -1, by the native search (for the request id: tens of bytes, where it is cheaper than a loop). */
function findFar(b: Buffer, c: number, from: number, end: number): number {
  const i = b.indexOf(c, from);
  return i >= 0 && i < end ? i : -1;
}

/** Index of byte c in [from, end), or -1 (a JS loop: the distances here are short). */
function find(b: Buffer, c: number, from: number, end: number): number {
  for (let i = from; i < end; i++) if (b[i] === c) return i;
  return -1;
}

/**
 * Whether the message holds a time `dd:dd:dd` (another record pasted onto the line carries one in
 * its header: the parser splits it). Its two colons are three bytes apart, so looking at every
 * second byte meets one of them.
 */
export function holdsTime(b: Buffer, m: number, e: number): boolean {
  // The colons by the native search; those a byte-by-byte look at every second byte from m + 1 would meet.
  for (let i = b.indexOf(58, m + 1); i >= 0 && i < e; i = b.indexOf(58, i + 1)) {
    if (((i - m - 1) & 1) !== 0) continue;
    const p = b[i + 3] === 58 ? i : b[i - 3] === 58 ? i - 3 : -1;
    if (p >= m + 2 && p + 6 <= e && isDigit(b[p - 1]) && isDigit(b[p + 1]) && isDigit(b[p + 2]) && isDigit(b[p + 4]) && isDigit(b[p + 5])) return true;
  }
  return false;
}

/** Bytes JSON must escape (or that might be invalid UTF-8): the fast path declines them. */
function plainJsonBytes(b: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) { const c = b[i]; if (c < 32 || c === 34 || c === 92 || c >= 128) return false; }
  return true;
}

/** Every literal prefix of the vLLM hop table: a message starting with none of them is no hop. */
function hopPrefixes(): Map<number, Lit[]> {
  const byFirst = new Map<number, Lit[]>();
  for (const h of getHopTable('vllm').hops) {
    for (const p of h.startsWith) {
      const list = byFirst.get(p.charCodeAt(0)) ?? [];
      list.push(lit(p));
      byFirst.set(p.charCodeAt(0), list);
    }
  }
  return byFirst;
}

/**
 * Values for short byte runs seen before (process prefixes, `fileinfo:lineno`), found by a hash
 * of the bytes: a log has a few hundred of them, each repeated thousands of times. The few in
 * use right now are also tried first, by their bytes and the byte that ends them, which spares
 * both the search for that byte and the hash.
 */
class RunCache<T> {
  private readonly map = new Map<number, { key: Buffer; view: DataView; value: T }[]>();
  private size = 0;
  private hash = 0;
  private readonly recentRuns: { view: DataView; length: number; value: T }[] = [];
  /** Where the run `recent` found ends. */
  end = 0;
  /**
   * The value of a recent run that starts at s and is followed by byte `stop` before `limit`,
   * or undefined. Runs are stored up to their first `stop`, so a match is the run `get` would find.
   */
  recent(b: Buffer, v: DataView, s: number, stop: number, limit: number): T | undefined {
    const runs = this.recentRuns;
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i];
      const e = s + run.length;
      if (e < limit && b[e] === stop && rangesEqual(v, s, run.view, 0, run.length)) {
        if (i > 0) { runs[i] = runs[i - 1]; runs[i - 1] = run; } // the busiest drift to the front
        this.end = e;
        return run.value;
      }
    }
    return undefined;
  }
  get(b: Buffer, s: number, e: number): T | undefined {
    let h = 0x811c9dc5;
    for (let i = s; i < e; i++) h = Math.imul(h ^ b[i], 0x01000193);
    this.hash = h;
    const list = this.map.get(h);
    if (list) {
      const n = e - s;
      for (const en of list) {
        const key = en.key;
        if (key.length !== n) continue;
        let i = 0;
        while (i < n && key[i] === b[s + i]) i++;
        if (i === n) { this.remember(en.view, n, en.value); return en.value; }
      }
    }
    return undefined;
  }
  /** Store a value for the run `get` just missed. */
  set(b: Buffer, s: number, e: number, value: T): T {
    if (this.size >= 4096) { this.map.clear(); this.size = 0; this.recentRuns.length = 0; }
    const key = Buffer.from(b.subarray(s, e));
    const entry = { key, view: new DataView(key.buffer, key.byteOffset, key.length), value };
    const list = this.map.get(this.hash);
    if (list) list.push(entry); else this.map.set(this.hash, [entry]);
    this.size++;
    this.remember(entry.view, key.length, value);
    return value;
  }
  private remember(view: DataView, length: number, value: T): void {
    const runs = this.recentRuns;
    const run = { view, length, value };
    if (runs.length < 8) runs.push(run); else runs[runs.length - 1] = run;
  }
}

/**
 * The request ids of the last few lines, by their bytes: a request's lines come close together
 * (its stream of deltas), so most ids were just seen. A hit gives back the same string (no
 * decoding, no new string for the tracker to hash) and skips the byte checks it passed before.
 */
class RecentRids {
  /** Eight slots of 128 bytes in one buffer (ids longer than that are not kept). */
  private readonly slab = Buffer.alloc(8 * 128);
  private readonly view = new DataView(this.slab.buffer, this.slab.byteOffset, this.slab.length);
  private readonly lengths = new Int32Array(8).fill(-1);
  private readonly internal: boolean[] = new Array<boolean>(8).fill(false);
  private readonly raws: string[] = new Array<string>(8).fill('');
  private readonly ids: string[] = new Array<string>(8).fill('');
  private next = 0;
  /** The raw text of the id `find` found (as printed; `id` is its external form). */
  raw = '';
  /** The id of [s, e) printed as an internal id or not, or null when none of the last few is it. */
  find(v: DataView, s: number, e: number, internal: boolean): string | null {
    const n = e - s;
    if (n < 4) return null;
    const lengths = this.lengths;
    const slab = this.view;
    const tail = v.getInt32(e - 4, true);
    // Newest first (the line before is most often the same request's), the last four bytes (where ids differ) before the rest.
    for (let k = 1; k <= 8; k++) {
      const i = (this.next - k) & 7;
      const at = i * 128;
      if (lengths[i] === n && slab.getInt32(at + n - 4, true) === tail && this.internal[i] === internal && rangesEqual(v, s, slab, at, n)) {
        this.raw = this.raws[i];
        return this.ids[i];
      }
    }
    return null;
  }
  /** Remember an id (its bytes passed the checks `line` makes), replacing the oldest. */
  add(b: Buffer, s: number, e: number, internal: boolean, raw: string, id: string): void {
    if (e - s > 128) return;
    const i = this.next;
    this.next = (i + 1) & 7;
    const slab = this.slab;
    for (let k = 0; k < e - s; k++) slab[i * 128 + k] = b[s + k];
    this.lengths[i] = e - s; this.internal[i] = internal; this.raws[i] = raw; this.ids[i] = id;
  }
}

/** A process prefix `(Name pid=N` seen before, with the JSON head segments built for it. */
interface Prefix { name: string | null; role: string | null; pid: number; segs: Buffer[]; own: boolean }
/** A `fileinfo:lineno` seen before, with the JSON tail segments and the statements built for it per hop (and level). */
interface Site { fileinfo: string; base: string; lineno: number; path: string | null; tails: Tail[]; statements: unknown[] }
interface Tail { pre: Buffer; post: Buffer; unmatched: boolean; source: StatementSource | null }

interface Hit { hop: HopDef; ridStart: number; ridEnd: number; internal: boolean }

/** The hops the fast path reads itself, and the literal prefixes of every hop in the table. */
class KnownHops {
  readonly prefixes = hopPrefixes();
  readonly V1 = KnownHops.hop('V1');
  readonly V1b = KnownHops.hop('V1b');
  readonly V2 = KnownHops.hop('V2');
  readonly V3 = KnownHops.hop('V3');
  readonly V4 = KnownHops.hop('V4');
  readonly V5 = KnownHops.hop('V5');
  readonly V6 = KnownHops.hop('V6');
  readonly V7 = KnownHops.hop('V7');
  readonly V9 = KnownHops.hop('V9');
  readonly V10 = KnownHops.hop('V10');
  /** A small number per hop (0: no hop), to index the per-site caches. */
  readonly codes = new Map<HopDef, number>(getHopTable('vllm').hops.map((h, i) => [h, i + 1]));
  private static hop(id: string): HopDef { return findHop('vllm', id)!; }
}

/** 0 when no hop prefix starts the message (surely no hop), else -1 (let parseLine decide). */
function noHop(prefixes: Map<number, Lit[]>, b: Buffer, v: DataView, m: number, e: number): number {
  const list = prefixes.get(b[m]);
  if (list) {
    for (const l of list) {
      if (at(v, m, l, e)) return -1;
      // The message stops inside the hop's opening words (a wrapped line: the rest is on the next one).
      if (e - m >= 5 && e - m < l.length && rangesEqual(v, m, l.view, 0, e - m)) return -1;
    }
  }
  return 0;
}

/** `Received request …` and `Request <id> details|aborted|failed …`. */
function matchRequest(h: KnownHops, hit: Hit, b: Buffer, v: DataView, m: number, e: number, base: string): number {
  if (at(v, m, P_RECEIVED, e)) {
    if (!h.V1.fileBasenames!.includes(base)) return -1;
    const rs = m + P_RECEIVED.length;
    const sp = findFar(b, 32, rs, e);
    if (sp < 0 || sp - 1 <= rs || b[sp - 1] !== 58) return -1;
    if (!(at(v, sp + 1, S_PARAMS, e) || (at(v, sp + 1, S_PROMPT, e) && findLit(b, v, S_COMMA_PARAMS, sp, e) !== -1))) return -1;
    hit.hop = h.V1; hit.ridStart = rs; hit.ridEnd = sp - 1; hit.internal = false;
    return 1;
  }
  if (at(v, m, P_REQUEST, e)) {
    const rs = m + P_REQUEST.length;
    const sp = findFar(b, 32, rs, e);
    if (sp < 0 || sp === rs) return -1;
    hit.ridStart = rs; hit.ridEnd = sp; hit.internal = false;
    if (at(v, sp, S_DETAILS, e) && h.V1b.fileBasenames!.includes(base)) { hit.hop = h.V1b; return 1; }
    if (sp + S_ABORTED.length === e && at(v, sp, S_ABORTED, e) && h.V7.fileBasenames!.includes(base)) { hit.hop = h.V7; return 1; }
    if (sp + S_FAILED.length === e && at(v, sp, S_FAILED, e) && h.V9.fileBasenames!.includes(base)) { hit.hop = h.V9; return 1; }
    return -1;
  }
  return noHop(h.prefixes, b, v, m, e);
}

/** `Added request <internal id>.` */
function matchAdded(h: KnownHops, hit: Hit, b: Buffer, v: DataView, m: number, e: number, base: string): number {
  if (!at(v, m, P_ADDED, e)) return noHop(h.prefixes, b, v, m, e);
  if (!h.V2.fileBasenames!.includes(base)) return -1;
  const rs = m + P_ADDED.length;
  for (let i = rs; i < e; i++) if (b[i] === 32 || b[i] === 9) return -1;
  // vLLM ends it with `.`: without it the line was cut or wrapped (parseLine looks at the next line).
  if (b[e - 1] !== 46) return -1;
  const re = e - 1;
  if (re <= rs) return -1;
  hit.hop = h.V2; hit.ridStart = rs; hit.ridEnd = re; hit.internal = true;
  return 1;
}

/** `Generated response <id>[ (streaming delta|complete)]: output: …, finish_reason: …` */
function matchGenerated(h: KnownHops, hit: Hit, b: Buffer, v: DataView, m: number, e: number, base: string): number {
  if (!at(v, m, P_GENERATED, e)) return noHop(h.prefixes, b, v, m, e);
  if (!h.V6.fileBasenames!.includes(base)) return -1;
  const rs = m + P_GENERATED.length;
  const sp = findFar(b, 32, rs, e);
  if (sp < 0) return -1;
  let ridEnd: number;
  if (b[sp - 1] === 58 && at(v, sp - 1, S_OUTPUT, e)) ridEnd = sp - 1;
  else if (at(v, sp, S_DELTA, e) || at(v, sp, S_COMPLETE, e)) ridEnd = sp;
  else return -1;
  if (ridEnd <= rs) return -1;
  // `, finish_reason: <no spaces>` at the very end.
  const fr = findLastLit(b, v, S_FINISH, sp, e);
  if (fr < sp || fr + S_FINISH.length >= e) return -1;
  for (let i = fr + S_FINISH.length; i < e; i++) if (b[i] === 32 || b[i] === 9) return -1;
  hit.hop = h.V6; hit.ridStart = rs; hit.ridEnd = ridEnd; hit.internal = false;
  return 1;
}

/** `Engine 000: Avg prompt throughput: …` and the engine core's idle/active lines. */
function matchEngine(h: KnownHops, hit: Hit, b: Buffer, v: DataView, m: number, e: number, base: string): number {
  if (at(v, m, P_ENGINE, e)) {
    if (!h.V5.fileBasenames!.includes(base)) return -1;
    let p = m + P_ENGINE.length;
    if (!(isDigit(b[p]) && isDigit(b[p + 1]) && isDigit(b[p + 2]))) return -1;
    p += 3;
    if (!at(v, p, S_AVG1, e)) return -1;
    p += S_AVG1.length;
    const d1 = p; while (p < e && (isDigit(b[p]) || b[p] === 46)) p++;
    if (p === d1 || !at(v, p, S_AVG2, e)) return -1;
    p += S_AVG2.length;
    const d2 = p; while (p < e && (isDigit(b[p]) || b[p] === 46)) p++;
    if (p === d2 || !at(v, p, S_AVG3, e)) return -1;
    hit.hop = h.V5; hit.ridStart = hit.ridEnd = 0;
    return 1;
  }
  const exact = at(v, m, S_WAITING, e) && m + S_WAITING.length === e ? h.V3 : at(v, m, S_ACTIVE, e) && m + S_ACTIVE.length === e ? h.V4 : null;
  if (exact && exact.fileBasenames!.includes(base)) { hit.hop = exact; hit.ridStart = hit.ridEnd = 0; return 1; }
  return noHop(h.prefixes, b, v, m, e);
}

/** Match the message against the hops this path knows; 1 = hit (in `hit`), 0 = surely no hop, -1 = decline. */
function matchMessage(h: KnownHops, hit: Hit, b: Buffer, v: DataView, m: number, e: number, base: string): number {
  const c = b[m];
  if (!h.prefixes.has(c)) return 0;
  if (c === 82 /* R */) return matchRequest(h, hit, b, v, m, e, base);
  if (c === 65 /* A */) return matchAdded(h, hit, b, v, m, e, base);
  if (c === 71 /* G */) return matchGenerated(h, hit, b, v, m, e, base);
  if (c === 69 /* E */) return matchEngine(h, hit, b, v, m, e, base);
  return noHop(h.prefixes, b, v, m, e); // other prefixes (`--enable…`, Finished, <n> Engines…): rare, parseLine decides
}

/** Whether [p, e) reads `INFO:     client - "METHOD path HTTP/x" status …` (uvicorn's access line). */
function isAccessLine(b: Buffer, v: DataView, p: number, e: number): boolean {
  if (!(b[p] === 73 && b[p + 1] === 78 && b[p + 2] === 70 && b[p + 3] === 79 && b[p + 4] === 58 && b[p + 5] === 32)) return false;
  let m = p + 5;
  while (m < e && (b[m] === 32 || b[m] === 9)) m++;
  // client \S+, ' - "', [A-Z]+, ' ', \S+, ' HTTP/', [\d.]+, '" ', \d{3}
  let q = m; while (q < e && b[q] !== 32) q++;
  if (q === m || !(b[q + 1] === 45 && b[q + 2] === 32 && b[q + 3] === 34)) return false;
  q += 4; const ms = q; while (q < e && b[q] >= 65 && b[q] <= 90) q++;
  if (q === ms || b[q] !== 32) return false;
  q++; const ps = q; while (q < e && b[q] !== 32) q++;
  if (q === ps || !at(v, q, S_HTTP, e)) return false;
  q += S_HTTP.length; const vs = q; while (q < e && (isDigit(b[q]) || b[q] === 46)) q++;
  return !(q === vs || b[q] !== 34 || b[q + 1] !== 32 || !isDigit(b[q + 2]) || !isDigit(b[q + 3]) || !isDigit(b[q + 4]));
}

const J_HEAD = lit('{"kind":"line","line":');
const J_UVICORN_TAIL = enc('null,"timeResolution":null,"fileinfo":null,"lineno":null,"hop":"V10","rid":null,"source":null}\n');
const NO_PREFIX: Prefix = { name: null, role: null, pid: -1, segs: [], own: false };

/**
 * One scan's reader: the caches of prefixes, stamps and sites it has seen, and the line
 * handler (`line`). The JSON of a line is mostly segments that repeat: built once per process
 * prefix (and level, role) and once per `fileinfo:lineno` (and hop), then copied whole.
 */
class FastReader {
  private readonly hops = new KnownHops();
  private readonly hit: Hit;
  private readonly stamp = Buffer.alloc(14);
  private readonly stampView = new DataView(this.stamp.buffer, this.stamp.byteOffset, 14);
  private lastBuf: Buffer | null = null;
  private lastView: DataView | null = null;
  private stampValid = false;
  private stampTime = 0;
  private stampJson: Buffer = enc('null');
  /** The stamp's JSON text when written from the line's digits (rewritten at each new stamp; copied out at each use). */
  private readonly stampOwn = Buffer.alloc(21);
  private readonly prefixCache = new RunCache<Prefix>();
  private readonly siteCache = new RunCache<Site>();
  private readonly rids = new RecentRids();
  private readonly roleCodes = new Map<string | null, number>([[null, 0]]);
  /** The prefix readPrefix found, and where the site readSite found ends. */
  private pre: Prefix = NO_PREFIX;
  private siteClose = 0;
  private accessStatement: unknown = null;

  constructor(private readonly state: FastPathState, private readonly tracker: HopSink | null, private readonly out: ByteSink | null,
    private readonly counters: FastPathCounters, private readonly leaveToParser: ((rid: string) => boolean) | null,
    private readonly leaveMentions: readonly Buffer[] | null, private readonly statements: StatementSink<unknown> | null) {
    this.hit = { hop: this.hops.V1, ridStart: 0, ridEnd: 0, internal: false };
  }

  private prefixAt(b: Buffer, s: number, close: number, ns: number, ne: number, pid: number): Prefix {
    if (ns < 0) return NO_PREFIX;
    const known = this.prefixCache.get(b, s, close);
    if (known) return known;
    const info = processInfo(this.state, b.toString('latin1', ns, ne));
    // A process name of vLLM's own: another actor's uvicorn (Ray Serve's proxy) is not vLLM's.
    const own = VLLM_PROCESS.test(info.name) || this.state.forced === 'vllm';
    return this.prefixCache.set(b, s, close, { name: info.name, role: info.role, pid, segs: [], own });
  }

  /** `,"engine":…,"time":` for this prefix, format, role and level (index into LEVELS; 5 = uvicorn). */
  private headSeg(pre: Prefix, role: string | null, level: number): Buffer {
    let rc = this.roleCodes.get(role);
    if (rc === undefined) { rc = this.roleCodes.size; this.roleCodes.set(role, rc); }
    const k = rc * 8 + level;
    let seg = pre.segs[k];
    if (!seg) {
      const uvicorn = level === 5;
      seg = enc(`,"engine":"vllm","format":"${uvicorn ? 'uvicorn' : 'vllm'}","process":${pre.name === null ? 'null' : `"${pre.name}"`}`
        + `,"pid":${pre.pid < 0 ? 'null' : pre.pid},"role":${role === null ? 'null' : `"${role}"`},"level":"${uvicorn ? 'INFO' : LEVELS[level].name}","time":`);
      pre.segs[k] = seg;
    }
    return seg;
  }

  /** The segments around the rid for this site and hop: `,"timeResolution":…,"rid":"` and `","source":…}\n`. */
  private tailFor(site: Site, hop: HopDef | null, hasRid: boolean): Tail {
    // A request's deltas come line after line from one site: the last answer first.
    const last = this.lastTail;
    if (last !== null && site === this.lastTailSite && hop === this.lastTailHop && hasRid === this.lastTailRid) return last;
    const t = this.tailOf(site, hop, hasRid);
    this.lastTail = t; this.lastTailSite = site; this.lastTailHop = hop; this.lastTailRid = hasRid;
    return t;
  }

  private lastTail: Tail | null = null;
  private lastTailSite: Site | null = null;
  private lastTailHop: HopDef | null = null;
  private lastTailRid = false;

  private tailOf(site: Site, hop: HopDef | null, hasRid: boolean): Tail {
    const k = (hop === null ? 0 : this.hops.codes.get(hop)!) * 2 + (hasRid ? 1 : 0);
    let t = site.tails[k];
    if (!t) {
      // Same rule as citedSource(): an unambiguous fileinfo wins, else the hop table.
      const srcPath = site.path ?? (hop && hop.line !== null && hop.file.endsWith(`/${site.base}`) ? hop.file : null);
      const src = srcPath === null ? 'null' : `{"path":"${srcPath}","line":${site.lineno},"verified":false,"drift":0}`;
      const head = `,"timeResolution":"s","fileinfo":"${site.fileinfo}","lineno":${site.lineno},"hop":${hop ? `"${hop.id}"` : 'null'}`;
      const unmatched = hop === null && srcPath === null;
      const source = srcPath === null ? null : { path: srcPath, line: site.lineno, verified: false };
      t = hasRid
        ? { pre: enc(`${head},"rid":"`), post: enc(`","source":${src}}\n`), unmatched, source }
        : { pre: enc(`${head},"rid":null,"source":${src}}\n`), post: enc(''), unmatched, source };
      site.tails[k] = t;
    }
    return t;
  }

  /** The process prefix `(Name pid=N) ` at s, if any, into `this.pre`: where the level starts, or -1 (decline). */
  private readPrefix(b: Buffer, v: DataView, s: number, e: number): number {
    this.pre = NO_PREFIX;
    if (b[s] !== 40 /* ( */) return s;
    const limit = Math.min(e, s + 200);
    let close: number;
    const recent = this.prefixCache.recent(b, v, s, 41, limit);
    if (recent) { this.pre = recent; close = this.prefixCache.end; }
    else {
      close = find(b, 41, s, limit);
      if (close < 0) return -1;
      const known = this.prefixCache.get(b, s, close);
      if (known) this.pre = known;
      else {
        let q = close - 1, pid = 0, mul = 1;
        while (q > s && isDigit(b[q])) { pid += (b[q] - 48) * mul; mul *= 10; q--; }
        if (mul === 1 || mul > 1e9) return -1;
        if (!(b[q] === 61 && b[q - 1] === 100 && b[q - 2] === 105 && b[q - 3] === 112 && b[q - 4] === 32)) return -1;
        const ns = s + 1, ne = q - 4;
        if (ne <= ns || !plainJsonBytes(b, ns, ne)) return -1;
        if (b[ne - 1] === 44) return -1; // `(task, pid=N)`: another launcher's prefix (parseLine decides)
        for (let i = ns; i < ne; i++) if (b[i] === 40) return -1;
        this.pre = this.prefixAt(b, s, close, ns, ne, pid);
      }
    }
    if (close + 1 >= e || b[close + 1] !== 32) return -1;
    const p = close + 2;
    return b[p] === 40 ? -1 : p; // nested prefixes
  }

  /** `MM-DD HH:MM:SS [` at p: the stamp of the line before (checked then) is the common case. False: decline. */
  private readStamp(b: Buffer, v: DataView, p: number, e: number): boolean {
    if (p + 16 > e || b[p + 14] !== 32 || b[p + 15] !== 91) return false;
    if (this.stampValid && rangesEqual(v, p, this.stampView, 0, 14)) return true;
    if (b[p + 2] !== 45 || b[p + 5] !== 32 || b[p + 8] !== 58 || b[p + 11] !== 58) return false;
    for (let i = 0; i < STAMP_DIGITS.length; i++) if (!isDigit(b[p + STAMP_DIGITS[i]])) return false;
    const d2 = (k: number) => (b[p + k] - 48) * 10 + (b[p + k + 1] - 48);
    const month = d2(0);
    const year = inferYear(this.state, month, d2(3));
    const t = stampUtc(year, month, d2(3), d2(6), d2(9), d2(12));
    // An impossible stamp (month 84): the parser keeps the line with no time, and says why.
    if (Number.isNaN(t)) return false;
    this.stampTime = t;
    if (this.out) {
      // A real time with a four-digit year prints with the line's own digits (`MM-DD`, `HH:MM:SS`):
      // written in place of the last one's. A leap second (Date rolls it over) and odd years are formatted.
      if (d2(12) <= 59 && year >= 1000 && year <= 9999) this.stampJson = this.stampText(b, p, year);
      else this.stampJson = enc(`"${formatTime(this.stampTime, 's', false)}"`);
    }
    const st = this.stamp;
    for (let i = 0; i < 14; i++) st[i] = b[p + i];
    this.stampValid = true;
    return true;
  }

  /** `"YYYY-MM-DDTHH:MM:SS"` from the year and the line's `MM-DD HH:MM:SS` at p (what formatTime gives for that real time). */
  private stampText(b: Buffer, p: number, year: number): Buffer {
    const j = this.stampOwn;
    j[0] = 34;
    j[1] = 48 + ((year / 1000) | 0); j[2] = 48 + (((year / 100) | 0) % 10); j[3] = 48 + (((year / 10) | 0) % 10); j[4] = 48 + (year % 10);
    j[5] = 45;
    for (let i = 0; i < 5; i++) j[6 + i] = b[p + i];
    j[11] = 84;
    for (let i = 6; i < 14; i++) j[6 + i] = b[p + i];
    j[20] = 34;
    return j;
  }

  /** `fileinfo:lineno]` at p; `this.siteClose` is where its `]` is. Undefined: decline. */
  private readSite(b: Buffer, v: DataView, p: number, e: number): Site | undefined {
    const siteLimit = Math.min(e, p + 1024);
    let site = this.siteCache.recent(b, v, p, 93, siteLimit);
    if (site !== undefined) { this.siteClose = this.siteCache.end; return site; }
    const close = find(b, 93, p, siteLimit);
    if (close < 0) return undefined;
    this.siteClose = close;
    site = this.siteCache.get(b, p, close);
    if (site !== undefined) return site;
    let q = close - 1, lineno = 0, mul = 1;
    while (q > p && isDigit(b[q])) { lineno += (b[q] - 48) * mul; mul *= 10; q--; }
    if (mul === 1 || mul > 1e9 || b[q] !== 58 || q === p) return undefined;
    for (let i = p; i < q; i++) { const c = b[i]; if (c <= 32 || c === 34 || c === 92 || c >= 128) return undefined; }
    const fileinfo = b.toString('latin1', p, q);
    const slash = fileinfo.lastIndexOf('/');
    return this.siteCache.set(b, p, close, {
      fileinfo, base: slash < 0 ? fileinfo : fileinfo.slice(slash + 1), lineno, path: vllmPathFromFileinfo(fileinfo), tails: [], statements: [],
    });
  }

  /** A uvicorn access line under vLLM's own process prefix (the level is at p). */
  private accessLine(b: Buffer, v: DataView, p: number, e: number, crlf: boolean, lineNo: number): boolean {
    const pre = this.pre;
    if (!pre.own || !isAccessLine(b, v, p, e)) return false;
    const role = pre.role ?? this.hops.V10.role;
    if (!crlf) this.state.sawBareLF = true;
    this.tracker?.addHop('vllm', 'V10', null, lineNo, null, null, pre.name, role);
    const out = this.out;
    if (out) {
      out.room(1024);
      out.litView(J_HEAD); out.int(lineNo);
      out.seg(this.headSeg(pre, role, 5));
      out.seg(J_UVICORN_TAIL);
    }
    const table = this.statements;
    if (table) {
      if (this.accessStatement === null) {
        // The message as parseLine gives it: what follows `INFO:` and its padding.
        let m = p + 5;
        while (m < e && (b[m] === 32 || b[m] === 9)) m++;
        this.accessStatement = table.open(null, null, 'V10', 'INFO', null, lineNo, b.toString('utf8', m, e));
      }
      table.count(this.accessStatement, lineNo, null, null, false);
    }
    this.counters.handled++;
    return true;
  }

  /** The handler: true when the line was handled here (its JSON written, the tracker fed). */
  line(b: Buffer, s: number, end: number, lineNo: number): boolean {
    const state = this.state;
    if (state.prevCR || anotherEngineForced(state, 'vllm')) return false;
    // In a CRLF file (no bare LF seen yet) the CR is the line ending; after a bare LF it is vLLM's multi-line marker.
    const crlf = b[end - 1] === 13;
    if (crlf && (state.sawBareLF || b[end - 2] === 13)) return false;
    const e = crlf ? end - 1 : end;
    // Ray's `[repeated …]`, and its first one followed by `(Ray deduplicates logs … for more options.)`.
    if (e - s < 24 || b[e - 1] === 93 || (b[e - 1] === 41 && b[e - 2] === 46 && b[e - 3] === 115)) return false;
    // Colour codes need no scan of their own: around the prefix or the level they break the
    // checks below, and inside an id they fail plainJsonBytes.
    if (b !== this.lastBuf) { this.lastBuf = b; this.lastView = new DataView(b.buffer, b.byteOffset, b.length); }
    const v = this.lastView!;
    let p = this.readPrefix(b, v, s, e);
    if (p < 0) return false;
    const pre = this.pre;
    // Level: the five names differ in their first letter.
    const level = LEVEL_BY_FIRST[b[p]];
    const li = level !== undefined && at(v, p, LEVELS[level].bytes, e) ? level : -1;
    if (li < 0) return this.accessLine(b, v, p, e, crlf, lineNo);
    p += LEVELS[li].bytes.length;
    if (!this.readStamp(b, v, p, e)) return false;
    p += 16;
    const site = this.readSite(b, v, p, e);
    if (site === undefined) return false;
    const close = this.siteClose;
    const m = close + 1 < e && b[close + 1] === 32 ? close + 2 : close + 1;
    // A message that starts with a non-ASCII byte may start with a pasted wide space: parseLine decides.
    if (m >= e || b[m] >= 0x80) return false;
    const hit = this.hit;
    const r = matchMessage(this.hops, hit, b, v, m, e, site.base);
    if (r < 0) return false;
    const H = this.hops;
    // Another record pasted onto this line: the parser splits it (a hop read to its last byte has none).
    if (!(r === 1 && (hit.hop === H.V2 || hit.hop === H.V7 || hit.hop === H.V9)) && holdsTime(b, m, e)) return false;
    let rid: string | null = null;
    let ridRaw = false;
    if (r === 1 && hit.ridEnd > hit.ridStart) {
      const known = this.rids.find(v, hit.ridStart, hit.ridEnd, hit.internal);
      if (known !== null) {
        rid = known;
        ridRaw = rid === this.rids.raw;
      } else {
        if (b[hit.ridStart] === 39 || b[hit.ridStart] === 34 || !plainJsonBytes(b, hit.ridStart, hit.ridEnd)) return false;
        // Counting statements only (no output, no tracker, no id to leave out): the id's text is never read.
        const countOnly = this.out === null && this.tracker === null && this.leaveToParser === null && this.leaveMentions === null;
        if (countOnly) return this.countOnly(site, hit.hop, li, b, m, e, crlf, lineNo);
        const raw = b.toString('latin1', hit.ridStart, hit.ridEnd);
        rid = hit.internal ? externalFromInternal(raw) : raw;
        ridRaw = rid === raw;
        this.rids.add(b, hit.ridStart, hit.ridEnd, hit.internal, raw, rid);
      }
      if (this.leaveToParser !== null && this.leaveToParser(rid)) return false;
    }
    if (r === 0 && this.leaveMentions !== null) {
      const message = b.subarray(m, e);
      for (const n of this.leaveMentions) if (message.indexOf(n) !== -1) return false;
    }
    const hop = r === 1 ? hit.hop : null;
    const role = hop && pre.role === null ? hop.role : pre.role;
    if (state.detected === null) state.detected = 'vllm';
    if (!crlf) state.sawBareLF = true;
    if (hop) this.tracker?.addHop('vllm', hop.id, rid, lineNo, this.stampTime, 's', pre.name, role);
    const tail = this.tailFor(site, hop, rid !== null);
    this.counters.handled++;
    if (tail.unmatched) this.counters.unmatched++;
    const out = this.out;
    if (out) {
      out.room(1024 + (e - s));
      out.litView(J_HEAD); out.int(lineNo);
      out.seg(this.headSeg(pre, role, li));
      out.seg(this.stampJson);
      out.seg(tail.pre);
      if (rid !== null) {
        if (ridRaw) out.copyView(v, hit.ridStart, hit.ridEnd); else out.ascii(rid);
        out.seg(tail.post);
      }
    }
    if (this.statements) this.countStatement(site, hop, li, tail, b, m, e, lineNo);
    return true;
  }

  /** A line with a request id, when only statements are counted: what `line` does with it then, without the id's text. */
  private countOnly(site: Site, hop: HopDef, li: number, b: Buffer, m: number, e: number, crlf: boolean, lineNo: number): boolean {
    if (this.state.detected === null) this.state.detected = 'vllm';
    if (!crlf) this.state.sawBareLF = true;
    const tail = this.tailFor(site, hop, true);
    this.counters.handled++;
    this.countStatement(site, hop, li, tail, b, m, e, lineNo);
    return true;
  }

  /** One more line of the statement at this site, hop and level (made on first sight). */
  private countStatement(site: Site, hop: HopDef | null, li: number, tail: Tail, b: Buffer, m: number, e: number, lineNo: number): void {
    const table = this.statements!;
    const k = (hop === null ? 0 : this.hops.codes.get(hop)!) * 8 + li;
    let st = site.statements[k];
    if (st === undefined) {
      st = table.open(site.fileinfo, site.lineno, hop === null ? null : hop.id, LEVELS[li].name, tail.source, lineNo, b.toString('utf8', m, e));
      site.statements[k] = st;
    }
    table.count(st, lineNo, this.stampTime, 's', false);
  }
}

/**
 * Build the fast-path handler for one scan. It writes the `{"kind":"line"}` object of each line
 * it takes into `out` (null: only the tracker is fed) and returns false for lines it leaves to
 * parseLine. Handled lines produce no LogRecord. `leaveToParser`, when given, names request ids
 * whose lines the caller wants as records (`annotate --rid`): those lines are left to parseLine.
 * `leaveMentions`, when given, are the request's base ids (ASCII): a line of no hop whose message
 * holds one is left to parseLine too, since a line naming the request is one of its lines.
 * `statements`, when given, counts each handled line under its statement (`annotate --summary`);
 * a null `tracker` is not fed (a summary of statements needs no request index).
 */
export function vllmFastPath(state: FastPathState, tracker: HopSink | null, out: ByteSink | null, counters: FastPathCounters = { handled: 0, unmatched: 0 },
  leaveToParser: ((rid: string) => boolean) | null = null, leaveMentions: readonly Buffer[] | null = null,
  statements: StatementSink<unknown> | null = null): FastLineHandler {
  const reader = new FastReader(state, tracker, out, counters, leaveToParser, leaveMentions, statements);
  return (b, s, end, lineNo) => reader.line(b, s, end, lineNo);
}
