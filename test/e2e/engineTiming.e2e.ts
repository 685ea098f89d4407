// A user starts the trace receiver from the palette; spans from the OpenTelemetry SDK (as vLLM
// sends them) show up in the status bar count.
import * as assert from 'node:assert/strict';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { SpanKind } from '@opentelemetry/api';
import { useWorkbench, type WorkbenchSession } from './workbench';

describe('Trace receiver, in the browser', function () {
  this.timeout(180_000);
  const session = useWorkbench(() => ({ workspaceSettings: { 'hoplens.traces.receiverPort': 0 } }));
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  it('palette → Start Trace Receiver → the status bar counts the spans vLLM exports', async () => {
    await s.openFile('logs/vllm.log'); // any editor, so the status bar is in its usual state
    await s.runCommand('HopLens: Start Trace Receiver');
    const item = s.page.locator('.statusbar-item', { hasText: /OTLP :\d+ · 0 spans/ }).first();
    await item.waitFor({ timeout: 30_000 });
    const port = Number(/OTLP :(\d+)/.exec(await item.innerText())![1]);
    assert.ok(port > 0);

    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` }))] });
    const span = provider.getTracer('vllm.llm_engine').startSpan('llm_request', { kind: SpanKind.SERVER });
    span.setAttributes({ 'gen_ai.request.id': 'chatcmpl-e2e-1', 'gen_ai.latency.e2e': 0.25, 'gen_ai.latency.time_to_first_token': 0.04 });
    span.end();
    await provider.forceFlush();
    await provider.shutdown();

    await s.page.locator('.statusbar-item', { hasText: /OTLP :\d+ · 1 span\b/ }).first().waitFor({ timeout: 15_000 });
    await s.screenshot('trace-receiver-status');
  });
});
