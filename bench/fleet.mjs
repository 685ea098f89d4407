#!/usr/bin/env node
// Benchmark: one request's lines and spans from a fleet-sized store. Real VictoriaLogs and Jaeger
// (scripts/fleet-tools.mjs) on loopback ports; 1,000,000 lines from 16 pods (10,000 requests of
// 100 lines each, interleaved) and 5,000 traces in 16 services; then findRequestInFleet for one
// request, filtered in the stores. The limit: on screen in under 2 s, memory growing with
// the request's lines, not the store's.
//
//   node bench/fleet.mjs [--lines 1000000] [--pods 16] [--runs 5]
//
// The searches run in a child process that does nothing else (the client as the CLI is), so its
// peak RSS is the client's own, not the ingest's: printed beside the peak of the same child
// asking nothing (modules loaded, --runs 0). Run it at two store sizes (--lines 250000, 1000000):
// the request's lines are 100 either way, so the client's memory should not follow the store's.
//
// Needs the compiled tests (`node node_modules/typescript/bin/tsc -p tsconfig.test.json`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFleetTools } from '../scripts/fleet-tools.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { findRequestInFleet } = require(join(root, 'out', 'src', 'core', 'fleet', 'find.js'));
const { parseStoreUrl } = require(join(root, 'out', 'src', 'core', 'fleet', 'model.js'));

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const LINES = arg('--lines', 1_000_000);
const PODS = arg('--pods', 16);
const RUNS = arg('--runs', 5);
const PER_REQUEST = 100;
const REQUESTS = Math.max(1, Math.floor(LINES / PER_REQUEST));

// The child: `--client VL_URL JAEGER_URL REQUEST START_MS`: RUNS searches, then its times and peak RSS.
const client = process.argv.indexOf('--client');
if (client > 0) {
  const [vlUrl, jaegerUrl, requestId, startMs] = process.argv.slice(client + 1, client + 5);
  const query = {
    requestId, window: { startMs: Number(startMs), endMs: Date.now() + 60_000 },
    traces: [parseStoreUrl(`jaeger+${jaegerUrl}`)], logs: [parseStoreUrl(`victorialogs+${vlUrl}`)],
  };
  const times = [];
  let last;
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    last = await findRequestInFleet(query);
    times.push(performance.now() - s);
  }
  const lines = last ? last.logs.reduce((n, l) => n + l.streams.reduce((m, st) => m + st.entries.length, 0), 0) : 0;
  process.stdout.write(`${JSON.stringify({
    times, lines, streams: last?.logs[0]?.streams.length ?? 0, spans: last?.spans.length ?? 0, problems: last?.problems.map((p) => p.message) ?? [],
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 102.4) / 10,
  })}\n`);
  process.exit(0);
}

/** Runs the client child with `runs` searches; its JSON answer. */
function runClient(runs, args) {
  return new Promise((resolve, reject) => {
    const argv = [fileURLToPath(import.meta.url), '--runs', String(runs), '--client', ...args];
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b) => { out += b; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`client exited ${code}`))));
  });
}

const { startJaeger, startVictoriaLogs } = require(join(root, 'out', 'test', 'harness', 'fleetServers.js'));
const tools = ensureFleetTools();
const [vl, jaeger] = await Promise.all([startVictoriaLogs(tools.victorialogs), startJaeger(tools.jaeger)]);
try {
  const t0 = Date.now() - 3600_000;
  const ingestStart = performance.now();
  const CHUNK = 50_000;
  for (let base = 0; base < LINES; base += CHUNK) {
    const rows = [];
    for (let i = base; i < Math.min(LINES, base + CHUNK); i++) {
      const req = i % REQUESTS;
      const step = Math.floor(i / REQUESTS);
      const pod = req % PODS;
      rows.push({
        _msg: `(EngineCore_DP0 pid=${4000 + pod}) DEBUG 12-02 10:${String(step % 60).padStart(2, '0')}:00 [scheduler.py:612] step ${step} scheduled request chatcmpl-bench-${req}-0a1b2c3d`,
        _time: new Date(t0 + i * 3).toISOString(), namespace: 'serving', pod: `decode-${pod}`, container: 'vllm',
      });
    }
    await vl.ingest(rows);
  }
  const ingestS = (performance.now() - ingestStart) / 1000;
  const spans = [];
  for (let r = 0; r < 5000; r++) {
    const id = r.toString(16).padStart(32, '0').replace(/^0/, 'a');
    spans.push({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: `vllm-${r % PODS}` } }] },
      scopeSpans: [{ scope: { name: 'vllm.llm_engine' }, spans: [{
        traceId: id, spanId: (r + 1).toString(16).padStart(16, '0'), name: 'llm_request', kind: 2,
        startTimeUnixNano: `${BigInt(t0 + r * 10) * 1_000_000n}`, endTimeUnixNano: `${BigInt(t0 + r * 10 + 800) * 1_000_000n}`,
        attributes: [{ key: 'gen_ai.request.id', value: { stringValue: `chatcmpl-bench-${r}` } }],
      }] }],
    });
  }
  const target = 321; // below both the request count (lines) and the trace count
  await jaeger.ingest({ resourceSpans: spans }, [target.toString(16).padStart(32, '0').replace(/^0/, 'a')]);
  const args = [vl.baseUrl, jaeger.baseUrl, `bench-${target}`, String(t0 - 60_000)];
  const load = [loadavg()[0]];
  const idle = await runClient(0, args);
  const r = await runClient(RUNS, args);
  load.push(loadavg()[0]);
  const times = [...r.times].sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({
    storeLines: LINES, pods: PODS, traces: 5000, ingestSeconds: Math.round(ingestS * 10) / 10,
    requestLines: r.lines, streams: r.streams, spans: r.spans, problems: r.problems, runs: RUNS,
    medianMs: Math.round(times[Math.floor(times.length / 2)]), minMs: Math.round(times[0]), maxMs: Math.round(times[times.length - 1]),
    timesMs: r.times.map((t) => Math.round(t)), clientPeakRssMB: r.peakRssMB, clientIdlePeakRssMB: idle.peakRssMB,
    load1m: load.map((l) => Math.round(l * 100) / 100),
  })}\n`);
} finally {
  await Promise.all([vl.stop(), jaeger.stop()]);
}
