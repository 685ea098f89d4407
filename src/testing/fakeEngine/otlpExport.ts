// Like vLLM started with --otlp-traces-endpoint: when a request finishes, export one
// llm_request span (OTLP/HTTP protobuf) with the gen_ai.* attributes of engine-facts §E.
// Like vLLM, a valid `traceparent` on the request makes the span its child (engine-facts §E).
// Fire and forget: no receiver listening is not an error for the server.
// As the OpenTelemetry SDK does, OTEL_SERVICE_NAME names the service and OTEL_RESOURCE_ATTRIBUTES
// (`key=value,…`, values percent-encoded) adds resource attributes, e.g. a pod's k8s.pod.name.
import * as http from 'node:http';
import { randomBytes } from 'node:crypto';
import { encodeExportRequestProtobuf } from '../../core/otlp/decode';

export interface FinishedRequestTiming {
  /** gen_ai.request.id as vLLM sets it: the external id (chatcmpl-<id>, cmpl-<id>). */
  requestId: string;
  arrivedEpochMs: number;
  queueMs: number;
  firstTokenMs: number;
  e2eMs: number;
  promptTokens: number;
  completionTokens: number;
  maxTokens: number;
  /** The request's W3C `traceparent`, when it sent a valid one: the span joins that trace, its parent the caller's span. */
  traceparent?: { traceId: string; parentId: string };
}

/** The span's resource: service.name (OTEL_SERVICE_NAME, else vLLM's own default name), the process id, OTEL_RESOURCE_ATTRIBUTES. */
export function resourceAttributes(env: NodeJS.ProcessEnv = process.env): Array<[string, string | number]> {
  const given: Array<[string, string]> = [];
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    let value = pair.slice(eq + 1).trim();
    try { value = decodeURIComponent(value); } catch { /* kept as written */ }
    given.push([pair.slice(0, eq).trim(), value]);
  }
  // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES (the SDK's rule).
  const service = env.OTEL_SERVICE_NAME?.trim() || given.find(([k]) => k === 'service.name')?.[1] || 'vllm';
  return [['service.name', service], ['vllm.process_id', process.pid], ...given.filter(([k]) => k !== 'service.name')];
}

const nanos = (epochMs: number) => String(BigInt(Math.round(epochMs * 1000)) * 1000n);

export function exportLlmRequestSpan(endpoint: string, t: FinishedRequestTiming): void {
  const attr = (key: string, v: number | string) => ({
    key, value: typeof v === 'string' ? { stringValue: v } : Number.isInteger(v) ? { intValue: v } : { doubleValue: v },
  });
  const s = (ms: number) => ms / 1000;
  const body = encodeExportRequestProtobuf({
    resourceSpans: [{
      resource: { attributes: resourceAttributes().map(([k, v]) => attr(k, v)) },
      scopeSpans: [{
        scope: { name: 'vllm.llm_engine' },
        spans: [{
          traceId: t.traceparent ? Buffer.from(t.traceparent.traceId, 'hex') : randomBytes(16), spanId: randomBytes(8),
          ...(t.traceparent ? { parentSpanId: Buffer.from(t.traceparent.parentId, 'hex') } : {}),
          name: 'llm_request', kind: 2, // SERVER
          startTimeUnixNano: nanos(t.arrivedEpochMs), endTimeUnixNano: nanos(t.arrivedEpochMs + t.e2eMs),
          attributes: [
            attr('gen_ai.request.id', t.requestId),
            attr('gen_ai.latency.time_to_first_token', s(t.firstTokenMs)),
            attr('gen_ai.latency.e2e', s(t.e2eMs)),
            attr('gen_ai.latency.time_in_queue', s(t.queueMs)),
            attr('gen_ai.latency.time_in_model_prefill', s(t.firstTokenMs - t.queueMs)),
            attr('gen_ai.latency.time_in_model_decode', s(t.e2eMs - t.firstTokenMs)),
            attr('gen_ai.latency.time_in_model_inference', s(t.e2eMs - t.queueMs)),
            attr('gen_ai.usage.prompt_tokens', t.promptTokens),
            attr('gen_ai.usage.completion_tokens', t.completionTokens),
            attr('gen_ai.request.max_tokens', t.maxTokens),
          ],
        }],
      }],
    }],
  });
  const req = http.request(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': body.length }, timeout: 2000 });
  req.on('error', () => { /* no receiver: nothing to do */ });
  req.on('timeout', () => req.destroy());
  req.end(Buffer.from(body));
}
