// Find Request in the Fleet… with a multi-tenant Loki and Tempo, on the in-memory VS Code. Loki
// and Tempo are AGPL (never built or run here): loopback servers answer exactly as their HTTP API
// documentation shows (query_range's `streams` result, TraceQL search, a trace as OTLP JSON) and as
// a multi-tenant store refuses (401 "no org id"), and record the headers they got. What is
// checked is what a user would see: the credentials set with Set Fleet Store Credentials… and
// the tenant setting reach the store; a refusal says where to fix it; a result cut by
// hoplens.fleet.lineLimit says so and Fetch More brings the rest.
import '../fakes/register';
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { json, store, tempoTraceAnswer, type Seen } from './loopbackStore';
import { asked, configValues, messages, registered, replies, shownWith, secretStorageOver } from '../fakes/vscode';
import { FleetCommands, fleetLoginKey, fleetTokenKey } from '../../../src/features/fleet/fleetCommand';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import { HopLensSettings, type HopLensConfig } from '../../../src/config';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const T0_NS = NOW_NS - 3600n * 1_000_000_000n;
const TRACE = '2f3e0cee77ae5dc9c17ade3689eb2e54';

/** What a multi-tenant Loki or Tempo answers a query without X-Scope-OrgID. */
function noOrgId(res: http.ServerResponse): void {
  res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end('no org id\n');
}

/** A vLLM pod's lines of one request, newest last, one a millisecond. */
function podLines(pod: string, rid: string, n: number, offsetMs: number): Array<{ pod: string; ns: bigint; text: string }> {
  const texts = [
    `INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-${rid}: params: SamplingParams(n=1), lora_request: None.`,
    `INFO 12-02 10:00:00 [async_llm.py:439] Added request chatcmpl-${rid}-1a2b3c4d.`,
  ];
  return Array.from({ length: n }, (_, i) => ({
    pod, ns: T0_NS + BigInt(offsetMs + i) * 1_000_000n,
    text: texts[i] ?? `DEBUG 12-02 10:00:01 [scheduler.py:700] step ${i} of request chatcmpl-${rid}-1a2b3c4d`,
  }));
}

/**
 * A Loki's query_range (Loki's documented `streams` answer, direction=backward: newest first, at
 * most `limit` lines, the end exclusive) over these lines, when the request's headers pass `ok`.
 */
function lokiAnswer(lines: Array<{ pod: string; ns: bigint; text: string }>, ok: (h: http.IncomingHttpHeaders, res: http.ServerResponse) => boolean) {
  return (q: Seen, res: http.ServerResponse): void => {
    if (q.path !== '/loki/api/v1/query_range') return json(res, 404, { message: 'not found' });
    if (!ok(q.headers, res)) return;
    const end = BigInt(q.query.get('end')!);
    const start = BigInt(q.query.get('start')!);
    const limit = Number(q.query.get('limit'));
    const needle = /\|= "([^"]+)"/.exec(q.query.get('query') ?? '')?.[1] ?? '';
    const picked = lines.filter((l) => l.ns < end && l.ns >= start && l.text.includes(needle)).sort((a, b) => (a.ns > b.ns ? -1 : 1)).slice(0, limit);
    const byPod = new Map<string, Array<[string, string]>>();
    for (const l of picked) {
      const v = byPod.get(l.pod) ?? [];
      v.push([String(l.ns), l.text]);
      byPod.set(l.pod, v);
    }
    json(res, 200, {
      status: 'success',
      data: {
        resultType: 'streams',
        result: [...byPod].map(([pod, values]) => ({ stream: { namespace: 'serving', pod, container: 'vllm' }, values })),
        stats: {
          summary: { bytesProcessedPerSecond: 1, linesProcessedPerSecond: 1, totalBytesProcessed: 1, totalLinesProcessed: picked.length, execTime: 0.001 },
        },
      },
    });
  };
}

/** Tempo's TraceQL search and its v2 trace by id (OTLP JSON, base64 ids), as its API documentation shows them, when `ok` passes. */
function tempo(ok: (h: http.IncomingHttpHeaders) => boolean) {
  return (q: Seen, res: http.ServerResponse): void => {
    if (!ok(q.headers)) return noOrgId(res);
    if (q.path === '/api/search') {
      return json(res, 200, {
        traces: [{ traceID: TRACE, rootServiceName: 'vllm-decode', rootTraceName: 'llm_request', startTimeUnixNano: String(T0_NS), durationMs: 557 }],
        metrics: { inspectedBytes: '2048', completedJobs: 1, totalJobs: 1 },
      });
    }
    if (q.path === `/api/v2/traces/${TRACE}`) {
      return json(res, 200, tempoTraceAnswer(TRACE, {
        spanId: '563d623c76514f8e', startNs: T0_NS, endNs: T0_NS + 557_000_000n, rid: 'chatcmpl-req-tempo-3',
      }));
    }
    json(res, 404, {});
  };
}

describe('Find Request in the Fleet… with multi-tenant Loki and Tempo (documented answers on loopback)', { concurrency: false }, () => {
  let fleet: HopLensConfig['fleet'] = { traces: [], logs: [], selector: '', window: '24h' };
  const secrets = new Map<string, string>();
  let commands: FleetCommands;
  let deps: ConstructorParameters<typeof FleetCommands>[0];

  before(() => {
    deps = {
      settings: { get current() { return { fleet } as HopLensConfig; } },
      secrets: secretStorageOver(secrets),
      log: quiet, timeoutMs: 3000,
    };
    commands = new FleetCommands(deps);
  });
  after(() => commands.dispose());
  beforeEach(() => { messages.length = 0; shownWith.length = 0; replies.length = 0; asked.length = 0; secrets.clear(); });

  test('Loki: the user and password set with the command and the tenant setting reach the store; its lines open per pod', async () => {
    const lines = [...podLines('prefill-0', 'req-loki-1', 2, 0), ...podLines('decode-0', 'req-loki-1', 2, 10)];
    const basic = `Basic ${Buffer.from('alice:pa:ss wörd').toString('base64')}`;
    const s = await store(lokiAnswer(lines, (h, res) => {
      if (!h['x-scope-orgid']) { noOrgId(res); return false; }
      if (h.authorization !== basic) { res.writeHead(401, { 'Content-Type': 'text/plain' }).end('invalid credentials'); return false; }
      return true;
    }));
    try {
      const url = `loki+${s.base}`;
      fleet = { traces: [], logs: [url], selector: '{namespace="serving"}', window: '24h', tenant: 'team-a|team-b' };
      replies.push((items: Array<{ how: string }>) => items.find((i) => i.how === 'login'), 'alice', 'pa:ss wörd');
      await registered.get('hoplens.setFleetCredentials')!();
      assert.deepEqual(JSON.parse(secrets.get(fleetLoginKey(parseStoreUrl(url)))!), { username: 'alice', password: 'pa:ss wörd' });
      assert.match(String((asked[0].options as { title: string }).title),
        /tenant, X-Scope-OrgID, is its entry's "tenant" or the setting hoplens\.fleet\.tenant/);
      assert.deepEqual(messages.at(-1), { kind: 'info', text: `HopLens: user and password stored for ${url}.` });
      messages.length = 0;
      const opened = await commands.find('chatcmpl-req-loki-1');
      assert.deepEqual(opened.map((u) => u.path.split('/').pop()), ['decode-0-vllm.log', 'prefill-0-vllm.log']);
      assert.equal(shownWith[0].doc.getText(), `${lines[2].text}\n${lines[3].text}\n`);
      assert.deepEqual(s.seen.map((x) => [x.headers['x-scope-orgid'], x.headers.authorization]), [['team-a|team-b', basic]]);
      assert.equal(s.seen[0].query.get('query'), '{namespace="serving"} |= "req-loki-1"');
      assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: chatcmpl-req-loki-1: 4 line(s) from 2 pod(s).', buttons: ['Show Timeline'] }]);
    } finally { await s.close(); }
  });

  test('Loki: no tenant set is "needs a tenant" naming the setting; refused credentials name the command', async () => {
    const s = await store(lokiAnswer([], (h, res) => {
      if (!h['x-scope-orgid']) { noOrgId(res); return false; }
      res.writeHead(401, { 'Content-Type': 'text/plain' }).end('invalid credentials');
      return false;
    }));
    try {
      fleet = { traces: [], logs: [`loki+${s.base}`], selector: '{namespace="serving"}', window: '24h', tenant: '' };
      await commands.find('chatcmpl-req-loki-2');
      assert.equal(s.seen[0].headers['x-scope-orgid'], undefined, 'no tenant header when none is set');
      const w = messages.find((m) => m.kind === 'warning');
      assert.ok(w, JSON.stringify(messages));
      assert.match(w.text,
        /needs a tenant \(HTTP 401 "no org id"\).*its tenant \(X-Scope-OrgID\) is the store entry's "tenant" .* or the setting hoplens\.fleet\.tenant/);
      assert.match(messages.at(-1)!.text, /^HopLens: nothing found for chatcmpl-req-loki-2 over /);
      messages.length = 0;
      fleet = { ...fleet, tenant: 'team-a' };
      await commands.find('chatcmpl-req-loki-2');
      assert.match(messages.find((m) => m.kind === 'warning')!.text,
        /refused the credentials \(HTTP 401\).*HopLens: Set Fleet Store Credentials… keeps its token or user and password/);
    } finally { await s.close(); }
  });

  test('Tempo: the bearer token and the tenant reach both the TraceQL search and the trace; Remove takes the token away', async () => {
    const s = await store(tempo((h) => h.authorization === 'Bearer tempo-tk' && h['x-scope-orgid'] === 'team-a'));
    try {
      const url = `tempo+${s.base}`;
      fleet = { traces: [url], logs: [], selector: '', window: '24h', tenant: 'team-a' };
      replies.push((items: Array<{ how: string }>) => items.find((i) => i.how === 'token'), ' tempo-tk ');
      await commands.setCredentials();
      assert.equal(secrets.get(fleetTokenKey(parseStoreUrl(url))), 'tempo-tk');
      messages.length = 0;
      let timeline: { spans: readonly unknown[] } | undefined;
      deps.showTimeline = async (req) => { timeline = req; return true; };
      try {
        replies.push('Show Timeline');
        await commands.find('req-tempo-3');
        for (let i = 0; i < 50 && !timeline; i++) await new Promise((r) => setTimeout(r, 10));
      } finally { deps.showTimeline = undefined; }
      assert.deepEqual(s.seen.map((x) => [x.path, x.headers.authorization, x.headers['x-scope-orgid']]), [
        ['/api/search', 'Bearer tempo-tk', 'team-a'], [`/api/v2/traces/${TRACE}`, 'Bearer tempo-tk', 'team-a'],
      ]);
      assert.match(messages[0].text, new RegExp(`0 line\\(s\\) from 0 pod\\(s\\); 1 span\\(s\\) in trace\\(s\\) ${TRACE}`));
      assert.equal(timeline?.spans.length, 1, 'the span is on the timeline');
      replies.push((items: Array<{ how: string }>) => items.find((i) => i.how === 'remove'));
      await commands.setCredentials();
      assert.equal(secrets.size, 0);
    } finally { await s.close(); }
  });

  test('a result cut by hoplens.fleet.lineLimit says so and offers Fetch More, which opens the request\'s every line', async () => {
    const lines = [...podLines('decode-0', 'req-more-4', 30, 0), ...podLines('prefill-0', 'req-more-4', 5, -100)];
    const s = await store(lokiAnswer(lines, () => true));
    const traces = await store(tempo(() => true));
    try {
      fleet = {
        traces: [`tempo+${traces.base}`], logs: [`loki+${s.base}`], selector: '{namespace="serving"}', window: '24h', lineLimit: 10,
      };
      replies.push('Fetch More');
      const changed: string[] = [];
      const listening = commands.documents.onDidChange((u) => changed.push(u.toString()));
      const first = await commands.find('chatcmpl-req-more-4');
      assert.deepEqual(shownWith.map((x) => x.doc.getText().split('\n').length - 1), [10], 'the newest 10 lines: all from decode-0');
      assert.equal(messages[0].kind, 'warning');
      assert.match(messages[0].text, /: 10 line\(s\) from 1 pod\(s\); 1 span\(s\) in trace\(s\) [0-9a-f]{32}\. Cut by the limit of 10 lines per log store: /);
      assert.match(messages[0].text, /Cut by the limit of 10 lines per log store: older lines were not fetched \(Fetch More asks for up to 40\)/);
      assert.deepEqual(messages[0].buttons, ['Fetch More', 'Show Timeline']);
      for (let i = 0; i < 100 && messages.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(messages.length, 2, 'Fetch More ran the search again');
      assert.deepEqual(messages[1], {
        kind: 'info', text: `HopLens: chatcmpl-req-more-4: 35 line(s) from 2 pod(s); 1 span(s) in trace(s) ${TRACE}.`, buttons: ['Show Timeline'],
      }, 'the span found the first time is kept');
      assert.equal(traces.seen.filter((x) => x.path === '/api/search').length, 1, 'Fetch More asks the log stores only');
      listening.dispose();
      const again = shownWith.slice(1).map((x) => [x.doc.uri.path.split('/').pop(), x.doc.getText().split('\n').length - 1]);
      assert.deepEqual(again, [['decode-0-vllm.log', 30], ['prefill-0-vllm.log', 5]]);
      // One view per pod: decode-0's document is the same URI, its provider told VS Code its text changed (an open tab
      // shows the older and newer lines together); prefill-0, which the first answer lacked, is a document beside it.
      assert.equal(shownWith[1].doc.uri.toString(), first[0].toString(), 'Fetch More fills the same document, not a second one');
      assert.deepEqual(changed, [first[0].toString()]);
      assert.equal(commands.documents.provideTextDocumentContent(first[0]).split('\n').length - 1, 30);
      assert.equal(shownWith[2].doc.uri.query, first[0].query, 'the new pod is in the same search');
      assert.equal(new Set(shownWith.map((x) => x.doc.uri.toString())).size, 2, 'two pods, two documents in all');
      assert.equal(shownWith[1].doc.getText().split('\n')[0], lines[0].text, 'the oldest line is there now');
      assert.deepEqual(s.seen.map((x) => x.query.get('limit')), ['10', '40'], 'same query, the higher limit');
      assert.equal(s.seen[0].query.get('start'), s.seen[1].query.get('start'), 'same window');
    } finally { await s.close(); await traces.close(); }
  });

  test('a tenant per store entry ({ "url", "tenant" }) over hoplens.fleet.tenant; plain URLs keep the setting\'s', async () => {
    const lines = podLines('decode-0', 'req-ten-5', 2, 0);
    const [a, b] = [await store(lokiAnswer(lines, () => true)), await store(lokiAnswer(lines, () => true))];
    const keys = ['hoplens.fleet.logs', 'hoplens.fleet.traces', 'hoplens.fleet.tenant', 'hoplens.fleet.selector'];
    let settings: HopLensSettings | undefined;
    let own: FleetCommands | undefined;
    try {
      configValues.set('hoplens.fleet.logs', [`loki+${a.base}`, { url: `loki+${b.base}/`, tenant: ' team-b ' }]);
      configValues.set('hoplens.fleet.tenant', 'team-a');
      configValues.set('hoplens.fleet.selector', '{namespace="serving"}');
      settings = new HopLensSettings();
      assert.deepEqual(settings.current.fleet.logs, [`loki+${a.base}`, `loki+${b.base}/`], 'the entries\' URLs, as written');
      own = new FleetCommands({ ...deps, settings });
      await own.find('chatcmpl-req-ten-5');
      assert.deepEqual([a.seen.map((x) => x.headers['x-scope-orgid']), b.seen.map((x) => x.headers['x-scope-orgid'])], [['team-a'], ['team-b']]);
      // A Jaeger store takes no tenant: said plainly, nothing asked.
      own.dispose();
      configValues.set('hoplens.fleet.traces', [{ url: 'jaeger+http://127.0.0.1:1', tenant: 'x' }]);
      settings.dispose();
      settings = new HopLensSettings();
      own = new FleetCommands({ ...deps, settings });
      messages.length = 0;
      await own.find('chatcmpl-req-ten-5');
      assert.deepEqual([a.seen.map((x) => x.headers['x-scope-orgid']), b.seen.map((x) => x.headers['x-scope-orgid'])],
        [['team-a'], ['team-b']]);
      assert.equal(a.seen.length, 1, 'nothing asked');
    } finally {
      own?.dispose(); settings?.dispose();
      for (const k of keys) configValues.delete(k);
      await a.close(); await b.close();
    }
  });
});
