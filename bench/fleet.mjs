#!/usr/bin/env node
// Benchmark: one request's lines and spans from a fleet-sized store. Real VictoriaLogs and Jaeger
// (scripts/fleet-tools.mjs) on loopback ports; 1,000,000 lines from 16 pods (10,000 requests of
// 100 lines each, interleaved) and 5,000 traces in 16 services; then findRequestInFleet for one
// request, filtered in the stores. The issue's limit: on screen in under 2 s, memory growing with
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
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingestFleet, runFleetClient, startFleetStores } from './fleetStore.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { findRequestInFleet } = require(join(root, 'out', 'src', 'core', 'fleet', 'find.js'));
const { parseStoreUrl } = require(join(root, 'out', 'src', 'core', 'fleet', 'model.js'));

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const LINES = arg('--lines', 1_000_000);
const PODS = arg('--pods', 16);
const RUNS = arg('--runs', 5);

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

const stores = await startFleetStores();
const { vl, jaeger } = stores;
try {
  const data = await ingestFleet(vl, jaeger, { lines: LINES, pods: PODS });
  const ingestS = data.ingestSeconds;
  const args = { vlUrl: vl.baseUrl, jaegerUrl: jaeger.baseUrl, requestId: data.requestId, startMs: data.startMs };
  const load = [loadavg()[0]];
  const idle = await runFleetClient(0, args);
  const r = await runFleetClient(RUNS, args);
  load.push(loadavg()[0]);
  const times = [...r.times].sort((a, b) => a - b);
  // A faster wrong answer is no figure: the request's lines (all of them, from its one pod) and its span.
  const wrong = [
    r.lines !== data.requestLines && `${r.lines} line(s) found, the store holds ${data.requestLines}`,
    r.streams !== (data.requestLines > 0 ? 1 : 0) && `${r.streams} stream(s), expected ${data.requestLines > 0 ? `1 (${data.pod})` : 0}`,
    r.spans !== data.spans && `${r.spans} span(s), expected ${data.spans}`,
    r.problems.length > 0 && `problems: ${r.problems.join('; ')}`,
  ].filter(Boolean);
  process.stdout.write(`${JSON.stringify({
    storeLines: LINES, pods: PODS, traces: data.traces, ingestSeconds: Math.round(ingestS * 10) / 10,
    requestLines: r.lines, streams: r.streams, spans: r.spans, problems: r.problems, runs: RUNS,
    medianMs: Math.round(times[Math.floor(times.length / 2)]), minMs: Math.round(times[0]), maxMs: Math.round(times[times.length - 1]),
    timesMs: r.times.map((t) => Math.round(t)), clientPeakRssMB: r.peakRssMB, clientIdlePeakRssMB: idle.peakRssMB,
    load1m: load.map((l) => Math.round(l * 100) / 100), ...(wrong.length ? { wrong } : {}),
  })}\n`);
  if (wrong.length) { process.stderr.write(`[fleet] WRONG: ${wrong.join('; ')}\n`); process.exitCode = 1; }
} finally {
  await stores.stop();
}
