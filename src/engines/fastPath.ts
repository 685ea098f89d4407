// What an engine's byte fast path (an optional hook of its grammar, EngineGrammar.fastPath) is to
// the reader that scans a log: it takes a line's bytes in place, and for a line it is sure of it
// feeds the request index, writes the line's JSON and counts its statement itself, or declines
// and the line goes through the string parser (the output is the same either way). These are the
// seams it writes through, below the core: the core's RequestTracker, ByteOut and StatementTable
// fit them (core/logs/requests.ts, byteOut.ts, statements.ts). The core asks grammars.ts
// (fastPathFor) for the fast path of a log; it never names an engine.
import type { Engine } from './types';
import type { GrammarState } from './grammar';
import type { TimeResolution } from './record';

/** Handles one line from its bytes `[start, end)`; false hands it to the string parser. */
export type FastLineHandler = (buf: Buffer, start: number, end: number, lineNo: number, offset: number) => boolean;

/** What of the parser's state of a log a fast path also reads and writes (core/logs/parseState.ts: ParseState). */
export interface FastPathState extends GrammarState {
  /** Did the previous line end in the multi-line marker (its next line is a continuation: the parser's). */
  prevCR: boolean;
  /**
   * A line ended in a bare LF. Until one does, the file is taken for CRLF (Windows, `docker
   * logs` of a `-t` container) and a CR at a line's end is its line ending; after one, a CR
   * at the end is the engine's multi-line marker (vLLM's `\r\n` + the header repeated).
   */
  sawBareLF: boolean;
}

/** The request index a fast path feeds (core/logs/requests.ts: RequestTracker.addHop). */
export interface HopSink {
  addHop(engine: Engine | 'other', hop: string, ids: string | string[] | null, line: number, time: number | null,
    resolution: TimeResolution | null, process: string | null, role: string | null): void;
}

/** The output buffer a fast path writes a line's JSON into (core/logs/byteOut.ts: ByteOut). */
export interface ByteSink {
  /** Make room for n more bytes. */
  room(n: number): void;
  /** A string known to be ASCII. */
  ascii(s: string): void;
  /** A short literal, four bytes at a time. */
  litView(l: { view: DataView; length: number }): void;
  /** Bytes [start, end) of the buffer `src` views. */
  copyView(src: DataView, start: number, end: number): void;
  /** A prepared segment. */
  seg(bytes: Uint8Array): void;
  int(n: number): void;
}

/** Where a statement's source is, as `--summary --json` prints it. */
export interface StatementSource { path: string; line: number; verified: boolean }

/** The table of statements a fast path counts lines into (core/logs/statements.ts: StatementTable); S: its statement. */
export interface StatementSink<S> {
  open(fileinfo: string | null, lineno: number | null, hop: string | null, level: string | null,
    source: StatementSource | null, line: number, example: string): S;
  count(st: S, line: number, time: number | null, res: TimeResolution | null, utc: boolean): void;
}

export interface FastPathCounters {
  /** Lines the fast path handled. */
  handled: number;
  /** Of those, lines with no hop and no source. */
  unmatched: number;
}

/** What one scan asks of a fast path; every part may be absent. */
export interface FastPathOptions {
  /** The request index to feed (null: none, a summary of statements needs none). */
  tracker?: HopSink | null;
  /** Where each handled line's `{"kind":"line"}` object goes (null: nothing is written). */
  out?: ByteSink | null;
  counters?: FastPathCounters;
  /** Request ids whose lines the caller wants as records (`annotate --rid`): their lines are declined. */
  leaveToParser?: ((rid: string) => boolean) | null;
  /** A request's base ids (ASCII): a line of no hop whose message holds one is declined too. */
  leaveMentions?: readonly Buffer[] | null;
  /** Counts each handled line under its statement (`annotate --summary`). */
  statements?: StatementSink<unknown> | null;
}

/** An engine grammar's fast path: the line handler for one scan of a log. */
export type FastPath = (state: FastPathState, opts: FastPathOptions) => FastLineHandler;
