// Lines written through a custom Python logging config (VLLM_LOGGING_CONFIG_PATH,
// SGLANG_LOGGING_CONFIG_PATH, a dictConfig of the user's own). Rather than one regex per
// layout, the header is read as a run of the fields Python's LogRecord can print, in any
// order and with any punctuation between them: %(asctime)s, %(levelname)s, %(process)d,
// %(name)s, %(filename)s / %(pathname)s with %(lineno)d, %(module)s:%(funcName)s:%(lineno)d,
// and SGLang's rank tags inside brackets. The message starts at the first word that is
// none of these. What the fields name (logger, file, line, function) is kept so the
// statement can be found and verified.
import { stampUtc } from './civilTime';
import type { Engine, TimeResolution } from './model';
import { ENGINE_PROFILES, registryGeneration, type EngineProfile } from '../../engines/registry';
import type { ParseState } from './parseState';
import { fractionMs, fractionResolution, inferYear, zoned } from './outerPrefix';

export interface LayoutHeader {
  time: number | null;
  timeResolution: TimeResolution | null;
  /** True when the stamp carried a zone (Z or an offset): the time is real UTC. */
  timeIsUtc: boolean;
  /**
   * A stamp without its year (`[%(asctime)s]` with vLLM's datefmt `%m-%d %H:%M:%S`): its fields as
   * printed. The year is the log's (inferYear), given when the line is taken for an engine's
   * (layoutTime), so another program's line never moves the log's year.
   */
  yearless: YearlessStamp | null;
  level: string | null;
  pid: number | null;
  /** %(name)s: the logger, e.g. `sglang.srt.managers.scheduler`. */
  logger: string | null;
  /** %(filename)s or %(pathname)s as printed. */
  file: string | null;
  lineno: number | null;
  /** %(funcName)s, when the layout prints it next to the line. */
  func: string | null;
  /** SGLang rank tags printed inside the header, e.g. `DP0 TP1`. */
  ranks: string | null;
  /** Index in the line where the message starts. */
  msgStart: number;
  /** The engine the logger name or path names, if any. */
  engine: Engine | null;
  /** The kinds of fields in print order (`T L P [F]`): lines of one layout share it. */
  signature: string;
  /** A Rust tracing line (a `crate::module` target after the level): its engine is its target's. */
  rust: boolean;
  /** The span context a tracing line printed before its target, without its closing `: `. */
  span: string | null;
}

export interface YearlessStamp { month: number; day: number; hour: number; minute: number; second: number; fraction: string | undefined }

const STAMP = /(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(Z|[+-]\d\d:?\d\d)?/y;
// The same without the year; not followed by a digit or `-` (no part of a longer number or date).
const YEARLESS_STAMP = /(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(?![\d-])/y;
const LEVEL = /(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\b:?/y;
const PID = /(?:pid[=:]\s?|PID[=:]\s?|[pP]:)?(\d{1,9})(?=[\s\]|)\-:,]|$)/y;
// %(thread)d with its name in front (`t:140589927618368`, `tid=…`, `thread=…`).
const THREAD = /(?:thread|tid|t)[=:](\d{1,20})(?=[\s\]|)\-:,]|$)/y;
// file.py:123, /a/b/file.py:123, file.py:123:func, file.py:func:123
// (Rust's tracing prints `src/server.rs:830` the same way: SGLang's router.)
const LOCATION = /([\w./\\-]*?[\w-]\.(?:py|rs))(?::([A-Za-z_<][\w<>]*))?:(\d{1,7})(?::([A-Za-z_<][\w<>]*))?(?![\w.])/y;
// loguru's and many configs' module:function:line (`scheduler:event_loop:1103`)
const MODULE_FUNC_LINE = /([A-Za-z_][\w.]*):([A-Za-z_<][\w<>]*):(\d{1,7})(?![\w.])/y;
// %(name)s:%(lineno)d (`sglang.srt.managers.scheduler:1103`): a dotted logger and the line.
const MODULE_LINE = /((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*):(\d{1,7})(?![\w.:])/y;
// %(name)s: a dotted module path (`sglang.srt.managers.scheduler`), or Python's own `root` / `__main__`.
const LOGGER = /((?:[A-Za-z_]\w*\.)+[A-Za-z_]\w*|root|__main__)(?=[\s:\]|)\-,]|$)/y;
/** What may follow a logger name that is surely a field: punctuation, not just a space before the message. */
const AFTER_FIELD = /\s*(?:[:\]|)\-,]|$)/y;
// Rust's tracing target (the module path, `sglang_router_rs::core::worker_manager`), or a crate root
// of SGLang's router, followed by `: `. Rust lines are never Python logging's, so their engine comes
// from the target alone (see rustEngine), never from a layout learnt from other lines.
// The crate roots are the engines' profiles' (`rustCrates`), made again when an engine is registered.
let rustTargets: { generation: number; target: RegExp; owner: Map<string, Engine> } | null = null;

function rustTargetRules(): { target: RegExp; owner: Map<string, Engine> } {
  if (rustTargets?.generation !== registryGeneration()) {
    const owner = new Map<string, Engine>();
    for (const p of ENGINE_PROFILES) for (const c of p.rustCrates ?? []) if (!owner.has(c)) owner.set(c, p.id);
    const roots = [...owner.keys()].map((c) => `|${c}`).join('');
    rustTargets = { generation: registryGeneration(), owner, target: new RegExp(String.raw`((?:[A-Za-z_]\w*::)+[A-Za-z_]\w*${roots})(?=:(?:\s|$))`, 'y') };
  }
  return rustTargets;
}
// tracing's span context between the level and the target, outermost first: `name{field=value …}:`
// per span (`http_request{method=POST uri=/generate}: sglang_router_rs::request: …`).
const SPANS = /(?:[A-Za-z_]\w*(?:\{[^{}\n]{0,500}\})?:)+ (?=[A-Za-z_]\w*(?:::|:\s))/y;
// %(funcName)s written as `func()`.
const FUNC_CALL = /([A-Za-z_]\w*)\(\)/y;
const RANK_TAG = /[A-Z][A-Z_]*\d+(?:\[\d+\])?(?=[\s\]]|$)/y;
const SEPARATOR = /(?:\s*(?:[-|:>—–]+|::)\s*)|\s+/y;

/** Python logging's BASIC_FORMAT, `LEVEL:logger:`; the logger in the first group. */
const BASIC_FORMAT = /^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):(\w+(?:\.\w+)*):/;

/** Whether `s` starts in Python logging's BASIC_FORMAT with an engine's logger (its profile's `loggerNames`): `INFO:vllm.engine.llm_engine:…`. */
export function inBasicFormat(s: string): boolean {
  const m = BASIC_FORMAT.exec(s);
  if (m === null) return false;
  for (const p of ENGINE_PROFILES) if (p.loggerNames?.test(m[1]) === true) return true;
  return false;
}

/**
 * The time of a layout's line taken for an engine's: its stamp's, or a year-less stamp in the log's
 * year, inferred as for vLLM's own `MM-DD` prefix (rolling over December to January). NaN for a stamp
 * no calendar has (month 84, hour 25): the parser keeps no time for it and says why.
 */
export function layoutTime(h: LayoutHeader, state: ParseState): number | null {
  const y = h.yearless;
  if (y === null) return h.time;
  return stampUtc(inferYear(state, y.month, y.day), y.month, y.day, y.hour, y.minute, y.second) + fractionMs(y.fraction);
}

function stick(re: RegExp, s: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(s);
}

/** The engine a Rust tracing target's crate is (its profile's `rustCrates`: SGLang's router), or null. */
export function rustEngine(target: string): Engine | null {
  const sep = target.indexOf('::');
  return rustTargetRules().owner.get(sep < 0 ? target : target.slice(0, sep)) ?? null;
}

/**
 * The engine a logger name or a path names (its profile's `loggerNames`); when two do (an engine
 * installed under a folder named after the other), the one named last: the module's own package.
 */
export function engineOf(name: string): Engine | null {
  const n = name.replace(/\\/g, '/');
  let found: EngineProfile | null = null;
  for (const p of ENGINE_PROFILES) {
    if (!p.loggerNames?.test(n)) continue;
    if (found === null || lastMatchAt(p.loggerNames, n) > lastMatchAt(found.loggerNames!, n)) found = p;
  }
  return found?.id ?? null;
}

function lastMatchAt(re: RegExp, s: string): number {
  let at = -1;
  for (const m of s.matchAll(new RegExp(re.source, 'g'))) at = m.index;
  return at;
}

type Field = 'time' | 'level' | 'pid' | 'thread' | 'location' | 'logger' | 'func' | 'rank' | 'target';
const KIND_LETTER: Record<Field, string> = { time: 'T', level: 'L', pid: 'P', thread: 'H', location: 'F', logger: 'N', func: 'C', rank: 'R', target: 'K' };

/**
 * Reads the header fields at `start`. Returns null unless the header has a timestamp and at
 * least one field that places the line (level, logger, file:line), so that a sentence that
 * happens to start with a date is never taken for a header.
 */
export function readLayoutHeader(s: string, start = 0): LayoutHeader | null {
  const h: LayoutHeader = {
    time: null, timeResolution: null, timeIsUtc: false, yearless: null, level: null, pid: null, logger: null, file: null,
    lineno: null, func: null, ranks: null, msgStart: start, engine: null, signature: '', rust: false, span: null,
  };
  const kinds: string[] = [];
  const limit = Math.min(s.length, start + 400);
  let pos = start;
  let fields = 0;
  let lastField: Field | null = null;
  for (let guard = 0; guard < 16 && pos < limit; guard++) {
    const open = s.charCodeAt(pos);
    if (open === 91 /* [ */ || open === 40 /* ( */) {
      const close = s.indexOf(open === 91 ? ']' : ')', pos + 1);
      if (close < 0 || close - pos > 300) break;
      const inner = readGroup(s, pos + 1, close, h, kinds);
      if (inner === 0) break;
      fields += inner;
      lastField = 'location';
      pos = close + 1;
    } else {
      const f = readField(s, pos, h, fields > 0, lastField);
      if (f === null) break;
      kinds.push(KIND_LETTER[f.field]);
      fields++;
      lastField = f.field;
      pos = f.end;
    }
    const sep = stick(SEPARATOR, s, pos);
    if (sep) pos += sep[0].length;
    // `INFO:vllm.config:` needs none, nor `[date][file.py:N][LEVEL]` between its bracketed groups.
    else if (pos < s.length && s.charCodeAt(pos - 1) !== 58 /* : */ && !(s.charCodeAt(pos - 1) === 93 && s.charCodeAt(pos) === 91)) break;
  }
  // Back off to the start of the word that stopped the walk (the message).
  h.msgStart = pos;
  h.signature = kinds.join(' ');
  if (fields < 2) return null;
  // No date: only logging's default `LEVEL:name:message` (basicConfig, VLLM_CONFIGURE_LOGGING=0)
  // with the engine's own logger, which no sentence reads like.
  if (h.time === null && h.yearless === null && !(h.engine !== null && start === 0 && inBasicFormat(s))) return null;
  if (h.level === null && h.file === null && h.logger === null) return null;
  return h;
}

/** Fields inside `[…]` or `(…)`; 0 when anything in it is not a field (it is message text then). */
function readGroup(s: string, from: number, to: number, h: LayoutHeader, kinds: string[]): number {
  let pos = from;
  let n = 0;
  const ranks: string[] = [];
  const mark = kinds.length;
  kinds.push('[');
  while (pos < to) {
    while (pos < to && s.charCodeAt(pos) === 32) pos++;
    if (pos >= to) break;
    const r = stick(RANK_TAG, s, pos);
    if (r && r.index + r[0].length <= to) { ranks.push(r[0]); pos += r[0].length; n++; if (kinds[kinds.length - 1] !== 'R') kinds.push('R'); continue; }
    const f = readField(s, pos, h, true, null);
    if (f === null || f.end > to) { kinds.length = mark; return 0; }
    kinds.push(KIND_LETTER[f.field]);
    n++;
    pos = f.end;
    const sep = stick(SEPARATOR, s, pos);
    if (sep && sep.index + sep[0].length <= to) pos += sep[0].length;
  }
  if (ranks.length) h.ranks = ranks.join(' ');
  kinds.push(']');
  return n;
}

function readField(s: string, pos: number, h: LayoutHeader, inHeader: boolean, last: Field | null): { field: Field; end: number } | null {
  const c = s.charCodeAt(pos);
  let m: RegExpExecArray | null;
  if (c >= 48 && c <= 57) {
    if (h.time === null && (m = stick(STAMP, s, pos))) {
      h.time = zoned(stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]), m[8]);
      h.timeResolution = fractionResolution(m[7]);
      h.timeIsUtc = !!m[8];
      return { field: 'time', end: pos + m[0].length };
    }
    if (h.time === null && h.yearless === null && (m = stick(YEARLESS_STAMP, s, pos))) {
      h.yearless = { month: Number(m[1]), day: Number(m[2]), hour: Number(m[3]), minute: Number(m[4]), second: Number(m[5]), fraction: m[6] };
      h.timeResolution = fractionResolution(m[6]);
      return { field: 'time', end: pos + m[0].length };
    }
    // A bare number is %(process)d only between other header fields.
    if (inHeader && h.pid === null && last !== null && (m = stick(PID, s, pos))) {
      h.pid = Number(m[1]);
      return { field: 'pid', end: pos + m[0].length };
    }
    return null;
  }
  if (h.level === null && (m = stick(LEVEL, s, pos))) {
    h.level = m[1] === 'WARN' ? 'WARNING' : m[1] === 'FATAL' ? 'CRITICAL' : m[1];
    return { field: 'level', end: pos + m[0].length };
  }
  if (h.pid === null && (c === 112 || c === 80) && (m = stick(PID, s, pos)) && m[0].length > m[1].length) {
    h.pid = Number(m[1]);
    return { field: 'pid', end: pos + m[0].length };
  }
  if (c === 116 /* t */ && inHeader && (m = stick(THREAD, s, pos))) {
    return { field: 'thread', end: pos + m[0].length };
  }
  if (h.file === null && (m = stick(LOCATION, s, pos))) {
    h.file = m[1]; h.lineno = Number(m[3]); h.func = m[2] ?? m[4] ?? null;
    if (!h.rust) h.engine ??= engineOf(m[1]);
    return { field: 'location', end: pos + m[0].length };
  }
  if (h.file === null && (m = stick(MODULE_FUNC_LINE, s, pos))) {
    h.logger ??= m[1]; h.func = m[2]; h.lineno = Number(m[3]);
    h.engine ??= engineOf(m[1]);
    return { field: 'location', end: pos + m[0].length };
  }
  if (h.file === null && h.logger === null && (m = stick(MODULE_LINE, s, pos))) {
    h.logger = m[1]; h.lineno = Number(m[2]);
    h.engine ??= engineOf(m[1]);
    return { field: 'location', end: pos + m[0].length };
  }
  if (h.logger === null && last === 'level') {
    const spans = stick(SPANS, s, pos);
    const at = spans ? pos + spans[0].length : pos;
    if ((m = stick(rustTargetRules().target, s, at))) {
      if (spans) h.span = spans[0].slice(0, -2);
      h.logger = m[1];
      h.rust = true;
      h.engine = rustEngine(m[1]);
      return { field: 'target', end: at + m[0].length };
    }
  }
  if (h.logger === null && (m = stick(LOGGER, s, pos))) {
    // `torch.compile takes 18 s` after the level is message text: a name only followed by a space
    // counts when it is the engine's own logger.
    const end = pos + m[0].length;
    if (!stick(AFTER_FIELD, s, end) && engineOf(m[1]) === null) return null;
    h.logger = m[1];
    h.engine ??= engineOf(m[1]);
    return { field: 'logger', end: pos + m[0].length };
  }
  if (inHeader && h.func === null && (m = stick(FUNC_CALL, s, pos))) {
    h.func = m[1];
    return { field: 'func', end: pos + m[0].length };
  }
  return null;
}

/** What a `%(module)s.%(funcName)s` header names: the line's only clue to whose statement it is. */
export interface ModuleFuncHeader { module: string; func: string; level: string | null; message: string }

// NVIDIA Dynamo 0.2/0.3's `<ISO>Z  LEVEL module.func: msg` (its workers print the engines' records so),
// its stamp whole, cut at the front (`025-06-…`), or taken off as a wrapper's time: level, then `module.func:`.
const MODULE_FUNC_HEADER = new RegExp(String.raw`^\s*(?:\d{1,4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?\s+)?`
  + String.raw`(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\s+([A-Za-z_]\w*)\.([A-Za-z_]\w*): +(\S.*)$`);

/**
 * The module and function a line of another program's `module.func:` layout names, with its level
 * and message; null for any other text. It says nothing of whose line it is: a checkout decides
 * (the resolver's claim), since the wrapper's own modules share names with the engines' files.
 */
export function readModuleFuncHeader(text: string): ModuleFuncHeader | null {
  const m = MODULE_FUNC_HEADER.exec(text);
  if (!m) return null;
  const level = m[1] === 'WARN' ? 'WARNING' : m[1] === 'FATAL' ? 'CRITICAL' : m[1];
  return { module: m[2], func: m[3], level, message: m[4].trimEnd() };
}
