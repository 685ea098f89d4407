// The fleet clients against the real servers: Jaeger v2 (1.76.0) and VictoriaLogs (1.52.2), built
// by scripts/fleet-tools.mjs and started here on loopback ports; spans go in over OTLP/HTTP, lines
// over VictoriaLogs' JSON-lines ingestion with pod labels. A loopback proxy in front of
// VictoriaLogs plays what stands between a user and a store: a token check, a proxy's HTML error
// page, a body cut short, a 50 MB answer, a server that never answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fleetBinariesOrSkip, freePort, startJaeger, startVictoriaLogs, type JaegerServer, type VictoriaLogsServer } from '../../harness/fleetServers';
import { JaegerClient } from '../../../src/core/fleet/jaeger';
import { VictoriaLogsClient } from '../../../src/core/fleet/victoriaLogs';
import { findRequestInFleet } from '../../../src/core/fleet/find';
import { FleetError } from '../../../src/core/fleet/http';
import { parseStoreUrl, type RemoteLogEntry } from '../../../src/core/fleet/model';
import { logSearchTerms } from '../../../src/core/fleet/requestIds';

const NOW_MS = Date.now();
const T0_MS = NOW_MS - 3600_000; // an hour ago: inside the default 24 h window
const WINDOW = { startMs: NOW_MS - 6 * 3600_000, endMs: NOW_MS + 60_000 };
const TRACE_A = '5b8efff798038103d269b633813fc60c';
const TRACE_B = '0af7651916cd43dd8448eb211c80319c';
const TRACE_C = '11112222333344445555666677778888';

function nsParts(ms: number): { whole: number; subNs: number } {
  const whole = Math.floor(ms);
  return { whole, subNs: (whole % 1000) * 1_000_000 + Math.round((ms - whole) * 1e6) };
}

function ns(ms: number): string {
  const { whole, subNs } = nsParts(ms);
  return (BigInt(Math.floor(whole / 1000)) * 1_000_000_000n + BigInt(subNs)).toString();
}

function span(service: string, traceId: string, spanId: string, name: string, attrs: Record<string, string>, startMs: number, parent?: string): unknown {
  return {
    resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
    scopeSpans: [{
      scope: { name: 'vllm.llm_engine' },
      spans: [{
        traceId, spanId, ...(parent ? { parentSpanId: parent } : {}), name, kind: 2,
        startTimeUnixNano: ns(startMs), endTimeUnixNano: ns(startMs + 250),
        attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } })),
      }],
    }],
  };
}

function rfc(ms: number): string {
  const { whole, subNs } = nsParts(ms);
  return `${new Date(whole).toISOString().slice(0, 19)}.${String(subNs).padStart(9, '0')}Z`;
}

const ESC = '\u001b';
const HOSTILE = `${ESC}[31mchatcmpl-req-fleet-1 ${ESC}]8;;command:workbench.action.terminal.new${ESC}\\click${ESC}]8;;${ESC}\\`
  + ' [x](command:hoplens.sendTracedRequest)';

describe('fleet clients against real Jaeger and VictoriaLogs', { concurrency: false }, () => {
  let jaeger: JaegerServer | undefined;
  let vl: VictoriaLogsServer | undefined;
  let skipped = false;

  before(async (t) => {
    const bins = fleetBinariesOrSkip({
      skip: (why) => { skipped = true; process.stderr.write(`${why}\n`); (t as unknown as { skip?: (w: string) => void }).skip?.(why); },
    });
    if (!bins) return;
    [jaeger, vl] = await Promise.all([startJaeger(bins.jaeger), startVictoriaLogs(bins.victorialogs)]);
    await jaeger.ingest({
      resourceSpans: [
        span('vllm-prefill', TRACE_A, 'aaaa00000000a001', 'llm_request', { 'gen_ai.request.id': 'chatcmpl-req-fleet-1' }, T0_MS),
        span('vllm-decode', TRACE_A, 'aaaa00000000a002', 'llm_request', { 'gen_ai.request.id': 'chatcmpl-req-fleet-1' }, T0_MS + 300, 'aaaa00000000a001'),
        span('sglang-router', TRACE_B, 'bbbb00000000b001', 'request', { rid: 'sg-rid-7' }, T0_MS + 1000),
        span('vllm-decode', TRACE_C, 'cccc00000000c001', 'llm_request', { 'gen_ai.request.id': 'chatcmpl-other-9' }, T0_MS + 2000),
      ],
    }, [TRACE_A, TRACE_B, TRACE_C]);
    const rows: Array<{ _msg: string; _time: string; [k: string]: string }> = [];
    const pods = ['router-0', 'prefill-0', 'decode-0'];
    const lines = [
      'INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-req-fleet-1: params: SamplingParams(n=1), lora_request: None.',
      'INFO 12-02 10:00:00 [async_llm.py:439] Added request chatcmpl-req-fleet-1-1a2b3c4d.',
      'DEBUG 12-02 10:00:00 [nixl_connector.py:900] Finished sending KV transfer for request chatcmpl-req-fleet-1-1a2b3c4d',
      'INFO 12-02 10:00:00 [logger.py:43] Received request chatcmpl-other-9: params: SamplingParams(n=1), lora_request: None.',
    ];
    pods.forEach((pod, p) => lines.forEach((msg, i) => rows.push({ _msg: msg, _time: rfc(T0_MS + p * 10 + i), namespace: 'serving', pod, container: 'vllm' })));
    rows.push({ _msg: HOSTILE, _time: rfc(T0_MS + 50), namespace: 'serving', pod: 'decode-0', container: 'vllm' });
    rows.push({ _msg: 'INFO Added request chatcmpl-req-fleet-1.', _time: rfc(T0_MS + 60), namespace: 'staging', pod: 'decode-9', container: 'vllm' });
    // 10,000 lines of one request, three to each microsecond, so pages end inside an instant.
    for (let i = 0; i < 10_000; i++) {
      rows.push({
        _msg: `DEBUG step ${i} for request chatcmpl-req-bulk-2`, _time: rfc(T0_MS + 100 + Math.floor(i / 3) / 1000),
        namespace: 'serving', pod: `decode-${i % 4}`, container: 'vllm',
      });
    }
    await vl.ingest(rows);
  });

  after(async () => {
    await Promise.all([jaeger?.stop(), vl?.stop()]);
  });

  test('Jaeger: a request found by its client id across every service, decoded as OTLP spans', async (t) => {
    if (skipped || !jaeger) return t.skip('no fleet tools');
    const client = new JaegerClient(parseStoreUrl(`jaeger+${jaeger.baseUrl}`));
    assert.deepEqual(await client.services(), ['sglang-router', 'vllm-decode', 'vllm-prefill']);
    const a = await client.findByRequestId(['req-fleet-1'], WINDOW);
    assert.deepEqual(a.traceIds, [TRACE_A]);
    assert.deepEqual(a.spans.map((s) => [s.resource['service.name'], s.spanId, s.kind, s.attributes['gen_ai.request.id']]).sort(), [
      ['vllm-decode', 'aaaa00000000a002', 'SERVER', 'chatcmpl-req-fleet-1'],
      ['vllm-prefill', 'aaaa00000000a001', 'SERVER', 'chatcmpl-req-fleet-1'],
    ]);
    assert.equal(a.spans.find((s) => s.spanId === 'aaaa00000000a002')?.parentSpanId, 'aaaa00000000a001');
    assert.match(a.query, /3 service\(s\): sglang-router, vllm-decode, vllm-prefill/);
    // The engine's own form of the id finds it too.
    assert.deepEqual((await client.findByRequestId(['chatcmpl-req-fleet-1-1a2b3c4d'], WINDOW)).traceIds, [TRACE_A]);
  });

  test("Jaeger: SGLang's rid on its root span, a trace by id, and nothing for an unknown id or outside the window", async (t) => {
    if (skipped || !jaeger) return t.skip('no fleet tools');
    const client = new JaegerClient(parseStoreUrl(`jaeger+${jaeger.baseUrl}`));
    const b = await client.findByRequestId(['sg-rid-7'], WINDOW);
    assert.deepEqual([b.traceIds, b.spans.map((s) => s.name)], [[TRACE_B], ['request']]);
    const byId = await client.findByTraceId(TRACE_A.toUpperCase());
    assert.equal(byId.spans.length, 2);
    assert.deepEqual(byId.traceIds, [TRACE_A]);
    const none = await client.findByRequestId(['no-such-request'], WINDOW);
    assert.deepEqual([none.spans.length, none.traceIds], [0, []]);
    assert.match(none.query, /no trace found/);
    assert.equal((await client.findByRequestId(['req-fleet-1'], { startMs: NOW_MS - 120_000, endMs: NOW_MS })).spans.length, 0);
    assert.deepEqual((await client.findByTraceId('00000000000000000000000000000abc')).spans, []);
  });

  test('VictoriaLogs: every id form of the request, from every pod, each line with its labels and the store time', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    const client = new VictoriaLogsClient(parseStoreUrl(`victorialogs+${vl.baseUrl}`));
    const a = await client.requestLines(logSearchTerms('req-fleet-1'), WINDOW, { selector: '{namespace="serving"}' });
    assert.equal(a.truncated, false);
    assert.deepEqual(a.streams.map((s) => [s.name, s.labels.namespace, s.labels.pod, s.labels.container, s.entries.length]), [
      ['decode-0/vllm', 'serving', 'decode-0', 'vllm', 4],
      ['prefill-0/vllm', 'serving', 'prefill-0', 'vllm', 3],
      ['router-0/vllm', 'serving', 'router-0', 'vllm', 3],
    ]);
    const prefill = a.streams.find((s) => s.labels.pod === 'prefill-0')!;
    assert.deepEqual(prefill.entries.map((e) => e.timeNs), [0, 1, 2].map((i) => BigInt(ns(T0_MS + 10 + i))));
    assert.match(prefill.entries[2].text, /^DEBUG .*Finished sending KV transfer for request chatcmpl-req-fleet-1-1a2b3c4d$/);
    assert.ok(!a.streams.some((s) => s.entries.some((e) => e.text.includes('chatcmpl-other-9'))), 'another request\'s lines stay out');
    // The hostile line comes back byte for byte (made inert where it is shown, not here).
    assert.ok(a.streams.find((s) => s.labels.pod === 'decode-0')!.entries.some((e) => e.text === HOSTILE));
    // Without the selector the staging pod is found too.
    const all = await client.requestLines(logSearchTerms('chatcmpl-req-fleet-1'), WINDOW);
    assert.ok(all.streams.some((s) => s.labels.namespace === 'staging'));
  });

  test('VictoriaLogs: 10,000 lines of one request come back whole through pages that end inside an instant; the limit says it cut', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    const client = new VictoriaLogsClient(parseStoreUrl(`victorialogs+${vl.baseUrl}`));
    const a = await client.requestLines(['req-bulk-2'], WINDOW, { pageSize: 3001, limit: 20_000 });
    assert.equal(a.lines, 10_000);
    assert.equal(a.truncated, false);
    const steps = a.streams.flatMap((s) => s.entries.map((e) => Number(/step (\d+)/.exec(e.text)![1]))).sort((x, y) => x - y);
    assert.deepEqual(steps, Array.from({ length: 10_000 }, (_, i) => i), 'every line once');
    for (const s of a.streams) {
      for (let i = 1; i < s.entries.length; i++) assert.ok(s.entries[i - 1].timeNs <= s.entries[i].timeNs, 'each stream oldest first');
    }
    const cut = await client.requestLines(['req-bulk-2'], WINDOW, { pageSize: 1000, limit: 2500 });
    assert.deepEqual([cut.lines, cut.truncated], [2500, true]);
    assert.match(cut.query, /cut at the limit of 2500/);
  });

  test('VictoriaLogs: live following delivers a new line of the request, and ends on cancel', async (t) => {
    if (skipped || !vl) return t.skip('no fleet tools');
    const client = new VictoriaLogsClient(parseStoreUrl(`victorialogs+${vl.baseUrl}`));
    const ctl = new AbortController();
    const got: Array<{ pod: string; entry: RemoteLogEntry }> = [];
    const following = client.follow(['req-live-3'], (labels, entry) => { got.push({ pod: labels.pod, entry }); ctl.abort(); }, { signal: ctl.signal });
    await new Promise((r) => setTimeout(r, 1500));
    await vl.ingest([
      { _msg: 'INFO Added request chatcmpl-req-live-3-0badc0de.', _time: rfc(Date.now()), namespace: 'serving', pod: 'decode-1', container: 'vllm' },
    ]);
    const guard = setTimeout(() => ctl.abort(), 15_000);
    await following;
    clearTimeout(guard);
    assert.deepEqual(got.map((g) => [g.pod, g.entry.text]), [['decode-1', 'INFO Added request chatcmpl-req-live-3-0badc0de.']]);
  });

  describe('what stands between a user and the store', () => {
    let proxy: { base: string; mode: string; close(): Promise<void> } | undefined;
    before(async () => {
      if (!vl) return;
      const target = new URL(vl.baseUrl);
      const state = { mode: 'pass' };
      const server = http.createServer((req, res) => {
        const mode = state.mode;
        if (mode === 'token' && req.headers.authorization !== 'Bearer s3cret') {
          res.writeHead(401, { 'Content-Type': 'text/plain' });
          res.end('Unauthorized');
          return;
        }
        if (mode === 'html') {
          res.writeHead(502, { 'Content-Type': 'text/html' });
          res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>');
          return;
        }
        if (mode === 'slow') return; // never answers
        if (mode === 'huge') {
          res.writeHead(200, { 'Content-Type': 'application/stream+json' });
          const line = `${JSON.stringify({ _msg: 'x'.repeat(1000), _time: rfc(T0_MS), _stream: '{pod="p"}' })}\n`;
          let sent = 0;
          const pump = (): void => {
            while (sent < 50 * 1024 * 1024) { sent += line.length; if (!res.write(line)) { res.once('drain', pump); return; } }
            res.end();
          };
          res.on('error', () => undefined);
          pump();
          return;
        }
        const headers = { ...req.headers, 'accept-encoding': 'identity' };
        const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (ur) => {
          if (mode === 'cut') {
            const chunks: Buffer[] = [];
            ur.on('data', (c: Buffer) => chunks.push(c));
            ur.on('end', () => {
              const all = Buffer.concat(chunks);
              res.writeHead(200, { 'Content-Type': 'application/stream+json' });
              res.end(all.subarray(0, Math.floor(all.length * 0.6)));
            });
            return;
          }
          res.writeHead(ur.statusCode ?? 502, ur.headers);
          ur.pipe(res);
        });
        req.pipe(up);
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      proxy = {
        base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        get mode() { return state.mode; },
        set mode(m: string) { state.mode = m; },
        close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }),
      };
    });
    after(async () => { await proxy?.close(); });

    async function failure(p: Promise<unknown>): Promise<FleetError> {
      try { await p; } catch (e) { assert.ok(e instanceof FleetError, String(e)); return e; }
      assert.fail('expected a FleetError');
    }

    test('401 without the token, the lines with it', async (t) => {
      if (skipped || !proxy) return t.skip('no fleet tools');
      proxy.mode = 'token';
      const endpoint = parseStoreUrl(`victorialogs+${proxy.base}`);
      const e = await failure(new VictoriaLogsClient(endpoint).requestLines(['req-fleet-1'], WINDOW));
      assert.equal(e.kind, 'auth');
      assert.match(e.message, /refused the credentials \(HTTP 401\)/);
      const ok = await new VictoriaLogsClient(endpoint, { credentials: { bearerToken: 's3cret' } })
        .requestLines(['req-fleet-1'], WINDOW, { selector: '{namespace="serving"}' });
      assert.equal(ok.lines, 10);
    });

    test("a proxy's HTML error page, a body cut short, a 50 MB answer: each a plain message", async (t) => {
      if (skipped || !proxy) return t.skip('no fleet tools');
      const client = new VictoriaLogsClient(parseStoreUrl(`victorialogs+${proxy.base}`), { maxBytes: 8 * 1024 * 1024 });
      proxy.mode = 'html';
      const html = await failure(client.requestLines(['req-fleet-1'], WINDOW));
      assert.match(html.message, /HTTP 502 with an HTML page \("502 Bad Gateway"\)/);
      proxy.mode = 'cut';
      const cut = await failure(client.requestLines(['req-bulk-2'], WINDOW));
      assert.equal(cut.kind, 'truncated');
      proxy.mode = 'huge';
      const t0 = Date.now();
      const huge = await failure(client.requestLines(['x'], WINDOW));
      assert.equal(huge.kind, 'too-large');
      assert.match(huge.message, /over 8 MB/);
      assert.ok(Date.now() - t0 < 5000, 'reading stops at the cap');
    });

    test('slow: the timeout holds; cancel ends the call at once; down: cannot reach', async (t) => {
      if (skipped || !proxy) return t.skip('no fleet tools');
      proxy.mode = 'slow';
      const endpoint = parseStoreUrl(`victorialogs+${proxy.base}`);
      let t0 = Date.now();
      const slow = await failure(new VictoriaLogsClient(endpoint, { timeoutMs: 400 }).requestLines(['req-fleet-1'], WINDOW));
      assert.equal(slow.kind, 'timeout');
      assert.ok(Date.now() - t0 < 2000, `timed out after ${Date.now() - t0} ms`);
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 150);
      t0 = Date.now();
      const cancelled = await failure(new VictoriaLogsClient(endpoint, { timeoutMs: 30_000 }).requestLines(['req-fleet-1'], WINDOW, { signal: ctl.signal }));
      assert.equal(cancelled.kind, 'cancelled');
      assert.ok(Date.now() - t0 < 2000);
      const down = await failure(new VictoriaLogsClient(parseStoreUrl(`victorialogs+http://127.0.0.1:${await freePort()}`)).requestLines(['a'], WINDOW));
      assert.equal(down.kind, 'unreachable');
      assert.match(down.message, /ECONNREFUSED/);
    });

    test('findRequestInFleet: spans and lines from the stores that answered, a plain reason for the one that did not', async (t) => {
      if (skipped || !proxy || !jaeger || !vl) return t.skip('no fleet tools');
      proxy.mode = 'slow';
      const r = await findRequestInFleet({
        requestId: 'req-fleet-1', window: WINDOW, selector: '{namespace="serving"}',
        traces: [parseStoreUrl(`jaeger+${jaeger.baseUrl}`)],
        logs: [parseStoreUrl(`victorialogs+${vl.baseUrl}`), parseStoreUrl(`victorialogs+${proxy.base}`)],
        clientOptions: () => ({ timeoutMs: 500 }),
      });
      assert.equal(r.spans.length, 2);
      assert.deepEqual(r.logs.map((l) => l.streams.length), [3]);
      assert.deepEqual(r.problems.map((p) => p.kind), ['timeout']);
      assert.match(r.problems[0].message, new RegExp(`victorialogs at ${proxy.base}: no complete answer`));
    });
  });
});
