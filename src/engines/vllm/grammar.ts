// vLLM's header grammar: its process prefix (decorate_logs, nested, a Ray actor's), its header in
// every version (with the year, fraction and full path a logging config adds), behind a
// VLLM_LOGGING_PREFIX, stripped by a relay, and after another tool's stamp; what its process names
// stand for. The shapes are ./lines.ts; this reads them into a record, through the hooks the
// generic parser calls (EngineGrammar, ../grammar.ts); its byte fast path is ./fastPath.ts.
import { stampUtc } from '../civilTime';
import type { LogRecord } from '../record';
import { tagRanks } from '../record';
import {
  anotherEngineForced, anotherHeaderBehindPrefix, fractionMs, fractionResolution, inferYear, type EngineGrammar, type GrammarState, type ProcessInfo,
} from '../grammar';
import { matchHop } from '../index';
import { LEVELS } from '../lineShapes';
import {
  LEVEL_DATE, LOGGING_PREFIX_WINDOW, LOST_PREFIX, STRIPPED_VLLM, UVICORN, VLLM_HEADER, VLLM_HEADER_LONG, VLLM_INDEXED_PROCESS, VLLM_PREFIX,
  VLLM_PROCESS, VLLM_PROCESS_ROLES,
} from './lines';
import { vllmFastPath } from './fastPath';

/** What a `(Name pid=N)` prefix's process name stands for: its role, ranks and index (memoised in the state). */
export function processInfo(state: GrammarState, name: string): ProcessInfo {
  let info = state.processCache.get(name);
  if (info) return info;
  let role: string | null = null;
  for (const [shape, r] of VLLM_PROCESS_ROLES) if (shape.test(name)) { role = r; break; }
  let ranks = tagRanks(name);
  const rankEq = /rank=(\d+)/.exec(name);
  if (rankEq) (ranks ??= {}).rank = Number(rankEq[1]);
  // EngineCore_N and ApiServer_N (no DP/TP letters) carry an index.
  const idx = VLLM_INDEXED_PROCESS.exec(name);
  if (idx) (ranks ??= {}).index = Number(idx[1]);
  // Copy the name: a regex capture is a view that would keep its whole line alive.
  const own = Buffer.from(name, 'utf8').toString('utf8');
  info = { name: own, role, ranks };
  state.processCache.set(own, info);
  return info;
}

/** A line that starts with the process prefix: vLLM's, or a Ray actor's in front of another engine's header or another program's text. */
function parsePrefixed(s: string, rec: LogRecord, state: GrammarState): boolean {
  let rest = s;
  let name: string | null = null;
  let pid: number | null = null;
  // Nested prefixes: `(EngineCore_DP0 pid=1) (RayWorkerWrapper pid=2) …`; the innermost wins.
  for (let m = VLLM_PREFIX.exec(rest); m; m = VLLM_PREFIX.exec(rest)) {
    name = m[1]; pid = Number(m[2]);
    rest = rest.slice(m[0].length);
  }
  if (name === null) return false;
  // A Ray actor's prefix (`(SGLangEngine pid=N)`, `(WorkerDict pid=N)`) in front of another engine's header
  // (SGLang's): the line is that engine's; the header search finds it behind the prefix, which is kept for display.
  if (state.forced !== 'vllm' && anotherHeaderBehindPrefix('vllm', rest, rec, state)) return false;
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

/**
 * `[file.py:N] message`: vLLM's line behind a relay that stripped its level and stamp; rec filled.
 * Known to be relayed (`relayed`), or printing one of vLLM's hops, or in a log forced to vLLM.
 */
export function parseStrippedVllm(s: string, rec: LogRecord, state: GrammarState, relayed: boolean): boolean {
  const m = STRIPPED_VLLM.exec(s);
  if (!m) return false;
  const message = s.slice(m[0].length);
  if (!relayed && state.forced !== 'vllm' && matchHop('vllm', message, m[1], 'vllm-relayed', state.recordEnd) === null) return false;
  rec.engine = 'vllm'; rec.format = 'vllm-relayed';
  rec.fileinfo = m[1]; rec.lineno = Number(m[2]);
  rec.message = message;
  return true;
}


/** The header after a VLLM_LOGGING_PREFIX (a few characters after the process prefix); rec filled. */
function parseAfterLoggingPrefix(s: string, rec: LogRecord, state: GrammarState): boolean {
  const m = LEVEL_DATE.exec(s.length > LOGGING_PREFIX_WINDOW + 40 ? s.slice(0, LOGGING_PREFIX_WINDOW + 40) : s);
  if (!m || m.index === 0 || m.index > LOGGING_PREFIX_WINDOW) return false;
  const level = rec.level;
  if (parseVllmHeader(s.slice(m.index), rec, state) && rec.format !== 'uvicorn') return true;
  rec.level = level;
  return false;
}

export function parseVllmHeader(s: string, rec: LogRecord, state: GrammarState): boolean {
  let m = VLLM_HEADER.exec(s);
  if (m) {
    rec.engine = 'vllm';
    rec.format = m[7] ? 'vllm' : 'vllm-legacy';
    rec.level = m[1];
    const key = s.substr(m[1].length + 1, 14);
    if (key !== state.stampKey) {
      const month = Number(m[2]);
      const year = inferYear(state, month, Number(m[3]));
      state.stampKey = key;
      state.stampValue = stampUtc(year, month, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
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
    const year = m[2] ? Number(m[2]) : inferYear(state, month, Number(m[4]));
    rec.time = stampUtc(year, month, Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) + fractionMs(m[8]);
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


/**
 * A bracketed time with no rank tag, then vLLM's process prefix or header: another tool's stamp
 * (`ts '[%Y-%m-%d %H:%M:%S]'`, a launcher, a CI log) in front of a vLLM line, not an SGLang line.
 */
export function vllmFollows(s: string, at: number, state: GrammarState): boolean {
  if (anotherEngineForced(state, 'vllm')) return false;
  // A launcher's script may indent what it relays: `[2026-01-26 16:56:13]      INFO 01-26 …`.
  while (at < s.length && (s.charCodeAt(at) === 32 || s.charCodeAt(at) === 9) && at < 80) at++;
  const c = s.charCodeAt(at);
  if (c === 40 /* ( */) return VLLM_PREFIX.test(s.slice(at, at + 120));
  return (c === 73 || c === 68 || c === 87 || c === 69 || c === 67) && VLLM_HEADER.test(s.slice(at, at + 200));
}

/**
 * Further into a line, only a header that is surely vLLM's counts: a bare `(name pid=N)` with no
 * header after it, or uvicorn's access line behind the prefix, only in a log known to be vLLM's.
 */
function surely(r: LogRecord, state: GrammarState): boolean | undefined {
  if (r.format === 'vllm-output') return state.detected === 'vllm' || state.forced === 'vllm';
  // uvicorn's access line alone is anyone's; behind vLLM's process prefix, in a vLLM log, it is vLLM's.
  if (r.format === 'uvicorn') return r.process !== null && (state.detected === 'vllm' || state.forced === 'vllm');
  return undefined;
}

/** `_AsyncLLMEngine pid=1974) INFO …`: the prefix in front of the header lost its `(`. */
function fromPrefix(rec: LogRecord, prefix: string, state: GrammarState): void {
  if (rec.process !== null) return;
  const lost = LOST_PREFIX.exec(prefix);
  if (lost) {
    const info = processInfo(state, lost[1]);
    rec.process = info.name; rec.pid = Number(lost[2]); rec.role = info.role; rec.ranks = info.ranks;
  }
}

/** `MM-DD ` (no space in front: a search for a key that starts with a space stops at every word). */
function glueKey(rec: LogRecord, state: GrammarState): string | null {
  if (rec.format !== 'vllm' && rec.format !== 'vllm-legacy') return null;
  const stamp = state.stampKey;
  if (state.glueDay === '' || !stamp.startsWith(state.glueDay)) state.glueDay = stamp.slice(0, 6);
  return state.glueDay;
}

/** dynamo-run's relay: `[file.py:N]` taken for the layout's location field, or the stripped form in the message. */
function relayed(file: string | null, lineno: number | null, message: string, rec: LogRecord, state: GrammarState): boolean {
  if (anotherEngineForced(state, 'vllm')) return false;
  if (file !== null && lineno !== null && /\.py$/.test(file)) {
    rec.engine = 'vllm'; rec.format = 'vllm-relayed'; rec.fileinfo = file; rec.lineno = lineno; rec.message = message;
    return true;
  }
  return parseStrippedVllm(message, rec, state, true);
}

export const VLLM_GRAMMAR: EngineGrammar = {
  engine: 'vllm',
  // Further into a line: its process prefix, or a level and a date.
  anchor: String.raw`\((?=[^()]{0,80}? pid=\d)|(?:${LEVELS}) (?=(?:\d{4}-)?\d\d-\d\d[ T]\d\d:)`,
  starts: [
    { chars: '(', read: parsePrefixed },
    { chars: 'IDWEC', read: parseVllmHeader },
    // After SGLang's `[date]`: vLLM's `[file.py:N]` with its level and stamp stripped by a relay.
    { chars: '[', read: (s, rec, state) => parseStrippedVllm(s, rec, state, false), after: true },
  ],
  plainOutput: 'vllm-output',
  // After another engine's bare stamp (SGLang's `[date]`): a launcher's stamp in front of a vLLM line.
  followsStamp: vllmFollows,
  surely,
  fromPrefix,
  // Multi-line record: continuation lines repeat the header after the marker.
  repeatsHeader: true,
  glueKey,
  relayed,
  // The common line shape read from its bytes (./fastPath.ts), for annotate --json and the streamed logs.
  fastPath: (state, o) => vllmFastPath(state, o.tracker ?? null, o.out ?? null, o.counters, o.leaveToParser ?? null,
    o.leaveMentions ?? null, o.statements ?? null),
};
