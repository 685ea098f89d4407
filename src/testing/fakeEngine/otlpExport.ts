// Like an engine started with an OTLP traces endpoint (vLLM's --otlp-traces-endpoint): when a
// request finishes, export the span its imitation describes (OTLP/HTTP protobuf; vLLM's llm_request
// with the gen_ai.* attributes of engine-facts §E, src/engines/vllm/fake.ts). A valid `traceparent`
// on the request makes the span its child (engine-facts §E).
// Fire and forget: no receiver listening is not an error for the server.
// As the OpenTelemetry SDK does, OTEL_SERVICE_NAME names the service and OTEL_RESOURCE_ATTRIBUTES
// (`key=value,…`, values percent-encoded) adds resource attributes, e.g. a pod's k8s.pod.name.
import * as http from 'node:http';
import { randomBytes } from 'node:crypto';
import { encodeExportRequestProtobuf } from '../../core/otlp/decode';
import type { ImitatedSpan } from '../../engines/fake';

/**
 * The span's resource: service.name (OTEL_SERVICE_NAME, else the engine's own default name), the
 * process id under the engine's attribute, OTEL_RESOURCE_ATTRIBUTES.
 */
export function resourceAttributes(span: Pick<ImitatedSpan, 'defaultService' | 'processAttribute'>, env: NodeJS.ProcessEnv = process.env)
  : Array<[string, string | number]> {
  const given: Array<[string, string]> = [];
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    let value = pair.slice(eq + 1).trim();
    try { value = decodeURIComponent(value); } catch { /* kept as written */ }
    given.push([pair.slice(0, eq).trim(), value]);
  }
  // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES (the SDK's rule).
  const service = env.OTEL_SERVICE_NAME?.trim() || given.find(([k]) => k === 'service.name')?.[1] || span.defaultService;
  return [['service.name', service], [span.processAttribute, process.pid], ...given.filter(([k]) => k !== 'service.name')];
}

const nanos = (epochMs: number) => String(BigInt(Math.round(epochMs * 1000)) * 1000n);

export function exportSpan(endpoint: string, span: ImitatedSpan): void {
  const attr = (key: string, v: number | string) => ({
    key, value: typeof v === 'string' ? { stringValue: v } : Number.isInteger(v) ? { intValue: v } : { doubleValue: v },
  });
  const body = encodeExportRequestProtobuf({
    resourceSpans: [{
      resource: { attributes: resourceAttributes(span).map(([k, v]) => attr(k, v)) },
      scopeSpans: [{
        scope: { name: span.scope },
        spans: [{
          traceId: span.traceparent ? Buffer.from(span.traceparent.traceId, 'hex') : randomBytes(16), spanId: randomBytes(8),
          ...(span.traceparent ? { parentSpanId: Buffer.from(span.traceparent.parentId, 'hex') } : {}),
          name: span.name, kind: span.kind,
          startTimeUnixNano: nanos(span.startEpochMs), endTimeUnixNano: nanos(span.endEpochMs),
          attributes: span.attributes.map(([k, v]) => attr(k, v)),
        }],
      }],
    }],
  });
  const req = http.request(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': body.length }, timeout: 2000 });
  req.on('error', () => { /* no receiver: nothing to do */ });
  req.on('timeout', () => req.destroy());
  req.end(Buffer.from(body));
}
