// The client's side of the request for the timeline: what Send Traced Request measured on the
// socket (a TraceRecord in the editor, the `hoplens send --json` object on the command line).
// Times are ms from the moment the connection was up and the request went out; the epoch of
// that moment is the client's wall clock.
import { OUTPUT_KINDS, type FrameKind, type TraceRecord } from '../request/types';
import { requestKey } from './requestKey';

export interface ClientFrame { index: number; t: number; kind: string; bytes: number; chars: number }

export interface ClientRequest {
  /** The id HopLens sent (X-Request-Id / request_id / rid). */
  requestId: string;
  /**
   * Wall-clock epoch ms of t = 0 (the connection up, the request going out); null when the
   * record does not say (an older `send --json`). The record's own `startedAtEpochMs` is read
   * before the connection is set up, so t = 0 is that plus `connectMs`.
   */
  startedAtEpochMs: number | null;
  connectMs: number | null;
  headersMs: number | null;
  endMs: number | null;
  frames: ClientFrame[];
  /** Frames received in all (frames past the detail cap are counted, not listed). */
  framesReceived: number;
  status: number | null;
  error: string | null;
}

export function clientFromTraceRecord(r: TraceRecord): ClientRequest {
  return {
    requestId: r.requestId,
    startedAtEpochMs: zeroEpoch(r.timeline.startedAtEpochMs, r.timeline.connectMs),
    connectMs: r.timeline.connectMs,
    headersMs: r.timeline.headersMs,
    endMs: r.timeline.endMs,
    frames: r.frames.map((f) => ({ index: f.index, t: f.t, kind: f.kind, bytes: f.bytes, chars: f.chars })),
    framesReceived: r.frames.length + (r.tail?.frames ?? 0),
    status: r.status,
    error: r.error ? r.error.message : null,
  };
}

/** The epoch of t = 0 from the epoch read when the request started and the connection set-up after it. */
function zeroEpoch(startedAtEpochMs: number | null, connectMs: number | null): number | null {
  return startedAtEpochMs === null ? null : startedAtEpochMs + (connectMs ?? 0);
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** One object as `hoplens send --json` prints it; a string says what is wrong with it. */
export function clientFromSendJson(obj: unknown): ClientRequest | string {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return 'not a JSON object';
  const o = obj as Record<string, unknown>;
  if (typeof o.requestId !== 'string' || !Array.isArray(o.frames)) return 'not the output of `hoplens send --json` (no requestId and frames)';
  const frames: ClientFrame[] = [];
  for (const [index, f] of (o.frames as unknown[]).entries()) {
    if (typeof f !== 'object' || f === null) continue;
    const fr = f as Record<string, unknown>;
    const t = num(fr.t);
    if (t === null) continue;
    frames.push({ index, t, kind: typeof fr.kind === 'string' ? fr.kind : 'unknown', bytes: num(fr.bytes) ?? 0, chars: num(fr.chars) ?? 0 });
  }
  const err = o.error as { message?: unknown } | null | undefined;
  return {
    requestId: o.requestId,
    startedAtEpochMs: zeroEpoch(num(o.startedAtEpochMs), num(o.connectMs)),
    connectMs: num(o.connectMs),
    headersMs: num(o.headersMs),
    endMs: num(o.e2eMs),
    frames,
    framesReceived: num(o.framesReceived) ?? frames.length,
    status: num(o.status),
    error: err && typeof err.message === 'string' ? err.message : null,
  };
}

/** The join key of the client's request. */
export function clientKey(c: ClientRequest): string {
  return requestKey(c.requestId);
}

export function firstFrameMs(c: ClientRequest): number | null {
  return c.frames.length ? c.frames[0].t : null;
}

export function firstOutputMs(c: ClientRequest): number | null {
  return c.frames.find((f) => OUTPUT_KINDS.has(f.kind as FrameKind))?.t ?? null;
}
