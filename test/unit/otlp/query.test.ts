// Fetching a request's spans from Jaeger / Tempo HTTP APIs: small fake backends on 127.0.0.1
// that answer in each backend's documented shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { queryRequestSpans, detectBackend } from '../../../src/core/fleet/traceLookup';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import { FIXTURES } from './helpers';

type Handler = (url: URL, res: http.ServerResponse) => void;

async function fakeServer(handler: Handler): Promise<{ base: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    seen.push(url.pathname + url.search);
    handler(url, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }),
  };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const T0_US = Date.UTC(2025, 10, 29, 9, 0, 0) * 1000;

const jaegerTrace = {
  traceID: '4bf92f3577b34da6a3ce929d0e0e4736',
  spans: [{
    traceID: '4bf92f3577b34da6a3ce929d0e0e4736', spanID: '00f067aa0ba902b7', operationName: 'llm_request',
    references: [{ refType: 'CHILD_OF', traceID: '4bf92f3577b34da6a3ce929d0e0e4736', spanID: 'a1b2c3d4e5f60718' }],
    startTime: T0_US, duration: 2404200, processID: 'p1',
    tags: [
      { key: 'otel.library.name', type: 'string', value: 'vllm.llm_engine' },
      { key: 'span.kind', type: 'string', value: 'server' },
      { key: 'gen_ai.latency.time_to_first_token', type: 'float64', value: 0.2105 },
      { key: 'gen_ai.latency.e2e', type: 'float64', value: 2.4012 },
      { key: 'gen_ai.latency.time_in_queue', type: 'float64', value: 0.0301 },
      { key: 'gen_ai.usage.prompt_tokens', type: 'int64', value: 1024 },
      { key: 'gen_ai.usage.completion_tokens', type: 'int64', value: 256 },
      { key: 'gen_ai.request.id', type: 'string', value: 'chatcmpl-c0ffee01' },
    ],
    logs: [{ timestamp: T0_US + 183000, fields: [{ key: 'event', type: 'string', value: 'api.FIRST_RESPONSE_FROM_CORE' }] }],
  }],
  processes: { p1: { serviceName: 'vllm', tags: [{ key: 'vllm.process_id', type: 'int64', value: 31337 }] } },
};

test('Jaeger: auto-detected, searched by service and the gen_ai.request.id tag, spans converted', async () => {
  const srv = await fakeServer((url, res) => {
    if (url.pathname === '/api/services') return json(res, 200, { data: ['vllm', 'jaeger-all-in-one'], total: 2, errors: null });
    if (url.pathname === '/api/traces') {
      const tags = JSON.parse(url.searchParams.get('tags') ?? '{}');
      const hit = url.searchParams.get('service') === 'vllm' && tags['gen_ai.request.id'] === 'chatcmpl-c0ffee01';
      return json(res, 200, { data: hit ? [jaegerTrace] : [], total: 0, limit: 0, offset: 0, errors: null });
    }
    json(res, 404, { errors: [{ code: 404, msg: 'not found' }] });
  });
  try {
    assert.equal(await detectBackend(srv.base), 'jaeger');
    const r = await queryRequestSpans({ baseUrl: srv.base + '/', requestId: 'chatcmpl-c0ffee01' });
    assert.equal(r.backend, 'jaeger');
    assert.deepEqual(r.traceIds, ['4bf92f3577b34da6a3ce929d0e0e4736']);
    const s = r.spans[0];
    assert.equal(s.kind, 'SERVER');
    assert.equal(s.scope, 'vllm.llm_engine');
    assert.equal(s.parentSpanId, 'a1b2c3d4e5f60718');
    assert.equal(s.resource['service.name'], 'vllm');
    assert.equal(s.events[0].name, 'api.FIRST_RESPONSE_FROM_CORE');
    assert.equal(s.events[0].timeMs - s.startMs, 183);
    const store = new SpanStore();
    store.add(r.spans);
    const t = store.timing('chatcmpl-c0ffee01')!;
    assert.ok(Math.abs(t.ttftMs! - 210.5) < 1e-9);
    assert.equal(t.promptTokens, 1024);
    const none = await queryRequestSpans({ baseUrl: srv.base, requestId: 'chatcmpl-unknown', backend: 'jaeger' });
    assert.deepEqual(none.spans, []);
  } finally {
    await srv.close();
  }
});

test('Jaeger: vLLM without OTEL_SERVICE_NAME is filed under unknown_service; the lookup searches every service and says which', async () => {
  const asked: string[] = [];
  const srv = await fakeServer((url, res) => {
    if (url.pathname === '/api/services') return json(res, 200, { data: ['jaeger-all-in-one', 'frontend', 'unknown_service'], total: 3, errors: null });
    if (url.pathname === '/api/traces') {
      const service = url.searchParams.get('service') ?? '';
      asked.push(service);
      const tags = JSON.parse(url.searchParams.get('tags') ?? '{}');
      const hit = service === 'unknown_service' && tags['gen_ai.request.id'] === 'chatcmpl-c0ffee01';
      const trace = { ...jaegerTrace, processes: { p1: { serviceName: 'unknown_service', tags: [] } } };
      return json(res, 200, { data: hit ? [trace] : [], total: 0, limit: 0, offset: 0, errors: null });
    }
    json(res, 404, { errors: [{ code: 404, msg: 'not found' }] });
  });
  try {
    const r = await queryRequestSpans({ baseUrl: srv.base, requestId: 'chatcmpl-c0ffee01', backend: 'jaeger' });
    assert.equal(r.spans.length, 1);
    assert.equal(r.spans[0].resource['service.name'], 'unknown_service');
    assert.deepEqual([...new Set(asked)].sort(), ['frontend', 'jaeger-all-in-one', 'unknown_service']);
    // The fleet's Jaeger client: vLLM's default service asked first, every service listed, where the trace was found.
    assert.ok(r.query.startsWith(`Jaeger at ${srv.base}: gen_ai.request.id or rid = chatcmpl-c0ffee01 | `), r.query);
    assert.match(r.query, / in 3 service\(s\): unknown_service, frontend, jaeger-all-in-one, .*; 1 trace\(s\) in unknown_service \(gen_ai\.request\.id\)$/);

    // With the service set (hoplens.traces.queryService), only that one is asked — and the view says so.
    asked.length = 0;
    const named = await queryRequestSpans({ baseUrl: srv.base, requestId: 'chatcmpl-c0ffee01', backend: 'jaeger', service: 'vllm' });
    assert.deepEqual([...new Set(asked)], ['vllm']);
    assert.deepEqual(named.spans, []);
    assert.match(named.query, / in service "vllm" only \(as set\), .*; no trace found$/);
  } finally {
    await srv.close();
  }
});

// The Tempo lookup moved from Tempo's tag search (`/api/search?tags=…`) to the fleet's Tempo client
// (TraceQL `q=…`, then the trace by id, v2 falling back to v1): the asserted query changed on purpose.
test('Tempo: auto-detected, a TraceQL search then the trace as OTLP JSON (v1 batches and v2 shapes)', async () => {
  const line = JSON.parse(readFileSync(join(FIXTURES, 'collector_export.jsonl'), 'utf8').split('\n')[0]);
  const srv = await fakeServer((url, res) => {
    if (url.pathname === '/api/echo') { res.writeHead(200, { 'Content-Type': 'text/plain' }); return res.end('echo'); }
    if (url.pathname === '/api/search') {
      const q = url.searchParams.get('q') ?? '';
      const id = q.startsWith('{ span.gen_ai.request.id = "cmpl-c0ffee02-0" || ') ? '5b8efff798038103d269b633813fc60c'
        : q.startsWith('{ span.gen_ai.request.id = "chatcmpl-c0ffee01" || ') ? '4bf92f3577b34da6a3ce929d0e0e4736' : null;
      return json(res, 200, { traces: id ? [{ traceID: id, rootServiceName: 'vllm' }] : [], metrics: {} });
    }
    // A Tempo before 2.5 has no v2 route (Go's plain-text 404); the v1 route answers `batches`.
    if (url.pathname === '/api/v2/traces/5b8efff798038103d269b633813fc60c') { res.writeHead(404, { 'Content-Type': 'text/plain' }); return res.end('404 page not found\n'); }
    if (url.pathname === '/api/traces/5b8efff798038103d269b633813fc60c') return json(res, 200, { batches: line.resourceSpans });
    if (url.pathname === '/api/v2/traces/4bf92f3577b34da6a3ce929d0e0e4736') return json(res, 200, { trace: { resourceSpans: line.resourceSpans } });
    json(res, 404, { error: 'not found' });
  });
  const searches = () => srv.seen.filter((p) => p.startsWith('/api/search?')).map((p) => new URLSearchParams(p.slice('/api/search?'.length)));
  try {
    const r = await queryRequestSpans({ baseUrl: srv.base, requestId: 'cmpl-c0ffee02-0' });
    assert.equal(r.backend, 'tempo');
    assert.deepEqual(r.traceIds, ['5b8efff798038103d269b633813fc60c']);
    const store = new SpanStore();
    store.add(r.spans);
    assert.ok(Math.abs(store.timing('cmpl-c0ffee02-0')!.e2eMs! - 900.3) < 1e-9);
    const first = searches()[0];
    assert.match(first.get('q') ?? '', /^\{ span\.gen_ai\.request\.id = "cmpl-c0ffee02-0" \|\| .*span\.rid = "cmpl-c0ffee02-0".* \}$/);
    assert.equal(first.get('tags'), null, 'no tag search any more');
    assert.ok(Number(first.get('end')) - Number(first.get('start')) >= 7 * 24 * 3600, 'a week back, in unix seconds');
    const v2 = await queryRequestSpans({ baseUrl: srv.base, requestId: 'chatcmpl-c0ffee01', backend: 'tempo' });
    assert.equal(v2.spans.length, 2);
    await queryRequestSpans({ baseUrl: srv.base, requestId: 'chatcmpl-c0ffee01', backend: 'tempo', service: 'vllm' });
    assert.match(searches().at(-1)?.get('q') ?? '', /^\{ \(span\.gen_ai\.request\.id = "chatcmpl-c0ffee01" \|\| .*\) && \(resource\.service\.name = "vllm"\) \}$/);
    const none = await queryRequestSpans({ baseUrl: srv.base, requestId: 'chatcmpl-gone', backend: 'tempo' });
    assert.deepEqual({ ...none, query: '' }, { backend: 'tempo', traceIds: [], spans: [], query: '', notes: [] });
    assert.match(none.query, new RegExp(`^Tempo at ${srv.base.replace(/\./g, '\\.')}: \\{ span\\.gen_ai\\.request\\.id = "chatcmpl-gone" .*; no trace found$`));
  } finally {
    await srv.close();
  }
});

test('clear errors: unreachable, timeout, HTTP error, not a tracing backend, bad URL', async () => {
  const dead = await fakeServer(() => {});
  const deadBase = dead.base;
  await dead.close();
  await assert.rejects(queryRequestSpans({ baseUrl: deadBase, requestId: 'x', backend: 'jaeger' }), /cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/services.*ECONNREFUSED/);

  const slow = await fakeServer(() => { /* never answers */ });
  try {
    await assert.rejects(queryRequestSpans({ baseUrl: slow.base, requestId: 'x', backend: 'tempo', timeoutMs: 200 }), /no (complete )?answer from .*\/api\/search.* within 200 ms/);
  } finally {
    await slow.close();
  }

  const broken = await fakeServer((url, res) => {
    if (url.pathname === '/api/traces') return json(res, 500, { errors: [{ msg: 'storage down' }] });
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html>grafana</html>');
  });
  try {
    await assert.rejects(queryRequestSpans({ baseUrl: broken.base, requestId: 'x', backend: 'jaeger', service: 'vllm' }), /HTTP 500 from .*storage down/);
    await assert.rejects(queryRequestSpans({ baseUrl: broken.base, requestId: 'x' }), /does not look like Jaeger or Tempo/);
  } finally {
    await broken.close();
  }
  await assert.rejects(queryRequestSpans({ baseUrl: 'localhost:16686', requestId: 'x' }), /must start with http:\/\//);
});
