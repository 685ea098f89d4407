// hoplens.traces.queryUrl (Show Engine Timing's lookup, older than the fleet) against a real Jaeger
// (v2, built by scripts/fleet-tools.mjs): the lookup goes through the fleet's Jaeger client —
// every service searched (vLLM's unknown_service among them), each trace from the v3 API, one
// service failing named beside the others' results, hoplens.traces.queryService asking one
// service only — and Find Request in the Fleet… reads the setting as a Jaeger trace store while
// hoplens.fleet.traces is empty.
import '../fakes/register';
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fleetBinariesOrSkip, otlpSpanOf, startJaeger, type JaegerServer } from '../../harness/fleetServers';
import { json, proxy as loopbackProxy, type LoopbackStore } from './loopbackStore';
import { messages, shownWith } from '../fakes/vscode';
import { queryRequestSpans } from '../../../src/core/fleet/traceLookup';
import { configuredStores, FleetCommands } from '../../../src/features/fleet/fleetCommand';
import type { HopLensConfig } from '../../../src/config';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const NOW_MS = Date.now();
const TRACE_VLLM = '1c4f2f3577b34da6a3ce929d0e0e4736';
const TRACE_ROUTER = '2d5a2f3577b34da6a3ce929d0e0e4737';

/** A vLLM-style llm_request span carrying the request's id and its e2e latency. */
function resourceSpans(service: string, traceId: string, spanId: string, rid: string, startMs: number): unknown {
  return otlpSpanOf(service, {
    traceId, spanId, startMs, durationMs: 640, scope: 'vllm.llm_engine', attrs: { 'gen_ai.request.id': rid, 'gen_ai.latency.e2e': 0.64 },
  });
}

describe('hoplens.traces.queryUrl through the fleet\'s Jaeger client, against a real Jaeger', { concurrency: false }, () => {
  let jaeger: JaegerServer | undefined;
  let front: LoopbackStore | undefined;
  let failRouter = false;

  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    jaeger = await startJaeger(bins.jaeger);
    await jaeger.ingest({
      resourceSpans: [
        // vLLM without OTEL_SERVICE_NAME files its spans under unknown_service.
        resourceSpans('unknown_service', TRACE_VLLM, 'a000000000000001', 'chatcmpl-legacy-77', NOW_MS - 3600_000),
        resourceSpans('sglang-router', TRACE_ROUTER, 'b000000000000001', 'chatcmpl-legacy-77', NOW_MS - 3599_000),
      ],
    }, [TRACE_VLLM, TRACE_ROUTER]);
    front = await loopbackProxy(jaeger.baseUrl, {
      answer: (q, res) => failRouter && q.path === '/api/traces' && q.query.get('service') === 'sglang-router'
        && (json(res, 503, { data: null, errors: [{ code: 503, msg: 'storage unavailable' }] }), true),
    });
  });
  after(async () => { await front?.close(); await jaeger?.stop(); });
  beforeEach(() => { failRouter = false; front?.seen.splice(0); messages.length = 0; shownWith.length = 0; });

  test('Show Engine Timing\'s lookup: every service searched, each trace from v3; queryService asks one service only', async (t) => {
    if (!jaeger || !front) return t.skip('no fleet tools');
    const r = await queryRequestSpans({ baseUrl: `${front.base}/`, requestId: 'chatcmpl-legacy-77' });
    assert.equal(r.backend, 'jaeger', 'auto-detected');
    assert.deepEqual(r.traceIds.sort(), [TRACE_VLLM, TRACE_ROUTER].sort());
    assert.deepEqual(r.spans.map((s) => s.resource['service.name']).sort(), ['sglang-router', 'unknown_service']);
    assert.deepEqual(r.notes, []);
    assert.deepEqual(front.seen.filter((q) => q.path.startsWith('/api/v3/traces/')).map((q) => q.path.slice(-32)).sort(), [TRACE_VLLM, TRACE_ROUTER].sort(),
      'each trace fetched from Jaeger\'s v3 API');
    front.seen.splice(0);
    const one = await queryRequestSpans({ baseUrl: front.base, requestId: 'chatcmpl-legacy-77', service: 'unknown_service', backend: 'jaeger' });
    assert.deepEqual(one.traceIds, [TRACE_VLLM]);
    assert.deepEqual([...new Set(front.seen.filter((q) => q.path === '/api/traces').map((q) => q.query.get('service')))], ['unknown_service']);
    assert.ok(!front.seen.some((q) => q.path === '/api/services'), 'a service set: the service list is not asked');
    assert.match(one.query, / in service "unknown_service" only \(as set\), /);
  });

  test('one service failing in the lookup: the other\'s spans, and a note naming the service', async (t) => {
    if (!jaeger || !front) return t.skip('no fleet tools');
    failRouter = true;
    const r = await queryRequestSpans({ baseUrl: front.base, requestId: 'chatcmpl-legacy-77', backend: 'jaeger' });
    assert.deepEqual(r.traceIds, [TRACE_VLLM]);
    assert.match(r.notes?.join(' ') ?? '', /the search failed in 1 of 2 service\(s\), the others' results are shown: sglang-router: HTTP 503 .*storage unavailable/);
  });

  test('Find Request in the Fleet… reads hoplens.traces.queryUrl as a Jaeger store while hoplens.fleet.traces is empty', async (t) => {
    if (!jaeger || !front) return t.skip('no fleet tools');
    const fleet: HopLensConfig['fleet'] = { traces: [], logs: [], selector: '', window: '24h' };
    const traces: HopLensConfig['traces'] = { receiverHost: '127.0.0.1', receiverPort: 4318, queryUrl: `${front.base}/`, queryService: '' };
    assert.deepEqual(configuredStores({ fleet, traces }).traces, [{ kind: 'jaeger', baseUrl: front.base }]);
    assert.deepEqual(configuredStores({ fleet: { ...fleet, traces: ['tempo+http://127.0.0.1:3200'] }, traces }).traces,
      [{ kind: 'tempo', baseUrl: 'http://127.0.0.1:3200' }], 'hoplens.fleet.traces, when set, is what is asked');
    assert.throws(() => configuredStores({ fleet, traces: { ...traces, queryUrl: 'localhost:16686' } }), /^FleetError: hoplens\.traces\.queryUrl .*is not a store URL/);
    const commands = new FleetCommands({
      settings: { get current() { return { fleet, traces } as HopLensConfig; } },
      secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined },
      log: quiet, timeoutMs: 5000,
    });
    try {
      await commands.find('chatcmpl-legacy-77');
      assert.equal(messages.length, 1, JSON.stringify(messages));
      assert.match(messages[0].text, /^HopLens: chatcmpl-legacy-77: 0 line\(s\) from 0 pod\(s\); 2 span\(s\) in trace\(s\) [0-9a-f]{32}, [0-9a-f]{32}\./);
    } finally { commands.dispose(); }
  });
});
