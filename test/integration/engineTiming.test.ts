// OpenTelemetry in a real extension host: the receiver takes spans from the real OpenTelemetry
// JS SDK exporters (protobuf and JSON), and a traced request's report gains the engine's breakdown.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { SpanKind } from '@opentelemetry/api';
import { hoplens, until } from './fixture';
import type { TracedRequest } from '../../src/core/request/index';
import { startFakeEngine } from '../../src/testing/fakeEngine/server';
import type { HopLensApi } from '../../src/extension';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import {
  EXPORT_SUCCESS, ENGINE_CORE_RESOURCE, VLLM_RESOURCE, assertSameSpans, assertStepTrial, exportBatched, exportOnce, idsWithBadSpans,
  llmRequestSpan, loadSpan, makeExporter, recordingTracer, stepTracingSpan, withSdkWarnings, type Protocol,
} from '../unit/otlp/trials';

/** What vLLM's OutputProcessor.do_tracing exports for a finished request (engine-facts §E). */
async function exportLlmRequest(url: string, exporter: 'proto' | 'json', requestId: string, e2eS: number): Promise<void> {
  const exp = exporter === 'proto' ? new ProtoExporter({ url }) : new JsonExporter({ url });
  const provider = new BasicTracerProvider({ resource: new Resource({ 'service.name': 'vllm', 'vllm.process_id': 4242 }), spanProcessors: [new SimpleSpanProcessor(exp)] });
  const tracer = provider.getTracer('vllm.llm_engine');
  const now = Date.now();
  const span = tracer.startSpan('llm_request', { kind: SpanKind.SERVER, startTime: now - e2eS * 1000 });
  span.setAttributes({
    'gen_ai.request.id': requestId,
    'gen_ai.latency.time_to_first_token': 0.0421,
    'gen_ai.latency.e2e': e2eS,
    'gen_ai.latency.time_in_queue': 0.0012,
    'gen_ai.latency.time_in_model_prefill': 0.0305,
    'gen_ai.latency.time_in_model_decode': e2eS - 0.05,
    'gen_ai.latency.time_in_model_inference': e2eS - 0.0195,
    'gen_ai.usage.prompt_tokens': 9,
    'gen_ai.usage.completion_tokens': 12,
    'gen_ai.request.max_tokens': 12,
  });
  span.end(now);
  await provider.forceFlush();
  await provider.shutdown();
}

describe('Engine timing from OpenTelemetry', () => {
  before(async () => {
    await vscode.workspace.getConfiguration('hoplens').update('traces.receiverPort', 0, vscode.ConfigurationTarget.Workspace);
  });
  after(async () => {
    await vscode.commands.executeCommand('hoplens.stopTraceReceiver');
    await vscode.workspace.getConfiguration('hoplens').update('traces.receiverPort', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('receives llm_request spans from the OpenTelemetry SDK over OTLP/HTTP protobuf and JSON', async () => {
    const api = await hoplens();
    const receiver = await vscode.commands.executeCommand<{ url: string }>('hoplens.startTraceReceiver');
    assert.match(receiver.url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
    await exportLlmRequest(receiver.url, 'proto', 'chatcmpl-otel-proto-1', 0.35);
    await exportLlmRequest(receiver.url, 'json', 'chatcmpl-otel-json-1', 0.2);
    const proto = await until('protobuf span', () => api.engineTiming.timing('chatcmpl-otel-proto-1') ?? undefined);
    assert.equal(proto.e2eMs, 350);
    assert.equal(proto.ttftMs, 42.1);
    assert.equal(proto.completionTokens, 12);
    const json = await until('JSON span', () => api.engineTiming.timing('chatcmpl-otel-json-1') ?? undefined);
    assert.equal(json.e2eMs, 200);
  });

  it('adds the engine breakdown and the unmeasured residual to a traced request\'s report', async () => {
    const api = await hoplens();
    const receiver = await vscode.commands.executeCommand<{ url: string }>('hoplens.startTraceReceiver');
    const result = await vscode.commands.executeCommand<TracedRequest>('hoplens.sendTracedRequest', { interactive: false, maxTokens: 12 });
    assert.equal(result.record.error, null);
    assert.equal(api.tracedRequests.last()?.reportShowsEngineTiming, false);
    // vLLM exports this when the request finished, under the external id (engine-facts §E).
    const engineE2eS = Math.max(0.05, (result.metrics.e2eMs! - 20) / 1000);
    await exportLlmRequest(receiver.url, 'proto', result.record.logRequestId, engineE2eS);
    await until('the report to show the engine timing', () => (api.tracedRequests.last()?.reportShowsEngineTiming ? true : undefined));
    const html = api.engineTiming.breakdownHtml(result.record.logRequestId, { ttftContentMs: result.metrics.ttftContentMs, e2eMs: result.metrics.e2eMs })!;
    // The editor's table says what `hoplens otlp` says, row for row (core/otlp/breakdown.ts).
    const residual = result.metrics.e2eMs! - engineE2eS * 1000;
    assert.ok(html.includes(`<th>E2E not measured by the engine</th><td></td><td>${residual.toFixed(1)} ms</td>`), `residual ${residual.toFixed(1)} in ${html}`);
    assert.match(html, /<th>TTFT not measured by the engine<\/th><td><\/td><td>[\d.]+ ms<\/td>/);
    assert.match(html, /<th>queue<\/th><td>1\.2 ms<\/td><td><\/td>/);

    // Joined by request id to the server log's request in the Requests view.
    await api.tracedRequests.openLog(result);
    const rid = result.record.logRequestId;
    await until('the request in the Requests view', () => api.logs.requests()?.rids.includes(rid) || undefined);
    // The row the view puts first under the request (its rendering is unit-tested).
    const line = api.engineTiming.timingLine(rid)!;
    assert.match(line.label, /^engine: e2e [\d.]+ ms$/);
    assert.match(line.description, /queue 1\.2 ms · prefill 30\.5 ms/);
  });

  it('a server exporting spans like vLLM --otlp-traces-endpoint: the report fills in by itself', async () => {
    const api = await hoplens();
    const receiver = await vscode.commands.executeCommand<{ url: string }>('hoplens.startTraceReceiver');
    const fe = await startFakeEngine({ engine: 'vllm', port: 0, schedule: 'first=80,frames=10,every=10', otlpEndpoint: receiver.url });
    const config = vscode.workspace.getConfiguration('hoplens');
    const before = config.get<string>('server.url');
    await config.update('server.url', fe.url, vscode.ConfigurationTarget.Workspace);
    try {
      const result = await vscode.commands.executeCommand<TracedRequest>('hoplens.sendTracedRequest', { interactive: false, maxTokens: 10 });
      assert.equal(result.record.error, null);
      await until('the engine timing from the server\'s own span', () => (api.tracedRequests.last()?.reportShowsEngineTiming ? true : undefined));
      const timing = api.engineTiming.timing(result.record.logRequestId)!;
      // The schedule holds the last of 10 frames until 170 ms after arrival: the engine's own e2e cannot be shorter.
      // (Its upper end is the fake engine's clock on this busy host, not a property of HopLens.)
      assert.ok(timing.e2eMs! >= 165, `engine e2e ${timing.e2eMs} (client ${result.metrics.e2eMs})`);
      assert.equal(timing.completionTokens, 10);
    } finally {
      await config.update('server.url', before, vscode.ConfigurationTarget.Workspace);
      await fe.close();
    }
  });
});

describe('Start Trace Receiver against the official exporters: no span lost silently', () => {
  const BASE_MS = Date.UTC(2026, 10, 29, 9, 0, 0);
  before(async () => {
    await vscode.workspace.getConfiguration('hoplens').update('traces.receiverPort', 0, vscode.ConfigurationTarget.Workspace);
  });
  after(async () => {
    await vscode.commands.executeCommand('hoplens.stopTraceReceiver');
    await vscode.workspace.getConfiguration('hoplens').update('traces.receiverPort', undefined, vscode.ConfigurationTarget.Workspace);
  });

  /** The spans of the store that these sent spans became (the store also holds other tests' spans). */
  const storedFor = (api: HopLensApi, sent: ReadableSpan[]) => {
    const ids = new Set(sent.map((s) => s.spanContext().spanId));
    return api.engineTiming.spans().filter((s) => ids.has(s.spanId));
  };

  it('mixed batch with a bad span, 5,000 spans gzip, six concurrent exporters, step tracing: every span once, field by field', async () => {
    const api = await hoplens();
    const receiver = await vscode.commands.executeCommand<{ url: string }>('hoplens.startTraceReceiver');
    const before = api.engineTiming.stats().received;
    const sent: Array<{ spans: ReadableSpan[]; protocol: Protocol }> = [];
    for (const protocol of ['protobuf', 'json'] as Protocol[]) {
      const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine', idsWithBadSpans(new Map([[1, 'xyz']])));
      for (let i = 0; i < 3; i++) llmRequestSpan(tracer, `chatcmpl-ext-${protocol}-${i}`, BASE_MS, i, { big: i === 0 });
      const spans = finished();
      const { value: r, warnings } = await withSdkWarnings(() => exportOnce(makeExporter(receiver.url, { protocol }), spans));
      assert.equal(r.code, EXPORT_SUCCESS);
      assert.match(warnings.join('\n'), /Partial Success.*1 of 3 span\(s\) rejected/);
      sent.push({ protocol, spans: spans.filter((s) => s.spanContext().spanId !== 'xyz') });
    }
    sent.push({ protocol: 'protobuf', spans: await exportBatched(receiver.url, { protocol: 'protobuf', gzip: true }, ENGINE_CORE_RESOURCE, 'vllm.model_loader', (t) => {
      for (let n = 0; n < 5000; n++) loadSpan(t, BASE_MS, n);
    }, 5000) });
    sent.push(...await Promise.all(Array.from({ length: 6 }, async (_, e) => {
      const protocol: Protocol = e % 2 ? 'json' : 'protobuf';
      return { protocol, spans: await exportBatched(receiver.url, { protocol, gzip: e >= 3 }, { ...VLLM_RESOURCE, 'vllm.process_id': 7000 + e }, 'vllm.llm_engine',
        (t) => { for (let i = 0; i < 100; i++) llmRequestSpan(t, `chatcmpl-ext-c${e}-${i}`, BASE_MS, i); }, 50) };
    })));
    let step: ReturnType<typeof stepTracingSpan> | undefined;
    sent.push({ protocol: 'protobuf', spans: await exportBatched(receiver.url, { protocol: 'protobuf' }, ENGINE_CORE_RESOURCE, 'vllm.scheduler.step', (t) => {
      step = stepTracingSpan(t, BASE_MS, 9, 8, 4, 'protobuf');
    }) });

    const all = sent.flatMap((r) => r.spans);
    const protocolOf = new Map(sent.flatMap((r) => r.spans.map((s) => [s.spanContext().spanId, r.protocol] as const)));
    assert.equal(api.engineTiming.stats().received - before, all.length);
    assertSameSpans(all, storedFor(api, all), (s) => protocolOf.get(s.spanContext().spanId)!, 'Start Trace Receiver');
    assertStepTrial(step!, (rid) => api.engineTiming.snapshots(rid), api.engineTiming.batches(), 'Start Trace Receiver');
    assert.equal(api.engineTiming.timing('chatcmpl-ext-c5-99')!.promptTokens, 812 + 99);
    assert.match(api.engineTiming.statusText ?? '', /^\$\(radio-tower\) OTLP :\d+ · \d+ spans$/);
  });
  // A sink that fails (503, refusing, the exporter's retry arriving once): test/unit/providers/engineTiming.test.ts.
});

describe('Engine timing from a Jaeger query API', () => {
  it('fetches a request\'s spans by request id from every service when hoplens.traces.queryUrl is set, and says which query ran', async () => {
    const http = await import('node:http');
    const t0 = Date.now() * 1000;
    const trace = {
      traceID: '4bf92f3577b34da6a3ce929d0e0e4736',
      spans: [{
        traceID: '4bf92f3577b34da6a3ce929d0e0e4736', spanID: '00f067aa0ba902b7', operationName: 'llm_request', references: [],
        startTime: t0, duration: 1_500_000, processID: 'p1',
        tags: [
          { key: 'span.kind', type: 'string', value: 'server' },
          { key: 'gen_ai.request.id', type: 'string', value: 'chatcmpl-from-jaeger' },
          { key: 'gen_ai.latency.e2e', type: 'float64', value: 1.5 },
          { key: 'gen_ai.latency.time_to_first_token', type: 'float64', value: 0.25 },
        ],
        logs: [],
      }],
      // vLLM launched without OTEL_SERVICE_NAME: the SDK's default service name.
      processes: { p1: { serviceName: 'unknown_service', tags: [] } },
    };
    const asked: string[] = [];
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      asked.push(url.pathname + url.search);
      res.setHeader('Content-Type', 'application/json');
      if (url.pathname === '/api/services') { res.end(JSON.stringify({ data: ['jaeger-all-in-one', 'unknown_service'], total: 2, errors: null })); return; }
      if (url.pathname === '/api/traces') {
        const hit = (url.searchParams.get('tags') ?? '').includes('chatcmpl-from-jaeger') && url.searchParams.get('service') === 'unknown_service';
        res.end(JSON.stringify({ data: hit ? [trace] : [], total: 0, limit: 0, offset: 0, errors: null }));
        return;
      }
      res.statusCode = 404; res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const config = vscode.workspace.getConfiguration('hoplens');
    await config.update('traces.queryUrl', base, vscode.ConfigurationTarget.Workspace);
    try {
      const api = await hoplens();
      assert.equal(api.engineTiming.timing('chatcmpl-from-jaeger'), null);
      const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('hoplens.showEngineTiming', 'chatcmpl-from-jaeger');
      assert.ok(panel);
      const timing = api.engineTiming.timing('chatcmpl-from-jaeger')!;
      assert.equal(timing.e2eMs, 1500);
      assert.equal(timing.ttftMs, 250);
      assert.ok(asked.some((a) => a.startsWith('/api/traces?')), asked.join(' '));
      // The view says which query ran.
      // The view says which query ran (the fleet's Jaeger client: vLLM's default service first, where the trace was found).
      const html = panel.webview.html;
      assert.ok(html.includes(`Jaeger at ${base}: gen_ai.request.id or rid = chatcmpl-from-jaeger | `), html);
      assert.ok(html.includes(' in 2 service(s): unknown_service, jaeger-all-in-one, '), html);
      assert.ok(html.includes('; 1 trace(s) in unknown_service (gen_ai.request.id)'), html);
      panel.dispose();
    } finally {
      await config.update('traces.queryUrl', undefined, vscode.ConfigurationTarget.Workspace);
      server.close();
    }
  });
});

describe('Engine timing from a Collector file', () => {
  it('reads the file exporter\'s JSON Lines (skipping a bad line) with step snapshots per request', async () => {
    const api = await hoplens();
    const { join } = await import('node:path');
    const file = vscode.Uri.file(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'otlp', 'collector_export.jsonl'));
    const spans = await vscode.commands.executeCommand<number>('hoplens.openOtlpFile', file);
    assert.equal(spans, 4);
    const t = api.engineTiming.timing('chatcmpl-c0ffee01')!;
    assert.equal(t.e2eMs, 2401.2);
    assert.equal(api.engineTiming.snapshots('chatcmpl-c0ffee01').length, 2);
    assert.ok(api.engineTiming.timing('cmpl-c0ffee02-0'), 'completions ids join as the request logger prints them (cmpl-<id>-0)');
    const panel = await vscode.commands.executeCommand<vscode.WebviewPanel>('hoplens.showEngineTiming', 'chatcmpl-c0ffee01');
    assert.equal(panel.title, 'Engine chatcmpl-c0ffee01');
    panel.dispose();
  });
});

describe('Stop Trace Receiver', () => {
  it('closes the port: a span sent afterwards is refused, and the receiver says it is stopped', async () => {
    const api = await hoplens();
    await vscode.workspace.getConfiguration('hoplens').update('traces.receiverPort', 0, vscode.ConfigurationTarget.Workspace);
    const receiver = await vscode.commands.executeCommand<{ url: string }>('hoplens.startTraceReceiver');
    assert.ok(api.engineTiming.running);
    const post = () => fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"resourceSpans":[]}' });
    assert.equal((await post()).status, 200, 'listening before the stop');
    await vscode.commands.executeCommand('hoplens.stopTraceReceiver');
    assert.equal(api.engineTiming.running, false);
    assert.equal(api.engineTiming.endpoint, undefined);
    await assert.rejects(post(), (e: Error & { cause?: { code?: string } }) => e.cause?.code === 'ECONNREFUSED', 'the port is closed');
  });
});
