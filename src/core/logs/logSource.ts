// The one seam for where a server log's lines come from. A file, standard input or a pipe, a
// document open in the editor, a large file streamed on its own thread and a remote log store
// (one pod's container in VictoriaLogs or Loki) are each a LogSource; the request index, the
// Requests view, the traced request's report and the timeline read logs only through it.
//
// Two ways in, because their costs differ:
//   - `current()`: the log as something already holds it (an open document's session, every
//     line parsed; a streamed file's replica of its request index). A consumer uses it and reads
//     nothing again: one read model per log.
//   - `open()`: a read from the start, once. Files, pipes and standard input hand over bytes, so
//     an engine's byte fast path (vllm/fastPath.ts) keeps its speed; a store hands over lines in batches, each
//     with the store's own timestamp when it keeps one (a log line's text may carry no time, or a
//     time of another clock).
// A source never parses: LogSession does, the same way for every source.
import type { Engine, LogRecord } from './model';
import type { RequestTracker } from './requests';

/** One stream of lines: a file, standard input, one container of one pod. */
export interface LogStream {
  /** Unique among the streams one reader sees: a path, `-`, a store's stream id. */
  readonly key: string;
  /** What the user reads: a file name, `namespace/pod/container`. */
  readonly label: string;
  /** The store's labels of the stream (namespace, pod, container, …), when it has them. */
  readonly labels?: Readonly<Record<string, string>>;
}

/** One line as a store returns it. */
export interface StoreLine {
  /** The line as the engine printed it (no trailing newline). */
  readonly text: string;
  /** The store's own timestamp of the line, epoch ms; null when the store gave none. */
  readonly storeTimeMs: number | null;
}

/** An open read of a log from its start, as bytes (files, pipes, stdin) or as a store's lines. */
export type LogFeed = ByteFeed | LineFeed;

interface FeedBase {
  /** Year-less stamps are placed near this time: a file's mtime, now for a stream, the query's end for a store. */
  readonly referenceTime: number;
  /** Stops reading (the rest is not wanted); safe to call twice. */
  close(): void;
}

export interface ByteFeed extends FeedBase {
  readonly kind: 'bytes';
  /** All bytes from the start, once, in order (gzip already decompressed). */
  chunks(): AsyncIterable<Buffer>;
}

export interface LineFeed extends FeedBase {
  readonly kind: 'lines';
  /** The lines in the stream's order, in batches (a store's pages), once. */
  batches(): AsyncIterable<readonly StoreLine[]>;
}

/**
 * What is known of one log after (or while) reading it, shared by every consumer. LogSession
 * and the streamed view's replica are read models; so is a store's read once done.
 */
export interface LogReadModel {
  readonly stream: LogStream;
  /** Changes each time the log starts over (an edit that is not an append, a truncated file). */
  readonly generation: number;
  readonly engine: Engine | null;
  /** Every line's record (record i is line i + 1) when kept; shorter than linesParsed when not. */
  readonly records: readonly LogRecord[];
  /** The request index: requests, hops in order, deltas, missing hops. */
  readonly tracker: RequestTracker;
  readonly linesParsed: number;
  readonly bytesParsed: number;
  /** True while the log is still being read: what it lists is not complete yet. */
  readonly reading: boolean;
  /** The store's timestamp of 1-based line `line`, when the source gave one. */
  storeTimeMs?(line: number): number | null;
}

/** Where one log's lines come from. */
export interface LogSource {
  readonly stream: LogStream;
  /** The log as already held (all its records when `records.length >= linesParsed`); undefined: nothing holds it. */
  current?(): LogReadModel | undefined | Promise<LogReadModel | undefined>;
  /** Reads the log from its start. Throws LogInputError (core/logs/scanner.ts) with a message for the user. */
  open(signal?: AbortSignal): Promise<LogFeed>;
}

/** True when a read model holds every line's record (so a consumer need not read the log again). */
export function holdsEveryRecord(model: Pick<LogReadModel, 'records' | 'linesParsed'>): boolean {
  return model.records.length >= model.linesParsed;
}
