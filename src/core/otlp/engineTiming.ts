// What HopLens derives from received spans: vLLM's per-request `llm_request` timing, the step
// tracing events of the inference-sim/vllm fork (engine-facts.md §E), and a bounded store.
import { externalFromInternal } from '../logs/requestIds';
import { msOfNanos } from './decode';
import type { AttrValue, BatchSummary, EngineTiming, OtlpSpan, RequestSnapshot, SpanEvent, SpanStoreSnapshot } from './types';

export const LLM_REQUEST_SPAN = 'llm_request';
export const BATCH_SUMMARY_EVENT = 'step.BATCH_SUMMARY';
export const REQUEST_SNAPSHOT_EVENT = 'step.REQUEST_SNAPSHOT';

/**
 * An engine-internal id (scheduler's request.id: "<external>-<8 hex>", n>1 children "<i>_…")
 * in the form the log annotation groups lines under.
 */
export function ridFromEngineId(raw: string): string {
  return externalFromInternal(raw.trim());
}

/**
 * gen_ai.request.id is already the external id (engine-facts §E); stripping a "-<8 hex>" tail
 * from it would cut a client-chosen id such as chatcmpl-c0ffee01.
 */
export function ridFromExternalId(raw: string): string {
  return raw.trim();
}

function num(v: AttrValue | undefined): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function secondsToMs(v: AttrValue | undefined): number | null {
  const s = num(v);
  return s === null ? null : s * 1000;
}

function str(v: AttrValue | undefined): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return null;
}

/** An `llm_request` span → the engine's breakdown; null for any other span or one without a request id. */
export function engineTimingOf(span: OtlpSpan): EngineTiming | null {
  if (span.name !== LLM_REQUEST_SPAN) return null;
  const a = span.attributes;
  const requestId = str(a['gen_ai.request.id']);
  if (requestId === null || requestId === '') return null;
  return {
    requestId,
    rid: ridFromExternalId(requestId),
    ttftMs: secondsToMs(a['gen_ai.latency.time_to_first_token']),
    e2eMs: secondsToMs(a['gen_ai.latency.e2e']),
    queueMs: secondsToMs(a['gen_ai.latency.time_in_queue']),
    prefillMs: secondsToMs(a['gen_ai.latency.time_in_model_prefill']),
    decodeMs: secondsToMs(a['gen_ai.latency.time_in_model_decode']),
    inferenceMs: secondsToMs(a['gen_ai.latency.time_in_model_inference']),
    promptTokens: num(a['gen_ai.usage.prompt_tokens']),
    completionTokens: num(a['gen_ai.usage.completion_tokens']),
    attributes: a,
    span,
  };
}

function nanosOfAttr(v: AttrValue | undefined): bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return BigInt(v.trim());
  return null;
}

export function batchSummaryOf(ev: SpanEvent): BatchSummary | null {
  if (ev.name !== BATCH_SUMMARY_EVENT) return null;
  const a = ev.attributes;
  const stepId = num(a['step.id']);
  if (stepId === null) return null;
  const startBig = nanosOfAttr(a['step.ts_start_ns']);
  return {
    stepId,
    // step.ts_start_ns is wall-clock in the fork; the event time is the fallback.
    timeMs: startBig !== null && startBig > 100_000_000_000_000_000n ? msOfNanos(startBig) : ev.timeMs,
    durationUs: num(a['step.duration_us']),
    running: num(a['queue.running_depth']),
    waiting: num(a['queue.waiting_depth']),
    prefillReqs: num(a['batch.num_prefill_reqs']),
    decodeReqs: num(a['batch.num_decode_reqs']),
    scheduledTokens: num(a['batch.scheduled_tokens']),
    kvUsage: num(a['kv.usage_gpu_ratio']),
    prefillTokens: num(a['batch.prefill_tokens']),
    decodeTokens: num(a['batch.decode_tokens']),
    finished: num(a['batch.num_finished']),
    preempted: num(a['batch.num_preempted']),
    kvBlocksTotal: num(a['kv.blocks_total_gpu']),
    kvBlocksFree: num(a['kv.blocks_free_gpu']),
  };
}

export function requestSnapshotOf(ev: SpanEvent): RequestSnapshot | null {
  if (ev.name !== REQUEST_SNAPSHOT_EVENT) return null;
  const a = ev.attributes;
  const stepId = num(a['step.id']);
  const id = str(a['request.id']);
  if (stepId === null || id === null || id === '') return null;
  return {
    stepId,
    timeMs: ev.timeMs,
    rid: ridFromEngineId(id),
    phase: str(a['request.phase']),
    promptTokens: num(a['request.num_prompt_tokens']),
    computedTokens: num(a['request.num_computed_tokens']),
    outputTokens: num(a['request.num_output_tokens']),
    preemptions: num(a['request.num_preemptions']),
    scheduledTokens: num(a['request.scheduled_tokens_this_step']),
    kvBlocksAllocated: num(a['kv.blocks_allocated_gpu']),
    kvBlocksCached: num(a['kv.blocks_cached_gpu']),
    effectivePromptLen: num(a['request.effective_prompt_len']),
  };
}

/** The request a span belongs to, if it says (llm_request, llm_core with journey events). */
function ridOfSpan(span: OtlpSpan): string | null {
  const id = str(span.attributes['gen_ai.request.id']) ?? str(span.attributes['request.id']);
  if (id === null || id === '') return null;
  // Only the API server's llm_request knows the external id; engine-core spans (llm_core)
  // carry the scheduler's internal one.
  return span.name === LLM_REQUEST_SPAN ? ridFromExternalId(id) : ridFromEngineId(id);
}

export interface SpanStoreLimits {
  maxSpans?: number;
  maxBatches?: number;
  maxSnapshots?: number;
}

export interface SpanStoreStats {
  spans: number;
  received: number;
  droppedSpans: number;
  droppedBatches: number;
  droppedSnapshots: number;
  requests: number;
  batches: number;
  snapshots: number;
}

/**
 * Everything received, indexed by request. Memory is bounded: past each cap the oldest
 * entries go first and are counted, so a long-running receiver never grows without limit.
 */
export class SpanStore {
  private readonly maxSpans: number;
  private readonly maxBatches: number;
  private readonly maxSnapshots: number;
  private spanRing: OtlpSpan[] = [];
  private spanHead = 0;
  private readonly timingByRid = new Map<string, EngineTiming>();
  private readonly spansByRid = new Map<string, OtlpSpan[]>();
  private readonly snapshotsByRid = new Map<string, RequestSnapshot[]>();
  private snapshotCount = 0;
  private batchList: BatchSummary[] = [];
  private batchHead = 0;
  private received = 0;
  private droppedSpans = 0;
  private droppedBatches = 0;
  private droppedSnapshots = 0;
  private listeners: Array<() => void> = [];

  constructor(limits: SpanStoreLimits = {}) {
    this.maxSpans = Math.max(1, limits.maxSpans ?? 200_000);
    this.maxBatches = Math.max(1, limits.maxBatches ?? 500_000);
    this.maxSnapshots = Math.max(1, limits.maxSnapshots ?? 1_000_000);
  }

  /** Called after each add(); returns an unsubscribe function. */
  onDidChange(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => { this.listeners = this.listeners.filter((l) => l !== listener); };
  }

  add(spans: OtlpSpan[]): void {
    for (const span of spans) this.addOne(span);
    this.compact();
    this.notify();
  }

  /** A listener that throws must not make add() fail: its spans are already kept. */
  private notify(): void {
    for (const l of this.listeners) {
      try { l(); } catch { /* the listener's own problem */ }
    }
  }

  private addOne(span: OtlpSpan): void {
    this.received++;
    this.spanRing.push(span);
    if (this.spanRing.length - this.spanHead > this.maxSpans) this.evictOldestSpan();
    const rid = ridOfSpan(span);
    if (rid !== null) {
      const list = this.spansByRid.get(rid);
      if (list) list.push(span); else this.spansByRid.set(rid, [span]);
    }
    const timing = engineTimingOf(span);
    if (timing) this.timingByRid.set(timing.rid, timing);
    for (const ev of span.events) {
      const b = batchSummaryOf(ev);
      if (b) {
        this.batchList.push(b);
        if (this.batchList.length - this.batchHead > this.maxBatches) { this.batchHead++; this.droppedBatches++; }
        continue;
      }
      const s = requestSnapshotOf(ev);
      if (s) {
        const list = this.snapshotsByRid.get(s.rid);
        if (list) list.push(s); else this.snapshotsByRid.set(s.rid, [s]);
        this.snapshotCount++;
        while (this.snapshotCount > this.maxSnapshots) this.evictOldestSnapshots();
      }
    }
  }

  private evictOldestSpan(): void {
    const old = this.spanRing[this.spanHead];
    this.spanHead++;
    this.droppedSpans++;
    const rid = ridOfSpan(old);
    if (rid === null) return;
    const list = this.spansByRid.get(rid);
    if (list) {
      const i = list.indexOf(old);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.spansByRid.delete(rid);
    }
    if (this.timingByRid.get(rid)?.span === old) this.timingByRid.delete(rid);
  }

  /** Drops the snapshots of the request seen first (Map keeps insertion order). */
  private evictOldestSnapshots(): void {
    const first = this.snapshotsByRid.keys().next();
    if (first.done) { this.snapshotCount = 0; return; }
    const n = this.snapshotsByRid.get(first.value)!.length;
    this.snapshotsByRid.delete(first.value);
    this.snapshotCount -= n;
    this.droppedSnapshots += n;
  }

  /** Ring buffers are arrays with a moving head; reclaim the dead prefix now and then. */
  private compact(): void {
    if (this.spanHead > 4096 && this.spanHead * 2 > this.spanRing.length) {
      this.spanRing = this.spanRing.slice(this.spanHead);
      this.spanHead = 0;
    }
    if (this.batchHead > 4096 && this.batchHead * 2 > this.batchList.length) {
      this.batchList = this.batchList.slice(this.batchHead);
      this.batchHead = 0;
    }
  }

  timing(rid: string): EngineTiming | undefined {
    return this.timingByRid.get(rid) ?? this.timingByRid.get(ridFromEngineId(rid));
  }

  snapshots(rid: string): RequestSnapshot[] {
    const list = this.snapshotsByRid.get(rid) ?? this.snapshotsByRid.get(ridFromEngineId(rid)) ?? [];
    return [...list].sort((x, y) => x.stepId - y.stepId || x.timeMs - y.timeMs);
  }

  /** Spans that name this request (llm_request, llm_core with journey.* events), oldest first. */
  spansFor(rid: string): OtlpSpan[] {
    return [...(this.spansByRid.get(rid) ?? this.spansByRid.get(ridFromEngineId(rid)) ?? [])];
  }

  batches(): BatchSummary[] {
    return this.batchList.slice(this.batchHead).sort((x, y) => x.stepId - y.stepId);
  }

  spans(): OtlpSpan[] {
    return this.spanRing.slice(this.spanHead);
  }

  requests(): EngineTiming[] {
    return [...this.timingByRid.values()].sort((x, y) => x.span.startMs - y.span.startMs);
  }

  stats(): SpanStoreStats {
    return {
      spans: this.spanRing.length - this.spanHead,
      received: this.received,
      droppedSpans: this.droppedSpans,
      droppedBatches: this.droppedBatches,
      droppedSnapshots: this.droppedSnapshots,
      requests: this.timingByRid.size,
      batches: this.batchList.length - this.batchHead,
      snapshots: this.snapshotCount,
    };
  }

  snapshot(): SpanStoreSnapshot {
    const snapshots = new Map<string, RequestSnapshot[]>();
    for (const rid of this.snapshotsByRid.keys()) snapshots.set(rid, this.snapshots(rid));
    return { spans: this.spanRing.length - this.spanHead, requests: this.requests(), snapshots, batches: this.batches() };
  }

  clear(): void {
    this.spanRing = []; this.spanHead = 0;
    this.timingByRid.clear(); this.spansByRid.clear(); this.snapshotsByRid.clear();
    this.snapshotCount = 0; this.batchList = []; this.batchHead = 0;
    this.notify();
  }
}
