// The span model HopLens keeps from OTLP (protobuf or JSON), and what it derives per request.
//
// Times: OTLP sends Unix nanoseconds as 64-bit integers. `*UnixNano` keeps them exactly, as the
// decimal string OTLP/JSON uses; `startMs`/`endMs`/`timeMs` are the same instants in ms since the
// epoch as the nearest double (about 0.25 µs apart at present-day dates), for arithmetic.
//
// int64 values (intValue): a number when it is exact in a double (|v| ≤ 2^53 − 1), otherwise a
// bigint — whichever transport brought it. A value never loses digits, the same value has the
// same type over protobuf and JSON, and it stays an integer (not a string) when written back as
// OTLP. JSON.stringify cannot take a bigint: write spans with otlpJson.ts.

export type AttrValue = string | number | bigint | boolean | null | AttrValue[] | { [k: string]: AttrValue };

export interface SpanEvent {
  name: string;
  /** Unix nanoseconds, exact (decimal string). */
  timeUnixNano: string;
  /** ms since the Unix epoch (fractional, nearest double). */
  timeMs: number;
  attributes: Record<string, AttrValue>;
  droppedAttributesCount: number;
}

export interface SpanLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: Record<string, AttrValue>;
  droppedAttributesCount: number;
  /** Link.flags (W3C trace flags in bits 0-7, the is-remote bits 8-9); 0 when unset. */
  flags: number;
}

export type SpanStatusCode = 'UNSET' | 'OK' | 'ERROR';

export interface SpanStatus {
  code: SpanStatusCode;
  message: string;
}

export interface OtlpSpan {
  traceId: string;          // 32 hex
  spanId: string;           // 16 hex
  parentSpanId: string | null;
  /** W3C tracestate as sent ('' when none). */
  traceState: string;
  /** Span.flags (W3C trace flags in bits 0-7, the is-remote bits 8-9); 0 when unset. */
  flags: number;
  name: string;
  kind: string;             // "SERVER", "INTERNAL", …
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttrValue>;
  droppedAttributesCount: number;
  events: SpanEvent[];
  droppedEventsCount: number;
  links: SpanLink[];
  droppedLinksCount: number;
  status: SpanStatus;
  /** Resource attributes of the process that exported it (vllm.process_kind, service.name, …). */
  resource: Record<string, AttrValue>;
  scope: string;
  /** Instrumentation scope version ('' when none). */
  scopeVersion: string;
}

/** vLLM's llm_request span, read into the engine's own breakdown (seconds in the span → ms here). */
export interface EngineTiming {
  /** gen_ai.request.id as printed (e.g. chatcmpl-<id>), and normalised like log rids. */
  requestId: string;
  rid: string;
  ttftMs: number | null;
  e2eMs: number | null;
  queueMs: number | null;
  prefillMs: number | null;
  decodeMs: number | null;
  inferenceMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Sampling parameters and any other attributes, as received. */
  attributes: Record<string, AttrValue>;
  span: OtlpSpan;
}

/** step.REQUEST_SNAPSHOT (inference-sim/vllm fork): one scheduler step as seen by one request. */
export interface RequestSnapshot {
  stepId: number;
  timeMs: number;
  rid: string;
  phase: string | null;
  promptTokens: number | null;
  computedTokens: number | null;
  outputTokens: number | null;
  preemptions: number | null;
  scheduledTokens: number | null;
  kvBlocksAllocated: number | null;
  kvBlocksCached: number | null;
  /** request.effective_prompt_len, when the fork sets it. */
  effectivePromptLen?: number | null;
}

/** step.BATCH_SUMMARY: one scheduler step. */
export interface BatchSummary {
  stepId: number;
  timeMs: number;
  durationUs: number | null;
  running: number | null;
  waiting: number | null;
  prefillReqs: number | null;
  decodeReqs: number | null;
  scheduledTokens: number | null;
  kvUsage: number | null;
  prefillTokens?: number | null;
  decodeTokens?: number | null;
  finished?: number | null;
  preempted?: number | null;
  kvBlocksTotal?: number | null;
  kvBlocksFree?: number | null;
}

/** Everything received, indexed for the views and the join. */
export interface SpanStoreSnapshot {
  spans: number;
  requests: EngineTiming[];
  snapshots: Map<string, RequestSnapshot[]>;
  batches: BatchSummary[];
}
