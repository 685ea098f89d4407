// The span model HopLens keeps from OTLP (protobuf or JSON), and what it derives per request.
// Times are epoch nanoseconds as bigint-free numbers of milliseconds with fractions (ms since
// the Unix epoch), which keeps µs precision for present-day dates.

export type AttrValue = string | number | boolean | null | AttrValue[] | { [k: string]: AttrValue };

export interface SpanEvent {
  name: string;
  /** ms since the Unix epoch (fractional). */
  timeMs: number;
  attributes: Record<string, AttrValue>;
}

export interface OtlpSpan {
  traceId: string;          // 32 hex
  spanId: string;           // 16 hex
  parentSpanId: string | null;
  name: string;
  kind: string;             // "SERVER", "INTERNAL", …
  startMs: number;
  endMs: number;
  attributes: Record<string, AttrValue>;
  events: SpanEvent[];
  /** Resource attributes of the process that exported it (vllm.process_kind, service.name, …). */
  resource: Record<string, AttrValue>;
  scope: string;
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
