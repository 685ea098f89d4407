// hoplens.traces.queryUrl naming a Tempo: Show Engine Timing's lookup goes through the fleet's
// Tempo client (TraceQL search, then the trace by id), and Find Request in the Fleet… reads the
// setting as a Tempo store (tempo+URL) when the address answers /api/echo as Tempo does. Tempo is
// AGPL (never built or run here): a loopback server answers as its HTTP API documentation shows —
// "echo", the search result, a trace as OTLP JSON — or with an error page, half a body, a 401.
import '../fakes/register';
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { json, store, type Seen } from './loopbackStore';
import { otlpSpanOf } from '../../harness/fleetServers';
import { messages, shownWith } from '../fakes/vscode';
import { queryRequestSpans } from '../../../src/core/fleet/traceLookup';
import { configuredStores, FleetCommands } from '../../../src/features/fleet/fleetCommand';
import type { HopLensConfig } from '../../../src/config';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const TRACE = '7a1e0cee77ae5dc9c17ade3689eb2e99';
const RID = 'chatcmpl-tempo-legacy-5';

/** The documented v2 trace by id: `{"trace": TracesData}`, ids in base64 as protojson writes them. */
const v2Trace = {
  trace: {
    resourceSpans: [otlpSpanOf('vllm', {
      traceId: Buffer.from(TRACE, 'hex').toString('base64'), spanId: Buffer.from('563d623c76514f8e', 'hex').toString('base64'),
      startMs: Date.now() - 3600_000, durationMs: 640, scope: 'vllm.llm_engine', attrs: { 'gen_ai.request.id': RID, 'gen_ai.latency.e2e': 0.64 },
    })],
  },
};

type Answer = (s: Seen, res: http.ServerResponse) => void;

/** A Tempo: "echo" on /api/echo, the trace for a TraceQL search naming RID, the trace by id; `override` answers first when it returns true. */
function tempo(override?: (s: Seen, res: http.ServerResponse) => boolean): Answer {
  return (s, res) => {
    if (override?.(s, res)) return;
    if (s.path === '/api/echo') { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('echo'); return; }
    if (s.path === '/api/search') {
      const hit = (s.query.get('q') ?? '').includes(`span.gen_ai.request.id = "${RID}"`);
      json(res, 200, { traces: hit ? [{ traceID: TRACE, rootServiceName: 'vllm', rootTraceName: 'llm_request' }] : [], metrics: { completedJobs: 1 } });
      return;
    }
    if (s.path === `/api/v2/traces/${TRACE}`) { json(res, 200, v2Trace); return; }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('404 page not found\n');
  };
}

beforeEach(() => { messages.length = 0; shownWith.length = 0; });

test('Show Engine Timing\'s lookup on a Tempo: auto-detected, a TraceQL search (no tag search), the span by trace id', async () => {
  const s = await store(tempo());
  try {
    const r = await queryRequestSpans({ baseUrl: `${s.base}/`, requestId: RID });
    assert.equal(r.backend, 'tempo');
    assert.deepEqual(r.traceIds, [TRACE]);
    assert.deepEqual(r.spans.map((x) => [x.name, x.attributes['gen_ai.request.id'], x.resource['service.name']]), [['llm_request', RID, 'vllm']]);
    const search = s.seen.find((x) => x.path === '/api/search');
    assert.ok(search, s.seen.map((x) => x.path).join(' '));
    assert.equal(search.query.get('tags'), null);
    assert.match(search.query.get('q') ?? '', new RegExp(`^\\{ span\\.gen_ai\\.request\\.id = "${RID}" \\|\\| .*span\\.rid = "${RID}".* \\}$`));
    assert.deepEqual(s.seen.map((x) => x.path), ['/api/echo', '/api/search', `/api/v2/traces/${TRACE}`]);
    assert.match(r.query, /^Tempo at http:\/\/127\.0\.0\.1:\d+: \{ span\.gen_ai\.request\.id = .*; 1 trace\(s\)$/);

    s.seen.splice(0);
    const one = await queryRequestSpans({ baseUrl: s.base, requestId: RID, backend: 'tempo', service: 'vllm-decode' });
    assert.deepEqual(one.traceIds, [TRACE]);
    assert.match(s.seen[0].query.get('q') ?? '', /"\) && \(resource\.service\.name = "vllm-decode"\) \}$/, 'hoplens.traces.queryService in the TraceQL');
  } finally { await s.close(); }
});

test('Tempo answering an error page, half a body, a 401: the lookup says which, naming the address', async () => {
  let mode: 'html' | 'half' | 'auth' | 'proxy-html' = 'html';
  const s = await store(tempo((q, res) => {
    if (q.path !== '/api/search') return false;
    if (mode === 'html') { res.writeHead(502, { 'Content-Type': 'text/html' }); res.end('<html><head><title>502 Bad Gateway</title></head></html>'); }
    if (mode === 'proxy-html') { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<!doctype html><html><body>Grafana</body></html>'); }
    if (mode === 'half') { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end('{"traces":[{"traceID":"7a1e0cee'); }
    if (mode === 'auth') { res.writeHead(401, { 'Content-Type': 'text/plain' }); res.end('Unauthorized\n'); }
    return true;
  }));
  const lookup = () => queryRequestSpans({ baseUrl: s.base, requestId: RID, backend: 'tempo', timeoutMs: 3000 });
  try {
    await assert.rejects(lookup(), { name: 'TraceQueryError', message: /\/api\/search.* answered HTTP 502 with an HTML page \("502 Bad Gateway"\)/ });
    mode = 'proxy-html';
    await assert.rejects(lookup(), { name: 'TraceQueryError', message: /\/api\/search.* answered an HTML page, not JSON/ });
    mode = 'half';
    await assert.rejects(lookup(), { name: 'TraceQueryError', message: /the JSON from .*\/api\/search.* ends early \(\d+ bytes\)/ });
    mode = 'auth';
    await assert.rejects(lookup(), { name: 'TraceQueryError', message: /\/api\/search.* refused the credentials \(HTTP 401\)/ });
  } finally { await s.close(); }
});

test('Find Request in the Fleet… reads a queryUrl that answers as Tempo as tempo+URL (hoplens.fleet.traces empty)', async () => {
  const s = await store(tempo());
  const fleet: HopLensConfig['fleet'] = { traces: [], logs: [], selector: '', window: '24h' };
  const traces: HopLensConfig['traces'] = { receiverHost: '127.0.0.1', receiverPort: 4318, queryUrl: `${s.base}/`, queryService: '' };
  assert.deepEqual(configuredStores({ fleet, traces }, 'tempo').traces, [{ kind: 'tempo', baseUrl: s.base }]);
  const commands = new FleetCommands({
    settings: { get current() { return { fleet, traces } as HopLensConfig; } },
    secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined },
    log: quiet, timeoutMs: 3000,
  });
  try {
    await commands.find(RID);
    assert.equal(messages.length, 1, JSON.stringify(messages));
    assert.match(messages[0].text, new RegExp(`^HopLens: ${RID}: 0 line\\(s\\) from 0 pod\\(s\\); 1 span\\(s\\) in trace\\(s\\) ${TRACE}\\.`));
    const paths = s.seen.map((x) => x.path);
    assert.deepEqual(paths, ['/api/echo', '/api/search', `/api/v2/traces/${TRACE}`], 'asked as Tempo: no /api/services, no Jaeger search');
    assert.match(s.seen[1].query.get('q') ?? '', /^\{ span\.gen_ai\.request\.id = /);

    // Detected once per address: a second search does not ask /api/echo again.
    s.seen.splice(0);
    messages.length = 0;
    await commands.find(RID);
    assert.deepEqual(s.seen.map((x) => x.path), ['/api/search', `/api/v2/traces/${TRACE}`]);
  } finally { commands.dispose(); await s.close(); }
});
