// SGLang's header grammar: configure_logger's dated and 2024 headers, HopLens's logging config, the
// router's, the request logger's JSON events, and the forms a paste or a log platform leaves of them
// (a lost `[`, the date taken off, no header at all). The shapes are ./lines.ts; this reads them
// into a record, through the hooks the generic parser calls (EngineGrammar, ../grammar.ts).
import { stampUtc } from '../civilTime';
import type { LogRecord } from '../record';
import { newRecord, tagRanks } from '../record';
import {
  anotherEngineDetected, anotherGrammarForced, anotherLineFollows, DATE_ANCHOR, fractionMs, fractionResolution, printedId, SEARCH_WINDOW,
  type EngineGrammar, type GrammarState,
} from '../grammar';
import type { HopDef } from '../types';
import { matchHop } from '../index';
import {
  BARE_REQUEST, BRACKETED_FIELDS_AFTER_DATE, FILE_AFTER_DATE, RANKS_ONLY, SGLANG_2024, SGLANG_HOPLENS, SGLANG_JSON_EVENTS,
  SGLANG_LOST_BRACKET, SGLANG_MAIN, SGLANG_ROUTER,
} from './lines';

export function parseSglang(s: string, rec: LogRecord, state: GrammarState): boolean {
  let m = SGLANG_MAIN.exec(s);
  if (m) {
    rec.engine = 'sglang';
    rec.format = 'sglang';
    const key = s.substr(1, 23);
    if (key !== state.stampKey) {
      state.stampKey = key;
      state.stampValue = stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + (m[7] ? Number(m[7]) : 0);
    }
    rec.time = state.stampValue;
    rec.timeResolution = m[7] ? 'ms' : 's';
    const tag = m[8].trim();
    if (!tag && (anotherLineFollows('sglang', s, m[0].length, state) || layoutFollows(s, m[0].length)
      || launcherStamp(s, m[0].length, m[7] !== undefined, state))) return false;
    // `[date TP0][file.py:N][LEVEL]: …`: a layout that kept SGLang's rank tag in its date's bracket.
    if (tag && s.charCodeAt(m[0].length) === 91 && layoutFollows(s, m[0].length)) return false;
    if (tag) { rec.process = tag; rec.ranks = tagRanks(tag); rec.role = 'scheduler'; }
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_HOPLENS.exec(s);
  if (m) {
    rec.engine = 'sglang'; rec.format = 'sglang-hoplens';
    rec.time = stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]);
    rec.timeResolution = fractionResolution(m[7]);
    rec.pid = Number(m[8]); rec.level = m[9]; rec.fileinfo = m[10]; rec.lineno = Number(m[11]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_ROUTER.exec(s);
  if (m) {
    rec.engine = 'sglang'; rec.format = 'sglang-router';
    rec.process = m[1] === 'Rust' ? 'Router (Rust)' : 'Router (Python)'; rec.role = 'router';
    rec.time = stampUtc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) + fractionMs(m[8]);
    rec.timeResolution = fractionResolution(m[8]);
    rec.level = m[9] === 'WARN' ? 'WARNING' : m[9];
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_2024.exec(s);
  if (m) {
    if (!m[4].trim() && (anotherLineFollows('sglang', s, m[0].length, state) || launcherStamp(s, m[0].length, false, state))) return false;
    rec.engine = 'sglang'; rec.format = 'sglang-2024';
    // No date at all: anchor on the day the log was written, rolling over at midnight.
    const sod = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
    if (state.lastSecondOfDay >= 0 && sod + 12 * 3600 < state.lastSecondOfDay) state.dayOffset += 1;
    state.lastSecondOfDay = sod;
    rec.time = Date.UTC(state.refYear, state.refMonth - 1, state.refDay + state.dayOffset) + sod * 1000;
    rec.timeResolution = 's';
    const tag = m[4].trim();
    if (tag) { rec.process = tag; rec.ranks = tagRanks(tag); rec.role = 'scheduler'; }
    rec.message = s.slice(m[0].length);
    return true;
  }
  return false;
}


/**
 * An untagged bracketed stamp in a log already known to be another engine's (vLLM's): a launcher's or
 * `ts`'s stamp in front of its own words (`[2026-01-26 16:57:25]   ⏳ Still loading...`), not an SGLang
 * line, unless what follows is one of SGLang's hops.
 */
export function launcherStamp(s: string, at: number, ms: boolean, state: GrammarState): boolean {
  if (ms || !anotherEngineDetected(state, 'sglang') || state.forced !== null) return false;
  return matchHop('sglang', s.slice(at), null, 'sglang', state.recordEnd) === null;
}


export function layoutFollows(s: string, at: number): boolean {
  const c = s.charCodeAt(at);
  if (c === 91 /* [ */) return BRACKETED_FIELDS_AFTER_DATE.test(s.slice(at, at + 300));
  return ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) && FILE_AFTER_DATE.test(s.slice(at, at + 120));
}


export function parseSglangJsonEvent(s: string, rec: LogRecord): boolean {
  let o: unknown;
  try { o = JSON.parse(s); } catch { return false; }
  if (o === null || typeof o !== 'object') return false;
  const ev = o as { event?: unknown; rid?: unknown; timestamp?: unknown };
  if (typeof ev.event !== 'string' || !(ev.event in SGLANG_JSON_EVENTS)) return false;
  rec.engine = 'sglang';
  rec.format = 'sglang-request-json';
  rec.role = 'tokenizer';
  if (typeof ev.timestamp === 'string') {
    const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?/.exec(ev.timestamp);
    if (m) {
      rec.time = stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]);
      rec.timeResolution = fractionResolution(m[7]);
    }
  }
  // The same hops as the text form's lines; the event names them, not a wording.
  rec.hop = SGLANG_JSON_EVENTS[ev.event];
  rec.process = 'TokenizerManager';
  const rid = typeof ev.rid === 'string' ? ev.rid : Array.isArray(ev.rid) && typeof ev.rid[0] === 'string' ? ev.rid[0] : null;
  if (rid !== null) rec.rid = printedId(rid);
  rec.message = s;
  return true;
}


/**
 * Where SGLang's header starts in a line that lost its `[` (a code fence glued on, then
 * `2025-02-19 11:45:37 TP0] Prefill batch. …`), rec filled; -1 when none. Only a header that is
 * surely SGLang's counts: with a rank tag, or printing a hop.
 */
export function lostBracketAt(s: string, rec: LogRecord, state: GrammarState): number {
  if (anotherGrammarForced(state, 'sglang')) return -1;
  const window = s.length > SEARCH_WINDOW ? s.slice(0, SEARCH_WINDOW) : s;
  if (window.indexOf('] ') < 0) return -1; // most unrecognised lines: no look for a date at all
  DATE_ANCHOR.lastIndex = 0;
  for (let m = DATE_ANCHOR.exec(window); m; m = DATE_ANCHOR.exec(window)) {
    if (m.index > 0 && s.charCodeAt(m.index - 1) === 91 /* [ */) continue;
    const rest = s.slice(m.index);
    if (!SGLANG_LOST_BRACKET.test(rest)) continue;
    const probe = newRecord(rec.line, rec.offset, '');
    if (parseSglang(`[${rest}`, probe, state) && (probe.process !== null || matchHop('sglang', probe.message, null, 'sglang') !== null)) {
      Object.assign(rec, probe);
      return m.index;
    }
  }
  return -1;
}


/** Where such a header starts (rec filled), or -1; only when its message is one of SGLang's hops. */
export function ranksOnlyAt(s: string, rec: LogRecord, state: GrammarState): number {
  if (anotherGrammarForced(state, 'sglang')) return -1;
  const window = s.length > SEARCH_WINDOW ? s.slice(0, SEARCH_WINDOW) : s;
  if (window.indexOf('] ') < 0) return -1;
  const m = RANKS_ONLY.exec(window);
  if (!m) return -1;
  const at = m.index + m[0].length - m[1].length - 2;
  const message = s.slice(m.index + m[0].length);
  if (matchHop('sglang', message, null, 'sglang', state.recordEnd) === null) return -1;
  const tag = m[1];
  rec.engine = 'sglang'; rec.format = 'sglang';
  rec.process = tag; rec.ranks = tagRanks(tag); rec.role = 'scheduler';
  rec.message = message;
  if (state.detected === null) state.detected = 'sglang';
  return at;
}


/**
 * Where SGLang's request-logger message starts in a line with no header (at the line's start or
 * after a wrapper's columns), or -1. Only its own wording with its dataclass or dict counts.
 */
export function bareRequestAt(s: string, state: GrammarState): number {
  if (anotherGrammarForced(state, 'sglang')) return -1;
  const window = s.length > SEARCH_WINDOW ? s.slice(0, SEARCH_WINDOW) : s;
  if (window.indexOf(': obj=') < 0) return -1;
  const m = BARE_REQUEST.exec(window);
  if (!m) return -1;
  const at = m.index === 0 && /[A-Z]/.test(window[0]) ? 0 : m.index + 1;
  const hm = matchHop('sglang', s.slice(at), null, 'sglang-request', state.recordEnd);
  return hm !== null && hm.hop.level.includes('request logger') ? at : -1;
}


/** An SGLang message that opens with more header fields: a level in brackets or a level word, a logger name. */
export function isLayoutAfterSglang(message: string): boolean {
  const c = message.charCodeAt(0);
  return (c === 91 /* [ */ && /^\[(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\]/.test(message))
    || ((c === 73 || c === 68 || c === 87 || c === 69 || c === 67) && /^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)[: ]+(?:sglang\.|\S+\.py:\d)/.test(message));
}


/**
 * Further into a line, only a header that is surely SGLang's counts: its date with a rank tag or
 * milliseconds; a bare `[date]` only in a log known to be SGLang's, or when the message is one of its hops.
 */
function surely(r: LogRecord, state: GrammarState): boolean | undefined {
  if (r.format !== 'sglang' || r.process !== null || r.timeResolution !== 's') return undefined;
  return state.detected === 'sglang' || state.forced === 'sglang' || matchHop('sglang', r.message, null, 'sglang', state.recordEnd) !== null;
}

/** SGLang's header behind another program's `(Name pid=N)` prefix (a Ray actor's), surely its own; `rec` untouched. */
export function headerBehindPrefix(rest: string, rec: LogRecord, state: GrammarState): boolean {
  const probe = newRecord(rec.line, rec.offset, '');
  return parseSglang(rest, probe, state) && (surely(probe, state) ?? true);
}

/** Its header with the date taken off by a log platform, or its request logger's message alone. */
function headerlessAt(s: string, rec: LogRecord, state: GrammarState): number {
  const at = ranksOnlyAt(s, rec, state);
  if (at >= 0) return at;
  // The request logger printing its message alone (a release whose formatter was `%(message)s`).
  const bare = bareRequestAt(s, state);
  if (bare >= 0) {
    rec.engine = 'sglang'; rec.format = 'sglang-request'; rec.message = s.slice(bare);
    if (state.detected === null) state.detected = 'sglang';
  }
  return bare;
}

/** `[YYYY-`: made again only when the year changes (the stamp starts with it). */
function glueKey(rec: LogRecord, state: GrammarState): string | null {
  if (rec.format !== 'sglang' && rec.format !== 'sglang-request') return null;
  const stamp = state.stampKey;
  if (state.glueYear === '' || !stamp.startsWith(state.glueYear)) { state.glueYear = stamp.slice(0, 5); state.glueKeyYear = `[${state.glueYear}`; }
  return state.glueKeyYear;
}

export const SGLANG_GRAMMAR: EngineGrammar = {
  engine: 'sglang',
  // Further into a line: its bracketed date and time (or the time alone), or the router's `[Router (`.
  anchor: String.raw`\[(?=(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d|Router \()`,
  starts: [
    { chars: '[', read: parseSglang },
    { chars: '{', read: (s, rec) => s.indexOf('"event"') !== -1 && parseSglangJsonEvent(s, rec) },
  ],
  timeOnly: 'sglang-2024',
  surely,
  // Behind another engine's process prefix (a Ray actor's `(Name pid=N)`): its bracketed header, surely its own.
  behindPrefix: (rest, rec, state) => rest.charCodeAt(0) === 91 /* [ */ && headerBehindPrefix(rest, rec, state),
  // Its header that lost its `[` (its date may have looked like a wrapper's time column).
  lostHeaderAt: lostBracketAt,
  headerlessAt,
  // `[date] [INFO] sglang.srt.managers.scheduler: …`: a logging config that kept SGLang's bracketed date.
  layoutInMessage: (rec) => rec.format === 'sglang' && isLayoutAfterSglang(rec.message),
  // The request logger's lines, tagged by their hop.
  retag: (rec: LogRecord, hop: HopDef) => {
    if (hop.role === 'tokenizer' && hop.level.includes('request logger') && rec.format === 'sglang') rec.format = 'sglang-request';
  },
  glueKey,
};
