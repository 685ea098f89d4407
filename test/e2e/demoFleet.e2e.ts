// `npm run demo:fleet` as its README says to use it: wait for the URL it prints, send a traced
// request through its router, open the workbench in Chromium, run Find Request in the Fleet…
// with the request's id, and see the router's, the prefill's and the decode's lines open as one
// log per pod (read back from the real VictoriaLogs), with hop lenses on the vLLM pods; then
// Ctrl+C, and nothing the demo started (pods, stores, code-server, workspace) is left.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { REPO_ROOT } from '../harness/tools';
import { workspaceAt } from '../harness/workspace';
import type { Page } from 'playwright-core';
import { WorkbenchSession } from './workbench';
import { alive, answers, groupMembers } from './processes';

const REQUEST_ID = `fleet-e2e-${process.pid}`;
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

interface DemoFleetOutput {
  url: string; root: string; routerUrl: string; victoriaLogsUrl: string; jaegerUrl: string; codeServerPid: number; pids: number[];
}

function parseOutput(output: string): DemoFleetOutput | undefined {
  const url = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)$/m.exec(output)?.[1];
  const cs = /code-server pid (\d+) .*workspace (\S+)/.exec(output);
  const stores = /VictoriaLogs pid (\d+) at (http:\S+), Jaeger pid (\d+) at (http:\S+) /.exec(output);
  const router = /pod router-0 pid (\d+) at (http:\S+),/.exec(output);
  const pods = [...output.matchAll(/pod \S+ pid (\d+) at/g)].map((m) => Number(m[1]));
  if (!url || !cs || !stores || !router) return undefined;
  return {
    url, root: cs[2], routerUrl: router[2], victoriaLogsUrl: stores[2], jaegerUrl: stores[4], codeServerPid: Number(cs[1]),
    pids: [...pods, Number(stores[1]), Number(stores[3])],
  };
}

/** One streamed chat request through the router, with the ids Send Traced Request sends. */
async function sendThroughRouter(routerUrl: string): Promise<number> {
  const res = await fetch(`${routerUrl}/v1/chat/completions`, {
    method: 'POST', signal: AbortSignal.timeout(30_000),
    headers: { 'content-type': 'application/json', 'x-request-id': REQUEST_ID, traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'Say hello.' }] }),
  });
  const body = await res.text();
  assert.equal(res.status, 200, `the router answered ${res.status}: ${body.slice(0, 300)}`);
  return body.split('\n\n').filter((f) => f.startsWith('data: {')).length;
}

/** Waits until VictoriaLogs has the request's lines from all three pods (the shipper batches; the store makes them visible within ~1 s). */
async function waitForPods(victoriaLogsUrl: string): Promise<Set<string>> {
  const deadline = Date.now() + 20_000;
  let pods = new Set<string>();
  while (Date.now() < deadline) {
    const res = await fetch(`${victoriaLogsUrl}/select/logsql/query?query=${encodeURIComponent(`"${REQUEST_ID}"`)}`, { signal: AbortSignal.timeout(5000) });
    pods = new Set((await res.text()).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { pod?: string }).pod ?? ''));
    if (pods.size >= 3) return pods;
    await new Promise((r) => setTimeout(r, 300));
  }
  return pods;
}

/**
 * Brings a pod's tab to the front. The palette is opened by a click on the title bar, and the
 * command centre's hover that the resting mouse leaves there covers the tabs: move off it first.
 */
async function showTab(page: Page, name: string): Promise<void> {
  await page.mouse.move(640, 600);
  await page.locator('.context-view .hover-contents').waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
  await page.locator('.tab', { hasText: name }).first().click();
  await page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 10_000 });
}

describe('npm run demo:fleet, as its README says', function () {
  this.timeout(300_000);
  let demo: ChildProcess | undefined;
  let session: WorkbenchSession | undefined;
  let output = '';

  after(async () => {
    await session?.stop();
    if (demo?.pid !== undefined && demo.exitCode === null) { try { process.kill(-demo.pid, 'SIGKILL'); } catch { /* gone */ } }
  });

  it('a request sent through the router is found in the fleet: one log per pod with lenses; Ctrl+C ends everything', async () => {
    const started = Date.now();
    // The E2E layer has just compiled and packaged: the demo skips doing both again. Its own
    // process group, as in a terminal, where Ctrl+C signals the whole foreground group.
    demo = spawn('npm', ['run', 'demo:fleet'], {
      cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOPLENS_DEMO_PREBUILT: '1' },
    });
    demo.stdout!.on('data', (d) => { output += d; });
    demo.stderr!.on('data', (d) => { output += d; });
    const exited = new Promise<number | null>((resolve) => demo!.once('exit', (code) => resolve(code)));
    let parts: DemoFleetOutput | undefined;
    while (!(parts = parseOutput(output))) {
      assert.equal(demo.exitCode, null, `npm run demo:fleet exited before printing its URL:\n${output}`);
      assert.ok(Date.now() - started < 240_000, `no URL from npm run demo:fleet after 240 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const upMs = Date.now() - started;
    assert.match(output, /pod prefill-0 pid \d+ at \S+, clock −1\.3 s/);
    assert.match(output, /pod decode-0 pid \d+ at \S+, clock \+0\.8 s/);

    assert.ok(await sendThroughRouter(parts.routerUrl) >= 8, 'the decode pod streamed the reply back through the router');
    const pods = await waitForPods(parts.victoriaLogsUrl);
    assert.deepEqual([...pods].sort(), ['decode-0', 'prefill-0', 'router-0'], 'the request\'s lines reached VictoriaLogs from all three pods');

    session = await WorkbenchSession.attach(parts.url, workspaceAt(parts.root));
    const page = session.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('.tab.active', { hasText: 'README.md' }).waitFor({ timeout: 60_000 });
    const findStarted = Date.now();
    await session.runCommand('HopLens: Find Request in the Fleet…');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget', { hasText: 'Find Request in the Fleet' }).waitFor({ timeout: 15_000 });
    await input.fill(REQUEST_ID);
    await page.keyboard.press('Enter');
    for (const name of ['router-0-router.log', 'prefill-0-vllm.log', 'decode-0-vllm.log']) {
      await page.locator('.tab', { hasText: name }).first().waitFor({ timeout: 30_000 });
    }
    await page.locator('.notifications-toasts', { hasText: /line\(s\) from 3 pod\(s\); [1-9]\d* span\(s\)/ }).first().waitFor({ timeout: 15_000 });
    const findMs = Date.now() - findStarted;

    // Each vLLM pod's document: its own lines of the request (the prefill pod was asked for one
    // token, the decode pod for the whole reply), with the hop lenses of a log file.
    for (const [name, maxTokens] of [['prefill-0-vllm.log', 1], ['decode-0-vllm.log', 8]] as const) {
      await showTab(page, name);
      await page.locator('.codelens-decoration a', { hasText: /^hop \d+ · api-server · / }).first().waitFor({ timeout: 30_000 });
      // VS Code draws spaces as no-break spaces.
      const text = (await page.locator('.editor-instance .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
      assert.match(text, new RegExp(`Received request chatcmpl-${REQUEST_ID}: params: SamplingParams\\(.*max_tokens=${maxTokens},`),
        `${name} holds its own pod's lines of the request; drawn:\n${text}`);
    }
    await session.screenshot('demo-fleet-decode-pod');
    await showTab(page, 'router-0-router.log');
    await page.locator('.editor-instance .view-lines', { hasText: `request_id="${REQUEST_ID}"` }).first().waitFor({ timeout: 10_000 });
    await session.screenshot('demo-fleet-router-pod');
    process.stdout.write(`    demo:fleet: URL after ${upMs} ms; Find Request in the Fleet… to three pod logs with lenses in ${findMs} ms\n`);
    await session.stop();
    session = undefined;

    // Ctrl+C in the terminal.
    process.kill(-demo.pid!, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'hung'>((r) => { timer = setTimeout(() => r('hung'), 60_000); })]);
    clearTimeout(timer);
    assert.notEqual(code, 'hung', `npm run demo:fleet did not stop within 60 s of Ctrl+C:\n${output}`);
    const deadline = Date.now() + 10_000;
    const left = () => [...parts.pids.filter(alive), ...groupMembers(parts.codeServerPid), ...groupMembers(demo!.pid!)];
    while (left().length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(left(), [], 'a pod, a store, code-server or a process of npm run demo:fleet is still running');
    for (const url of [parts.url, `${parts.routerUrl}/health`, `${parts.victoriaLogsUrl}/health`, `${parts.jaegerUrl}/api/services`]) {
      assert.equal(await answers(url), false, `${url} still answers`);
    }
    assert.equal(existsSync(parts.root), false, 'the demo workspace was not removed');
  });
});
