// The trials of issue 12, driven by the official OpenTelemetry JS exporters (OTLP/HTTP protobuf
// and JSON, optionally gzip), shared by the unit tests (core receiver, `hoplens otlp`) and the
// integration tests (the extension's Start Trace Receiver). Every span the SDK finished is kept
// as the SDK's own ReadableSpan, so what arrived can be compared with what was sent field by field.
import * as assert from 'node:assert/strict';
import { SpanKind, SpanStatusCode, TraceFlags, context, createTraceState, diag, DiagLogLevel, trace } from '@opentelemetry/api';
import type { Attributes, AttributeValue, HrTime, Tracer } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { IdGenerator, ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { AttrValue, BatchSummary, OtlpSpan, RequestSnapshot } from '../../../src/core/otlp/types';

export type Protocol = 'protobuf' | 'json';

export interface ExporterOptions {
  protocol: Protocol;
  gzip?: boolean;
  timeoutMillis?: number;
}

export function makeExporter(url: string, o: ExporterOptions): SpanExporter {
  const config = { url, timeoutMillis: o.timeoutMillis ?? 10_000, ...(o.gzip ? { compression: 'gzip' as never } : {}) };
  return o.protocol === 'protobuf' ? new ProtoExporter(config) : new JsonExporter(config);
}

/** ExportResultCode.SUCCESS of @opentelemetry/core. */
export const EXPORT_SUCCESS = 0;

/** Sends these finished spans in one export request and resolves with the exporter's verdict. */
export function exportOnce(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, (r) => resolve(r)));
}

/**
 * A tracer whose finished spans are collected (not exported): the trials choose how to send
 * them. `ids` replaces the SDK's random ids (to make a span the receiver must reject).
 */
export function recordingTracer(resource: Attributes, scope: string, ids?: IdGenerator,
  attributeCountLimit?: number): { tracer: Tracer; finished(): ReadableSpan[] } {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: new Resource(resource),
    ...(ids ? { idGenerator: ids } : {}),
    ...(attributeCountLimit ? { spanLimits: { attributeCountLimit } } : {}),
  });
  provider.addSpanProcessor(new SimpleSpanProcessor(memory));
  return { tracer: provider.getTracer(scope, '0.15.1'), finished: () => memory.getFinishedSpans() };
}

/** Exports through a BatchSpanProcessor, as vLLM does; resolves after the exporter answered. */
export async function exportBatched(url: string, o: ExporterOptions, resource: Attributes, scope: string, build: (tracer: Tracer) => void,
  maxExportBatchSize = 512): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: new Resource(resource) });
  provider.addSpanProcessor(new SimpleSpanProcessor(memory));
  provider.addSpanProcessor(new BatchSpanProcessor(makeExporter(url, o), { maxExportBatchSize, maxQueueSize: Math.max(2048, maxExportBatchSize * 2),
    scheduledDelayMillis: 50 }));
  build(provider.getTracer(scope, '0.15.1'));
  await provider.forceFlush();
  const sent = [...memory.getFinishedSpans()]; // shutdown() empties the memory exporter
  await provider.shutdown();
  return sent;
}

// ---- What a ReadableSpan must look like once decoded ----

function nanosOf(t: HrTime): string {
  return (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();
}

/**
 * The integer an exporter puts on the wire for a JS number beyond 2^53: protobuf encodes the
 * double's exact value (2^60 → 1152921504606846976), the JSON exporter writes JSON.stringify's
 * shortest digits (2^60 → 1152921504606847000). The receiver keeps what arrived, exactly.
 */
export function wireInteger(v: number, protocol: Protocol): bigint {
  return protocol === 'protobuf' ? BigInt(v) : BigInt(JSON.stringify(v));
}

/** The value the receiver must give back: integers beyond 2^53 as the exact bigint the exporter sent. */
function expectedValue(v: AttributeValue | undefined, protocol: Protocol): AttrValue {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return v.map((x) => expectedValue(x as AttributeValue, protocol));
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return wireInteger(v, protocol);
  return v as AttrValue;
}

function expectedAttributes(a: Attributes, protocol: Protocol): Record<string, AttrValue> {
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, expectedValue(v, protocol)]));
}

const KIND = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];
const STATUS = ['UNSET', 'OK', 'ERROR'];

/** The decoded span a ReadableSpan should become (all fields but the derived startMs/endMs/timeMs). */
export function expectedSpan(r: ReadableSpan, protocol: Protocol): Omit<OtlpSpan, 'startMs' | 'endMs'> {
  const ctx = r.spanContext();
  return {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: r.parentSpanId ?? null,
    traceState: ctx.traceState?.serialize() ?? '',
    flags: 0, // the JS SDK 1.30 does not send Span.flags (Python does: see the hand-written bodies)
    name: r.name,
    kind: KIND[r.kind],
    startTimeUnixNano: nanosOf(r.startTime),
    endTimeUnixNano: nanosOf(r.endTime),
    attributes: expectedAttributes(r.attributes, protocol),
    droppedAttributesCount: r.droppedAttributesCount,
    events: r.events.map((e) => ({
      name: e.name,
      timeUnixNano: nanosOf(e.time),
      timeMs: 0,
      attributes: expectedAttributes(e.attributes ?? {}, protocol),
      droppedAttributesCount: e.droppedAttributesCount ?? 0,
    })),
    droppedEventsCount: r.droppedEventsCount,
    links: r.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      traceState: l.context.traceState?.serialize() ?? '',
      attributes: expectedAttributes(l.attributes ?? {}, protocol),
      droppedAttributesCount: l.droppedAttributesCount ?? 0,
      flags: 0,
    })),
    droppedLinksCount: r.droppedLinksCount,
    status: { code: STATUS[r.status.code] as OtlpSpan['status']['code'], message: r.status.message ?? '' },
    resource: expectedAttributes(r.resource.attributes, protocol),
    scope: r.instrumentationLibrary.name,
    scopeVersion: r.instrumentationLibrary.version ?? '',
  };
}

function comparable(s: OtlpSpan): Omit<OtlpSpan, 'startMs' | 'endMs'> {
  const { startMs: _s, endMs: _e, ...rest } = s;
  return { ...rest, events: s.events.map((e) => ({ ...e, timeMs: 0 })) };
}

/** ms as the nearest double of the exact nanoseconds (what the model promises). */
function msOf(ns: string): number {
  const n = BigInt(ns);
  return Number(n / 1_000_000n) + Number(n % 1_000_000n) / 1e6;
}

/**
 * Every sent span arrived exactly once, equal in every field; the ms fields are the exact
 * nanoseconds' nearest double (not truncated to µs).
 */
export function assertSameSpans(sent: ReadableSpan[], received: OtlpSpan[], protocol: Protocol | ((r: ReadableSpan) => Protocol), label = ''): void {
  const protocolOf = typeof protocol === 'string' ? () => protocol : protocol;
  const bySpanId = new Map<string, OtlpSpan[]>();
  for (const s of received) bySpanId.set(s.spanId, [...(bySpanId.get(s.spanId) ?? []), s]);
  assert.equal(received.length, sent.length, `${label}: ${received.length} span(s) received, ${sent.length} sent`);
  for (const r of sent) {
    const got = bySpanId.get(r.spanContext().spanId) ?? [];
    assert.equal(got.length, 1, `${label}: span ${r.name} ${r.spanContext().spanId} arrived ${got.length} time(s)`);
    assert.deepEqual(comparable(got[0]), expectedSpan(r, protocolOf(r)), `${label}: span ${r.name} ${r.spanContext().spanId}`);
    assert.equal(got[0].startMs, msOf(got[0].startTimeUnixNano));
    assert.equal(got[0].endMs, msOf(got[0].endTimeUnixNano));
    got[0].events.forEach((e) => assert.equal(e.timeMs, msOf(e.timeUnixNano)));
  }
}

// ---- Span shapes ----

export const VLLM_RESOURCE: Attributes = { 'service.name': 'vllm', 'vllm.instrumenting_module_name': 'vllm.llm_engine', 'vllm.process_id': 4242 };
export const ENGINE_CORE_RESOURCE: Attributes = { 'service.name': 'vllm', 'vllm.process_kind': 'engine_core', 'vllm.process_name': 'EngineCore_DP0', 'vllm.process_id': 4243 };

/** HrTime from epoch ms plus extra nanoseconds, so sub-µs digits travel too. */
export function hr(epochMs: number, extraNs = 0): HrTime {
  const ns = BigInt(Math.trunc(epochMs)) * 1_000_000n + BigInt(extraNs);
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
}

/**
 * vLLM's llm_request span (engine-facts §E), with the fields the trial asks to survive: a remote
 * parent with trace state, a link, an error status, nanosecond times, an int64 beyond 2^53, a
 * 100 KB attribute and unicode.
 */
export function llmRequestSpan(tracer: Tracer, rid: string, baseMs: number, i: number, opts: { big?: boolean } = {}): void {
  const parent = trace.setSpanContext(context.active(), {
    traceId: (0x4bf92f35 + i).toString(16).padStart(32, '0'),
    spanId: (0x00f067aa + i).toString(16).padStart(16, '0'),
    traceFlags: TraceFlags.SAMPLED,
    traceState: createTraceState(`vendor=v${i},hoplens=trial`),
    isRemote: true,
  });
  const span = tracer.startSpan('llm_request', {
    kind: SpanKind.SERVER,
    startTime: hr(baseMs + i, 123_456_789 % 1_000_000 + i),
    links: [{
      context: { traceId: 'a'.repeat(31) + (i % 10), spanId: 'b'.repeat(15) + (i % 10), traceFlags: TraceFlags.SAMPLED, traceState: createTraceState('link=1') },
      attributes: { 'link.reason': 'retry of an aborted request' },
    }],
  }, parent);
  span.setAttributes({
    'gen_ai.request.id': rid,
    'gen_ai.latency.time_to_first_token': 0.1825 + i * 1e-6,
    'gen_ai.latency.e2e': 1.2405,
    'gen_ai.latency.time_in_queue': 0.0125,
    'gen_ai.latency.time_in_model_prefill': 0.168,
    'gen_ai.latency.time_in_model_decode': 1.05,
    'gen_ai.latency.time_in_model_inference': 1.218,
    'gen_ai.usage.prompt_tokens': 812 + i,
    'gen_ai.usage.completion_tokens': 128,
    'gen_ai.request.temperature': 0.7,
    'gen_ai.request.max_tokens': 128,
    'hoplens.trial.int64_beyond_2_53': 2 ** 60 + 2 ** 10 * i,
    'hoplens.trial.int_array': [1, -2, 2 ** 53 - 1],
    'hoplens.trial.unicode': 'Grüße · 中文 · עברית · 🚀',
    ...(opts.big ? { 'hoplens.trial.100kb': 'x'.repeat(100 * 1024) } : {}),
  });
  span.addEvent('api.ARRIVED', {}, hr(baseMs + i, 1));
  span.addEvent('api.FIRST_RESPONSE_FROM_CORE', { 'hoplens.trial': true }, hr(baseMs + i + 183, 999_999));
  span.setStatus({ code: i % 2 ? SpanStatusCode.ERROR : SpanStatusCode.OK, message: i % 2 ? 'aborted by the client' : undefined });
  span.end(hr(baseMs + i + 1250, 500_001));
}

/** A second, independent span of the same batch (an @instrument startup span). */
export function loadSpan(tracer: Tracer, baseMs: number, n: number): void {
  const span = tracer.startSpan(`Load weights ${n}`, { kind: SpanKind.INTERNAL, startTime: hr(baseMs, n) });
  span.setAttributes({ 'code.function': 'load_weights', 'code.lineno': 269 + n, 'code.filepath': 'vllm/model_executor/model_loader/default_loader.py' });
  span.end(hr(baseMs + 30_000, n));
}

// ---- Seed 004: the step-tracing events of the inference-sim/vllm fork ----

export interface StepTrialExpectation {
  /** External request ids (what llm_request carries) → their snapshots in step order. */
  snapshots: Map<string, RequestSnapshot[]>;
  batches: BatchSummary[];
}

/**
 * One `scheduler_steps_<seq>` span (scope vllm.scheduler.step) with, per scheduled step, one
 * step.BATCH_SUMMARY and then one step.REQUEST_SNAPSHOT per running request, each with the
 * attribute keys and types of the fork (vllm/tracing.py SpanAttributes; its test asserts
 * step.id and the kv.* counts are ints and request.id a str): `steps` steps of `requests` requests.
 */
export function stepTracingSpan(tracer: Tracer, baseMs: number, seq: number, steps: number, requests: number, protocol: Protocol): StepTrialExpectation {
  const span = tracer.startSpan(`scheduler_steps_${seq}`, { kind: SpanKind.INTERNAL, startTime: hr(baseMs) });
  const exp: StepTrialExpectation = { snapshots: new Map(), batches: [] };
  const promptLen = (r: number) => 100 + 37 * r;
  for (let step = 1; step <= steps; step++) {
    const stepId = seq * 1000 + step;
    const tMs = baseMs + step * 9;
    // A wall-clock nanosecond stamp is > 2^53: sent as the JS double the SDK holds.
    const tsStartNs = (baseMs + step * 9) * 1e6;
    const prefill = step === 1 ? requests : 0;
    const scheduled = step === 1 ? Array.from({ length: requests }, (_, r) => promptLen(r)).reduce((a, b) => a + b, 0) : requests;
    const summary: Attributes = {
      'step.id': stepId, 'step.ts_start_ns': tsStartNs, 'step.ts_end_ns': tsStartNs + 8_200_000, 'step.duration_us': 8200 + step,
      'queue.running_depth': requests, 'queue.waiting_depth': 0,
      'batch.num_prefill_reqs': prefill, 'batch.num_decode_reqs': requests - prefill,
      'batch.scheduled_tokens': scheduled, 'batch.prefill_tokens': step === 1 ? scheduled : 0, 'batch.decode_tokens': step === 1 ? 0 : requests,
      'batch.num_finished': step === steps ? requests : 0, 'batch.num_preempted': 0,
      'kv.usage_gpu_ratio': 0.001 * step + 0.05, 'kv.blocks_total_gpu': 1000, 'kv.blocks_free_gpu': 1000 - 10 * requests - step,
    };
    span.addEvent('step.BATCH_SUMMARY', summary, hr(tMs, step));
    exp.batches.push({
      stepId, timeMs: msOfNs(wireInteger(tsStartNs, protocol)), durationUs: 8200 + step, running: requests, waiting: 0,
      prefillReqs: prefill, decodeReqs: requests - prefill, scheduledTokens: scheduled, kvUsage: 0.001 * step + 0.05,
      prefillTokens: step === 1 ? scheduled : 0, decodeTokens: step === 1 ? 0 : requests, finished: step === steps ? requests : 0, preempted: 0,
      kvBlocksTotal: 1000, kvBlocksFree: 1000 - 10 * requests - step,
    });
    for (let r = 0; r < requests; r++) {
      const external = `chatcmpl-step${seq}r${r}`;
      const internal = `${external}-${(0x9f3a1c20 + r).toString(16)}`;
      const computed = step === 1 ? promptLen(r) : promptLen(r) + step - 1;
      const attrs: Attributes = {
        'step.id': stepId, 'request.id': internal, 'request.phase': step === 1 ? 'PREFILL' : 'DECODE',
        'request.num_prompt_tokens': promptLen(r), 'request.num_computed_tokens': computed, 'request.num_output_tokens': step - 1,
        'request.num_preemptions': 0, 'request.scheduled_tokens_this_step': step === 1 ? promptLen(r) : 1,
        'kv.blocks_allocated_gpu': Math.ceil(computed / 16), 'kv.blocks_cached_gpu': step === 1 ? 0 : 2 * r,
        'request.effective_prompt_len': promptLen(r),
      };
      const at = hr(tMs, 100 + r);
      span.addEvent('step.REQUEST_SNAPSHOT', attrs, at);
      const list = exp.snapshots.get(external) ?? [];
      list.push({
        stepId, timeMs: msOfNs(BigInt(nanosOf(at))), rid: external, phase: step === 1 ? 'PREFILL' : 'DECODE',
        promptTokens: promptLen(r), computedTokens: computed, outputTokens: step - 1, preemptions: 0,
        scheduledTokens: step === 1 ? promptLen(r) : 1, kvBlocksAllocated: Math.ceil(computed / 16), kvBlocksCached: step === 1 ? 0 : 2 * r,
        effectivePromptLen: promptLen(r),
      });
      exp.snapshots.set(external, list);
    }
  }
  span.end(hr(baseMs + steps * 9 + 10));
  return exp;
}

function msOfNs(n: bigint): number {
  return Number(n / 1_000_000n) + Number(n % 1_000_000n) / 1e6;
}

/** The snapshots and batch summaries a store derived equal the ones the fork emitted. */
export function assertStepTrial(exp: StepTrialExpectation, snapshotsOf: (rid: string) => readonly RequestSnapshot[], batches: readonly BatchSummary[], label = ''): void {
  for (const [rid, list] of exp.snapshots) assert.deepEqual(snapshotsOf(rid), list, `${label}: snapshots of ${rid}`);
  const wanted = new Set(exp.batches.map((b) => b.stepId));
  assert.deepEqual(batches.filter((b) => wanted.has(b.stepId)), exp.batches, `${label}: batch summaries`);
}

// ---- Ids the SDK would never make, for spans a receiver must reject ----

/** Random ids, except that the span ids listed in `bad` (by call number) are replaced. */
export function idsWithBadSpans(bad: Map<number, string>): IdGenerator {
  let calls = 0;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('').replace(/^0/, '1');
  return {
    generateTraceId: () => hex(32),
    generateSpanId: () => bad.get(calls++) ?? hex(16),
  };
}

// ---- The exporter's own log (partial_success is reported there) ----

/** Collects what the OpenTelemetry SDK logs at WARN and above while `fn` runs. */
export async function withSdkWarnings<T>(fn: () => Promise<T>): Promise<{ value: T; warnings: string[] }> {
  const warnings: string[] = [];
  const push = (...args: unknown[]) => { warnings.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')); };
  diag.setLogger({ error: push, warn: push, info: () => {}, debug: () => {}, verbose: () => {} }, { logLevel: DiagLogLevel.WARN,
    suppressOverrideMessage: true });
  try {
    return { value: await fn(), warnings };
  } finally {
    diag.disable();
  }
}
