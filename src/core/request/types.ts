import type { StreamTail } from './streamTail';
// The data model of one traced streaming request: what was sent, every SSE frame as it
// arrived on the socket, and what went wrong. Pure data; no I/O here.

import type { BuiltInOwnApi, Engine } from '../../engines/types';
import type { TraceContext } from './traceContext';

export type { Engine };
export type EngineChoice = Engine | 'auto';
/** The OpenAI APIs every engine answers, or one only a built-in engine's server answers (its profile's `ownApis`). */
export type Api = 'chat' | 'completions' | BuiltInOwnApi;

export { monotonicClock, type Clock } from '../clock';

export type FrameKind =
  | 'role-only'   // vLLM/SGLang chat: the first chunk, `delta.role` with empty content
  | 'content'     // carries output text
  | 'reasoning'   // carries reasoning text (`delta.reasoning` / `delta.reasoning_content`)
  | 'tool-call'   // carries `delta.tool_calls`
  | 'usage'       // `choices: []` with `usage`
  | 'finish'      // `finish_reason` set and no output text
  | 'error'       // `{"error": {...}}` mid-stream
  | 'done'        // `data: [DONE]`
  | 'unparseable' // the data is not JSON
  | 'empty';      // valid JSON with nothing of the above (e.g. an empty delta)

/** Kinds that carry output the user waits for; TTFT and ITL are measured on these. */
export const OUTPUT_KINDS: ReadonlySet<FrameKind> = new Set<FrameKind>(['content', 'reasoning', 'tool-call']);

export interface Frame {
  /** 0-based position in the stream. */
  index: number;
  /** Milliseconds since the request started: arrival of the socket chunk that completed the frame. */
  t: number;
  /** UTF-8 bytes of the event's data field. */
  bytes: number;
  kind: FrameKind;
  /** Output characters (code points) this frame added. */
  chars: number;
  /** Output text this frame added (delta; for SGLang cumulative /generate, computed). */
  text: string;
  /** Output tokens this frame added, when the server reports running counts; else null. */
  tokens: number | null;
  /** Server's cumulative completion-token count after this frame, when reported. */
  cumulativeTokens: number | null;
  finishReason: string | null;
  /** The `id` the server put in the chunk (vLLM `chatcmpl-…`, SGLang raw rid), when present. */
  serverId: string | null;
  /** For error frames: the server's message. */
  errorMessage?: string;
  /** Index of the socket chunk that completed this frame (frames sharing a chunk arrived together). */
  chunk: number;
}

export type TraceErrorKind =
  | 'bad-input'
  | 'connection-refused'
  | 'dns'
  | 'tls'
  | 'connect-timeout'
  | 'timeout'
  | 'idle-timeout'
  | 'connection-reset'
  | 'http-status'
  | 'unknown-model'
  | 'not-sse'
  | 'error-frame'
  | 'no-done'
  | 'no-output'
  | 'cancelled'
  | 'frame-too-large'
  | 'network';

export interface TraceError {
  kind: TraceErrorKind;
  /** One plain sentence: what happened. */
  message: string;
  /** What to try next. */
  hint: string;
  /** HTTP status, when the server answered. */
  status?: number;
  /** The server's own error text (JSON error message, or the start of a non-SSE body). */
  serverMessage?: string;
  /** Node's error code (ECONNREFUSED, ENOTFOUND, …) when the socket failed. */
  code?: string;
}

export interface RequestSpec {
  url: string;
  method: 'POST' | 'GET';
  /** Headers as sent, except the API key, which is never stored here. */
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Timeline of one request, all in milliseconds since the request started (monotonic). */
export interface Timeline {
  /** Wall-clock epoch ms when the request started, to line up with server log stamps. */
  startedAtEpochMs: number;
  /**
   * Connection set-up (TCP, and TLS for https) before the request went out. Every other time
   * counts from the moment the connection was up, as on a pooled connection (`vllm bench
   * serve`): a handshake is not time to first token. null: no connection was made.
   */
  connectMs: number | null;
  requestWrittenMs: number | null;
  headersMs: number | null;
  firstByteMs: number | null;
  endMs: number | null;
}

export interface TraceRecord {
  engine: Engine;
  api: Api;
  model: string;
  requestId: string;
  /** The W3C trace context sent as `traceparent` (fresh per request): the engine's spans carry its trace id. */
  traceContext: TraceContext;
  /** Ids the server will print for this request (see serverIds.ts). */
  serverIds: string[];
  /** The id the server's request logger prints: the key the Requests view groups this request under. */
  logRequestId: string;
  /** Regex source matching every id the server prints for this request, engine-internal ones included. */
  serverIdPattern: string;
  request: RequestSpec;
  status: number | null;
  responseHeaders: Record<string, string>;
  timeline: Timeline;
  /** Frames with full detail: every frame up to FRAME_DETAIL_CAP (streamTail.ts), and any error frame. */
  frames: Frame[];
  /** Statistics of the frames past the detail cap; absent when every frame is in `frames`. */
  tail?: StreamTail | null;
  /** How many socket chunks the body arrived in. */
  chunks: number;
  sawDone: boolean;
  error: TraceError | null;
  warnings: string[];
}
