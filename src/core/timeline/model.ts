// The request timeline: one request across every source, on one time axis.
//
// Time: every item is placed in milliseconds on the axis of the reference clock, counted from
// `origin` (the client's send when there is a client, else the request's first item). A
// source's stamps are first moved by its clock's offset (clockOffsets.ts). Each item keeps the
// resolution of the stamp it came from, and its extent says what that stamp can tell:
//   - 'band': a stamp that only says "somewhere in this interval" — a vLLM line stamped to the
//     second is [stamp, stamp + 1 s), never a point;
//   - 'instant': a stamp finer than a millisecond or so (a socket chunk's arrival, an SGLang
//     line with SGLANG_LOG_MS), [t, t + resolution);
//   - 'span': something that lasted (a function call, an engine phase, a scheduler step).
// Lanes are the rows a view draws, one per source: the client, the router, each process of
// each log file, the engine's spans, its steps, its batches, and each traced thread's calls.
import type { TimeResolution } from '../logs/model';
import type { SourceLocation } from '../source/types';
import type { OffsetEstimate } from './clockOffsets';

export type LaneKind = 'client' | 'router' | 'process' | 'engine-spans' | 'engine-steps' | 'engine-batches' | 'calls';

export type ItemKind =
  | 'client-connect' | 'client-send' | 'client-headers' | 'client-frame' | 'client-end'
  | 'hop'        // a line of the request in a server log
  | 'router'     // a router line naming the request
  | 'context'    // a batch line of the same process inside the request's window
  | 'span'       // the engine's llm_request span
  | 'phase'      // queue / prefill / decode, placed from the span's durations
  | 'event'      // an event of the engine's spans (api.*, journey.*)
  | 'step'       // a scheduler step as this request saw it (step.REQUEST_SNAPSHOT)
  | 'batch'      // a scheduler step as a whole (step.BATCH_SUMMARY)
  | 'call';      // a function call of a traced engine thread

export type ItemShape = 'band' | 'instant' | 'span';

/** Where an item came from, for the view to open it. */
export type ItemRef =
  | { type: 'log'; path: string; line: number; offset: number; source: SourceLocation | null }
  | { type: 'client'; frame: number | null; bytes: number | null }
  | { type: 'span'; traceId: string; spanId: string; event: string | null }
  | { type: 'call'; traceFile: string; nodeId: number; file: string; line: number; callSite: { fn: string; file: string; line: number } | null };

export interface TimelineItem {
  kind: ItemKind;
  /** Short text for the item (a hop's message start, a frame's kind, a function name). */
  label: string;
  /** On the axis, ms from `origin`. */
  start: number;
  end: number;
  shape: ItemShape;
  /** Resolution of the stamp(s) the item came from. */
  resolution: TimeResolution;
  /** Calls: depth in the flame (0 = the outermost call inside the window). */
  depth?: number;
  /** Hop id for hop and context items (V2, S5). */
  hop?: string;
  /** A log line's message (prompts and outputs redacted unless asked for). */
  text?: string;
  ref: ItemRef;
  /** Small facts shown on hover or in an export (tokens, durations, ids). */
  detail: Record<string, string | number | boolean | null>;
}

export interface TimelineLane {
  id: string;
  kind: LaneKind;
  title: string;
  /** The clock this lane's stamps came from (a TimelineClock id). */
  clock: string;
  file: string | null;
  process: string | null;
  pid: number | null;
  role: string | null;
  items: TimelineItem[];
  /** What was left out or could not be matched, in words. */
  notes: string[];
}

/** One clock: a source whose stamps share a clock (a log file, the client, the OTLP spans). */
export interface TimelineClock {
  id: string;
  label: string;
  path: string | null;
  offset: OffsetEstimate;
}

export interface RequestTimeline {
  /** The join key (the client's id: chatcmpl-/cmpl- and prompt index taken off). */
  key: string;
  /** The ids the request went by in its sources. */
  ids: string[];
  /** Epoch ms (reference clock) of axis 0. */
  origin: number;
  /** The reference clock's id. */
  reference: string;
  /** Axis ms of the request itself, server side (its engine span when there is one, else its lines). */
  window: { start: number; end: number } | null;
  clocks: TimelineClock[];
  lanes: TimelineLane[];
  /** Prompts and outputs are in item texts (only when asked for). */
  includesText: boolean;
  warnings: string[];
}

/** Milliseconds one stamp of this resolution spans. */
export function resolutionSpanMs(res: TimeResolution): number {
  return res === 's' ? 1000 : res === 'ms' ? 1 : res === 'us' ? 0.001 : 0.000001;
}
