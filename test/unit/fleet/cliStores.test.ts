// `hoplens annotate --logs loki+…` and `hoplens timeline --traces tempo+…` (dist/cli.js, a real
// child process) with a multi-tenant Loki and Tempo. Both are AGPL (never built or run here):
// loopback servers answer exactly as their HTTP API documentation shows, refuse as a multi-tenant
// store does (401 "no org id"), and record the headers they got. The credentials and tenant come
// from the environment only, a tenant also from --tenant after a store's URL (each store its own);
// a refusal names the variables to set; a cut answer says --limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, store, tempoTraceAnswer, type Seen } from './loopbackStore';
import { REPO, runCli } from '../cli/cliProcess';

const RID = 'pd-0003';
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** The decode pod's lines of the request, as a log shipper stored them a millisecond apart an hour ago. */
const DECODE = readFileSync(join(REPO, 'test', 'fixtures', 'timeline', 'pd-run', 'decode.log'), 'utf8').split('\n')
  .filter((l) => l.includes(RID)).map((text, i) => ({ ns: NOW_NS - 3600n * 1_000_000_000n + BigInt(i) * 1_000_000n, text }));

/** The environment without any HOPLENS_* the developer's shell may hold, plus `vars`. */
function env(vars: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('HOPLENS_')) out[k] = v;
  return { ...out, HOPLENS_FLEET_TIMEOUT_MS: '5000', ...vars };
}

/** Loki's query_range, documented `streams` answer, direction=backward: newest first, at most `limit`, the end exclusive. */
function loki(q: Seen, res: http.ServerResponse): void {
  if (q.path !== '/loki/api/v1/query_range') return json(res, 404, {});
  if (!q.headers['x-scope-orgid']) { res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' }); res.end('no org id\n'); return; }
  if (q.headers.authorization !== `Basic ${Buffer.from('svc:pw').toString('base64')}`) {
    res.writeHead(401, { 'Content-Type': 'text/plain' }); res.end('invalid credentials'); return;
  }
  const end = BigInt(q.query.get('end')!);
  const values = DECODE.filter((l) => l.ns < end).sort((a, b) => (a.ns > b.ns ? -1 : 1)).slice(0, Number(q.query.get('limit')))
    .map((l) => [String(l.ns), l.text]);
  json(res, 200, {
    status: 'success',
    data: {
      resultType: 'streams',
      result: values.length ? [{ stream: { namespace: 'serving', pod: 'decode-0', container: 'vllm' }, values }] : [],
      stats: { summary: { totalLinesProcessed: values.length, execTime: 0.001 } },
    },
  });
}

test('annotate --logs loki+…: user, password and tenant from the environment reach Loki; each missing one is named', async () => {
  const s = await store(loki);
  try {
    const args = ['annotate', '--logs', `loki+${s.base}`, '--rid', RID, '--selector', '{namespace="serving"}', '--json'];
    const ok = await runCli(args, { env: env({ HOPLENS_LOKI_USER: 'svc', HOPLENS_LOKI_PASSWORD: 'pw', HOPLENS_LOKI_ORG_ID: 'serving' }) });
    assert.equal(ok.code, 0, ok.stderr);
    const objs = ok.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(objs.filter((o) => o.kind === 'stream').map((o) => [o.name, o.lines]), [['decode-0:vllm', DECODE.length]]);
    assert.deepEqual(s.seen.map((x) => [x.headers['x-scope-orgid'], x.headers.authorization]), [
      ['serving', `Basic ${Buffer.from('svc:pw').toString('base64')}`],
    ]);

    const noTenant = await runCli(args, { env: env({ HOPLENS_LOKI_USER: 'svc', HOPLENS_LOKI_PASSWORD: 'pw' }) });
    assert.equal(noTenant.code, 1);
    assert.match(noTenant.stderr,
      /^hoplens annotate: loki at http:\/\/127\.0\.0\.1:\d+: .*needs a tenant \(HTTP 401 "no org id"\).*\(tenant: --tenant T after its URL, or HOPLENS_LOKI_ORG_ID\)$/m);
    const badLogin = await runCli(args, { env: env({ HOPLENS_LOKI_ORG_ID: 'serving', HOPLENS_LOKI_TOKEN: 'wrong' }) });
    assert.equal(badLogin.code, 1);
    assert.match(badLogin.stderr, /refused the credentials \(HTTP 401\).*; set HOPLENS_LOKI_TOKEN, or HOPLENS_LOKI_USER and HOPLENS_LOKI_PASSWORD/);
  } finally { await s.close(); }
});

test('annotate --limit: an answer cut by it says so on stderr and how to ask for more; the newest lines are shown', async () => {
  const s = await store(loki);
  try {
    const r = await runCli(['annotate', '--logs', `loki+${s.base}`, '--rid', RID, '--selector', '{namespace="serving"}', '--limit', '3', '--json'],
      { env: env({ HOPLENS_LOKI_USER: 'svc', HOPLENS_LOKI_PASSWORD: 'pw', HOPLENS_LOKI_ORG_ID: 'serving' }) });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: loki at http:\/\/127\.0\.0\.1:\d+ had more lines than the limit of 3: the newest 3 were fetched, older ones not/);
    assert.match(r.stderr, /warning: --limit N asks a log store for more lines/);
    const objs = r.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(objs.filter((o) => o.kind === 'stream').map((o) => o.lines), [3]);
    assert.equal(s.seen[0].query.get('limit'), '3');
  } finally { await s.close(); }
});

test('timeline --traces tempo+…: the token and tenant from the environment reach the search and the trace', async () => {
  const s = await store((q, res) => {
    if (q.headers.authorization !== 'Bearer tk-1' || q.headers['x-scope-orgid'] !== 'team-a') {
      res.writeHead(401, { 'Content-Type': 'text/plain' });
      res.end('no org id');
      return;
    }
    if (q.path === '/api/search') {
      return json(res, 200, {
        traces: [{ traceID: TRACE, rootServiceName: 'vllm-decode', rootTraceName: 'llm_request', startTimeUnixNano: String(NOW_NS), durationMs: 900 }],
      });
    }
    if (q.path === `/api/v2/traces/${TRACE}`) {
      return json(res, 200, tempoTraceAnswer(TRACE, {
        spanId: '00f067aa0ba902b7', startNs: NOW_NS - 5_000_000_000n, endNs: NOW_NS - 4_100_000_000n, rid: `chatcmpl-${RID}`,
      }));
    }
    json(res, 404, {});
  });
  try {
    const r = await runCli(['timeline', '--rid', RID, '--traces', `tempo+${s.base}`, '--json'],
      { env: env({ HOPLENS_TEMPO_TOKEN: 'tk-1', HOPLENS_TEMPO_ORG_ID: 'team-a' }) });
    assert.equal(r.code, 0, r.stderr);
    const summary = r.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((o) => o.kind === 'summary');
    assert.deepEqual([summary?.spans, summary?.traceIds], [1, [TRACE]]);
    assert.deepEqual(s.seen.map((x) => x.path), ['/api/search', `/api/v2/traces/${TRACE}`]);
    const without = await runCli(['timeline', '--rid', RID, '--traces', `tempo+${s.base}`], { env: env({ HOPLENS_TEMPO_TOKEN: 'tk-1' }) });
    assert.equal(without.code, 1);
    assert.match(without.stderr, /needs a tenant .*HOPLENS_TEMPO_ORG_ID/);
  } finally { await s.close(); }
});

/** A Loki of one tenant: its lines only to a query with that X-Scope-OrgID, else "no org id" (no header) or nothing (another tenant). */
function lokiOfTenant(tenant: string, pod: string) {
  return (q: Seen, res: http.ServerResponse): void => {
    if (q.path !== '/loki/api/v1/query_range') return json(res, 404, {});
    const asked = q.headers['x-scope-orgid'];
    if (!asked) { res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' }); res.end('no org id\n'); return; }
    const values = asked === tenant ? DECODE.slice(0, 2).map((l) => [String(l.ns), l.text]) : [];
    json(res, 200, {
      status: 'success',
      data: { resultType: 'streams', result: values.length ? [{ stream: { namespace: tenant, pod, container: 'vllm' }, values }] : [], stats: {} },
    });
  };
}

test('--tenant after a store\'s URL: two Lokis of two tenants in one run, each its own; a third store takes HOPLENS_LOKI_ORG_ID', async () => {
  const [a, b, c] = [await store(lokiOfTenant('team-a', 'decode-a')), await store(lokiOfTenant('team-b', 'decode-b')),
    await store(lokiOfTenant('shared', 'decode-s'))];
  try {
    const args = ['annotate', '--logs', `loki+${a.base}`, '--tenant', 'team-a', '--logs', `loki+${b.base}`, '--tenant=team-b',
      '--logs', `loki+${c.base}`, '--rid', RID, '--selector', '{namespace=~".+"}', '--json'];
    const r = await runCli(args, { env: env({ HOPLENS_LOKI_ORG_ID: 'shared' }) });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([a, b, c].map((s) => s.seen.map((x) => x.headers['x-scope-orgid'])), [['team-a'], ['team-b'], ['shared']]);
    const streams = r.stdout.toString('utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((o) => o.kind === 'stream').map((o) => o.name).sort();
    assert.deepEqual(streams, ['decode-a:vllm', 'decode-b:vllm', 'decode-s:vllm'], 'each store\'s lines, found in its tenant');

    // The same on the timeline: one store's --tenant, the other's from the variable.
    for (const s of [a, b, c]) s.seen.splice(0);
    const t = await runCli(['timeline', '--rid', RID, '--logs', `loki+${a.base}`, '--tenant', 'team-a', '--logs', `loki+${b.base}`,
      '--selector', '{namespace=~".+"}', '--json'], { env: env({ HOPLENS_LOKI_ORG_ID: 'team-b' }) });
    assert.equal(t.code, 0, t.stderr);
    assert.deepEqual([a, b].map((s) => s.seen.map((x) => x.headers['x-scope-orgid'])), [['team-a'], ['team-b']]);
  } finally { await a.close(); await b.close(); await c.close(); }
});

test('--tenant where it cannot go is exit 2 with the reason, before any store is asked', async () => {
  const s = await store(lokiOfTenant('team-a', 'decode-a'));
  try {
    const cases: Array<[string[], RegExp]> = [
      [['--tenant', 'team-a', '--logs', `loki+${s.base}`], /--tenant goes right after the store it is for \(e\.g\. --logs loki\+http:\/\/HOST:3100 --tenant team-a\)/],
      [['--logs', 'decode.log', '--tenant', 'team-a'], /--tenant is a store's tenant, and the --logs before it is a file/],
      [['--logs', `loki+${s.base}`, '--tenant', 'a', '--tenant', 'b'], /--tenant is given twice for loki\+http:\/\/127\.0\.0\.1:\d+/],
      [['--logs', `victorialogs+${s.base}`, '--tenant', 'team-a'], /--tenant for victorialogs\+http:\/\/127\.0\.0\.1:\d+ "team-a" is not a VictoriaLogs tenant: ACCOUNT or ACCOUNT:PROJECT/],
      [['--logs', `loki+${s.base}`, '--traces', 'jaeger+http://127.0.0.1:9', '--tenant', 'x'], /--tenant x: jaeger\+http:\/\/127\.0\.0\.1:9 is a Jaeger store, which takes no tenant/],
    ];
    for (const [given, why] of cases) {
      for (const cmd of given.includes('--traces') ? ['timeline'] : ['annotate', 'timeline']) {
        const r = await runCli([cmd, '--rid', RID, ...given], { env: env({}) });
        assert.equal(r.code, 2, `${cmd} ${given.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, why, `${cmd} ${given.join(' ')}`);
      }
    }
    assert.equal(s.seen.length, 0, 'nothing asked');
  } finally { await s.close(); }
});
