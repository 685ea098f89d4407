// What an engine's hand-written header grammar (<id>/grammar.ts) is to the line parser: the part of
// the parser's state it reads and writes (GrammarState), the hooks the generic parser in
// src/core/logs calls (EngineGrammar), and the stamp arithmetic every grammar shares. The parser
// asks grammars.ts for the grammars; it never names an engine.
import type { Engine, HopDef } from './types';
import type { LogRecord, TimeResolution } from './record';
import type { RecordEnd } from './index';
import type { FastPath } from './fastPath';

export interface ProcessInfo { name: string; role: string | null; ranks: Record<string, number> | null }

/** What the line parser knows of one log that a grammar reads or updates (core/logs/parseState.ts: ParseState). */
export interface GrammarState {
  /** Forced engine, or null ('auto': every grammar is tried). */
  forced: Engine | null;
  /** First engine recognised in this file. */
  detected: Engine | null;
  /** The year and month the log was last written (file mtime), for year-less stamps. */
  refYear: number;
  refMonth: number;
  refDay: number;
  year: number | null;
  lastMonth: number;
  /**
   * The dated stamp of a wrapper in front of the line being read (docker/kubectl `--timestamps`,
   * journalctl's ISO forms, a time column), its printed digits as UTC epoch ms; null: none. A
   * year-less stamp behind it takes its year from it (core/logs/outerPrefix.ts sets and clears it).
   */
  outerDate: number | null;
  /** A date-less form (SGLang 2024's): day offset for midnight rollover. */
  dayOffset: number;
  lastSecondOfDay: number;
  /** What a record glued onto a line would show of its stamp (a grammar's glueKey): a year's `[YYYY-`, a day's `MM-DD `. */
  glueYear: string;
  glueDay: string;
  glueKeyYear: string;
  /** Memo of the last timestamp text and its value (consecutive lines share a second). */
  stampKey: string;
  stampValue: number;
  processCache: Map<string, ProcessInfo>;
  /** Where a message's own words end when another record was pasted after it (the parser's nextRecordAt). */
  recordEnd: RecordEnd;
}

/** True when the user forced an engine and it is not `own`: a grammar then reads none of the log as its own. */
export function anotherEngineForced(state: { forced: Engine | null }, own: Engine): boolean {
  return state.forced !== null && state.forced !== own;
}

/**
 * The log is already known to be another engine's than `own` (its first recognised line was): a
 * form `own` shares with other programs (a bare bracketed stamp) is then not taken for `own`'s line.
 */
export function anotherEngineDetected(state: { detected: Engine | null }, own: Engine): boolean {
  return state.detected !== null && state.detected !== own;
}

/**
 * The grammars whose hooks another engine's grammar asks (`behindPrefix`, `followsStamp`), and the
 * engines that have one, set by grammars.ts each time it derives its list: an engine's grammar cannot
 * import that list (it lists them).
 */
const askable: { behindPrefix: EngineGrammar[]; followsStamp: EngineGrammar[]; engines: Engine[] } = { behindPrefix: [], followsStamp: [], engines: [] };

/** Keeps the grammars' hooks other grammars ask (grammars.ts, in its order). */
export function setAskableGrammars(grammars: readonly EngineGrammar[]): void {
  askable.behindPrefix = grammars.filter((g) => g.behindPrefix !== undefined);
  askable.followsStamp = grammars.filter((g) => g.followsStamp !== undefined);
  askable.engines = grammars.map((g) => g.engine);
}

/**
 * The user forced another engine than `own`, and it has a grammar of its own: that grammar reads the
 * log, and `own`'s reads none of it (as grammars.ts: grammarAllowed). An engine forced that has none
 * (its line shapes are read) leaves `own`'s grammar reading, as with no engine forced.
 */
export function anotherGrammarForced(state: { forced: Engine | null }, own: Engine): boolean {
  const forced = state.forced;
  if (forced === null || forced === own) return false;
  const engines = askable.engines;
  for (let i = 0; i < engines.length; i++) if (engines[i] === forced) return true;
  return false;
}

/**
 * Whether another engine's header, surely its own, stands at the start of `rest`, the text behind a
 * process prefix of `own`'s shape (a Ray actor's `(Name pid=N)` in front of SGLang's header); `rec` untouched.
 */
export function anotherHeaderBehindPrefix(own: Engine, rest: string, rec: LogRecord, state: GrammarState): boolean {
  const list = askable.behindPrefix;
  for (let i = 0; i < list.length; i++) if (list[i].engine !== own && list[i].behindPrefix!(rest, rec, state)) return true;
  return false;
}

/** Whether another engine's line starts at `at` in `s`, after a bare stamp of `own`'s shape: another tool's stamp in front of it. */
export function anotherLineFollows(own: Engine, s: string, at: number, state: GrammarState): boolean {
  const list = askable.followsStamp;
  for (let i = 0; i < list.length; i++) if (list[i].engine !== own && list[i].followsStamp!(s, at, state)) return true;
  return false;
}

/** Reads a header at the start of `s` into `rec`; true when it is this grammar's. */
export type HeaderReader = (s: string, rec: LogRecord, state: GrammarState) => boolean;

/**
 * One engine's hand-written grammar: the hooks the generic parser calls, each for one place in
 * its reading of a line (src/core/logs/parseLine.ts). Every hook is optional but `starts`.
 */
export interface EngineGrammar {
  engine: Engine;
  /**
   * Its headers at a line's start, by the line's first character: tried in the grammars' order,
   * those marked `after` once every grammar's others declined (a relayed form of a header).
   */
  starts: ReadonlyArray<{ chars: string; read: HeaderReader; after?: true }>;
  /**
   * Where its header may start further into a line (behind a wrapper, a paste, another record): a
   * regular expression's source matching at its first character (a lookahead for the rest is
   * cheapest), joined with the other grammars' into the parser's one anchor (grammars.ts: HEADER_ANCHORS).
   */
  anchor?: string;
  /** Whether a record it read further into a line is surely its header; undefined: not one of its formats. */
  surely?: (r: LogRecord, state: GrammarState) => boolean | undefined;
  /** Where a header of its that lost its opening stands in `s` (rec filled), or -1: tried before custom layouts. */
  lostHeaderAt?: (s: string, rec: LogRecord, state: GrammarState) => number;
  /** Where a message of its with its header cut off stands in `s` (rec filled), or -1: tried after custom layouts. */
  headerlessAt?: (s: string, rec: LogRecord, state: GrammarState) => number;
  /**
   * Its header, surely its own, at the start of `rest`, the text behind another engine's process
   * prefix (SGLang's behind a Ray actor's `(Name pid=N)`): the line is then its; `rec` untouched.
   * Asked by the other grammars (anotherHeaderBehindPrefix).
   */
  behindPrefix?: (rest: string, rec: LogRecord, state: GrammarState) => boolean;
  /**
   * Its line (process prefix or header) at `at` in `s`, after another engine's bare stamp (a launcher's
   * or `ts`'s `[date]` in front of a vLLM line). Asked by the other grammars (anotherLineFollows).
   */
  followsStamp?: (s: string, at: number, state: GrammarState) => boolean;
  /** What the text in front of its header (`prefix`) says of the record. */
  fromPrefix?: (rec: LogRecord, prefix: string, state: GrammarState) => void;
  /** The record's message opens with more fields of a custom layout that kept its header's start. */
  layoutInMessage?: (rec: LogRecord) => boolean;
  /** The format of a line its process prefix names with no header after it: the process's plain output (vLLM's `vllm-output`). */
  plainOutput?: string;
  /** The format of its header with a time and no date (SGLang 2024's `[HH:MM:SS]`): not told from a time a message names. */
  timeOnly?: string;
  /** A multi-line record repeats its header on each line after the engine's multi-line marker. */
  repeatsHeader?: boolean;
  /** Once the record's hop is known: the format it then is (its request logger's lines). */
  retag?: (rec: LogRecord, hop: HopDef) => void;
  /** What the header of a record glued after this one on its line shows first (its stamp's year or day), or null. */
  glueKey?: (rec: LogRecord, state: GrammarState) => string | null;
  /** A line a relay passed on in tracing's layout (dynamo-run), stripped of its level and stamp; rec filled. */
  relayed?: (file: string | null, lineno: number | null, message: string, rec: LogRecord, state: GrammarState) => boolean;
  /**
   * Its common lines read from their bytes, declining the rest to the parser with the same output
   * either way (./fastPath.ts; vLLM's: vllm/fastPath.ts). The core asks grammars.ts: fastPathFor.
   */
  fastPath?: FastPath;
}

/** How far into a line its header is looked for (pasted titles, paths and progress bars are shorter). */
export const SEARCH_WINDOW = 600;
export const DATE_ANCHOR = /\d{4}-\d\d-\d\d[ T]\d\d:\d\d/g;

/** The most days each month can have (29 February: the year is not known yet). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** vLLM / journald stamps have no year: the year the log was written, rolling over Dec -> Jan. */
export function inferYear(state: GrammarState, month: number, day = 1): number {
  if (state.outerDate !== null) return wrapperYear(state, state.outerDate, month, day);
  // An impossible month or day (a garbled stamp: month 84, 30 February) is no evidence of a new year.
  if (!(month >= 1 && month <= 12) || !(day >= 1 && day <= MONTH_DAYS[month - 1])) return state.year ?? state.refYear;
  if (state.year === null) {
    state.year = month > state.refMonth ? state.refYear - 1 : state.refYear;
  } else if (month < state.lastMonth) {
    state.year += 1;
  }
  state.lastMonth = month;
  return state.year;
}

/**
 * The year of `month`-`day` nearest a wrapper's dated stamp (its zone may differ from the engine's
 * clock by a day either way: `2025-12-31T23:30:00Z` wraps `01-01 00:30:00`, a 2026 line). The log's
 * year follows it, for the lines after it that have no wrapper.
 */
function wrapperYear(state: GrammarState, outer: number, month: number, day: number): number {
  const y = new Date(outer).getUTCFullYear();
  if (!(month >= 1 && month <= 12)) return y;
  let best = y;
  for (const c of [y - 1, y + 1]) if (Math.abs(Date.UTC(c, month - 1, day) - outer) < Math.abs(Date.UTC(best, month - 1, day) - outer)) best = c;
  state.year = best;
  state.lastMonth = month;
  return best;
}

export function fractionMs(frac: string | undefined): number {
  if (!frac) return 0;
  return Number((frac + '000').slice(0, 3)) + (frac.length > 3 ? Number('0.' + frac.slice(3, 9).padEnd(6, '0')) : 0);
}

export function fractionResolution(frac: string | undefined): TimeResolution {
  if (!frac) return 's';
  return frac.length <= 3 ? 'ms' : frac.length <= 6 ? 'us' : 'ns';
}

/** A printed id as its engine chose it: spaces and one pair of quotes around it taken off. */
export function printedId(raw: string): string {
  const id = raw.trim();
  return id.length > 1 && (id[0] === "'" || id[0] === '"') && id[id.length - 1] === id[0] ? id.slice(1, -1) : id;
}
