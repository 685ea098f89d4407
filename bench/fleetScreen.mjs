#!/usr/bin/env node
// Benchmark: Find Request in the Fleet… end to end in the editor. Real VictoriaLogs and Jaeger on
// loopback ports hold a fleet-sized store (bench/fleetStore.mjs, ingested once: 1,000,000 lines
// from 16 pods, 100 per request, each request's first two lines vLLM's API-server hop lines so its
// document gets lenses; 5,000 traces); code-server runs the packaged extension with
// hoplens.fleet.logs / hoplens.fleet.traces pointing at them, in Chromium (playwright, as the E2E
// layer does). Each run: the command from the palette, the request id typed, Enter; the page is
// watched every 20 ms, in the page, from that Enter (a keydown listener's clock) to
//   doc    the pod's document tab open;
//   lens   a hop lens drawn in the editor (the issue's "on screen");
//   toast  the result notification ("… line(s) from N pod(s); M span(s) …", with its Show
//          Timeline button: the command opens no timeline itself).
// Its answer is checked (the notification's lines, pods and spans, the tabs opened): a faster
// wrong answer fails. Alternating with each editor run, the client alone (bench/fleet.mjs's child:
// findRequestInFleet in a fresh process, one search) asks the same stores: the editor's share is
// a ratio to it. The first editor run (the extension activating) is printed apart, not counted.
// The issue's limit: on screen in under 2 s. With --profile, a CPU profile of the extension host
// (test/e2e/hostProfile.ts) says where each run's time from Enter to the lens went: the host's
// inspector needs the workbench's smoke-test driver, under which it shows no toasts, so those
// runs read the result from the notification centre and time no notification.
//
//   node bench/fleetScreen.mjs [--lines 1000000] [--pods 16] [--runs 3] [--profile] [--json] [--line-limit N]
//
// (--line-limit 50 sets hoplens.fleet.lineLimit below the request's 100 lines: the editor's answer is
// cut, and the run fails: the check at work.)
//
// Needs the build, the compiled tests and the vsix (`node esbuild.mjs && node node_modules/
// typescript/bin/tsc -p tsconfig.test.json && node scripts/package.mjs`), code-server and Chromium
// (test/harness/tools.ts), and the fleet tools (scripts/fleet-tools.mjs). Every process it starts
// (VictoriaLogs, Jaeger, code-server, Chromium) ends on exit, on an error and on Ctrl+C.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingestFleet, runFleetClient, startFleetStores } from './fleetStore.mjs';

const argv = process.argv.slice(2);
const arg = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? Number(argv[i + 1]) : dflt; };
const LINES = arg('--lines', 1_000_000);
const PODS = arg('--pods', 16);
const RUNS = arg('--runs', 3);
const JSON_OUT = argv.includes('--json');
/** hoplens.fleet.lineLimit for the editor (default: the setting's): below the request's lines, its answer is cut and the check fails. */
const LINE_LIMIT = arg('--line-limit', 0);
const LIMIT_MS = 2000;

// The profiler's DevTools client needs WebSocket: Node 20 has it behind a flag.
if (!globalThis.WebSocket && !process.execArgv.includes('--experimental-websocket')) {
  const child = spawn(process.execPath, ['--experimental-websocket', fileURLToPath(import.meta.url), ...argv], { stdio: 'inherit' });
  // A signal to this process alone is passed on; the child ends what it started, then this exits with it.
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { try { child.kill(sig); } catch { /* gone */ } });
  child.on('exit', (code) => process.exit(code ?? 130));
  await new Promise(() => undefined);
}
const PROFILE = argv.includes('--profile');
const CAN_PROFILE = Boolean(globalThis.WebSocket);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { WorkbenchSession } = require(join(root, 'out', 'test', 'e2e', 'workbench.js'));
const { freePort, HostProfiler, printSpan, spanReport } = require(join(root, 'out', 'test', 'e2e', 'hostProfile.js'));
const isHopLens = (url) => /hoplens\.hoplens-[^/]*\/dist\//.test(url);

// Ctrl+C / kill: exit, so the harness's exit hooks end the stores and code-server's group.
let session;
let ending = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (ending) return;
    ending = true;
    process.stderr.write(`\n[fleetScreen] ${sig}: ending VictoriaLogs, Jaeger, code-server and Chromium\n`);
    void Promise.race([session?.stop(), new Promise((r) => setTimeout(r, 3000))]).finally(() => process.exit(130));
  });
}
const log = (m) => process.stderr.write(`[fleetScreen] ${m}\n`);

/** Runs in the page: when Enter goes down, then when the pod's tab, a hop lens and the result toast are first drawn. */
function installWatch(expect) {
  const g = globalThis;
  if (g.__fleetWatch) { g.clearInterval(g.__fleetWatch.timer); g.removeEventListener('keydown', g.__fleetWatch.onKey, true); }
  const s = { enter: null, doc: null, lens: null, lensText: null, toast: null, toastText: null, tabs: [], timer: 0, onKey: null };
  const text = (e) => (e.textContent ?? '').replace(/\u00a0/g, ' ');
  s.onKey = (e) => { if (e.key === 'Enter' && s.enter === null) s.enter = Date.now(); };
  g.addEventListener('keydown', s.onKey, true);
  s.timer = g.setInterval(() => {
    if (s.enter === null) return;
    const now = Date.now();
    const tabs = [...g.document.querySelectorAll('.tabs-container .tab')].map((t) => text(t).trim()).filter((t) => t.endsWith('.log'));
    if (s.doc === null && tabs.some((t) => t.startsWith(expect.tab))) { s.doc = now; }
    s.tabs = tabs;
    if (s.lens === null) {
      const editor = g.document.querySelector('.part.editor .editor-instance .monaco-editor');
      const lens = editor && [...editor.querySelectorAll('.codelens-decoration a')].find((a) => /^\s*hop [A-Za-z0-9]+ · /.test(text(a)));
      if (lens && s.doc !== null) { s.lens = now; s.lensText = text(lens).trim(); }
    }
    if (s.toast === null) {
      s.toasts = [...g.document.querySelectorAll('.notifications-toasts .notification-toast, .notification-list-item')].map(text);
      const toast = [...g.document.querySelectorAll('.notifications-toasts .notification-toast')]
        .find((t) => /line\(s\) from \d+ pod\(s\)|nothing found/.test(text(t)));
      if (toast) { s.toast = now; s.toastText = toast.innerText.replace(/\s*\n\s*/g, ' '); }
    }
  }, 20);
  g.__fleetWatch = s;
}

/** One run: palette, id, Enter, and the watch until lens and toast are drawn (or 60 s). */
async function editorRun(s, data, profiler) {
  const page = s.page;
  await s.runCommand('View: Close All Editors');
  await s.runCommand('Notifications: Clear All Notifications');
  await s.runCommand('HopLens: Find Request in the Fleet…');
  await page.locator('.quick-input-widget', { hasText: 'Find Request in the Fleet' }).waitFor({ timeout: 15_000 });
  await page.locator('.quick-input-widget input').fill(data.requestId);
  await page.evaluate(installWatch, { tab: `${data.pod}-vllm.log` });
  await profiler?.start();
  await page.keyboard.press('Enter');
  const deadline = Date.now() + 60_000;
  let w;
  for (;;) {
    w = await page.evaluate(() => { const x = globalThis.__fleetWatch; return { ...x, onKey: null }; });
    // Under the inspector (the smoke-test driver on) the workbench shows no toasts: the lens ends the watch.
    if ((w.lens !== null && (w.toast !== null || profiler)) || Date.now() > deadline) break;
    await page.waitForTimeout(100);
  }
  await page.evaluate(() => globalThis.clearInterval(globalThis.__fleetWatch.timer));
  const since = (t) => (t === null || w.enter === null ? null : t - w.enter);
  // HopLens logs what it asked once the stores have answered, before it opens a document: the search's end, in the host.
  const asked = w.enter === null ? null : await s.extensionLog('fleet: ', 5_000, w.enter);
  const run = {
    searchMs: since(asked?.at ?? null), docMs: since(w.doc), lensMs: since(w.lens), toastMs: since(w.toast),
    lensText: w.lensText, toastText: w.toastText, tabs: w.tabs, toasts: w.toasts,
  };
  run.wrong = wrongAnswer(run, data);
  if (!profiler && w.toast !== null && !run.wrong) {
    // Its Show Timeline button, as a user clicks it: to the timeline's lanes drawn.
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: /line\(s\) from \d+ pod\(s\)/ }).first();
    const button = toast.locator('.monaco-button', { hasText: 'Show Timeline' }).first();
    await toast.hover({ timeout: 10_000 }).catch(() => undefined);
    run.timelineAsked = true;
    const clicked = Date.now();
    await button.click({ timeout: 10_000 }).catch(() => undefined);
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const lane = frame.locator('#lanes .lane-name').first();
    if (await lane.waitFor({ timeout: 30_000 }).then(() => true, () => false)) {
      run.timelineMs = Date.now() - clicked;
      run.lanes = (await frame.locator('#lanes .lane-name').allInnerTexts()).map((t) => t.trim());
    }
    run.wrong = wrongAnswer(run, data);
  }
  if (profiler) {
    const { profile, wallToProfileUs } = await profiler.stop();
    // The result, from the notification centre.
    await s.runCommand('Notifications: Show Notifications');
    const item = page.locator('.notifications-center .notification-list-item', { hasText: /line\(s\) from \d+ pod\(s\)/ }).first();
    run.toastText = await item.innerText({ timeout: 10_000 }).catch(() => null);
    await page.keyboard.press('Escape');
    const end = Math.max(w.lens ?? 0, w.toast ?? 0) || Date.now();
    run.profile = printSpan(`Enter → lens and toast (${end - w.enter} ms)`, spanReport(profile, wallToProfileUs(w.enter), wallToProfileUs(end), isHopLens));
  }
  return run;
}

/** What is wrong with a run's answer ('' when right): the request's lines, its pod, its span. */
function wrongAnswer(run, data) {
  const m = /bench-\d+: (\d+) line\(s\) from (\d+) pod\(s\)(?:; (\d+) span\(s\))?/.exec(run.toastText ?? '');
  if (!m && run.lensMs === null) return `no hop lens within 60 s (tabs: ${run.tabs.join(', ')}; toast: ${run.toastText})`;
  if (!m) return `no result notification, or not the request's (${run.toastText}; notifications: ${JSON.stringify(run.toasts)})`;
  const [lines, pods, spans] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (lines !== data.requestLines || pods !== 1 || spans !== data.spans) {
    return `found ${lines} line(s) from ${pods} pod(s) and ${spans} span(s); the store holds ${data.requestLines} from 1 pod and ${data.spans} span`;
  }
  if (run.lensMs === null) return `no hop lens within 60 s (tabs: ${run.tabs.join(', ')}; toast: ${run.toastText})`;
  const fleetTabs = run.tabs.filter((t) => /^decode-\d+-vllm\.log/.test(t));
  if (fleetTabs.length !== 1 || !fleetTabs[0].startsWith(`${data.pod}-vllm.log`)) {
    return `tabs opened: ${fleetTabs.join(', ')}; expected ${data.pod}-vllm.log alone`;
  }
  if (!/^hop \w+ · api-server · /.test(run.lensText ?? '')) return `the lens reads "${run.lensText}"`;
  const lanes = run.lanes ?? [];
  if (run.timelineAsked && !(lanes.some((l) => l.startsWith(`${data.pod}/`)) && lanes.some((l) => /spans/.test(l)))) {
    return `the timeline's lanes: ${JSON.stringify(run.lanes ?? 'none drawn in 30 s')}; expected ${data.pod}'s and the spans'`;
  }
  return '';
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const spread = (xs) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

let stores;
let failed;
try {
  log(`starting VictoriaLogs and Jaeger; ingesting ${LINES.toLocaleString('en-US')} lines from ${PODS} pods …`);
  stores = await startFleetStores();
  const data = await ingestFleet(stores.vl, stores.jaeger, { lines: LINES, pods: PODS, hops: true });
  log(`ingested in ${data.ingestSeconds.toFixed(1)} s; request ${data.requestId}: ${data.requestLines} lines on ${data.pod}, ${data.spans} span`);
  const clientArgs = { vlUrl: stores.vl.baseUrl, jaegerUrl: stores.jaeger.baseUrl, requestId: data.requestId, startMs: data.startMs };
  // The inspector needs the smoke-test driver, under which the workbench shows no toasts: on only to profile.
  const inspect = CAN_PROFILE && PROFILE ? await freePort() : undefined;
  session = await WorkbenchSession.start({
    settings: {
      'hoplens.fleet.logs': [`victorialogs+${stores.vl.baseUrl}`], 'hoplens.fleet.traces': [`jaeger+${stores.jaeger.baseUrl}`],
      ...(LINE_LIMIT ? { 'hoplens.fleet.lineLimit': LINE_LIMIT } : {}),
    },
    inspectExtensionHost: inspect,
  });
  await session.page.setViewportSize({ width: 1280, height: 800 });
  const profiler = inspect === undefined ? null : await HostProfiler.connect(inspect);
  const load = [loadavg()[0]];
  // The store's first query after the ingest is slower: the client asks it once before the editor's first run.
  const cold = await runFleetClient(1, clientArgs);
  const first = await editorRun(session, data, profiler);
  failed = first.wrong;
  if (failed) await session.screenshot('fleet-screen-failed');
  log(`client's first search ${Math.round(cold.times[0])} ms; editor's first run: search ${first.searchMs} ms, lens ${first.lensMs} ms, `
    + `toast ${first.toastMs} ms, `
    + `timeline ${first.timelineMs} ms ${JSON.stringify(first.lanes)}${failed ? `; WRONG: ${failed}` : ''}`);
  const runs = [];
  const client = [];
  for (let i = 0; i < RUNS && !failed; i++) {
    const c = await runFleetClient(1, clientArgs);
    if (c.lines !== data.requestLines || c.streams !== 1 || c.spans !== data.spans) {
      failed = `the client found ${c.lines} line(s) in ${c.streams} stream(s), ${c.spans} span(s): ${c.problems.join('; ')}`;
      break;
    }
    client.push(c.times[0]);
    const r = await editorRun(session, data, profiler);
    failed = r.wrong;
    runs.push(r);
    const wrong = failed ? `; WRONG: ${failed}` : '';
    log(`run ${i + 1}: client ${Math.round(c.times[0])} ms; editor search ${r.searchMs} ms, doc ${r.docMs} ms, lens ${r.lensMs} ms, toast ${r.toastMs} ms, `
      + `timeline ${r.timelineMs} ms${wrong}`);
  }
  load.push(loadavg()[0]);
  profiler?.close();
  if (!failed && runs.length) {
    const lens = runs.map((r) => r.lensMs);
    const toast = runs.map((r) => r.toastMs).filter((t) => t !== null);
    const timeline = runs.map((r) => r.timelineMs).filter((t) => t !== undefined);
    const doc = runs.map((r) => r.docMs);
    const search = runs.map((r) => r.searchMs).filter((t) => t !== null);
    const row = (name, xs, ratio = true) => `${name.padEnd(34)} ${String(Math.round(median(xs))).padStart(6)} ms  ${spread(xs).padStart(11)} ms  `
      + `${ratio ? `${(median(xs) / median(client)).toFixed(1).padStart(5)}×` : ''}`;
    const out = [
      `Find Request in the Fleet… end to end: ${LINES.toLocaleString('en-US')} lines / ${PODS} pods in VictoriaLogs, ${data.traces} traces in Jaeger; `
        + `request ${data.requestId}: ${data.requestLines} lines on ${data.pod}, ${data.spans} span (checked each run)`,
      `${RUNS} runs (after one first run: client ${Math.round(cold.times[0])} ms, editor lens ${first.lensMs} ms), `
        + `1-minute load ${load.map((l) => l.toFixed(2)).join(' → ')}, `
        + `ingest ${data.ingestSeconds.toFixed(1)} s`,
      `${'from Enter to'.padEnd(34)} ${'median'.padStart(9)}  ${'spread'.padStart(14)}  ${'÷ client'.padStart(6)}`,
      row('client alone (findRequestInFleet)', client),
      ...(search.length ? [row('search done in the host (its log)', search)] : []),
      row('the pod\'s document open', doc),
      row('its first hop lens drawn', lens),
      ...(toast.length ? [row('the result notification', toast)] : ['the result notification: not timed (--profile: no toasts under the inspector)']),
      ...(timeline.length ? [row('(then) Show Timeline click → lanes', timeline, false)] : []),
      `limit ${LIMIT_MS} ms on screen: ${median(lens) <= LIMIT_MS ? 'met' : 'OVER (run with --profile: where the extension host spends it)'} `
        + `(median lens ${Math.round(median(lens))} ms)`,
    ];
    if (first.profile) out.push('extension host CPU profile, the activation run:', first.profile);
    for (const [i, r] of runs.entries()) if (r.profile) out.push(`extension host CPU profile, run ${i + 1}:`, r.profile);
    process.stdout.write(`${out.join('\n')}\n`);
    if (JSON_OUT) {
      process.stdout.write(`${JSON.stringify({
        storeLines: LINES, pods: PODS, traces: data.traces, ingestSeconds: data.ingestSeconds, requestLines: data.requestLines, runs: RUNS,
        clientMs: client.map(Math.round), searchMs: search, docMs: doc, lensMs: lens, toastMs: toast, timelineMs: timeline,
        firstRun: { clientMs: Math.round(cold.times[0]), searchMs: first.searchMs, lensMs: first.lensMs, toastMs: first.toastMs, timelineMs: first.timelineMs },
        load1m: load.map((l) => Math.round(l * 100) / 100),
      })}\n`);
    }
  }
} catch (e) {
  failed = e instanceof Error ? e.stack ?? e.message : String(e);
} finally {
  await session?.stop();
  await stores?.stop();
}
if (failed) {
  process.stderr.write(`[fleetScreen] FAILED: ${failed}\n`);
  process.exit(1);
}
