// Where an engine's header stands in a line: at its start (the engines' grammars tried by the line's
// first character, the hot path), or further in behind anything (findHeader), quoted in an export
// (unquoteRecord); and what counts as surely an engine's header further into a line.
import type { LogRecord } from './model';
import { HEADER_ANCHOR, newRecord, processInfo, SEARCH_WINDOW, type ParseState } from './parseState';
import { matchHop } from '../../engines/index';
import { VLLM_PREFIX, VLLM_PROCESS } from '../../engines/vllm/lines';
import { hasColour, stripColour } from './colour';
import { quotedRecord } from './quotedRecord';
import { tracingJsonLine } from './tracingJson';
import { parseAfterLoggingPrefix, parseStrippedVllm, parseVllmHeader } from './vllmGrammar';
import { parseSglang, parseSglangJsonEvent } from './sglangGrammar';
import { nextRecordAt } from './onOneLine';

/** Try the engine grammars at the start of `s`; fill `rec` and return true on a match. */
export function parseEngine(s: string, rec: LogRecord, state: ParseState): boolean {
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
    // A Ray actor's prefix (`(SGLangEngine pid=N)`, `(WorkerDict pid=N)`) in front of SGLang's header:
    // the line is SGLang's; the header search finds it behind the prefix, which is kept for display.
    if (allowSglang && rest.charCodeAt(0) === 91 /* [ */ && sglangBehindPrefix(rest, rec, state)) return false;
    const info = processInfo(state, name);
    rec.engine = 'vllm'; rec.process = info.name; rec.pid = pid; rec.role = info.role; rec.ranks = info.ranks;
    const own = VLLM_PROCESS.test(name) || state.forced === 'vllm';
    const message = rec.message;
    const header = parseVllmHeader(rest, rec, state) || parseAfterLoggingPrefix(rest, rec, state);
    // Another program's actor (Ray Serve's replica, controller and proxy; a framework's `(WorkerDict pid=N)`)
    // printing plain text, another logger's line or its own uvicorn: not vLLM's.
    if (!own && (!header || rec.format === 'uvicorn')) {
      rec.engine = 'other'; rec.format = 'other'; rec.process = null; rec.pid = null; rec.role = null; rec.ranks = null;
      rec.level = null; rec.message = message;
      return false;
    }
    if (!header) { rec.format = 'vllm-output'; rec.message = rest; }
    return true;
  }
  if (c === 91 /* [ */) {
    if (allowSglang && parseSglang(s, rec, state)) return true;
    return allowVllm && parseStrippedVllm(s, rec, state, false);
  }
  if (c === 123 /* { */ && allowSglang) {
    if (s.indexOf('"event"') !== -1 && parseSglangJsonEvent(s, rec)) return true;
    return parseTracingJson(s, rec, state);
  }
  if (allowVllm && (c === 73 || c === 68 || c === 87 || c === 69 || c === 67) /* I D W E C */) {
    return parseVllmHeader(s, rec, state);
  }
  return false;
}

function sglangBehindPrefix(rest: string, rec: LogRecord, state: ParseState): boolean {
  const probe = newRecord(rec.line, rec.offset, '');
  return parseSglang(rest, probe, state) && surelyEngines(probe, state);
}


/** SGLang's router in tracing's JSON layout (`--log-json`): read as its text layout is (a custom layout's router line). */
function parseTracingJson(s: string, rec: LogRecord, state: ParseState): boolean {
  const t = tracingJsonLine(s);
  if (t === null || (state.forced !== null && t.engine !== state.forced)) return false;
  rec.engine = t.engine; rec.format = `${t.engine}-router`; rec.role = 'router';
  rec.time = t.time; rec.timeResolution = t.timeResolution;
  if (t.timeIsUtc) rec.timeIsUtc = true;
  rec.level = t.level; rec.fileinfo = t.file; rec.lineno = t.lineno; rec.logger = t.target;
  if (t.span) rec.span = t.span;
  rec.message = t.message;
  return true;
}


/** The first position after 0 where an engine's header starts (rec filled), or -1. */
export function findHeader(s: string, rec: LogRecord, state: ParseState): number {
  const window = s.length > SEARCH_WINDOW ? s.slice(0, SEARCH_WINDOW) : s;
  HEADER_ANCHOR.lastIndex = 1;
  for (let m = HEADER_ANCHOR.exec(window); m; m = HEADER_ANCHOR.exec(window)) {
    const probe = newRecord(rec.line, rec.offset, '');
    if (parseEngine(s.slice(m.index), probe, state) && surelyEngines(probe, state)) {
      Object.assign(rec, probe);
      return m.index;
    }
    HEADER_ANCHOR.lastIndex = m.index + 1;
  }
  return -1;
}


/**
 * The record quoted from `at` in `s` (a JSON string or CSV field), unescaped up to its closing
 * quote and its first line break, with `rec` filled from it again; null when it is no record.
 */
export function unquoteRecord(s: string, at: number, rec: LogRecord, state: ParseState): { text: string; kind: string } | null {
  const q = quotedRecord(s, at);
  if (q === null) return null;
  let text = q.text;
  const nl = text.indexOf('\n');
  if (nl >= 0) text = text.slice(0, nl);
  if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
  if (hasColour(text)) text = stripColour(text);
  const probe = newRecord(rec.line, rec.offset, '');
  if (!parseEngine(text, probe, state)) return null;
  Object.assign(rec, probe);
  return { text, kind: q.kind };
}

/**
 * Further into a line, only a header that is surely the engine's counts: vLLM's level, date and
 * file:line; SGLang's date with a rank tag or milliseconds. A bare `(name pid=N)` or `[date]` in
 * the middle of another program's line counts only in a log already known to be that engine's
 * (or when the message is one of its hops).
 */
export function surelyEngines(r: LogRecord, state: ParseState): boolean {
  if (r.format === 'vllm-output') return state.detected === 'vllm' || state.forced === 'vllm';
  // uvicorn's access line alone is anyone's; behind vLLM's process prefix, in a vLLM log, it is vLLM's.
  if (r.format === 'uvicorn') return r.process !== null && (state.detected === 'vllm' || state.forced === 'vllm');
  if (r.format === 'sglang' && r.process === null && r.timeResolution === 's') {
    return state.detected === 'sglang' || state.forced === 'sglang' || matchHop('sglang', r.message, null, 'sglang', nextRecordAt) !== null;
  }
  return true;
}
