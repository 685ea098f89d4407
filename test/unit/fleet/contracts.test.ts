// Tempo and Loki are AGPL: never built or run here. Their clients are held to the responses of
// their HTTP API documentation, served exactly in those shapes by a loopback server that also
// records what the client asked (TraceQL, LogQL, time bounds, tenant and credentials headers).
// Also: store URLs and time windows as a user types them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { json, store } from './loopbackStore';
import { TempoClient, requestTraceQl } from '../../../src/core/fleet/tempo';
import { LokiClient, requestLogQl } from '../../../src/core/fleet/loki';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import { parseWindow } from '../../../src/core/fleet/window';
import { FleetError } from '../../../src/core/fleet/http';
import { traceAttributeValues, logSearchTerms } from '../../../src/core/fleet/requestIds';

const WINDOW = { startMs: Date.UTC(2026, 11, 2, 9, 0, 0), endMs: Date.UTC(2026, 11, 2, 10, 0, 0) };

// The documented TraceQL search answer (api_docs "Example of TraceQL search"), for our request.
const TEMPO_SEARCH = {
  traces: [{
    traceID: '2f3e0cee77ae5dc9c17ade3689eb2e54', rootServiceName: 'vllm-decode', rootTraceName: 'llm_request',
    startTimeUnixNano: '1796205600100000000', durationMs: 557,
    spanSets: [{ spans: [{ spanID: '563d623c76514f8e', startTimeUnixNano: '1796205600100000000', durationNanos: '446979497',
      attributes: [{ key: 'gen_ai.request.id', value: { stringValue: 'chatcmpl-req-42' } }] }], matched: 1 }],
  }],
  metrics: { totalBlocks: 13 },
};

/** A trace as Tempo's query endpoints return it: OTLP JSON with base64 ids (protobuf's JSON mapping). */
function tempoTrace(key: 'resourceSpans' | 'batches'): unknown {
  return {
    [key]: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'vllm-decode' } }] },
      scopeSpans: [{
        scope: { name: 'vllm.llm_engine' },
        spans: [{
          traceId: Buffer.from('2f3e0cee77ae5dc9c17ade3689eb2e54', 'hex').toString('base64'),
          spanId: Buffer.from('563d623c76514f8e', 'hex').toString('base64'),
          name: 'llm_request', kind: 'SPAN_KIND_SERVER',
          startTimeUnixNano: '1796205600100000000', endTimeUnixNano: '1796205600547000000',
          attributes: [{ key: 'gen_ai.request.id', value: { stringValue: 'chatcmpl-req-42' } }],
          status: {},
        }],
      }],
    }],
  };
}

test('Tempo: TraceQL search over the window in unix seconds, then the trace by id from /api/v2/traces', async () => {
  const s = await store((q, res) => {
    if (q.path === '/api/search') return json(res, 200, TEMPO_SEARCH);
    if (q.path === '/api/v2/traces/2f3e0cee77ae5dc9c17ade3689eb2e54') return json(res, 200, { trace: tempoTrace('resourceSpans') });
    json(res, 404, {});
  });
  try {
    const a = await new TempoClient(parseStoreUrl(`tempo+${s.base}`), { credentials: { bearerToken: 'tk' } }).findByRequestId(['req-42'], WINDOW);
    assert.deepEqual(a.traceIds, ['2f3e0cee77ae5dc9c17ade3689eb2e54']);
    assert.deepEqual(a.spans.map((x) => [x.traceId, x.spanId, x.kind, x.resource['service.name'], x.attributes['gen_ai.request.id']]), [
      ['2f3e0cee77ae5dc9c17ade3689eb2e54', '563d623c76514f8e', 'SERVER', 'vllm-decode', 'chatcmpl-req-42'],
    ]);
    const search = s.seen[0];
    assert.equal(search.query.get('q'), '{ span.gen_ai.request.id = "req-42" || span.gen_ai.request.id = "chatcmpl-req-42"'
      + ' || span.gen_ai.request.id = "cmpl-req-42-0"'
      + ' || span.rid = "req-42" || span.rid = "chatcmpl-req-42" || span.rid = "cmpl-req-42-0" }');
    assert.deepEqual([search.query.get('start'), search.query.get('end')], [String(WINDOW.startMs / 1000), String(WINDOW.endMs / 1000)]);
    assert.equal(search.headers.authorization, 'Bearer tk');
  } finally { await s.close(); }
});

test('Tempo before 2.5 (no /api/v2): the trace from /api/traces as `batches`; an unknown trace is empty, not an error', async () => {
  const s = await store((q, res) => {
    if (q.path === '/api/traces/2f3e0cee77ae5dc9c17ade3689eb2e54') return json(res, 200, tempoTrace('batches'));
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end(q.path.startsWith('/api/v2/') ? '404 page not found\n' : 'trace not found');
  });
  try {
    const c = new TempoClient(parseStoreUrl(`tempo+${s.base}`));
    const a = await c.findByTraceId('2F3E0CEE77AE5DC9C17ADE3689EB2E54');
    assert.deepEqual(a.spans.map((x) => x.spanId), ['563d623c76514f8e']);
    assert.deepEqual((await c.findByTraceId('00000000000000000000000000000abc')).spans, []);
  } finally { await s.close(); }
});

test('TraceQL and LogQL literals escape quotes and backslashes in an id', () => {
  assert.equal(requestTraceQl(['a"b\\c']), '{ span.gen_ai.request.id = "a\\"b\\\\c" || span.rid = "a\\"b\\\\c" }');
  assert.equal(requestLogQl(['a"b'], '{app="vllm"}'), '{app="vllm"} |= "a\\"b"');
  assert.equal(requestLogQl(['x.y', 'z'], '{app="vllm"}'), '{app="vllm"} |~ "x\\\\.y|z"');
});

// The documented query_range answer for log queries (resultType "streams").
function lokiPage(values: Array<[string, string]>, labels: Record<string, string>): unknown {
  return {
    status: 'success',
    data: {
      resultType: 'streams', result: values.length ? [{ stream: labels, values }] : [],
      stats: { summary: { bytesProcessedPerSecond: 1, totalEntriesReturned: values.length } },
    },
  };
}

test('Loki: LogQL with the selector and a line filter, backward pages by time, X-Scope-OrgID and basic auth, each stream its labels', async () => {
  // 7 lines of one pod, two of them in the same nanosecond; pages of 3.
  const all: Array<[string, string]> = [7, 6, 5, 5, 4, 3, 2].map((i, n) => [String(1796205000000000000n + BigInt(i)), `line ${n} chatcmpl-req-42`]);
  const s = await store((q, res) => {
    if (q.path !== '/loki/api/v1/query_range') return json(res, 404, {});
    const end = BigInt(q.query.get('end')!);
    const limit = Number(q.query.get('limit'));
    json(res, 200, lokiPage(all.filter(([t]) => BigInt(t) < end).slice(0, limit), { namespace: 'serving', pod: 'decode-0', container: 'vllm' }));
  });
  try {
    const c = new LokiClient(parseStoreUrl(`loki+${s.base}`), { credentials: { username: 'u', password: 'p', orgId: 'team-a' } });
    const a = await c.requestLines(logSearchTerms('chatcmpl-req-42'), WINDOW, { selector: '{namespace="serving"}', pageSize: 3 });
    assert.equal(a.lines, 7);
    assert.equal(a.truncated, false);
    assert.deepEqual(a.streams.map((x) => [x.name, x.entries.map((e) => e.text.slice(0, 6))]), [
      ['decode-0/vllm', ['line 6', 'line 5', 'line 4', 'line 2', 'line 3', 'line 1', 'line 0']],
    ]);
    const first = s.seen[0];
    assert.equal(first.query.get('query'), '{namespace="serving"} |= "req-42"');
    assert.equal(first.query.get('direction'), 'backward');
    assert.equal(first.query.get('start'), `${BigInt(WINDOW.startMs) * 1_000_000n}`);
    assert.equal(first.headers['x-scope-orgid'], 'team-a');
    assert.equal(first.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
    assert.ok(s.seen.length >= 3, 'paged');
  } finally { await s.close(); }
});

test('Loki: no selector is a plain message before any call; an error answer and a non-stream result are named', async () => {
  const s = await store((q, res) => {
    if (q.query.get('query')?.includes('matrix')) return json(res, 200, { status: 'success', data: { resultType: 'matrix', result: [] } });
    res.writeHead(400, { 'Content-Type': 'text/plain' });
    res.end('parse error at line 1, col 2: syntax error: unexpected IDENTIFIER');
  });
  try {
    const c = new LokiClient(parseStoreUrl(`loki+${s.base}`));
    await assert.rejects(c.requestLines(['x'], WINDOW), (e: FleetError) => e.kind === 'bad-url' && /needs a stream selector/.test(e.message));
    assert.equal(s.seen.length, 0);
    await assert.rejects(c.requestLines(['x'], WINDOW, { selector: '{app="vllm"}' }), /HTTP 400 .*parse error at line 1/);
    await assert.rejects(c.requestLines(['x'], WINDOW, { selector: '{app="matrix"}' }), /a matrix result, not log streams/);
  } finally { await s.close(); }
});

test('store URLs: kind+http(s), no credentials or query in the URL, every kind named when wrong', () => {
  assert.deepEqual(parseStoreUrl('jaeger+http://h:16686/'), { kind: 'jaeger', baseUrl: 'http://h:16686' });
  assert.deepEqual(parseStoreUrl('VictoriaLogs+https://logs.example:9428/vl/'), { kind: 'victorialogs', baseUrl: 'https://logs.example:9428/vl' });
  assert.throws(() => parseStoreUrl('http://h:16686'), /expected jaeger\+http:\/\/host:16686, tempo\+/);
  assert.throws(() => parseStoreUrl('zipkin+http://h:9411'), /unknown store kind "zipkin"/);
  assert.throws(() => parseStoreUrl('loki+http://me:secret@h:3100'),
    (e: Error) => /credentials do not go in the URL/.test(e.message) && !e.message.includes('secret'));
  assert.throws(() => parseStoreUrl('loki+http://h:3100?x=1'), /no query string/);
});

test('time windows: RFC 3339 or back from now, the last 24 h by default, an empty window refused', () => {
  const now = Date.UTC(2026, 11, 2, 12, 0, 0);
  assert.deepEqual(parseWindow(undefined, undefined, now), { startMs: now - 86_400_000, endMs: now });
  assert.deepEqual(parseWindow('2h', '30m', now), { startMs: now - 7_200_000, endMs: now - 1_800_000 });
  assert.deepEqual(parseWindow('2026-12-02T10:00:00Z', '2026-12-02T12:30:00+01:00', now),
    { startMs: Date.UTC(2026, 11, 2, 10), endMs: Date.UTC(2026, 11, 2, 11, 30) });
  assert.throws(() => parseWindow('1h', '2h', now), /the window is empty/);
  assert.throws(() => parseWindow('yesterday', undefined, now), /neither RFC 3339/);
});

test('id forms: a log store searches the join key; a trace store the whole values vLLM and SGLang file', () => {
  assert.deepEqual(logSearchTerms('chatcmpl-req-42-1a2b3c4d'), ['req-42-1a2b3c4d', 'req-42']);
  assert.deepEqual(logSearchTerms('cmpl-abc-0'), ['abc', 'abc-0']);
  assert.deepEqual(traceAttributeValues('req-42'), ['req-42', 'chatcmpl-req-42', 'cmpl-req-42-0']);
});
