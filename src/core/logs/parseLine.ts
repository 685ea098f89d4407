// Line grammars: one physical log line -> one LogRecord. Pure and synchronous; the hot path
// of both the editor and the CLI, so every regex is guarded by a cheap first-character test.
import type { Engine, LogRecord, TimeResolution } from './model';
import { matchHop } from '../../hops/index';
import { normaliseRid, splitIdList } from './requestIds';

export interface ParseState {
  /** Forced engine, or 'auto' (both grammars are tried). */
  forced: Engine | null;
  /** First engine recognised in this file. */
  detected: Engine | null;
  /** The year and month the log was last written (file mtime), for vLLM's year-less stamps. */
  refYear: number;
  refMonth: number;
  refDay: number;
  year: number | null;
  lastMonth: number;
  /** SGLang 2024 form has no date: day offset for midnight rollover. */
  dayOffset: number;
  lastSecondOfDay: number;
  /** Continuation detection: did the previous line end in CR, and what was its header. */
  prevCR: boolean;
  prevHeader: string;
  prevRid: string | null;
  prevEngine: Engine | 'other';
  /** Memo of the last timestamp text and its value (consecutive lines share a second). */
  stampKey: string;
  stampValue: number;
  processCache: Map<string, ProcessInfo>;
}

export interface ParseOptions {
  engine?: Engine | 'auto';
  /** When the log was last written (mtime); defaults to now. */
  referenceTime?: Date | number;
}

export interface ProcessInfo { name: string; role: string | null; ranks: Record<string, number> | null }

export function createParseState(opts: ParseOptions = {}): ParseState {
  const ref = new Date(opts.referenceTime ?? Date.now());
  return {
    forced: opts.engine && opts.engine !== 'auto' ? opts.engine : null,
    detected: null,
    refYear: ref.getFullYear(), refMonth: ref.getMonth() + 1, refDay: ref.getDate(),
    year: null, lastMonth: 0, dayOffset: 0, lastSecondOfDay: -1,
    prevCR: false, prevHeader: '', prevRid: null, prevEngine: 'other',
    stampKey: '', stampValue: 0,
    processCache: new Map(),
  };
}

// ANSI colour: real escapes, and the visible remnants left when a viewer dropped the ESC byte.
// Real escapes anywhere; visible remnants (`[32mINFO[0m`) are looked for only in the header
// part, where they break parsing — scanning whole 1 KB messages for them is too costly.
function hasAnsi(s: string): boolean {
  return s.indexOf('\x1b') !== -1 || ANSI_REMNANT.test(s.length > 160 ? s.slice(0, 160) : s);
}
const ANSI_REMNANT = /\[\d+(?:;\d+)*m/;
const ANSI_ALL = /(?:\x1b|\^\[)\[[0-9;]*[A-Za-z]|\[\d+(?:;\d+)*m/g;

const VLLM_PREFIX = /^\(([^()]*?) pid=(\d+)(?:, ip=[^()]*)?\) /;
const VLLM_HEADER = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) (\[?)([^\]\s]+):(\d+)\] ?/;
const VLLM_HOPLENS = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) (\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)[.,](\d{3,6}) \[(.+?):(\d+)\] ?/;
const UVICORN = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL|TRACE):\s+/;
const SGLANG_MAIN = /^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{3}))?((?: [A-Za-z_]+\d*(?:\[\d+\])?)*)\] ?/;
const SGLANG_2024 = /^\[(\d\d):(\d\d):(\d\d)((?: [A-Za-z_]+\d*)*)\] ?/;
const SGLANG_HOPLENS = /^\[(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)[.,](\d{3,6}) pid=(\d+) (DEBUG|INFO|WARNING|ERROR|CRITICAL) (.+?):(\d+)\] ?/;
const RANK_TOKEN = /(?:^|[_ ])(DP|PP|PCP|TP|DCP|EP|ATTN_CP|MOE_DP)(\d+)/g;
const RAY_REPEATED = / \[repeated (\d+)x across cluster\]$/;

// Outer wrappers, tried only when no engine grammar matched at the current position.
const W_DOCKER = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d) /;
const W_BRACKET_ISO = /^\[(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?\] ?/;
const W_COMPOSE = /^[A-Za-z0-9][\w.-]*\s+\| ?/;
const W_JOURNALD = /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) {1,2}(\d{1,2}) (\d\d):(\d\d):(\d\d) \S+ [^\s:[]+(?:\[\d+\])?: /;
const W_KUBECTL_PREFIX = /^\[pod\/[^\]\s]+\] /;
const W_SLURM = /^\d+: /;
const W_STERN = /^\S+ \S+ /;
const MONTHS: Record<string, number> = { Jan: 1, Feb: 2, Mar: 3, Apr: 4, May: 5, Jun: 6, Jul: 7, Aug: 8, Sep: 9, Oct: 10, Nov: 11, Dec: 12 };

function fractionToMs(frac: string | undefined): number {
  if (!frac) return 0;
  return Number((frac + '000').slice(0, 3)) + (frac.length > 3 ? Number('0.' + frac.slice(3, 9).padEnd(6, '0')) : 0);
}

function fractionResolution(frac: string | undefined): TimeResolution {
  if (!frac) return 's';
  return frac.length <= 3 ? 'ms' : frac.length <= 6 ? 'us' : 'ns';
}

/** vLLM / journald stamps have no year: the year the log was written, rolling over Dec -> Jan. */
export function inferYear(state: ParseState, month: number): number {
  if (state.year === null) {
    state.year = month > state.refMonth ? state.refYear - 1 : state.refYear;
  } else if (month < state.lastMonth) {
    state.year += 1;
  }
  state.lastMonth = month;
  return state.year;
}

export function processInfo(state: ParseState, name: string): ProcessInfo {
  let info = state.processCache.get(name);
  if (info) return info;
  let role: string | null = null;
  if (/^(?:APIServer|ApiServer)/.test(name)) role = 'api-server';
  else if (name.startsWith('EngineCore')) role = 'engine-core';
  else if (/Worker/.test(name)) role = 'worker';
  else if (name.startsWith('DPSupervisor')) role = 'dp-supervisor';
  else if (name.startsWith('DPCoordinator')) role = 'dp-coordinator';
  let ranks: Record<string, number> | null = null;
  RANK_TOKEN.lastIndex = 0;
  for (let m = RANK_TOKEN.exec(name); m; m = RANK_TOKEN.exec(name)) (ranks ??= {})[m[1]] = Number(m[2]);
  const rankEq = /rank=(\d+)/.exec(name);
  if (rankEq) (ranks ??= {}).rank = Number(rankEq[1]);
  // EngineCore_N and ApiServer_N (no DP/TP letters) carry an index.
  const idx = /^(?:EngineCore|ApiServer)_(\d+)$/.exec(name);
  if (idx) (ranks ??= {}).index = Number(idx[1]);
  // Copy the name: a regex capture is a view that would keep its whole line alive.
  const own = Buffer.from(name, 'utf8').toString('utf8');
  info = { name: own, role, ranks };
  state.processCache.set(own, info);
  return info;
}

function sglangRanks(tag: string): Record<string, number> | null {
  let ranks: Record<string, number> | null = null;
  RANK_TOKEN.lastIndex = 0;
  for (let m = RANK_TOKEN.exec(tag); m; m = RANK_TOKEN.exec(tag)) (ranks ??= {})[m[1]] = Number(m[2]);
  return ranks;
}

function newRecord(lineNo: number, offset: number, message: string): LogRecord {
  return {
    line: lineNo, offset, engine: 'other', format: 'other', process: null, pid: null, role: null, ranks: null,
    level: null, time: null, timeResolution: null, fileinfo: null, lineno: null, message, hop: null, rid: null,
    continuation: false,
  };
}

/** Try the engine grammars at the start of `s`; fill `rec` and return true on a match. */
function parseEngine(s: string, rec: LogRecord, state: ParseState): boolean {
  const c = s.charCodeAt(0);
  const allowVllm = state.forced !== 'sglang';
  const allowSglang = state.forced !== 'vllm';
  if (c === 40 /* ( */ && allowVllm) {
    let rest = s;
    let name: string | null = null;
    let pid: number | null = null;
    // Nested prefixes: `(EngineCore_DP0 pid=1) (RayWorkerWrapper pid=2) …`; the innermost wins.
    for (let m = VLLM_PREFIX.exec(rest); m; m = VLLM_PREFIX.exec(rest)) {
      name = m[1]; pid = Number(m[2]);
      rest = rest.slice(m[0].length);
    }
    if (name === null) return false;
    const info = processInfo(state, name);
    rec.engine = 'vllm'; rec.process = info.name; rec.pid = pid; rec.role = info.role; rec.ranks = info.ranks;
    if (!parseVllmHeader(rest, rec, state)) { rec.format = 'vllm-output'; rec.message = rest; }
    return true;
  }
  if (c === 91 /* [ */) {
    if (allowSglang) return parseSglang(s, rec, state);
    return false;
  }
  if (allowVllm && (c === 73 || c === 68 || c === 87 || c === 69 || c === 67) /* I D W E C */) {
    return parseVllmHeader(s, rec, state);
  }
  return false;
}

function parseVllmHeader(s: string, rec: LogRecord, state: ParseState): boolean {
  let m = VLLM_HEADER.exec(s);
  if (m) {
    rec.engine = 'vllm';
    rec.format = m[7] ? 'vllm' : 'vllm-legacy';
    rec.level = m[1];
    const key = s.substr(m[1].length + 1, 14);
    if (key !== state.stampKey) {
      const month = Number(m[2]);
      const year = inferYear(state, month);
      state.stampKey = key;
      state.stampValue = Date.UTC(year, month - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    }
    rec.time = state.stampValue; rec.timeResolution = 's';
    rec.fileinfo = m[8]; rec.lineno = Number(m[9]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = VLLM_HOPLENS.exec(s);
  if (m) {
    rec.engine = 'vllm'; rec.format = 'vllm-hoplens'; rec.level = m[1];
    rec.time = Date.UTC(Number(m[2]), Number(m[3]) - 1, Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) + fractionToMs(m[8]);
    rec.timeResolution = fractionResolution(m[8]);
    rec.fileinfo = m[9]; rec.lineno = Number(m[10]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = UVICORN.exec(s);
  if (m) {
    rec.format = 'uvicorn'; rec.level = m[1];
    if (rec.engine === 'other') rec.engine = state.forced ?? state.detected ?? 'other';
    if (rec.role === null && rec.engine !== 'other') rec.role = 'api-server';
    rec.message = s.slice(m[0].length);
    return true;
  }
  return false;
}

function parseSglang(s: string, rec: LogRecord, state: ParseState): boolean {
  let m = SGLANG_MAIN.exec(s);
  if (m) {
    rec.engine = 'sglang';
    rec.format = 'sglang';
    const key = s.substr(1, 23);
    if (key !== state.stampKey) {
      state.stampKey = key;
      state.stampValue = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + (m[7] ? Number(m[7]) : 0);
    }
    rec.time = state.stampValue;
    rec.timeResolution = m[7] ? 'ms' : 's';
    const tag = m[8].trim();
    if (tag) { rec.process = tag; rec.ranks = sglangRanks(tag); rec.role = 'scheduler'; }
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_HOPLENS.exec(s);
  if (m) {
    rec.engine = 'sglang'; rec.format = 'sglang-hoplens';
    rec.time = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionToMs(m[7]);
    rec.timeResolution = fractionResolution(m[7]);
    rec.pid = Number(m[8]); rec.level = m[9]; rec.fileinfo = m[10]; rec.lineno = Number(m[11]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_2024.exec(s);
  if (m) {
    rec.engine = 'sglang'; rec.format = 'sglang-2024';
    // No date at all: anchor on the day the log was written, rolling over at midnight.
    const sod = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
    if (state.lastSecondOfDay >= 0 && sod + 12 * 3600 < state.lastSecondOfDay) state.dayOffset += 1;
    state.lastSecondOfDay = sod;
    rec.time = Date.UTC(state.refYear, state.refMonth - 1, state.refDay + state.dayOffset) + sod * 1000;
    rec.timeResolution = 's';
    const tag = m[4].trim();
    if (tag) { rec.process = tag; rec.ranks = sglangRanks(tag); rec.role = 'scheduler'; }
    rec.message = s.slice(m[0].length);
    return true;
  }
  return false;
}

interface OuterStamp { time: number; res: TimeResolution; utc: boolean }

/** Remove one outer wrapper; returns the rest or null. Records the wrapper's own timestamp. */
function stripWrapper(s: string, state: ParseState, wrappers: string[], stamp: { v: OuterStamp | null }): string | null {
  const c = s.charCodeAt(0);
  let m: RegExpExecArray | null;
  if (c >= 48 && c <= 57) {
    if ((m = W_DOCKER.exec(s))) {
      const utc = m[8] === 'Z';
      let t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionToMs(m[7]);
      if (!utc) {
        const off = /([+-])(\d\d):?(\d\d)/.exec(m[8])!;
        t -= (off[1] === '-' ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) * 60000;
      }
      stamp.v = { time: t, res: fractionResolution(m[7]), utc: true };
      wrappers.push('docker');
      return s.slice(m[0].length);
    }
    if ((m = W_SLURM.exec(s))) { wrappers.push('slurm'); return s.slice(m[0].length); }
  }
  if (c === 91 /* [ */) {
    if ((m = W_BRACKET_ISO.exec(s))) {
      const frac = m[7];
      let t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionToMs(frac);
      const zone = m[8];
      if (zone && zone !== 'Z') {
        const off = /([+-])(\d\d):?(\d\d)/.exec(zone)!;
        t -= (off[1] === '-' ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) * 60000;
      }
      stamp.v = { time: t, res: fractionResolution(frac), utc: !!zone };
      wrappers.push('launcher');
      return s.slice(m[0].length);
    }
    if ((m = W_KUBECTL_PREFIX.exec(s))) { wrappers.push('kubectl'); return s.slice(m[0].length); }
    return null;
  }
  if ((m = W_JOURNALD.exec(s))) {
    const month = MONTHS[m[1]];
    const year = inferYear(state, month);
    const t = Date.UTC(year, month - 1, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
    if (!stamp.v) stamp.v = { time: t, res: 's', utc: false };
    wrappers.push('journald');
    return s.slice(m[0].length);
  }
  if ((m = W_COMPOSE.exec(s))) { wrappers.push('compose'); return s.slice(m[0].length); }
  return null;
}

const RES_RANK: Record<TimeResolution, number> = { s: 0, ms: 1, us: 2, ns: 3 };

/**
 * Parse one physical line (without its `\n`; a trailing `\r` is allowed and marks a
 * multi-line record). Never throws; unknown lines come back as engine "other".
 */
export function parseLine(text: string, lineNo: number, offset: number, state: ParseState): LogRecord {
  let s = text;
  const endsCR = s.length > 0 && s.charCodeAt(s.length - 1) === 13;
  if (endsCR) s = s.slice(0, -1);
  if (hasAnsi(s)) s = s.replace(ANSI_ALL, '');
  const rec = newRecord(lineNo, offset, s);
  let wrappers: string[] | null = null;
  const stamp: { v: OuterStamp | null } = { v: null };
  let body = s;
  let matched = s.length > 0 && parseEngine(s, rec, state);
  if (!matched && s.length > 0) {
    wrappers = [];
    for (let i = 0; i < 6 && !matched; i++) {
      const rest = stripWrapper(body, state, wrappers, stamp);
      if (rest === null) break;
      body = rest;
      matched = body.length > 0 && parseEngine(body, rec, state);
    }
    if (!matched) {
      // kubectl/stern print `<pod> <container> ` in front: only believe it if an engine line follows.
      const m = W_STERN.exec(body);
      if (m && parseEngine(body.slice(m[0].length), rec, state)) { matched = true; wrappers.push('kubectl'); }
    }
    if (!matched) {
      // Unrecognised: keep the whole line (wrapper-stripped) as "other".
      const r = newRecord(lineNo, offset, wrappers.length ? body : s);
      if (stamp.v) { r.time = stamp.v.time; r.timeResolution = stamp.v.res; r.timeIsUtc = stamp.v.utc; }
      if (wrappers.length) r.wrappers = wrappers;
      state.prevCR = false;
      return r;
    }
    rec.wrappers = wrappers;
  }
  if (!matched) { state.prevCR = false; return rec; }

  // The outer stamp wins when it is finer (docker's nanoseconds beat vLLM's whole seconds).
  if (stamp.v && (rec.timeResolution === null || RES_RANK[stamp.v.res] > RES_RANK[rec.timeResolution])) {
    rec.time = stamp.v.time; rec.timeResolution = stamp.v.res; rec.timeIsUtc = stamp.v.utc;
  }
  if (rec.engine !== 'other' && state.detected === null && rec.format !== 'uvicorn' && rec.format !== 'vllm-output') state.detected = rec.engine;

  let msg = rec.message;
  if (msg.length > 28 && msg.charCodeAt(msg.length - 1) === 93 && msg.endsWith(' across cluster]')) {
    const r = RAY_REPEATED.exec(msg);
    if (r) { rec.repeated = Number(r[1]); msg = msg.slice(0, r.index); rec.message = msg; }
  }

  // Multi-line vLLM record: continuation lines repeat the header after a CR LF.
  if (state.prevCR && rec.engine === 'vllm' && rec.fileinfo !== null) {
    const header = body.slice(0, body.length - msg.length);
    if (header === state.prevHeader) {
      rec.continuation = true;
      rec.rid = state.prevRid;
      state.prevCR = endsCR;
      return rec;
    }
  }

  if (rec.engine !== 'other') {
    const hm = matchHop(rec.engine, msg, rec.fileinfo, rec.format);
    if (hm) {
      const hop = hm.hop;
      rec.hop = hop.id;
      if (rec.engine === 'sglang') {
        if (hop.role === 'tokenizer' && hop.level.includes('request logger')) rec.format = 'sglang-request';
        if (rec.role === null) rec.role = hop.role;
        if (rec.process === null) rec.process = hop.role === 'tokenizer' ? 'TokenizerManager' : 'Scheduler';
      } else if (rec.role === null) {
        rec.role = hop.role;
      }
      if (hop.ridKind) {
        const g = hm.groups;
        if (hop.ridKind === 'list' && g.rids) {
          const ids = splitIdList(g.rids).map((id) => normaliseRid(rec.engine as Engine, id, 'list'));
          const uniq = [...new Set(ids)];
          rec.rid = uniq[0] ?? null;
          if (uniq.length > 1) rec.rids = uniq;
        } else {
          const raw = g.rid ?? g.internal_rid;
          if (raw) rec.rid = normaliseRid(rec.engine, raw, hop.ridKind);
        }
      }
    }
  }
  if (endsCR) {
    state.prevHeader = body.slice(0, body.length - msg.length);
    state.prevRid = rec.rid;
  }
  state.prevCR = endsCR;
  return rec;
}

/** Engine from the first recognisable lines of a text (for `--engine auto`). */
export function detectEngine(lines: Iterable<string>, maxLines = 2000): Engine | null {
  const st = createParseState();
  let n = 0;
  for (const l of lines) {
    parseLine(l, ++n, 0, st);
    if (st.detected) return st.detected;
    if (n >= maxLines) break;
  }
  return null;
}
