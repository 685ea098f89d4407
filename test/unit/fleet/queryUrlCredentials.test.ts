// Show Engine Timing's lookup (hoplens.traces.queryUrl) with a store that wants credentials: the
// token or user and password kept by HopLens: Set Fleet Store Credentials… (the same secrets as
// Find Request in the Fleet…'s, per store address) and a Tempo's tenant (hoplens.fleet.tenant) go
// with every call, the /api/echo check that tells Tempo from Jaeger included; a refusal says so
// and names that command, and the command then offers the address. Tempo (AGPL, never run here):
// a loopback server behind an auth gateway, answering as Tempo's HTTP API documents. Jaeger: the
// real server (v2) behind a loopback proxy that checks a bearer token.
import '../fakes/register';
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import type * as vscode from 'vscode';
import { json, proxy, store, tempoTraceAnswer, type LoopbackStore, type Seen } from './loopbackStore';
import { fleetBinariesOrSkip, otlpSpanOf, startJaeger, type JaegerServer } from '../../harness/fleetServers';
import { asked, messages, panels, registered, replies, secretStorageOver, shownWith, Uri, window } from '../fakes/vscode';
import { EngineTimingService } from '../../../src/features/traces/engineTimingService';
import { registerEngineTimingCommands } from '../../../src/features/traces/engineTimingCommands';
import { FleetCommands, fleetTokenKey } from '../../../src/features/fleet/fleetCommand';
import type { TracedRequestCommands } from '../../../src/features/send/sendTracedRequestCommand';
import type { HopLensConfig } from '../../../src/config';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const TRACE = '5e1f0cee77ae5dc9c17ade3689eb2e11';
const RID = 'chatcmpl-cred-tempo-8';

/** The editor's two commands over one set of settings and one secret storage: Show Engine Timing and Set Fleet Store Credentials…. */
function editor(config: () => Pick<HopLensConfig, 'traces' | 'fleet'>, secrets: Map<string, string>) {
  const settings = { get current() { return config() as HopLensConfig; } };
  const service = new EngineTimingService(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings);
  const storage = secretStorageOver(secrets);
  const traced = { lastResult: undefined } as unknown as TracedRequestCommands;
  const timing = registerEngineTimingCommands({ service, logs: { get: () => undefined }, traced, settings, secrets: storage });
  const fleet = new FleetCommands({ settings, secrets: storage, log: quiet, timeoutMs: 3000 });
  window.activeTextEditor = undefined;
  return {
    service,
    show: async (rid: string) => {
      const before = messages.length;
      await registered.get('hoplens.showEngineTiming')!(rid);
      return { panel: panels[panels.length - 1], said: messages.slice(before) };
    },
    setCredentials: () => fleet.setCredentials(),
    dispose: () => { timing.dispose(); fleet.dispose(); service.dispose(); },
  };
}

/** A Tempo behind a gateway that wants `Bearer tk-tempo` and tenant team-a on every path, /api/echo too (else 401). */
function gatedTempo(q: Seen, res: http.ServerResponse): void {
  if (q.headers.authorization !== 'Bearer tk-tempo') { res.writeHead(401, { 'Content-Type': 'text/plain' }); res.end('Unauthorized\n'); return; }
  if (q.headers['x-scope-orgid'] !== 'team-a') { res.writeHead(401, { 'Content-Type': 'text/plain' }); res.end('no org id\n'); return; }
  if (q.path === '/api/echo') { res.writeHead(200, { 'Content-Type': 'text/plain' }); res.end('echo'); return; }
  if (q.path === '/api/search') {
    const hit = (q.query.get('q') ?? '').includes(`span.gen_ai.request.id = "${RID}"`);
    json(res, 200, { traces: hit ? [{ traceID: TRACE, rootServiceName: 'vllm-decode', rootTraceName: 'llm_request' }] : [], metrics: { completedJobs: 1 } });
    return;
  }
  if (q.path === `/api/v2/traces/${TRACE}`) {
    json(res, 200, tempoTraceAnswer(TRACE, { spanId: '563d623c76514f8e', startNs: NOW_NS - 5_000_000_000n, endNs: NOW_NS - 4_360_000_000n, rid: RID }));
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain' });
  res.end('404 page not found\n');
}

beforeEach(() => { messages.length = 0; shownWith.length = 0; replies.length = 0; asked.length = 0; });

test('a Tempo whose /api/echo needs a token and a tenant: refused is said with the command to run; with them it is found as Tempo', async () => {
  const s = await store(gatedTempo);
  const secrets = new Map<string, string>();
  let settings: Pick<HopLensConfig, 'traces' | 'fleet'> = {
    traces: { receiverHost: '127.0.0.1', receiverPort: 0, queryUrl: `${s.base}/`, queryService: '' },
    // hoplens.fleet.traces names another store: the queryUrl is not among the fleet's stores, Set Fleet Store Credentials… still offers it.
    fleet: { traces: ['jaeger+http://127.0.0.1:9'], logs: [], selector: '', window: '24h', tenant: 'team-a' },
  };
  const ed = editor(() => settings, secrets);
  try {
    const refused = await ed.show(RID);
    assert.deepEqual(refused.said.map((m) => m.kind), ['warning']);
    assert.match(refused.said[0].text, new RegExp(`^HopLens: ${s.base.replace(/[.]/g, '\\.')}/api/echo refused the credentials \\(HTTP 401\\)`));
    assert.match(refused.said[0].text, /\(HopLens: Set Fleet Store Credentials… keeps the token or user and password for hoplens\.traces\.queryUrl; /);
    assert.deepEqual(s.seen.map((x) => x.path), ['/api/echo', '/api/services'], 'refused is not read as Jaeger: no Jaeger search follows');
    assert.equal(s.seen[0].headers['x-scope-orgid'], 'team-a', 'the tenant goes with the echo check');
    assert.match(refused.panel.webview.html, /lookup failed: .*refused the credentials/);

    // The command the warning names offers the address and keeps the token under it.
    replies.push((items: Array<{ label: string; description?: string }>) => items.find((i) => i.description?.startsWith('hoplens.traces.queryUrl')),
      (items: Array<{ how: string }>) => items.find((i) => i.how === 'token'), 'tk-tempo');
    await ed.setCredentials();
    const offered = (asked[0].items as Array<{ label: string }>).map((i) => i.label);
    assert.deepEqual(offered, ['jaeger+http://127.0.0.1:9', `jaeger+${s.base}`]);
    assert.equal(secrets.get(fleetTokenKey({ kind: 'jaeger', baseUrl: s.base })), 'tk-tempo');

    s.seen.splice(0);
    const found = await ed.show(RID);
    assert.deepEqual(found.said, []);
    const span = ed.service.timing(RID)?.span;
    assert.equal(span && span.endMs - span.startMs, 640, 'the span Tempo gave is the request\'s engine timing');
    assert.deepEqual(s.seen.map((x) => [x.path, x.headers.authorization, x.headers['x-scope-orgid']]), [
      ['/api/echo', 'Bearer tk-tempo', 'team-a'], ['/api/search', 'Bearer tk-tempo', 'team-a'], [`/api/v2/traces/${TRACE}`, 'Bearer tk-tempo', 'team-a'],
    ]);

    // The tenant of the address's own store entry ({ "url": "tempo+…", "tenant" }) over hoplens.fleet.tenant.
    settings = { ...settings, fleet: { ...settings.fleet, tenant: 'team-z', storeTenants: [{ url: `tempo+${s.base}`, tenant: 'team-a' }] } };
    s.seen.splice(0);
    const own = await ed.show('chatcmpl-cred-tempo-other');
    assert.deepEqual(own.said, []);
    assert.deepEqual(s.seen.map((x) => x.headers['x-scope-orgid']), ['team-a', 'team-a'], 'echo, search (nothing found)');
  } finally { ed.dispose(); await s.close(); }
});

describe('a real Jaeger behind a proxy that checks a bearer token', { concurrency: false }, () => {
  let jaeger: JaegerServer | undefined;
  let front: LoopbackStore | undefined;
  const RID_J = 'chatcmpl-cred-jaeger-9';
  const TRACE_J = '3c4f2f3577b34da6a3ce929d0e0e4799';

  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    jaeger = await startJaeger(bins.jaeger);
    await jaeger.ingest({
      resourceSpans: [otlpSpanOf('vllm-decode', {
        traceId: TRACE_J, spanId: 'c000000000000001', startMs: Date.now() - 3600_000, durationMs: 640, scope: 'vllm.llm_engine',
        attrs: { 'gen_ai.request.id': RID_J, 'gen_ai.latency.e2e': 0.64 },
      })],
    }, [TRACE_J]);
    front = await proxy(jaeger.baseUrl, {
      answer: (q, res) => q.headers.authorization !== 'Bearer jg-token' && (json(res, 401, { error: 'unauthorized' }), true),
    });
  });
  after(async () => { await front?.close(); await jaeger?.stop(); });

  test('Show Engine Timing: refused without the token (the command named), found with the one Set Fleet Store Credentials… kept', async (t) => {
    if (!jaeger || !front) return t.skip('no fleet tools');
    const secrets = new Map<string, string>();
    const settings: Pick<HopLensConfig, 'traces' | 'fleet'> = {
      traces: { receiverHost: '127.0.0.1', receiverPort: 0, queryUrl: front.base, queryService: '' },
      fleet: { traces: [], logs: [], selector: '', window: '24h' },
    };
    const ed = editor(() => settings, secrets);
    try {
      const refused = await ed.show(RID_J);
      assert.equal(refused.said.length, 1, JSON.stringify(refused.said));
      assert.match(refused.said[0].text, /refused the credentials \(HTTP 401\).*HopLens: Set Fleet Store Credentials… keeps the token/);
      assert.ok(!front.seen.some((q) => q.path === '/api/traces'), 'nothing searched while refused');

      // hoplens.fleet.traces empty: the queryUrl is the fleet's one trace store, picked without asking.
      replies.push((items: Array<{ how: string }>) => items.find((i) => i.how === 'token'), 'jg-token');
      await ed.setCredentials();
      assert.equal(secrets.get(fleetTokenKey({ kind: 'jaeger', baseUrl: front.base })), 'jg-token');

      front.seen.splice(0);
      const found = await ed.show(RID_J);
      assert.deepEqual(found.said, []);
      assert.equal(ed.service.timing(RID_J)?.e2eMs, 640);
      assert.deepEqual(front.seen.slice(0, 2).map((q) => [q.path, q.headers.authorization]),
        [['/api/echo', 'Bearer jg-token'], ['/api/services', 'Bearer jg-token']], 'the echo check carries the token');
      assert.ok(front.seen.every((q) => q.headers.authorization === 'Bearer jg-token' && q.headers['x-scope-orgid'] === undefined));
      assert.ok(front.seen.some((q) => q.path === `/api/v3/traces/${TRACE_J}`));
    } finally { ed.dispose(); }
  });
});
