// Line grammars: one physical log line -> one LogRecord. Pure and synchronous; the hot path
// of both the editor and the CLI, so the engine's own header is tried first at the start of
// the line, and everything slower (outer wrappers, the header found further in, custom
// logging layouts) runs only for lines that did not start with it.
import type { Engine, LogRecord, TimeResolution } from './model';
import { fitsWhole, matchHop, stopsInOpening, type HopMatch } from '../../engines/index';
import { normaliseRid, splitIdList } from './requestIds';
import { columnBeforeStrip, hasColour, stripColour } from './colour';
import { dropMarkdownClosers, fractionMs, fractionResolution, inferYear, stripWrapper, type OuterStamp } from './outerPrefix';
import { BASIC_FORMAT, readLayoutHeader, type LayoutHeader } from './pythonLayout';
import { quotedRecord } from './quotedRecord';
import { hasPasteArtefacts, pastedLead, unpaste } from './pasted';
import { tracingJsonLine } from './tracingJson';

export { inferYear } from './outerPrefix';

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
  /** Continuation detection: did the previous line end in vLLM's multi-line marker, and what was its header. */
  prevCR: boolean;
  prevHeader: string;
  prevRid: string | null;
  prevEngine: Engine | 'other';
  /**
   * A line ended in a bare LF. Until one does, the file is taken for CRLF (Windows, `docker
   * logs` of a `-t` container) and a CR at a line's end is its line ending; after one, a CR
   * at the end is vLLM's multi-line marker (`\r\n` + the header repeated).
   */
  sawBareLF: boolean;
  /**
   * Custom logging layouts (by their field signature) known to be an engine's: a line of the
   * layout named the engine (its logger or path) or printed one of its hops.
   */
  layouts: Map<string, Engine>;
  /** Lines read in a custom layout that no line has yet shown to be an engine's. */
  unknownLayouts: number;
  /**
   * The text that follows the line being parsed (what the reader already holds), for a layout first
   * seen partway: the lines after it may show whose it is. null: nothing ahead is known.
   */
  ahead: ((maxChars: number) => string) | null;
  /** Bumped by the reader each time it holds new text ahead (a new chunk). */
  aheadEpoch: number;
  /** Layouts already looked ahead for: the epoch of the look, or -1 when it saw a full window. */
  probedLayouts: Map<string, number>;
  /** What a record glued onto a line would show of its stamp (gluedAt): SGLang's `[YYYY-`, vLLM's `MM-DD `. */
  glueYear: string;
  glueDay: string;
  glueKeySglang: string;
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
    prevCR: false, prevHeader: '', prevRid: null, prevEngine: 'other', sawBareLF: false, layouts: new Map(), unknownLayouts: 0,
    ahead: null, aheadEpoch: 0, probedLayouts: new Map(), glueYear: '', glueDay: '', glueKeySglang: '',
    stampKey: '', stampValue: 0,
    processCache: new Map(),
  };
}

const LEVELS = 'DEBUG|INFO|WARNING|ERROR|CRITICAL';
// The prefix decorate_logs writes in front of every line of a process, an empty one too.
// A name ending in a comma is another launcher's (SkyPilot's `(task, pid=N)`, `(head, rank=0, pid=N)`).
// The process names vLLM's own prefixes carry (decorate_logs; Ray's, for vLLM's workers: `RayWorker`
// of 0.2, `RayWorkerVllm`, `RayWorkerWrapper`, `RayWorkerProc`). Behind another name (a Ray actor:
// Ray Serve's `(ServeReplica:app:LLMServer:x pid=N)`, `(ServeController pid=N)`, `(ProxyActor pid=N)`, a
// training framework's `(WorkerDict pid=N)`, `(AsyncvLLMServer pid=N)`) the prefix does not make the line
// vLLM's: only vLLM's own header behind it does; plain text and other loggers' lines there are the actor's.
export const VLLM_PROCESS = /^_?(?:APIServer|ApiServer|\w*EngineCore\w*|AsyncLLMEngine|LLMEngine|MQLLMEngine|\w*Vllm\w*|Worker|RayWorker\w*|DPCoordinator|DPSupervisor)(?:[_ -]|$)/;
const VLLM_PREFIX = /^\(((?:[^()]*?[^(),])?) pid=(\d+)(?:, ip=[^()]*)?\)(?: |$)/;
// vLLM's header in every version: `[path.py:N]` (≥0.8), `file.py:N]` (≤0.7); milliseconds,
// a year and full paths when a logging config adds them.
const VLLM_HEADER = new RegExp(`^(${LEVELS}) (\\d\\d)-(\\d\\d) (\\d\\d):(\\d\\d):(\\d\\d) (\\[?)([^\\]\\s]+):(\\d+)\\] ?`);
const VLLM_HEADER_LONG = new RegExp(`^(${LEVELS}) (?:(\\d{4})-)?(\\d\\d)-(\\d\\d)[ T](\\d\\d):(\\d\\d):(\\d\\d)(?:[.,](\\d{1,9}))? (\\[?)([^\\][]+?):(\\d+)\\] ?`);
const UVICORN = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL|TRACE):\s+/;
// What SGLang prints after its time (configure_logger's prefix): rank tags, upper-case letters and
// a number (TP0, DP0 TP1, PP0 TP3, TP2 EP2, ATTN_CP0, MOE_DP0, …; a PP fork joined them with `, `),
// and the encoder's process names (` encode_server`, ` encode_dp_worker[N]`). A word without a number
// (`INFO`, `WARNING`, `MainThread`, `UTC`) is another program's layout, never a rank tag.
const SGLANG_TAGS = String.raw`((?:,? (?:[A-Z][A-Z_]*\d+|encode_[a-z_]+)(?:\[\d+\])?)*)`;
const SGLANG_MAIN = new RegExp(String.raw`^\[(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{3}))?${SGLANG_TAGS}\] ?`);
// SGLang's router before tracing (env_logger, 2024 to mid 2025) and its Python launcher: `[Router (Rust)] date - LEVEL - …`.
const SGLANG_ROUTER = /^\[Router \((Rust|Python)\)\] (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))? - (TRACE|DEBUG|INFO|WARN|WARNING|ERROR|CRITICAL) - /;
const SGLANG_2024 = new RegExp(String.raw`^\[(\d\d):(\d\d):(\d\d)${SGLANG_TAGS}\] ?`);
const SGLANG_HOPLENS = /^\[(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)[.,](\d{3,6}) pid=(\d+) (DEBUG|INFO|WARNING|ERROR|CRITICAL) (.+?):(\d+)\] ?/;
// Every rank tag SGLang and vLLM print (TP0, DP0, EP0, PP0, ATTN_CP0, ATTN_DP0, MOE_DP0, …), in any combination.
const RANK_TOKEN = /(?:^|[_ ])([A-Z][A-Z_]*?)(\d+)(?=$|[_ ,\]])/g;
// Ray's dedup count; the first one of a session adds a note on how to turn deduplication off.
const RAY_REPEATED = / \[repeated (\d+)x across cluster\](?: \(Ray deduplicates logs by default\.[^()]*\))?$/;
// Pod and container names are DNS labels: lower-case letters, digits, `-` and `.` (no quotes or
// braces, so an exporter's `{"message":"(APIServer pid=1) …` is not taken for them).
const W_STERN = /^[a-z0-9][a-z0-9.-]* [a-z0-9][a-z0-9.-]* /;
// Where an engine header may start further into a line: a process prefix, a vLLM level and
// date, an SGLang bracketed date.
const HEADER_ANCHOR = new RegExp(`\\((?=[^()]{0,80}? pid=\\d)|(?:${LEVELS}) (?=(?:\\d{4}-)?\\d\\d-\\d\\d[ T]\\d\\d:)|\\[(?=(?:\\d{4}-\\d\\d-\\d\\d[ T])?\\d\\d:\\d\\d:\\d\\d|Router \\()`, 'g');
const DATE_ANCHOR = /\d{4}-\d\d-\d\d[ T]\d\d:\d\d/g;
// SGLang's header whose `[` a paste lost (the selection began at the date): date, rank tags, `] `.
const SGLANG_LOST_BRACKET = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{3})?(?: [A-Z][A-Z_]*\d+)*\] /;
// A process prefix whose `(` a paste lost: `_AsyncLLMEngine pid=1974) INFO …`.
const LOST_PREFIX = /(?:^|[\s(])([A-Za-z_][\w.\- =]*?) pid=(\d+)(?:, ip=[^()]*)?\)[*_`]* ?$/;
/** How far into a line its header is looked for (pasted titles, paths and progress bars are shorter). */
const SEARCH_WINDOW = 600;

export function processInfo(state: ParseState, name: string): ProcessInfo {
  let info = state.processCache.get(name);
  if (info) return info;
  let role: string | null = null;
  if (/^(?:APIServer|ApiServer)/.test(name)) role = 'api-server';
  else if (/^_?(?:EngineCore|AsyncLLMEngine|LLMEngine|MQLLMEngine)/.test(name)) role = 'engine-core';
  else if (/Worker/.test(name)) role = 'worker';
  else if (name.startsWith('DPSupervisor')) role = 'dp-supervisor';
  else if (name.startsWith('DPCoordinator')) role = 'dp-coordinator';
  let ranks = tagRanks(name);
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

function tagRanks(tag: string): Record<string, number> | null {
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

// vLLM's header with its level and stamp taken off by a relay: dynamo-run's subprocess engines
// (2025-05 to 2025-07, launch/dynamo-run/src/subprocess.rs strip_log_prefix) log each line of
// vLLM's output as `[async_llm.py:252] Added request 1`.
const STRIPPED_VLLM = /^\[([^\]\s:]+\.py):(\d+)\] /;

/**
 * `[file.py:N] message`: vLLM's line behind a relay that stripped its level and stamp; rec filled.
 * Known to be relayed (`relayed`), or printing one of vLLM's hops, or in a log forced to vLLM.
 */
function parseStrippedVllm(s: string, rec: LogRecord, state: ParseState, relayed: boolean): boolean {
  const m = STRIPPED_VLLM.exec(s);
  if (!m) return false;
  const message = s.slice(m[0].length);
  if (!relayed && state.forced !== 'vllm' && matchHop('vllm', message, m[1], 'vllm-relayed', nextRecordAt) === null) return false;
  rec.engine = 'vllm'; rec.format = 'vllm-relayed';
  rec.fileinfo = m[1]; rec.lineno = Number(m[2]);
  rec.message = message;
  return true;
}

// A relay's target in tracing's layout whose lines are an engine subprocess's output, stripped.
const RELAY_TARGET = 'dynamo_run::subprocess';

/** A line dynamo-run relayed (`…Z DEBUG dynamo_run::subprocess: [llm_engine.py:507] …`); rec filled. */
function parseRelayed(h: LayoutHeader, message: string, rec: LogRecord, state: ParseState): boolean {
  let engine: Engine | null = null;
  if (h.file !== null && h.lineno !== null && /\.py$/.test(h.file) && state.forced !== 'sglang') {
    // The header reader took vLLM's `[file.py:N]` for the layout's location field.
    engine = 'vllm';
    rec.engine = engine; rec.format = 'vllm-relayed'; rec.fileinfo = h.file; rec.lineno = h.lineno; rec.message = message;
  } else if (state.forced !== 'sglang' && parseStrippedVllm(message, rec, state, true)) engine = 'vllm';
  else {
    // SGLang's untagged `[date] ` was stripped too; its tagged header and vLLM's uvicorn lines were not.
    if (message.charCodeAt(0) === 91 /* [ */ || /^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):\s/.test(message)) return false;
    if (state.forced !== 'vllm' && matchHop('sglang', message, null, 'sglang-relayed', nextRecordAt) !== null) engine = 'sglang';
    else if (state.forced !== 'sglang' && matchHop('vllm', message, null, 'vllm-relayed', nextRecordAt) !== null) engine = 'vllm';
    if (engine === null) return false;
    rec.engine = engine; rec.format = `${engine}-relayed`; rec.message = message;
  }
  rec.time = h.time; rec.timeResolution = h.timeResolution;
  if (h.timeIsUtc) rec.timeIsUtc = true;
  if (state.detected === null) state.detected = engine;
  return true;
}

// vLLM's format starts with VLLM_LOGGING_PREFIX, which decorate_logs' process prefix then precedes:
// `(APIServer pid=1) [node-3] INFO 08-21 22:30:05 [async_llm.py:439] …`.
const LOGGING_PREFIX_WINDOW = 64;
const LEVEL_DATE = new RegExp(`(?:${LEVELS}) \\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d `);

/** The header after a VLLM_LOGGING_PREFIX (a few characters after the process prefix); rec filled. */
function parseAfterLoggingPrefix(s: string, rec: LogRecord, state: ParseState): boolean {
  const m = LEVEL_DATE.exec(s.length > LOGGING_PREFIX_WINDOW + 40 ? s.slice(0, LOGGING_PREFIX_WINDOW + 40) : s);
  if (!m || m.index === 0 || m.index > LOGGING_PREFIX_WINDOW) return false;
  const level = rec.level;
  if (parseVllmHeader(s.slice(m.index), rec, state) && rec.format !== 'uvicorn') return true;
  rec.level = level;
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
  m = VLLM_HEADER_LONG.exec(s);
  // Without vLLM's bracket, a dated `file.py:N]` is a layout other tools copied: only with evidence it is vLLM's.
  if (m && !m[9] && (m[2] || /\s/.test(m[10])) && state.forced !== 'vllm' && state.detected !== 'vllm' && !/(?:^|\/)vllm\//.test(m[10])) m = null;
  if (m) {
    rec.engine = 'vllm';
    // A year or a fraction of a second: a logging config's layout (ours, or the user's).
    rec.format = m[2] || m[8] ? 'vllm-hoplens' : 'vllm';
    rec.level = m[1];
    const month = Number(m[3]);
    const year = m[2] ? Number(m[2]) : inferYear(state, month);
    rec.time = Date.UTC(year, month - 1, Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) + fractionMs(m[8]);
    rec.timeResolution = fractionResolution(m[8]);
    rec.fileinfo = m[10]; rec.lineno = Number(m[11]);
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
    if (!tag && (vllmFollows(s, m[0].length, state) || layoutFollows(s, m[0].length) || launcherStamp(s, m[0].length, m[7] !== undefined, state))) return false;
    if (tag) { rec.process = tag; rec.ranks = tagRanks(tag); rec.role = 'scheduler'; }
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_HOPLENS.exec(s);
  if (m) {
    rec.engine = 'sglang'; rec.format = 'sglang-hoplens';
    rec.time = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]);
    rec.timeResolution = fractionResolution(m[7]);
    rec.pid = Number(m[8]); rec.level = m[9]; rec.fileinfo = m[10]; rec.lineno = Number(m[11]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_ROUTER.exec(s);
  if (m) {
    rec.engine = 'sglang'; rec.format = 'sglang-router';
    rec.process = m[1] === 'Rust' ? 'Router (Rust)' : 'Router (Python)'; rec.role = 'router';
    rec.time = Date.UTC(Number(m[2]), Number(m[3]) - 1, Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) + fractionMs(m[8]);
    rec.timeResolution = fractionResolution(m[8]);
    rec.level = m[9] === 'WARN' ? 'WARNING' : m[9];
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = SGLANG_2024.exec(s);
  if (m) {
    if (!m[4].trim() && (vllmFollows(s, m[0].length, state) || launcherStamp(s, m[0].length, false, state))) return false;
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
 * A bracketed time with no rank tag, then vLLM's process prefix or header: another tool's stamp
 * (`ts '[%Y-%m-%d %H:%M:%S]'`, a launcher, a CI log) in front of a vLLM line, not an SGLang line.
 */
function vllmFollows(s: string, at: number, state: ParseState): boolean {
  if (state.forced === 'sglang') return false;
  // A launcher's script may indent what it relays: `[2026-01-26 16:56:13]      INFO 01-26 …`.
  while (at < s.length && (s.charCodeAt(at) === 32 || s.charCodeAt(at) === 9) && at < 80) at++;
  const c = s.charCodeAt(at);
  if (c === 40 /* ( */) return VLLM_PREFIX.test(s.slice(at, at + 120));
  return (c === 73 || c === 68 || c === 87 || c === 69 || c === 67) && VLLM_HEADER.test(s.slice(at, at + 200));
}

/**
 * An untagged bracketed stamp in a log already known to be vLLM's: a launcher's or `ts`'s stamp in
 * front of its own words (`[2026-01-26 16:57:25]   ⏳ Still loading...`), not an SGLang line, unless
 * what follows is one of SGLang's hops.
 */
function launcherStamp(s: string, at: number, ms: boolean, state: ParseState): boolean {
  if (ms || state.detected !== 'vllm' || state.forced !== null) return false;
  return matchHop('sglang', s.slice(at), null, 'sglang', nextRecordAt) === null;
}

// `file.py:N - ` right after a bracketed date: a layout that copied SGLang's `[%(asctime)s]` and adds
// %(filename)s:%(lineno)d (slime's configure_logger, `[date] train.py:123 - msg`). SGLang's own header
// prints no file; the custom-layout reader decides whose line it is.
const FILE_AFTER_DATE = /^[\w.-]+\.py:\d+ - /;

function layoutFollows(s: string, at: number): boolean {
  const c = s.charCodeAt(at);
  return ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) && FILE_AFTER_DATE.test(s.slice(at, at + 120));
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

// SGLang's request logger with --log-requests-format json: one event object per line.
const SGLANG_JSON_EVENTS: Record<string, string> = { 'request.received': 'S2', 'request.received.openai': 'S1', 'request.finished': 'S6' };

function parseSglangJsonEvent(s: string, rec: LogRecord): boolean {
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
      rec.time = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]);
      rec.timeResolution = fractionResolution(m[7]);
    }
  }
  // The same hops as the text form's lines; the event names them, not a wording.
  rec.hop = SGLANG_JSON_EVENTS[ev.event];
  rec.process = 'TokenizerManager';
  const rid = typeof ev.rid === 'string' ? ev.rid : Array.isArray(ev.rid) && typeof ev.rid[0] === 'string' ? ev.rid[0] : null;
  if (rid !== null) rec.rid = normaliseRid('sglang', rid, 'sglang');
  rec.message = s;
  return true;
}

/** The first position after 0 where an engine's header starts (rec filled), or -1. */
function findHeader(s: string, rec: LogRecord, state: ParseState): number {
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
 * Where SGLang's header starts in a line that lost its `[` (a code fence glued on, then
 * `2025-02-19 11:45:37 TP0] Prefill batch. …`), rec filled; -1 when none. Only a header that is
 * surely SGLang's counts: with a rank tag, or printing a hop.
 */
function lostBracketAt(s: string, rec: LogRecord, state: ParseState): number {
  if (state.forced === 'vllm') return -1;
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

// SGLang's rank tags and `] ` with the date before them gone: a log platform took `[date` for its
// own stamp (`2026-09-27T00:15:24.123Z 5ylyr21v-rhkt6 INFO TP0] Prefill batch, …`).
const RANKS_ONLY = /(?:^|\s)((?:[A-Z][A-Z_]*\d+ )*[A-Z][A-Z_]*\d+)\] /;

/** Where such a header starts (rec filled), or -1; only when its message is one of SGLang's hops. */
function ranksOnlyAt(s: string, rec: LogRecord, state: ParseState): number {
  if (state.forced === 'vllm') return -1;
  const window = s.length > SEARCH_WINDOW ? s.slice(0, SEARCH_WINDOW) : s;
  if (window.indexOf('] ') < 0) return -1;
  const m = RANKS_ONLY.exec(window);
  if (!m) return -1;
  const at = m.index + m[0].length - m[1].length - 2;
  const message = s.slice(m.index + m[0].length);
  if (matchHop('sglang', message, null, 'sglang', nextRecordAt) === null) return -1;
  const tag = m[1];
  rec.engine = 'sglang'; rec.format = 'sglang';
  rec.process = tag; rec.ranks = tagRanks(tag); rec.role = 'scheduler';
  rec.message = message;
  if (state.detected === null) state.detected = 'sglang';
  return at;
}

// SGLang's request logger, in releases whose log_utils gave its handler the formatter `%(message)s`
// (0.5.x, sgl-project/sglang#25887), prints its three messages with no stamp at all:
// `Finish: obj=GenerateReqInput(rid='…', …), out={…}` alone, or behind an aggregator's columns.
const BARE_REQUEST = /(?:^|[\s|>`*])(?:Receive(?: OpenAI)?|Finish): obj=(?:\w*ReqInput\(|\{['}])/;

/**
 * Where SGLang's request-logger message starts in a line with no header (at the line's start or
 * after a wrapper's columns), or -1. Only its own wording with its dataclass or dict counts.
 */
function bareRequestAt(s: string, state: ParseState): number {
  if (state.forced === 'vllm') return -1;
  const window = s.length > SEARCH_WINDOW ? s.slice(0, SEARCH_WINDOW) : s;
  if (window.indexOf(': obj=') < 0) return -1;
  const m = BARE_REQUEST.exec(window);
  if (!m) return -1;
  const at = m.index === 0 && /[A-Z]/.test(window[0]) ? 0 : m.index + 1;
  const hm = matchHop('sglang', s.slice(at), null, 'sglang-request', nextRecordAt);
  return hm !== null && hm.hop.level.includes('request logger') ? at : -1;
}

/**
 * The record quoted from `at` in `s` (a JSON string or CSV field), unescaped up to its closing
 * quote and its first line break, with `rec` filled from it again; null when it is no record.
 */
function unquoteRecord(s: string, at: number, rec: LogRecord, state: ParseState): { text: string; kind: string } | null {
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
function surelyEngines(r: LogRecord, state: ParseState): boolean {
  if (r.format === 'vllm-output') return state.detected === 'vllm' || state.forced === 'vllm';
  // uvicorn's access line alone is anyone's; behind vLLM's process prefix, in a vLLM log, it is vLLM's.
  if (r.format === 'uvicorn') return r.process !== null && (state.detected === 'vllm' || state.forced === 'vllm');
  if (r.format === 'sglang' && r.process === null && r.timeResolution === 's') {
    return state.detected === 'sglang' || state.forced === 'sglang' || matchHop('sglang', r.message, null, 'sglang', nextRecordAt) !== null;
  }
  return true;
}

/**
 * The engine a custom-layout line belongs to: the one its logger or path names; else the one
 * a line of the same layout was shown to be; else the one whose hop table knows the message.
 * Another library's line in another layout (httpx, a user's service) stays no engine's line.
 */
function layoutEngine(h: LayoutHeader, message: string, state: ParseState): Engine | null {
  // A Rust line is its target crate's: SGLang's router, or another program's (Dynamo, hyper) in the same layout.
  if (h.rust) return h.engine !== null && (state.forced === null || h.engine === state.forced) ? h.engine : null;
  let engine = h.engine ?? state.layouts.get(h.signature) ?? null;
  if (engine === null) {
    const v = state.forced !== 'sglang' && matchHop('vllm', message, h.file, 'vllm-custom', nextRecordAt) !== null;
    const g = state.forced !== 'vllm' && matchHop('sglang', message, null, 'sglang-custom', nextRecordAt) !== null;
    engine = v === g ? null : v ? 'vllm' : 'sglang';
  }
  if (engine === null || (state.forced !== null && engine !== state.forced)) return null;
  if (!state.layouts.has(h.signature) && state.layouts.size < 64) state.layouts.set(h.signature, engine);
  return engine;
}

/** Characters and lines looked ahead when a layout is first seen partway (as primeState does at the start). */
const AHEAD_CHARS = 256 * 1024;
const AHEAD_LINES = 2000;

/**
 * A custom layout first seen partway through a log (a logging config that takes over after
 * start-up, a second process with a layout of its own): learn from the lines that follow whether
 * it is an engine's, as primeState does for the first lines. Once per layout; true when learnt.
 */
function learnLayoutAhead(state: ParseState, signature: string): boolean {
  if (state.ahead === null) return false;
  // Once per layout; again only when the last look was cut short by the end of what the reader held.
  const last = state.probedLayouts.get(signature);
  if (last === -1 || last === state.aheadEpoch || (last === undefined && state.probedLayouts.size >= 64)) return false;
  const sample = state.ahead(AHEAD_CHARS);
  state.probedLayouts.set(signature, sample.length >= AHEAD_CHARS ? -1 : state.aheadEpoch);
  if (sample.length === 0) return false;
  const probe = createParseState({ engine: state.forced ?? 'auto' });
  probe.detected = state.detected;
  const found = (): boolean => probe.layouts.has(signature);
  // A full window of lines without the layout proven: no later look will do better.
  if (parseSample(sample, AHEAD_LINES, probe, found) === AHEAD_LINES && !found()) state.probedLayouts.set(signature, -1);
  for (const [layout, engine] of probe.layouts) if (!state.layouts.has(layout) && state.layouts.size < 64) state.layouts.set(layout, engine);
  return state.layouts.has(signature);
}

/** Fill `rec` from a custom logging layout found at `at` in `s`; false when it is no engine's line. */
function parseLayout(s: string, at: number, rec: LogRecord, state: ParseState): boolean {
  const h = readLayoutHeader(s, at);
  if (!h) return false;
  const message = s.slice(h.msgStart);
  if (h.rust && h.logger === RELAY_TARGET) return parseRelayed(h, message, rec, state);
  let engine = layoutEngine(h, message, state);
  if (!engine && learnLayoutAhead(state, h.signature)) engine = layoutEngine(h, message, state);
  if (!engine) { state.unknownLayouts++; return false; }
  applyLayout(rec, h, engine, message, state);
  return true;
}

function applyLayout(rec: LogRecord, h: LayoutHeader, engine: Engine, message: string, state: ParseState): void {
  rec.engine = engine;
  rec.format = `${engine}-custom`;
  rec.time = h.time; rec.timeResolution = h.timeResolution;
  if (h.timeIsUtc) rec.timeIsUtc = true;
  rec.level = h.level ?? rec.level;
  rec.pid = h.pid ?? rec.pid;
  rec.fileinfo = h.file; rec.lineno = h.lineno;
  if (h.logger) rec.logger = h.logger;
  if (h.func) rec.func = h.func;
  if (h.ranks) { rec.process = h.ranks; rec.ranks = tagRanks(h.ranks); if (engine === 'sglang') rec.role = 'scheduler'; }
  if (h.rust) { rec.format = `${engine}-router`; rec.role = 'router'; if (h.span) rec.span = h.span; }
  rec.message = message;
  if (h.engine && state.detected === null) state.detected = h.engine;
}

/**
 * Parse one physical line (without its `\n`; a trailing `\r` is allowed: a CRLF line ending,
 * or vLLM's multi-line marker in an LF file). Never throws; unknown lines come back as engine "other".
 */
export function parseLine(text: string, lineNo: number, offset: number, state: ParseState): LogRecord {
  let s = text;
  let marker = false;
  const n = s.length;
  if (n > 0 && s.charCodeAt(n - 1) === 13) {
    // CR CR LF is the marker after a tty turned its LF into CR LF (`docker logs` of a `-t` container).
    const double = n > 1 && s.charCodeAt(n - 2) === 13;
    s = s.slice(0, double ? n - 2 : n - 1);
    marker = double || state.sawBareLF;
  } else {
    state.sawBareLF = true;
  }
  let bom = 0;
  if (s.charCodeAt(0) === 0xfeff) { s = s.slice(1); bom = 1; } // a UTF-8 byte order mark
  // The text before each colour strip, to tell a glued record's column on the line as read.
  let coloured: string | null = null;
  let colouredAgain: string | null = null;
  if (s.indexOf('\x1b') !== -1) { coloured = s; s = stripColour(s); }
  let rec = newRecord(lineNo, offset, s);
  let matched = s.length > 0 && parseEngine(s, rec, state);
  // Colour in its text forms (remnants, caret) is looked for only when the header did not parse:
  // a header that parsed had none, and most lines are such lines.
  if ((!matched || rec.format === 'vllm-output') && hasColour(s)) {
    colouredAgain = s;
    s = stripColour(s);
    rec = newRecord(lineNo, offset, s);
    matched = s.length > 0 && parseEngine(s, rec, state);
  }
  // A paste from a web page (wide and zero-width spaces, markdown escapes, HTML entities), looked
  // for, as colour is, only when the header did not parse: the line as the program wrote it.
  // A line already read as a process's plain output keeps its text unless the header then parses.
  let unpasted = false;
  const asRead = s;
  if ((!matched || rec.format === 'vllm-output') && hasPasteArtefacts(s)) {
    const t = unpaste(s);
    if (t !== s) {
      const probe = newRecord(lineNo, offset, t);
      const ok = t.length > 0 && parseEngine(t, probe, state);
      if (!matched || (ok && probe.format !== 'vllm-output')) { unpasted = true; s = t; rec = probe; matched = ok; }
    }
  }
  let wrappers: string[] | null;
  const stamp: { v: OuterStamp | null } = { v: null };
  let body = s;
  let quotedPrefix: string | null = null;
  if (!matched && s.length > 0) {
    wrappers = [];
    // Known wrappers one by one, so their own timestamps are kept.
    for (let i = 0; i < 6 && !matched; i++) {
      const rest = stripWrapper(body, state, wrappers, stamp);
      if (rest === null) break;
      body = rest;
      matched = body.length > 0 && parseEngine(body, rec, state);
    }
    if (!matched) {
      // kubectl/stern print `<pod> <container> ` in front: only believe it if an engine line follows.
      const m = W_STERN.exec(body);
      if (m && parseEngine(body.slice(m[0].length), rec, state)) { matched = true; wrappers.push('kubectl'); body = body.slice(m[0].length); }
    }
    if (!matched) {
      // Anything else in front (markdown, pasted words, a progress bar, a time column of any
      // shape): the engine's header wherever it stands.
      const at = findHeader(body, rec, state);
      if (at > 0) {
        matched = true;
        const rest = body.slice(at);
        // The header right after a quote: the line is a JSON string or CSV field of an export.
        const quoted = body.charCodeAt(at - 1) === 34 ? unquoteRecord(body, at, rec, state) : null;
        if (quoted !== null) {
          wrappers.push(quoted.kind);
          quotedPrefix = s.endsWith(rest) ? s.slice(0, s.length - rest.length) : '';
          body = quoted.text;
        } else {
          body = rest;
        }
      }
    }
    if (!matched) {
      // SGLang's header that lost its `[` (its date may have looked like a wrapper's time column).
      const base = wrappers.includes('json') ? body : s;
      const at = lostBracketAt(base, rec, state);
      if (at >= 0) {
        matched = true;
        body = base.slice(at);
        if (base === s) { wrappers.length = 0; stamp.v = null; }
      }
    }
    if (!matched) {
      // A custom logging layout: after the wrappers, or from the line's start (its own date may
      // have looked like a wrapper's), or after whatever stands in front of its date.
      if (body !== s && parseLayout(body, 0, rec, state)) matched = true;
      else if (BASIC_FORMAT.test(body) && parseLayout(body, 0, rec, state)) matched = true;
      else {
        // A JSON envelope is no part of the line: search its log field only.
        const base = wrappers.includes('json') ? body : s;
        const window = base.length > SEARCH_WINDOW ? base.slice(0, SEARCH_WINDOW) : base;
        DATE_ANCHOR.lastIndex = 0;
        for (let m = DATE_ANCHOR.exec(window); m && !matched; m = DATE_ANCHOR.exec(window)) {
          // A bracketed date (`[%(asctime)s %(levelname)s] %(message)s`) is read from its bracket.
          const at = m.index > 0 && base.charCodeAt(m.index - 1) === 91 /* [ */ ? m.index - 1 : m.index;
          if (parseLayout(base, at, rec, state)) {
            matched = true;
            body = base.slice(at);
            if (base === s) { wrappers.length = 0; stamp.v = null; }
          }
        }
      }
    }
    if (!matched) {
      // SGLang's header with its date taken off by a log platform: `… INFO TP0] Prefill batch, …`.
      const at = ranksOnlyAt(body, rec, state);
      if (at >= 0) { matched = true; body = body.slice(at); }
    }
    if (!matched) {
      // SGLang's request logger printing its message alone (a release whose formatter was `%(message)s`).
      const at = bareRequestAt(body, state);
      if (at >= 0) {
        matched = true;
        rec.engine = 'sglang'; rec.format = 'sglang-request'; rec.message = body.slice(at);
        body = body.slice(at);
        if (state.detected === null) state.detected = 'sglang';
      }
    }
    if (!matched) {
      // Unrecognised: keep the whole line (wrapper-stripped) as "other"; one that was no paste after all, as read.
      const r = newRecord(lineNo, offset, unpasted ? asRead : wrappers.length ? body : s);
      if (stamp.v) { r.time = stamp.v.time; r.timeResolution = stamp.v.res; r.timeIsUtc = stamp.v.utc; }
      if (wrappers.length) r.wrappers = wrappers;
      state.prevCR = false;
      return r;
    }
    if (wrappers.length) rec.wrappers = wrappers;
    const prefix = quotedPrefix ?? (s.endsWith(body) ? s.slice(0, s.length - body.length) : '');
    if (prefix) {
      rec.prefix = prefix;
      if (rec.process === null && rec.engine === 'vllm') {
        // `_AsyncLLMEngine pid=1974) INFO …`: the prefix lost its `(`.
        const lost = LOST_PREFIX.exec(prefix);
        if (lost) {
          const info = processInfo(state, lost[1]);
          rec.process = info.name; rec.pid = Number(lost[2]); rec.role = info.role; rec.ranks = info.ranks;
        }
      }
    }
  }
  if (!matched) { state.prevCR = false; return rec; }

  if (rec.engine === 'sglang' && rec.format === 'sglang' && isLayoutAfterSglang(rec.message)) {
    // `[date] [INFO] sglang.srt.managers.scheduler: …`: a logging config that kept SGLang's bracketed date.
    const h = readLayoutHeader(body, 0);
    if (h && h.msgStart > body.length - rec.message.length && (h.logger !== null || h.file !== null)) {
      applyLayout(rec, h, 'sglang', body.slice(h.msgStart), state);
    }
  }

  // The outer stamp wins when it is finer (docker's nanoseconds beat vLLM's whole seconds).
  if (stamp.v && (rec.timeResolution === null || RES_RANK[stamp.v.res] > RES_RANK[rec.timeResolution])) {
    rec.time = stamp.v.time; rec.timeResolution = stamp.v.res; rec.timeIsUtc = stamp.v.utc;
  }
  if (rec.engine !== 'other' && state.detected === null && rec.format !== 'uvicorn' && rec.format !== 'vllm-output') state.detected = rec.engine;

  // The header as printed (for multi-line records), before the message is tidied.
  const headerLength = body.length - rec.message.length;
  let msg = rec.message;
  // Only the spaces after the header were pasted wide (or a zero-width character came with them).
  const lead = msg.length > 0 && msg.charCodeAt(0) >= 0xa0 ? pastedLead(msg) : 0;
  if (lead > 0) { msg = unpaste(msg.slice(lead)); unpasted = true; }
  if (rec.prefix !== undefined) msg = dropMarkdownClosers(msg, rec.prefix);
  // Terminal padding after a pasted line is no part of the message.
  const last = msg.charCodeAt(msg.length - 1);
  if (last === 32 || last === 9) msg = msg.trimEnd();
  const end = msg.charCodeAt(msg.length - 1);
  if (msg.length > 28 && ((end === 93 && msg.endsWith(' across cluster]')) || (end === 41 && msg.endsWith(' for more options.)')))) {
    const r = RAY_REPEATED.exec(msg);
    if (r) { rec.repeated = Number(r[1]); msg = msg.slice(0, r.index); }
  }
  // Several records on one line (a paste lost its newlines): this record ends where the next header starts.
  let gluedRest: string | null = null;
  let gluedColumn = -1;
  if (msg.length > 24 && rec.engine !== 'other') {
    const at = gluedAt(msg, rec, state);
    if (at > 0) {
      gluedRest = msg.slice(at);
      // Where it stands on the line as read: the message's place in the parsed text (markdown
      // closers come off its ends only), then back through the colour strips and the BOM.
      const whole = rec.message;
      if (s.endsWith(whole) && !unpasted) {
        let column = s.length - whole.length + whole.indexOf(msg) + at;
        if (colouredAgain !== null) column = columnBeforeStrip(colouredAgain, column);
        if (coloured !== null) column = columnBeforeStrip(coloured, column);
        gluedColumn = column + bom;
      }
      msg = msg.slice(0, at).trimEnd();
    }
  }
  rec.message = msg;

  // Multi-line vLLM record: continuation lines repeat the header after the marker.
  if (state.prevCR && rec.engine === 'vllm' && rec.fileinfo !== null && headerLength === state.prevHeader.length && body.startsWith(state.prevHeader)) {
    rec.continuation = true;
    rec.rid = state.prevRid;
    state.prevCR = marker;
    return rec;
  }

  // The line may go on on the next one (a paste wrapped it): it stops inside a hop's opening
  // words, fits its hop only cut short, or ends with the id itself (no closing `.`, `'`, `:`).
  let mayWrap = false;
  if (rec.engine !== 'other' && rec.hop === null) {
    const hm = matchHop(rec.engine, msg, rec.fileinfo, rec.format, nextRecordAt);
    // uvicorn's access line cut inside its quoted request line: `… - "POST /v1/chat/completions HTTP/1.`
    if (hm === null) mayWrap = rec.format === 'uvicorn' ? msg.indexOf('"') >= 0 : stopsInOpening(rec.engine, msg, rec.fileinfo);
    else mayWrap = hm.cut === true;
    if (hm) {
      const hop = hm.hop;
      if (rec.engine === 'sglang' && hop.role === 'tokenizer' && hop.level.includes('request logger') && rec.format === 'sglang') rec.format = 'sglang-request';
      const raw = tagHop(rec, hm);
      if (raw && msg.endsWith(raw)) mayWrap = true;
    }
  }
  if (mayWrap && state.ahead !== null && gluedRest === null) joinWrapped(rec, msg, state);
  if (marker) {
    state.prevHeader = body.slice(0, headerLength);
    state.prevRid = rec.rid;
  }
  state.prevCR = marker;
  if (gluedRest !== null) parseGlued(rec, gluedRest, gluedColumn, state, marker);
  return rec;
}

/**
 * Tags `rec` with the hop `hm` matched: the hop, its role and (SGLang) its process where the line
 * names none, and its request id, or every id of a list (`Aborted request(s) a,b.`, SGLang's batch
 * `rid=['a', 'b']`). Returns the single id as printed, if the hop names one.
 */
function tagHop(rec: LogRecord, hm: HopMatch): string | undefined {
  const hop = hm.hop;
  const engine = rec.engine as Engine;
  rec.hop = hop.id;
  if (rec.role === null) rec.role = hop.role;
  if (engine === 'sglang' && rec.process === null) rec.process = hop.role === 'tokenizer' ? 'TokenizerManager' : 'Scheduler';
  const kind = hop.ridKind;
  if (!kind) return undefined;
  const g = hm.groups;
  if (g.rids) {
    const ids = [...new Set(splitIdList(g.rids).map((id) => normaliseRid(engine, id, kind)))];
    rec.rid = ids[0] ?? null;
    if (ids.length > 1) rec.rids = ids;
    return undefined;
  }
  const raw = g.rid ?? g.internal_rid;
  if (raw) rec.rid = normaliseRid(engine, raw, kind);
  return raw;
}

// The next line of a paste that wrapped a long line: no header of its own.
const RECORD_START = new RegExp(`^(?:\\(|\\[|\\d{4}-\\d\\d-|(?:${LEVELS})[ :])`);
const WRAP_LINES = 3;

/**
 * A hop line a terminal or an editor wrapped onto the next lines (`… engine.py:297] Added request` /
 * `chat-0277….`): the hop and its id from the message with its continuation, cut at any character
 * or between words. Only when the joined text fits one of the hop's own patterns whole.
 */
function joinWrapped(rec: LogRecord, msg: string, state: ParseState): void {
  const ahead = state.ahead!(1024);
  let joined = msg;
  let from = 0;
  for (let i = 0; i < WRAP_LINES && from < ahead.length; i++) {
    let nl = ahead.indexOf('\n', from);
    if (nl < 0) nl = ahead.length;
    let next = ahead.slice(from, nl);
    from = nl + 1;
    if (next.charCodeAt(next.length - 1) === 13) next = next.slice(0, -1);
    next = next.trimEnd();
    if (next.length === 0 || RECORD_START.test(next)) return;
    for (const text of [joined + next, `${joined} ${next}`]) {
      const hm = matchHop(rec.engine as Engine, text, rec.fileinfo, rec.format);
      if (hm === null || (rec.hop !== null && hm.hop.id !== rec.hop) || !fitsWhole(hm.hop, text)) continue;
      tagHop(rec, hm);
      return;
    }
    joined = `${joined}${next}`;
  }
}

/**
 * Where another record's header starts inside `msg` (a record pasted onto this one's line), to be
 * parsed as a record of its own; or -1. A cheap look first: the header of the next record of the
 * same log shows the same year (SGLang's `[YYYY-`) or day (vLLM's `MM-DD `); only then is the
 * header looked for and parsed, with this log's state (what counts further into a line: surelyEngines).
 */
function gluedAt(msg: string, rec: LogRecord, state: ParseState): number {
  let key: string;
  const stamp = state.stampKey;
  if (rec.format === 'sglang' || rec.format === 'sglang-request') {
    // `[YYYY-`: made again only when the year changes (the stamp starts with it).
    if (state.glueYear === '' || !stamp.startsWith(state.glueYear)) { state.glueYear = stamp.slice(0, 5); state.glueKeySglang = `[${state.glueYear}`; }
    key = state.glueKeySglang;
  } else if (rec.format === 'vllm' || rec.format === 'vllm-legacy') {
    // `MM-DD ` (no space in front: a search for a key that starts with a space stops at every word).
    if (state.glueDay === '' || !stamp.startsWith(state.glueDay)) state.glueDay = stamp.slice(0, 6);
    key = state.glueDay;
  } else {
    return -1;
  }
  if (key.length !== 6 || msg.indexOf(key) < 0) return -1;
  return recordHeaderAt(msg.length > 64 * 1024 ? msg.slice(0, 64 * 1024) : msg, HEADER_ANCHOR, state, (probe) => probe.message.length > 0 && surelyEngines(probe, state));
}

/**
 * The first place after 0 in `s` where a record's header starts, as the engine grammars read it
 * (an anchor `anchor` finds: HEADER_ANCHOR's source), followed by a space, and that
 * `accept` takes; or -1. The one reading of "another record starts here" on a pasted line: gluedAt
 * parses what it finds as a record, nextRecordAt ends a message's own words there.
 */
function recordHeaderAt(s: string, anchor: RegExp, state: ParseState, accept: (probe: LogRecord, at: number) => boolean): number {
  anchor.lastIndex = 1;
  for (let m = anchor.exec(s); m; m = anchor.exec(s)) {
    const probe = newRecord(0, 0, '');
    const rest = s.slice(m.index);
    // A header as the engine prints it is followed by a space: `[date], resuming` is text.
    if (parseEngine(rest, probe, state) && probe.format !== 'uvicorn' && probe.format !== 'vllm-output'
      && rest.charCodeAt(rest.length - probe.message.length - 1) === 32 && accept(probe, m.index)) return m.index;
    anchor.lastIndex = m.index + 1;
  }
  return -1;
}

// nextRecordAt's own anchor (it may run while gluedAt's loop holds HEADER_ANCHOR's place: surelyEngines
// asks the hop table) and its state: no log's.
const WORDS_ANCHOR = new RegExp(HEADER_ANCHOR.source, 'g');
let wordsState: ParseState | null = null;
// What ends a record's own words though no record of its own follows (gluedAt glues none): uvicorn's
// access line, behind vLLM's process prefix or not, and its other lines (`ERROR: Exception in ASGI
// application` after the hop a crash ended); the last header of a paste cut short where the text
// ends (`… Aborted request cmpl-2. INFO 06-19 11:`, `… ERROR 07-07 18:10:2...`).
const WORDS_END = new RegExp(
  ` (?:\\([A-Za-z_][^()]{0,80}? pid=\\d+(?:, ip=[\\d.]+)?\\) )?`
  + `(?:INFO: *\\S+:\\d+ ?- ?"|(?:${LEVELS}): +(?=[A-Z])|(?:${LEVELS}) \\d\\d?(?:[-: .]\\d*)*(?:\\.\\.\\.|…)?$)`,
);
// uvicorn's level word, for the cheap look before WORDS_END.
const UVICORN_WORD = new RegExp(`(?:${LEVELS}):`);

/**
 * Where a message's own words end because another record follows on its line (a paste that lost
 * its line breaks): the space before the next record's header (any engine's, read as gluedAt reads
 * it, after a space) or before what ends the words though it is no record (WORDS_END); -1 when
 * none. Only a header counts, so a message that mentions a level word or a date keeps its text.
 * For the hop matcher and the resolver, which look only when the whole message fit nothing.
 */
export function nextRecordAt(message: string): number {
  // Most messages are ruled out cheaply: a whole header holds `] ` or `INFO:`, a cut one ends in a digit or `...`.
  const last = message.charCodeAt(message.length - 1);
  if (message.indexOf('] ', 1) < 0 && !UVICORN_WORD.test(message) && !(last >= 48 && last <= 58) && last !== 46 && last !== 0x2026) return -1;
  const tail = WORDS_END.exec(message);
  let at = tail ? tail.index : -1;
  if (wordsState === null || wordsState.processCache.size > 256) wordsState = createParseState();
  // After a space; SGLang's 2024 `[HH:MM:SS]` has no date to tell it from a time a message names.
  const header = recordHeaderAt(message, WORDS_ANCHOR, wordsState, (probe, p) => message.charCodeAt(p - 1) === 32 && probe.format !== 'sglang-2024');
  if (header > 0 && (at < 0 || header - 1 < at)) at = header - 1;
  return at > 0 ? at : -1;
}

/**
 * Parses the records glued onto `rec`'s line and keeps them on it, in order, each with its column
 * on the line (`column`: where `rest` starts on it; -1 when not known).
 */
function parseGlued(rec: LogRecord, rest: string, column: number, state: ParseState, marker: boolean): void {
  const sawBareLF = state.sawBareLF;
  const g = parseLine(rest, rec.line, rec.offset, state);
  state.sawBareLF = sawBareLF;
  state.prevCR = marker;
  const more = g.glued;
  delete g.glued;
  rec.glued = more ? [g, ...more] : [g];
  rec.glued.forEach((x, i) => {
    x.part = i + 2;
    // The records after `g` know their column on `rest`.
    const own = x === g ? 0 : x.column;
    if (column >= 0 && own !== undefined) x.column = column + own;
    else delete x.column;
  });
}

/** An SGLang message that opens with more header fields: a level in brackets or a level word, a logger name. */
function isLayoutAfterSglang(message: string): boolean {
  const c = message.charCodeAt(0);
  return (c === 91 /* [ */ && /^\[(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\]/.test(message))
    || ((c === 73 || c === 68 || c === 87 || c === 69 || c === 67) && /^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)[: ]+(?:sglang\.|\S+\.py:\d)/.test(message));
}

const RES_RANK: Record<TimeResolution, number> = { s: 0, ms: 1, us: 2, ns: 3 };

/** Parses up to `maxLines` lines of `sample` into `probe`, stopping after the line that makes `done` true; the lines parsed. */
function parseSample(sample: string, maxLines: number, probe: ParseState, done: () => boolean): number {
  let pos = 0;
  let n = 0;
  while (n < maxLines && pos < sample.length) {
    let nl = sample.indexOf('\n', pos);
    if (nl < 0) nl = sample.length;
    parseLine(sample.slice(pos, nl), ++n, pos, probe);
    pos = nl + 1;
    if (done()) break;
  }
  return n;
}

/**
 * Learn from the first lines of a log what a later line may be the first to show: the engine,
 * and which custom logging layouts are the engine's (a start-up line in a layout that only a
 * hop line further down proves). The lines themselves are parsed again afterwards.
 */
export function primeState(state: ParseState, sample: string, maxLines = 2000): void {
  const probe = createParseState({ engine: state.forced ?? 'auto' });
  // Nothing left to learn: the engine is known and no line used a layout not yet shown to be its.
  parseSample(sample, maxLines, probe, () => (probe.detected !== null || probe.forced !== null) && probe.unknownLayouts === 0);
  if (state.detected === null) state.detected = probe.detected;
  for (const [layout, engine] of probe.layouts) if (!state.layouts.has(layout)) state.layouts.set(layout, engine);
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
