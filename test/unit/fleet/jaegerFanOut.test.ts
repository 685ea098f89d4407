// Jaeger's fan-out over /api/services against a real Jaeger (v2, built by scripts/fleet-tools.mjs):
// a store with many services is asked for a request id in at most so many services, the engines'
// first, with at most so many searches in flight (counted by a loopback proxy in front of Jaeger
// that holds each search a little), and the answer says which services were not asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fleetBinariesOrSkip, startJaeger, type JaegerServer } from '../../harness/fleetServers';
import { JaegerClient, servicesToAsk } from '../../../src/core/fleet/jaeger';
import { findRequestInFleet } from '../../../src/core/fleet/find';
import { parseStoreUrl } from '../../../src/core/fleet/model';

const NOW_MS = Date.now();
const T0_MS = NOW_MS - 3600_000;
const WINDOW = { startMs: NOW_MS - 6 * 3600_000, endMs: NOW_MS + 60_000 };
const TRACE_ENGINE = '6e0c63257de34c92bf9efcd03927272e';
const TRACE_OTHER = '7a2190356c3fc94b8b6e1f3a0d5f5e01';
const OTHER_SERVICES = Array.from({ length: 10 }, (_, i) => `batch-etl-${String(i).padStart(2, '0')}`);

function resourceSpans(service: string, traceId: string, spanId: string, attrs: Record<string, string>, startMs: number): unknown {
  const ns = (ms: number): string => (BigInt(Math.floor(ms)) * 1_000_000n).toString();
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
    scopeSpans: [{
      scope: { name: 'test' },
      spans: [{
        traceId, spanId, name: 'llm_request', kind: 2, startTimeUnixNano: ns(startMs), endTimeUnixNano: ns(startMs + 200),
        attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } })),
      }],
    }],
  };
}

test('servicesToAsk: engine-like names first, each group in name order, the rest left out past the cap', () => {
  assert.deepEqual(servicesToAsk(['billing', 'auth', 'vllm-decode', 'sglang-router', 'etl'], 3), {
    ask: ['vllm-decode', 'sglang-router', 'billing'], skipped: ['auth', 'etl'],
  });
  assert.deepEqual(servicesToAsk(['a', 'b'], 30), { ask: ['a', 'b'], skipped: [] });
});

describe('Jaeger fan-out against a real Jaeger', { concurrency: false }, () => {
  let jaeger: JaegerServer | undefined;
  let proxy: { base: string; close(): Promise<void> } | undefined;
  const searches: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;

  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    jaeger = await startJaeger(bins.jaeger);
    const traces = [
      resourceSpans('vllm-decode', TRACE_ENGINE, 'e000000000000001', { 'gen_ai.request.id': 'chatcmpl-req-fan-1' }, T0_MS),
      ...OTHER_SERVICES.map((s, i) => resourceSpans(s, `${String(i + 1).padStart(2, '0')}${'ab'.repeat(15)}`, `f00000000000000${i}`, { job: s }, T0_MS + i)),
      // The same request id filed by a service no engine-like name gives away: found only when every service is asked.
      resourceSpans('zz-billing', TRACE_OTHER, 'b000000000000001', { 'gen_ai.request.id': 'chatcmpl-req-fan-1' }, T0_MS + 50),
    ];
    await jaeger.ingest({ resourceSpans: traces }, [TRACE_ENGINE, TRACE_OTHER]);
    const target = new URL(jaeger.baseUrl);
    const server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const isSearch = u.pathname === '/api/traces';
      if (isSearch) { searches.push(u.searchParams.get('service') ?? ''); inFlight++; maxInFlight = Math.max(maxInFlight, inFlight); }
      setTimeout(() => {
        const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
          ur.on('end', () => { if (isSearch) inFlight--; });
        });
        up.on('error', () => { if (isSearch) inFlight--; res.destroy(); });
        req.pipe(up);
      }, isSearch ? 40 : 0);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    proxy = {
      base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }),
    };
  });
  after(async () => { await proxy?.close(); await jaeger?.stop(); });

  test('capped at 3 services and 2 searches in flight: the engine\'s service is asked first, the rest named as not asked', async (t) => {
    if (!jaeger || !proxy) return t.skip('no fleet tools');
    const endpoint = parseStoreUrl(`jaeger+${proxy.base}`);
    searches.length = 0; maxInFlight = 0;
    const a = await new JaegerClient(endpoint, { maxServices: 3, parallelSearches: 2 }).findByRequestId(['req-fan-1'], WINDOW);
    assert.deepEqual(a.traceIds, [TRACE_ENGINE]);
    assert.deepEqual([...new Set(searches)], ['vllm-decode', 'batch-etl-00', 'batch-etl-01'], 'the engine-like service first, then by name');
    assert.equal(searches.length, 3 * 2 * 3, 'each asked service: two attributes × three id forms');
    assert.equal(maxInFlight, 2, 'never more than 2 searches at once, and the pool keeps 2 busy');
    assert.match(a.query, /in 3 of 12 service\(s\): vllm-decode, batch-etl-00, batch-etl-01/);
    assert.equal(a.notes?.length, 1);
    assert.match(a.notes![0], /lists 12 services; the 3 likeliest were asked for the request id \(9 not asked: batch-etl-02, batch-etl-03, .*, …\)/);
  });

  test('the whole fan-out has a time budget: past it no search starts, and the note names the services not searched through', async (t) => {
    if (!jaeger || !proxy) return t.skip('no fleet tools');
    const endpoint = parseStoreUrl(`jaeger+${proxy.base}`);
    searches.length = 0; maxInFlight = 0;
    const t0 = Date.now();
    const a = await new JaegerClient(endpoint, { parallelSearches: 1, fanOutBudgetMs: 200 }).findByRequestId(['req-fan-1'], WINDOW);
    const took = Date.now() - t0;
    assert.ok(took < 3000, `the budget held: ${took} ms`);
    assert.ok(searches.length >= 1 && searches.length < 12, `${searches.length} of 72 searches started`);
    const note = a.notes?.find((n) => /stopped/.test(n));
    assert.ok(note, JSON.stringify(a.notes));
    const m = /^Jaeger at http:\/\/127\.0\.0\.1:\d+: the search stopped after 0\.2 s; (\d+) service\(s\) not searched through: (?:vllm-decode|batch-etl-00), /
      .exec(note);
    assert.ok(m, note);
    assert.ok(Number(m[1]) >= 11, `all but at most one service unfinished: ${note}`);
  });

  test('uncapped (the default 30), every service is asked and the other trace is found too; the note reaches the fleet result', async (t) => {
    if (!jaeger || !proxy) return t.skip('no fleet tools');
    const endpoint = parseStoreUrl(`jaeger+${proxy.base}`);
    searches.length = 0; maxInFlight = 0;
    const all = await new JaegerClient(endpoint).findByRequestId(['req-fan-1'], WINDOW);
    assert.deepEqual(all.traceIds.sort(), [TRACE_ENGINE, TRACE_OTHER].sort());
    assert.deepEqual(all.notes, []);
    assert.equal(new Set(searches).size, 12);
    assert.ok(maxInFlight <= 4, `at most 4 in flight by default (saw ${maxInFlight})`);
    const r = await findRequestInFleet({
      requestId: 'req-fan-1', window: WINDOW, traces: [endpoint], logs: [], clientOptions: () => ({ maxServices: 2 }),
    });
    assert.equal(r.spans.length, 1);
    assert.equal(r.notes.length, 1);
    assert.match(r.notes[0], /^Jaeger at http:\/\/127\.0\.0\.1:\d+ lists 12 services; the 2 likeliest were asked/);
  });
});
