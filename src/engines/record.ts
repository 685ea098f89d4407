// The record model every log-line parser produces. One record per physical input line (records
// pasted onto the same line hang off it as `glued`); a line HopLens does not recognise is kept as
// kind "other", never dropped. In the bottom layer: the engines' grammars (<id>/grammar.ts) fill it.

import type { Engine } from './types';
import { RANK_TOKEN } from './lineShapes';

/** How precise a record's timestamp is: vLLM's default has whole seconds and no year. */
export type TimeResolution = 's' | 'ms' | 'us' | 'ns';

export interface LogRecord {
  /** 1-based line number in the file. */
  line: number;
  /** Byte offset of the line's first byte in the file (for slicing big files). */
  offset: number;
  engine: Engine | 'other';
  /** Which grammar matched: the engine's id for its own header, else the id and a form (`<id>-legacy`, `<id>-request`, `<id>-custom`), or "uvicorn". */
  format: string;
  /** Process name from vLLM's `(Name pid=N)` prefix (innermost), or SGLang rank tag. */
  process: string | null;
  pid: number | null;
  /** Owning role: "api-server" | "engine-core" | "worker" | "scheduler" | "tokenizer" | … */
  role: string | null;
  ranks: Record<string, number> | null;
  level: string | null;
  /** Epoch milliseconds; for vLLM's year-less stamps the year is inferred (see timeYearInferred). */
  time: number | null;
  timeResolution: TimeResolution | null;
  /** vLLM `[fileinfo:lineno]`: a basename at INFO, a shrunk path with `...` at DEBUG, a full path with our logging config. */
  fileinfo: string | null;
  lineno: number | null;
  /** The message text after all prefixes, wrappers and ANSI codes are removed. */
  message: string;
  /** Hop id from the engine's hop table (e.g. "V2", "S3"), or null. */
  hop: string | null;
  /** Normalised request id (see requestIds.ts), or null. */
  rid: string | null;
  /** True for a continuation line of a multi-line record (same header, CRLF before). */
  continuation: boolean;
  /** All normalised ids when the line names several (vLLM `Aborted request(s) a,b.`); rid is the first. */
  rids?: string[];
  /** Ray's `[repeated 7x across cluster]`: the line stands for this many. */
  repeated?: number;
  /** Why `time` is null although the line has a stamp: it names no real time (month 84, hour 25). */
  timeUnknown?: string;
  /** True when `time` is real UTC (docker RFC 3339 stamp); false: the server's wall clock read as UTC. */
  timeIsUtc?: boolean;
  /** Outer wrappers removed in front of the engine line, e.g. ["docker", "compose"]. */
  wrappers?: string[];
  /** The physical line was longer than the parse cap; only its start was parsed. */
  truncated?: boolean;
  /** What stood in front of the engine's header (wrappers, markdown, pasted words, a progress bar), kept for display. */
  prefix?: string;
  /** A custom logging layout's %(name)s: the logger, e.g. `sglang.srt.managers.scheduler`. */
  /** tracing's span context a Rust line printed before its target (`http_request{method=POST … request_id="…"}`), outermost first. */
  span?: string;
  logger?: string;
  /** A custom logging layout's %(funcName)s. */
  func?: string;
  /**
   * Further records pasted onto the same physical line (a paste lost its newlines): each parsed and
   * tagged as its own record, with this record's line and offset. This record's message ends where
   * the next one's header starts.
   */
  glued?: LogRecord[];
  /** For a record glued onto a line: its place on the line (2, 3, …). */
  part?: number;
  /**
   * For a record glued onto a line: the column (UTF-16 units of the line as read, colour codes and
   * all) where its header starts. Absent when not known (a line unwrapped from a JSON envelope).
   */
  column?: number;
}

/** A line's record before any grammar read it: no engine's, its text the message. */
export function newRecord(lineNo: number, offset: number, message: string): LogRecord {
  return {
    line: lineNo, offset, engine: 'other', format: 'other', process: null, pid: null, role: null, ranks: null,
    level: null, time: null, timeResolution: null, fileinfo: null, lineno: null, message, hop: null, rid: null,
    continuation: false,
  };
}

/** The ranks a tag names (`DP0 TP1` → {DP: 0, TP: 1}), or null when it names none. */
export function tagRanks(tag: string): Record<string, number> | null {
  let ranks: Record<string, number> | null = null;
  RANK_TOKEN.lastIndex = 0;
  for (let m = RANK_TOKEN.exec(tag); m; m = RANK_TOKEN.exec(tag)) (ranks ??= {})[m[1]] = Number(m[2]);
  return ranks;
}
