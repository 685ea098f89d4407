// Sends the vLLM-shaped fixture spans through the real OpenTelemetry JS SDK and its OTLP/HTTP
// exporters (protobuf and JSON), as vLLM's Python exporter would to our receiver.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { makeTempDir } from '../../harness/tempDirs';

export const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'otlp');

interface FixtureEvent { name?: string; offsetMs: number; attributes: Attributes }
export interface VllmFixture {
  resource: Attributes;
  llm_requests: Array<{ startOffsetMs: number; endOffsetMs: number; attributes: Attributes; events: FixtureEvent[] }>;
  scheduler_steps: { name: string; scope: string; startOffsetMs: number; endOffsetMs: number;
    batch_summaries: FixtureEvent[]; request_snapshots: FixtureEvent[] };
  llm_core: { scope: string; startOffsetMs: number; endOffsetMs: number; attributes: Attributes; events: FixtureEvent[] };
}

export function loadVllmFixture(): VllmFixture {
  return JSON.parse(readFileSync(join(FIXTURES, 'vllm_spans.json'), 'utf8')) as VllmFixture;
}

/** Exports every fixture span to `url` with the SDK; resolves once the exporter got its answer. */
export async function exportFixtureWithSdk(url: string, protocol: 'protobuf' | 'json', baseMs: number, batch = false): Promise<void> {
  const fx = loadVllmFixture();
  const exporter = protocol === 'protobuf' ? new ProtoExporter({ url }) : new JsonExporter({ url });
  const provider = new BasicTracerProvider({ resource: new Resource(fx.resource) });
  provider.addSpanProcessor(batch ? new BatchSpanProcessor(exporter, { scheduledDelayMillis: 50 }) : new SimpleSpanProcessor(exporter));
  const engine = provider.getTracer('vllm.llm_engine');
  for (const r of fx.llm_requests) {
    const span = engine.startSpan('llm_request', { kind: SpanKind.SERVER, startTime: baseMs + r.startOffsetMs, attributes: r.attributes });
    for (const ev of r.events) span.addEvent(ev.name!, ev.attributes, baseMs + ev.offsetMs);
    span.end(baseMs + r.endOffsetMs);
  }
  const st = fx.scheduler_steps;
  const steps = provider.getTracer(st.scope).startSpan(st.name, { kind: SpanKind.INTERNAL, startTime: baseMs + st.startOffsetMs });
  for (const ev of st.batch_summaries) steps.addEvent('step.BATCH_SUMMARY', ev.attributes, baseMs + ev.offsetMs);
  for (const ev of st.request_snapshots) steps.addEvent('step.REQUEST_SNAPSHOT', ev.attributes, baseMs + ev.offsetMs);
  steps.end(baseMs + st.endOffsetMs);
  const core = provider.getTracer(fx.llm_core.scope).startSpan('llm_core', { kind: SpanKind.INTERNAL, startTime: baseMs + fx.llm_core.startOffsetMs, attributes: fx.llm_core.attributes });
  for (const ev of fx.llm_core.events) core.addEvent(ev.name!, ev.attributes, baseMs + ev.offsetMs);
  core.end(baseMs + fx.llm_core.endOffsetMs);
  await provider.forceFlush();
  await provider.shutdown();
}

export function tempDir(prefix = 'hoplens-otlp-'): string {
  return makeTempDir(prefix).path;
}
