#!/usr/bin/env node
// `npm run demo:fleet`: HopLens against a small fleet on this machine. It builds (once, into the
// tool cache, with Go: scripts/fleet-tools.mjs) and starts real VictoriaLogs and Jaeger on
// 127.0.0.1, runs three pods of the fake engine — a router in front of a vLLM prefill and a vLLM
// decode instance, their clocks skewed by −1.3 s and +0.8 s — whose stdout a small shipper per pod
// posts to VictoriaLogs with namespace/pod/container labels and whose spans go to Jaeger over
// OTLP, then starts code-server with HopLens pointed at both stores and the router, and prints
// the URL to open. The workspace's README says what to try. Ctrl+C stops everything it started.
// HOPLENS_DEMO_PORT picks code-server's port (default: any free one).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDemo, commitCheckouts, harness, repo, say, startDemoCodeServer } from './demo-parts.mjs';
import { ensureFleetTools, FleetToolsUnavailable } from './fleet-tools.mjs';

const TAG = 'demo:fleet';
// Ctrl+C while starting, too: exit, so every exit hook (servers, pods, code-server, workspace) runs.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

try {
  const tools = ensureFleetTools({ log: (m) => say(TAG, m) });
  process.env.HOPLENS_FLEET_JAEGER = tools.jaeger;
  process.env.HOPLENS_FLEET_VICTORIALOGS = tools.victorialogs;
} catch (e) {
  if (!(e instanceof FleetToolsUnavailable)) throw e;
  say(TAG, e.message);
  process.exit(e.exitCode);
}
buildDemo(TAG);

const { startDemoFleet } = harness('demoFleet');
const { prepareWorkspace } = harness('workspace');
say(TAG, 'starting VictoriaLogs, Jaeger and the three pods');
const fleet = await startDemoFleet({ log: (m) => say(TAG, m) });
const ws = prepareWorkspace();
copyFileSync(join(repo, 'test', 'fixtures', 'demo-fleet', 'README.md'), join(ws.root, 'README.md'));
const settingsFile = join(ws.root, '.vscode', 'settings.json');
const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
// Send Traced Request goes through the router; Find Request in the Fleet… asks the two stores.
Object.assign(settings, { 'hoplens.server.url': fleet.router.url, 'hoplens.server.engine': 'vllm', ...fleet.settings });
writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
commitCheckouts(TAG, [ws.vllmCheckout, ws.sglangCheckout]);

const server = await startDemoCodeServer();
process.on('exit', () => say(TAG, 'stopped: code-server, the pods, VictoriaLogs, Jaeger and the demo workspace are gone'));
const pods = [fleet.router, fleet.prefill, fleet.decode];
for (const p of pods) say(TAG, `pod ${p.labels.pod} pid ${p.pid} at ${p.url}, clock ${p.clockSkewMs >= 0 ? '+' : '−'}${Math.abs(p.clockSkewMs) / 1000} s`);
say(TAG, `VictoriaLogs pid ${fleet.victoriaLogs.pid} at ${fleet.victoriaLogs.baseUrl}, Jaeger pid ${fleet.jaeger.pid} at ${fleet.jaeger.baseUrl} (OTLP ${fleet.jaeger.otlpUrl})`);
say(TAG, `code-server pid ${server.pid} (its own process group), workspace ${ws.root}`);
process.stdout.write(`\nHopLens fleet demo is running. Open:\n\n  ${server.url}?folder=${encodeURIComponent(ws.root)}\n\n`
  + `Try (the workspace README has the steps): HopLens: Send Traced Request (through the router at ${fleet.router.url});\n`
  + `HopLens: Find Request in the Fleet… with its id: its lines from router-0, prefill-0 and decode-0 open as one\n`
  + `log per pod, from VictoriaLogs (${fleet.victoriaLogs.baseUrl}); its spans from Jaeger (${fleet.jaeger.baseUrl}).\n`
  + `Press Ctrl+C to stop.\n`);
