// What the line parser knows of one log while it reads it (ParseState), the record it starts each
// line with, and what every part of the parser shares: the anchors where a header may start further
// into a line, the process names' roles and ranks. A leaf of the parser: it imports no other part.
import type { Engine, LogRecord } from './model';
import { LEVELS, RANK_TOKEN } from '../../engines/lineShapes';
import { VLLM_INDEXED_PROCESS, VLLM_PROCESS_ROLES } from '../../engines/vllm/lines';

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


// Where an engine header may start further into a line: a process prefix, a vLLM level and
// date, an SGLang bracketed date.
export const HEADER_ANCHOR = new RegExp(`\\((?=[^()]{0,80}? pid=\\d)|(?:${LEVELS}) (?=(?:\\d{4}-)?\\d\\d-\\d\\d[ T]\\d\\d:)|\\[(?=(?:\\d{4}-\\d\\d-\\d\\d[ T])?\\d\\d:\\d\\d:\\d\\d|Router \\()`, 'g');
export const DATE_ANCHOR = /\d{4}-\d\d-\d\d[ T]\d\d:\d\d/g;
/** Where a custom layout's date may start: with its year, or without it (`[%(asctime)s]` with vLLM's datefmt). */
export const LAYOUT_DATE_ANCHOR = /(?<![\d-])(?:\d{4}-)?\d\d-\d\d[ T]\d\d:\d\d/g;
// nextRecordAt's own anchor (it may run while gluedAt's loop holds HEADER_ANCHOR's place: surelyEngines
// asks the hop table).
export const WORDS_ANCHOR = new RegExp(HEADER_ANCHOR.source, 'g');
/** How far into a line its header is looked for (pasted titles, paths and progress bars are shorter). */
export const SEARCH_WINDOW = 600;

export function processInfo(state: ParseState, name: string): ProcessInfo {
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

export function tagRanks(tag: string): Record<string, number> | null {
  let ranks: Record<string, number> | null = null;
  RANK_TOKEN.lastIndex = 0;
  for (let m = RANK_TOKEN.exec(tag); m; m = RANK_TOKEN.exec(tag)) (ranks ??= {})[m[1]] = Number(m[2]);
  return ranks;
}

export function newRecord(lineNo: number, offset: number, message: string): LogRecord {
  return {
    line: lineNo, offset, engine: 'other', format: 'other', process: null, pid: null, role: null, ranks: null,
    level: null, time: null, timeResolution: null, fileinfo: null, lineno: null, message, hop: null, rid: null,
    continuation: false,
  };
}
