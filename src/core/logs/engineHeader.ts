// Where an engine's header stands in a line: at its start (the engines' grammars tried by the line's
// first character, the hot path), or further in behind anything (findHeader), quoted in an export
// (unquoteRecord); and what counts as surely an engine's header further into a line.
import type { LogRecord } from './model';
import { HEADER_ANCHORS, newRecord, SEARCH_WINDOW, type ParseState } from './parseState';
import { GRAMMARS, grammarAllowed, HEADER_STARTS } from '../../engines/grammars';
import { engineProfile } from '../../engines/registry';
import { soleHopEngine } from '../../engines/index';
import type { Engine } from './model';
import { hasColour, stripColour } from './colour';
import { quotedRecord } from './quotedRecord';
import { tracingJsonLine } from './tracingJson';
import { pythonJsonLine } from './pythonJson';

/**
 * Try the engines' grammars at the start of `s` (the readers its first character calls, in the
 * grammars' order: src/engines/grammars.ts), then tracing's JSON layout, then a Python logging record in
 * JSON; fill `rec` and return true on a match.
 */
export function parseEngine(s: string, rec: LogRecord, state: ParseState): boolean {
  const c = s.charCodeAt(0);
  const starts = HEADER_STARTS[c];
  if (starts !== undefined) {
    const any = state.forced === null;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i];
      if ((any || grammarAllowed(start.grammar, state)) && start.read(s, rec, state)) return true;
    }
  }
  return c === 123 /* { */ && (parseTracingJson(s, rec, state) || parsePythonJson(s, rec, state));
}

/** A Python logging record in JSON of an engine's logger (vLLM's `--logging-config.formatter json`): read as a custom layout's line. */
function parsePythonJson(s: string, rec: LogRecord, state: ParseState): boolean {
  const j = pythonJsonLine(s);
  if (j === null) return false;
  // uvicorn's records (its access line, the V10 hop) are the engine's in a log known to be its, as in the text layout.
  let engine = j.anonymous ? null : j.engine ?? state.forced ?? state.detected;
  if (!j.anonymous && (engine === null || (state.forced !== null && engine !== state.forced))) return false;
  // A message with the engine's own header in it (an export quoting the text line) is read as that line.
  const inner = newRecord(rec.line, rec.offset, '');
  if (HEADER_STARTS[j.message.charCodeAt(0)] !== undefined && parseEngine(j.message, inner, state)) return false;
  // A record naming no logger is the engine's only when its message is that engine's hop.
  if (j.anonymous) engine = anonymousEngine(j.message, j.file, state);
  if (engine === null) return false;
  rec.engine = engine; rec.format = j.engine === null && !j.anonymous ? 'uvicorn' : `${engine}-custom`;
  rec.time = j.time; rec.timeResolution = j.timeResolution;
  if (j.timeIsUtc) rec.timeIsUtc = true;
  rec.level = j.level ?? rec.level; rec.pid = j.pid ?? rec.pid;
  rec.fileinfo = j.file; rec.lineno = j.lineno;
  if (j.logger) rec.logger = j.logger;
  if (j.func) rec.func = j.func;
  if (j.process) {
    rec.process = j.process;
    for (const [shape, role] of engineProfile(engine).processRoles) if (shape.test(j.process)) { rec.role = role; break; }
  }
  if (j.engine === null && !j.anonymous && rec.role === null) rec.role = 'api-server';
  rec.message = j.message;
  if (state.detected === null && j.engine !== null) state.detected = j.engine;
  return true;
}

/**
 * The engine of a JSON record that names no logger nor path (a formatter printing only `message`): a formatter
 * set on the root logger prints every library's records in the same keys, so the keys teach nothing; the one
 * engine whose hop the message is (the engine the log is known to be, when it is known) says it, else no engine.
 */
function anonymousEngine(message: string, file: string | null, state: ParseState): Engine | null {
  const known = state.forced ?? state.detected;
  return soleHopEngine(message, file, (id) => known === null || id === known);
}

/** A Rust router in tracing's JSON layout (SGLang's `--log-json`): read as its text layout is (a custom layout's router line). */
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
  const anchor = HEADER_ANCHORS.header;
  anchor.lastIndex = 1;
  for (let m = anchor.exec(window); m; m = anchor.exec(window)) {
    const probe = newRecord(rec.line, rec.offset, '');
    if (parseEngine(s.slice(m.index), probe, state) && surelyEngines(probe, state)) {
      Object.assign(rec, probe);
      return m.index;
    }
    anchor.lastIndex = m.index + 1;
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
 * Further into a line, only a header that is surely the engine's counts (each grammar says for its
 * own formats: vLLM's level, date and file:line; SGLang's date with a rank tag or milliseconds). A
 * bare `(name pid=N)` or `[date]` in the middle of another program's line counts only in a log
 * already known to be that engine's (or when the message is one of its hops).
 */
export function surelyEngines(r: LogRecord, state: ParseState): boolean {
  for (const g of GRAMMARS) {
    const sure = g.surely?.(r, state);
    if (sure !== undefined) return sure;
  }
  return true;
}
