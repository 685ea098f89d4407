// Jaeger's fan-out over /api/services against a real Jaeger (v2, built by scripts/fleet-tools.mjs):
// a store with many services is asked for a request id in at most so many services, the engines'
// first, with at most so many searches in flight (counted by a loopback proxy in front of Jaeger
// that holds each search a little), and the answer says which services were not asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { fleetBinariesOrSkip, otlpSpanOf, startJaeger, type JaegerServer } from '../../harness/fleetServers';
import { JaegerClient, servicesToAsk } from '../../../src/core/fleet/jaeger';
import { findRequestInFleet } from '../../../src/core/fleet/find';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import { json, proxy as loopbackProxy, type LoopbackStore, type Seen } from './loopbackStore';
import { runCli } from '../cli/cliProcess';

const NOW_MS = Date.now();
const T0_MS = NOW_MS - 3600_000;
const WINDOW = { startMs: NOW_MS - 6 * 3600_000, endMs: NOW_MS + 60_000 };
const TRACE_ENGINE = '6e0c63257de34c92bf9efcd03927272e';
const TRACE_OTHER = '7a2190356c3fc94b8b6e1f3a0d5f5e01';
const OTHER_SERVICES = Array.from({ length: 10 }, (_, i) => `batch-etl-${String(i).padStart(2, '0')}`);

function resourceSpans(service: string, traceId: string, spanId: string, attrs: Record<string, string>, startMs: number): unknown {
  return otlpSpanOf(service, { traceId, spanId, attrs, startMs });
}

test('servicesToAsk: engine-like names first, each group in name order, the rest left out past the cap', () => {
  assert.deepEqual(servicesToAsk(['billing', 'auth', 'vllm-decode', 'sglang-router', 'etl'], 3), {
    ask: ['vllm-decode', 'sglang-router', 'billing'], skipped: ['auth', 'etl'],
  });
  assert.deepEqual(servicesToAsk(['a', 'b'], 30), { ask: ['a', 'b'], skipped: [] });
});

describe('Jaeger fan-out against a real Jaeger', { concurrency: false }, () => {
  let jaeger: JaegerServer | undefined;
  let proxy: LoopbackStore | undefined;
  /** A proxy in front of the same Jaeger that answers what `fail` takes itself (one service's search failing). */
  let failing: LoopbackStore | undefined;
  let fail: ((q: Seen, res: http.ServerResponse) => boolean) | undefined;
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
    proxy = await loopbackProxy(jaeger.baseUrl, {
      delayMs: (q) => (q.path === '/api/traces' ? 40 : 0),
      begun: (q) => {
        if (q.path !== '/api/traces') return;
        searches.push(q.query.get('service') ?? ''); inFlight++; maxInFlight = Math.max(maxInFlight, inFlight);
      },
      ended: (q) => { if (q.path === '/api/traces') inFlight--; },
    });
    failing = await loopbackProxy(jaeger.baseUrl, { answer: (q, res) => fail?.(q, res) ?? false });
  });
  after(async () => { await proxy?.close(); await failing?.close(); await jaeger?.stop(); });

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

  const LOOP = 'http://127\\.0\\.0\\.1:\\d+';
  const FAILED_ONE = 'the search failed in 1 of 12 service\\(s\\), the others\' results are shown: ';
  /** A search of `service` (Jaeger's v1 /api/traces, which the fan-out asks per service). */
  const searchOf = (q: Seen, service: string): boolean => q.path === '/api/traces' && q.query.get('service') === service;

  test('one service\'s search answering HTTP 500: the other services\' trace is kept, the note names the service and why', async (t) => {
    if (!jaeger || !failing) return t.skip('no fleet tools');
    // Jaeger's own error shape for a storage failure.
    fail = (q, res) => searchOf(q, 'zz-billing')
      && (json(res, 500, { data: null, total: 0, limit: 0, offset: 0, errors: [{ code: 500, msg: 'storage: connection reset by peer' }] }), true);
    failing.seen.length = 0;
    const a = await new JaegerClient(parseStoreUrl(`jaeger+${failing.base}`), { parallelSearches: 1 }).findByRequestId(['req-fan-1'], WINDOW);
    assert.deepEqual(a.traceIds, [TRACE_ENGINE]);
    assert.equal(a.spans.length, 1);
    assert.deepEqual(a.spans.map((s) => s.resource['service.name']), ['vllm-decode']);
    const note = a.notes?.find((n) => /failed/.test(n)) ?? '';
    assert.match(note, new RegExp(`^Jaeger at ${LOOP}: ${FAILED_ONE}zz-billing: HTTP 500 from ${LOOP}/api/traces: .*storage: connection reset by peer`));
    assert.equal(failing.seen.filter((q) => searchOf(q, 'zz-billing')).length, 1, 'a service that failed is not asked again for the other id forms');
  });

  test('one service stalling mid-answer: the per-call time bound holds, the rest is kept, the note says how long was waited', async (t) => {
    if (!jaeger || !failing) return t.skip('no fleet tools');
    fail = (q, res) => {
      if (!searchOf(q, 'vllm-decode')) return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"data":[{"traceID":"6e0c6325');
      return true; // and never ends
    };
    const t0 = Date.now();
    const a = await new JaegerClient(parseStoreUrl(`jaeger+${failing.base}`), { timeoutMs: 1500 }).findByRequestId(['req-fan-1'], WINDOW);
    assert.ok(Date.now() - t0 < 10_000, `bounded: ${Date.now() - t0} ms`);
    assert.deepEqual(a.traceIds, [TRACE_OTHER]);
    const note = a.notes?.find((n) => /failed/.test(n)) ?? '';
    assert.match(note, new RegExp(`${FAILED_ONE}vllm-decode: no complete answer from ${LOOP}/api/traces within 1500 ms`));
  });

  test('one service\'s answer cut in half: the rest is kept, the note says the JSON ends early; cancel still ends the search', async (t) => {
    if (!jaeger || !failing) return t.skip('no fleet tools');
    const upstream = jaeger.baseUrl;
    fail = (q, res) => {
      if (!searchOf(q, 'vllm-decode')) return false;
      void fetch(`${upstream}${q.path}?${q.query.toString()}`).then((r) => r.text()).then((text) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(text.slice(0, Math.floor(text.length / 2)));
      });
      return true;
    };
    const a = await new JaegerClient(parseStoreUrl(`jaeger+${failing.base}`)).findByRequestId(['req-fan-1'], WINDOW);
    assert.deepEqual(a.traceIds, [TRACE_OTHER]);
    assert.match(a.notes?.join(' ') ?? '', new RegExp(`${FAILED_ONE}vllm-decode: the JSON from ${LOOP}/api/traces ends early`));
    fail = (q, res) => { if (!searchOf(q, 'vllm-decode')) return false; res.writeHead(200); return true; };
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    const t0 = Date.now();
    await assert.rejects(new JaegerClient(parseStoreUrl(`jaeger+${failing.base}`), { parallelSearches: 1 }).findByRequestId(['req-fan-1'], WINDOW, ctl.signal),
      /cancelled/);
    assert.ok(Date.now() - t0 < 5000, `cancel ended it: ${Date.now() - t0} ms`);
  });

  test('every service\'s search failing is the store\'s error, naming the services and the reason once', async (t) => {
    if (!jaeger || !failing) return t.skip('no fleet tools');
    fail = (q, res) => {
      if (q.path !== '/api/traces') return false;
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>');
      return true;
    };
    const endpoint = parseStoreUrl(`jaeger+${failing.base}`);
    await assert.rejects(new JaegerClient(endpoint).findByRequestId(['req-fan-1'], WINDOW), (e: Error) => {
      assert.match(e.message, new RegExp(`^the search for the request id failed in every service asked \\(12\\): (?:[\\w-]+, ){5}…: ${LOOP}/api/traces `
        + 'answered HTTP 502 with an HTML page \\("502 Bad Gateway"\\)'));
      assert.equal(e.message.match(/502 Bad Gateway/g)?.length, 1, 'the reason once, not per service');
      return true;
    });
    const r = await findRequestInFleet({ requestId: 'req-fan-1', window: WINDOW, traces: [endpoint], logs: [] });
    assert.equal(r.spans.length, 0);
    assert.equal(r.problems.length, 1);
  });

  test('the CLI: one service failing is a warning on stderr and exit 0 with the others\' spans; every service failing is exit 1', async (t) => {
    if (!jaeger || !failing) return t.skip('no fleet tools');
    fail = (q, res) => searchOf(q, 'zz-billing') && (json(res, 500, { data: null, errors: [{ code: 500, msg: 'storage: connection reset by peer' }] }), true);
    const some = await runCli(['timeline', '--rid', 'req-fan-1', '--traces', `jaeger+${failing.base}`, '--since', '6h', '--json']);
    assert.equal(some.code, 0, some.stderr);
    assert.match(some.stderr, new RegExp(`^hoplens timeline: warning: Jaeger at ${LOOP}: ${FAILED_ONE}zz-billing: HTTP 500`, 'm'));
    const summary = some.stdout.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { kind: string; traceIds?: string[] })
      .find((o) => o.kind === 'summary');
    assert.deepEqual(summary?.traceIds, [TRACE_ENGINE]);
    fail = (q, res) => q.path === '/api/traces' && (json(res, 500, { data: null, errors: [{ code: 500, msg: 'storage down' }] }), true);
    const none = await runCli(['timeline', '--rid', 'req-fan-1', '--traces', `jaeger+${failing.base}`, '--since', '6h']);
    assert.equal(none.code, 1, none.stderr);
    const every = 'the search for the request id failed in every service asked \\(12\\): .*storage down';
    assert.match(none.stderr, new RegExp(`^hoplens timeline: jaeger at ${LOOP}: ${every}`, 'm'));
  });
});
