// The README's second command, as a newcomer runs it: `npm run demo`, wait for the URL it
// prints, open that URL in Chromium, open logs/vllm.log, click a hop lens and land on the cited
// line of the demo's checkout; then Ctrl+C, and nothing the demo started is left running.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/tools';
import { workspaceAt } from '../harness/workspace';
import { WorkbenchSession } from './workbench';
import { alive, answers, groupMembers } from './processes';

/** Content chunks and finish reasons of one streamed chat request to the demo's server. */
async function streamOf(engineUrl: string, maxTokens: number): Promise<{ content: number; finish: string[] }> {
  const res = await fetch(`${engineUrl}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(30_000),
    body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', stream: true, max_tokens: maxTokens, messages: [{ role: 'user', content: 'Count to twenty, one number per line.' }] }),
  });
  const chunks = (await res.text()).split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as { choices: { delta?: { content?: string }; finish_reason: string | null }[] });
  const choices = chunks.flatMap((c) => c.choices);
  return { content: choices.filter((c) => (c.delta?.content ?? '') !== '').length, finish: choices.map((c) => c.finish_reason).filter((f): f is string => f !== null) };
}

/**
 * Issue 27's walk, before the older checks: the README first with nothing cramped, the log
 * opened from the Explorer (a preview tab), its lens click keeping the log's tab, the checkout
 * notice gone on the source tab, and the first lens timed from the text being visible.
 */
async function walkFirstSteps(session: WorkbenchSession, root: string, engineUrl: string): Promise<void> {
  const page = session.page;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator('.tab.active', { hasText: 'README.md' }).waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('.part.auxiliarybar').isVisible().catch(() => false), false, 'the secondary side bar is closed');
  // The README rendered (its preview's "Try first"), not a blank preview while extensions activate.
  await page.frameLocator('iframe.webview.ready').frameLocator('#active-frame').locator('h2', { hasText: 'Try first' })
    .waitFor({ timeout: 60_000 });
  await session.screenshot('walk-1-readme');

  const times = await session.openFromExplorerAndWatch('logs/vllm.log', 2, 60_000);
  assert.ok(times.textMs !== null && times.lensMs !== null, `text and a lens on the first screen: ${JSON.stringify(times)}`);
  process.stdout.write(`    demo vllm.log: text visible ${times.textMs} ms after the click, first lens ${times.lensMs - times.textMs} ms after the text\n`);
  const lens = page.locator('.codelens-decoration a', { hasText: 'hop 2 · api-server · v1/engine/async_llm.py:439' }).first();
  await lens.waitFor({ timeout: 60_000 });
  assert.equal(await page.locator('.tab.active .monaco-icon-label.italic').count(), 1, 'opened from the Explorer, the log is a preview tab');
  // The checkout notice is the log's: shown with it (the demo checkout is a git repository at a commit).
  const notice = page.locator('.statusbar-item', { hasText: /\bvllm\b.*(≠ pin|no commit)/ }).first();
  await notice.waitFor({ timeout: 15_000 });
  assert.match(await notice.innerText(), /vllm ≠ pin/, 'a checkout at a commit (not "no commit")');
  // The Requests view: a request's row counts what its rows list (hop lines, and the hops not printed apart).
  const row = page.locator('.pane-body .monaco-list-row', { hasText: 'chatcmpl-myrun-0001' }).first();
  await row.waitFor({ timeout: 30_000 });
  const rowText = (await row.innerText()).replace(/\s+/g, ' ');
  const counts = /(\d+) hops?(?: in (\d+) lines)?(?: · (\d+) not printed)?/.exec(rowText);
  assert.ok(counts, rowText);
  await row.locator('.monaco-tl-twistie').click();
  const child = page.locator('.pane-body .monaco-list-row[aria-level="2"]').first();
  await child.waitFor({ timeout: 15_000 });
  assert.equal(Number(await child.getAttribute('aria-setsize')), Number(counts[2] ?? counts[1]) + Number(counts[3] ?? 0),
    `"${rowText}" over the rows under it`);
  await row.locator('.monaco-tl-twistie').click();
  await session.screenshot('walk-2-log-lenses');
  await lens.click();
  await page.locator('.tab.active', { hasText: 'async_llm.py' }).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('.tab', { hasText: 'vllm.log' }).count(), 1, 'the log\'s tab is still open after the lens click');
  // The checkout notice belongs to the log: none on the source tab.
  await page.waitForTimeout(500);
  assert.equal(await notice.isVisible().catch(() => false), false, 'no checkout notice on a source tab');
  await session.screenshot('walk-3-lens-source');

  // The same for a `[file:line]` link: VS Code opens its target itself, as a preview.
  await session.runCommand('View: Close All Editors');
  await session.clickInExplorer('logs/vllm.log');
  await page.locator('.tab.active .monaco-icon-label.italic', { hasText: 'vllm.log' }).waitFor({ timeout: 30_000 });
  await session.followLink(/async_llm\.py:439\]\sAdded\srequest/);
  await page.locator('.tab.active', { hasText: 'async_llm.py' }).waitFor({ timeout: 15_000 });
  await page.locator('[id="status.editor.selection"]', { hasText: 'Ln 439,' }).waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('.tab', { hasText: 'vllm.log' }).count(), 1, 'the log\'s tab is still open after a [file:line] link click');
  await session.screenshot('walk-3b-link-source');

  // The demo server honours max_tokens, with the finish reason vLLM gives.
  assert.deepEqual(await streamOf(engineUrl, 5), { content: 5, finish: ['length'] });
  void root;
}

/**
 * In the traced request's report: the server-log column shows whole-second stamps as ranges,
 * never a negative point; the timeline picker lists the configured live-vllm.log, preselected;
 * a call of the traced engine core opens at its `def` line.
 */
async function checkReportAndPicker(session: WorkbenchSession, report: ReturnType<WorkbenchSession['page']['frameLocator']>, root: string): Promise<void> {
  const page = session.page;
  const cells = await report.locator('table.log tbody tr td:nth-child(2)').allInnerTexts();
  assert.ok(cells.length > 0, 'the report lists the request\'s server-log lines');
  for (const c of cells) assert.match(c, /^[−+]\d+\.\d … [−+]\d+\.\d s \(whole-second stamp\)$/, `a range, not a point: ${c}`);
  await session.screenshot('walk-4-report');

  await session.runCommand('HopLens: Show Request Timeline…');
  await page.locator('.quick-input-widget', { hasText: 'Any id of the request' }).waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget', { hasText: 'Logs for the timeline' }).waitFor({ timeout: 15_000 });
  const live = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'live-vllm.log' }).first();
  await live.waitFor({ timeout: 15_000 });
  assert.equal(await live.getAttribute('aria-checked'), 'true', 'the log holding the request is preselected');
  await session.screenshot('walk-5-timeline-picker');
  await page.keyboard.press('Escape');

  // A call of the traced engine core opens at its def line in the demo checkout.
  await session.openHopLens();
  const callTraces = page.locator('.pane-header', { hasText: 'Call Traces' }).first();
  if ((await callTraces.getAttribute('aria-expanded')) !== 'true') await callTraces.click();
  const row = (text: string | RegExp) => page.locator('.pane-body .monaco-list-row', { hasText: text }).first();
  const expand = async (text: string | RegExp) => {
    const r = row(text);
    await r.waitFor({ timeout: 30_000 });
    if ((await r.getAttribute('aria-expanded')) !== 'true') await r.locator('.monaco-tl-twistie').click();
  };
  const serverInstance = readdirSync(join(root, 'traces', 'server'), { recursive: true, encoding: 'utf8' }).find((p) => /vllm-instance-\d+$/.test(p))!.split('/').pop()!;
  await expand(serverInstance);
  await expand(/EngineCore|pid \d+ · /);
  await expand(/^thread \d+/);
  const call = row(/^(_process_engine_step|_process_input_queue|run_busy_loop|step)/);
  await call.waitFor({ timeout: 30_000 });
  await call.click();
  await page.locator('.tab.active', { hasText: 'core.py' }).waitFor({ timeout: 15_000 });
  const { line } = await session.cursorPosition();
  const text = readFileSync(join(root, 'checkouts', 'vllm', 'vllm', 'v1', 'engine', 'core.py'), 'utf8').split('\n')[line - 1];
  assert.match(text, /^\s*def /, `the call opens at its def line (core.py:${line}: '${text}')`);
  await session.screenshot('walk-6-call-trace-def');
  // Back to the report for the checks that follow.
  await page.locator('.tab', { hasText: /Traced hoplens-/ }).first().click();
}

describe('npm run demo, as the README says', function () {
  this.timeout(420_000);
  let demo: ChildProcess | undefined;
  let session: WorkbenchSession | undefined;
  let output = '';

  after(async () => {
    await session?.stop();
    if (demo?.pid !== undefined && demo.exitCode === null) { try { process.kill(-demo.pid, 'SIGKILL'); } catch { /* gone */ } }
  });

  it('prints a URL that opens the workbench; a lens lands on the cited line; Ctrl+C ends everything', async () => {
    // Its own process group, as in a terminal: Ctrl+C signals the whole foreground group.
    demo = spawn('npm', ['run', 'demo'], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    demo.stdout!.on('data', (d) => { output += d; });
    demo.stderr!.on('data', (d) => { output += d; });
    const exited = new Promise<number | null>((resolve) => demo!.once('exit', (code) => resolve(code)));

    const started = Date.now();
    let m: RegExpExecArray | null;
    while (!(m = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)$/m.exec(output))) {
      assert.equal(demo.exitCode, null, `npm run demo exited before printing its URL:\n${output}`);
      assert.ok(Date.now() - started < 300_000, `no URL from npm run demo after 300 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const url = m[1];
    const pids = /code-server pid (\d+) .*streaming server pid (\d+), workspace (\S+)/.exec(output);
    assert.ok(pids, `the demo names what it started:\n${output}`);
    const [codeServerPid, enginePid, root] = [Number(pids[1]), Number(pids[2]), pids[3]];
    assert.equal(decodeURIComponent(new URL(url).searchParams.get('folder')!), root);
    const engineUrl = /streaming server \(vLLM API\) at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1];

    // A newcomer's first look: the workspace explains itself.
    const readme = readFileSync(`${root}/README.md`, 'utf8');
    assert.match(readme, /Clone Pinned Checkout/);
    assert.match(readme, /logs\/vllm\.log/);

    session = await WorkbenchSession.attach(url, workspaceAt(root));
    await walkFirstSteps(session, root, engineUrl);
    await session.openFile('logs/vllm.log');
    const lens = session.page.locator('.codelens-decoration a', { hasText: 'hop 2 · api-server · v1/engine/async_llm.py:439' }).first();
    await lens.waitFor({ timeout: 60_000 });
    await session.screenshot('demo-vllm-log');
    await lens.click();
    await session.page.locator('.tab.active', { hasText: 'async_llm.py' }).waitFor();
    await session.page.locator('[id="status.editor.selection"]', { hasText: 'Ln 439,' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await session.cursorPosition(), { line: 439, column: 1 });

    // The same request on one timeline, out of the box: back in the log, the cursor on its
    // Added line, Show Request Timeline… offers that request, and its hops are drawn in the
    // log's lane.
    const logLines = readFileSync(`${root}/logs/vllm.log`, 'utf8').split('\n');
    const addedLine = logLines.findIndex((l) => l.includes('Added request chatcmpl-myrun-0001')) + 1;
    assert.ok(addedLine > 0, 'the demo log has the Added line of myrun-0001');
    await session.openFile('logs/vllm.log');
    await session.page.locator('.codelens-decoration a', { hasText: /^hop / }).first().waitFor({ timeout: 60_000 });
    await session.goToLine(addedLine);
    await session.runCommand('HopLens: Show Request Timeline…');
    const input = session.page.locator('.quick-input-widget input');
    await session.page.locator('.quick-input-widget', { hasText: 'Any id of the request' }).waitFor({ timeout: 15_000 });
    for (let i = 0; i < 50 && !/myrun-0001/.test(await input.inputValue()); i++) await session.page.waitForTimeout(100);
    assert.match(await input.inputValue(), /myrun-0001/, 'the request at the cursor is offered');
    await session.page.keyboard.press('Enter');
    await session.page.locator('.quick-input-widget', { hasText: 'Logs for the timeline' }).waitFor({ timeout: 15_000 });
    await session.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'vllm.log' }).first().waitFor();
    await session.page.keyboard.press('Enter');
    await session.page.locator('.tab', { hasText: /Timeline .*myrun-0001/ }).first().waitFor({ timeout: 60_000 });
    const frame = session.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('#lanes').waitFor({ timeout: 30_000 });
    const lanes = await frame.locator('.lane-name').allInnerTexts();
    assert.ok(lanes.some((n) => /^vllm\.log · APIServer pid 2101$/.test(n)), `the log's lane is drawn: ${JSON.stringify(lanes)}`);
    assert.ok(await frame.locator('.track [data-item][aria-label^="V2 "]').count() >= 1, 'the Added hop is on the timeline');
    await session.screenshot('demo-timeline');

    // The demo's own server: the receiver started, one traced request sent, its timeline opened
    // from the report: the client's socket times and the server's own log on one axis, with the
    // engine's spans the server exported and the calls its traced engine core ran.
    await session.runCommand('View: Close All Editors');
    await session.runCommand('HopLens: Start Trace Receiver');
    await session.page.locator('.statusbar-item', { hasText: /OTLP :4318 · 0 spans/ }).first().waitFor({ timeout: 30_000 });
    await session.runCommandAndAccept('HopLens: Send Traced Request', ['Send', engineUrl]);
    await session.page.locator('.tab', { hasText: /Traced hoplens-/ }).first().waitFor({ timeout: 60_000 });
    const report = session.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await report.locator('#summary').waitFor({ timeout: 30_000 });
    await checkReportAndPicker(session, report, root);
    await session.page.locator('.statusbar-item', { hasText: /OTLP :4318 · [1-9]\d* spans?/ }).first().waitFor({ timeout: 30_000 });
    await report.locator('button[data-action="timeline"]').click();
    const tl = session.page.locator('iframe.webview.ready');
    await session.page.locator('.tab', { hasText: /^Timeline / }).first().waitFor({ timeout: 60_000 });
    const own = tl.last().contentFrame().frameLocator('#active-frame');
    await own.locator('#lanes').waitFor({ timeout: 30_000 });
    const ownLanes = (await own.locator('.lane-name').allInnerTexts()).map((n) => n.replace(/\d+/g, 'N'));
    await session.screenshot('demo-own-server-timeline');
    assert.equal(ownLanes[0], 'client (socket)', `lanes: ${JSON.stringify(ownLanes)}`);
    assert.ok(ownLanes.includes('live-vllm.log · APIServer pid N'), `the server's own log: ${JSON.stringify(ownLanes)}`);
    assert.ok(ownLanes.some((n) => /span/i.test(n)), `the engine's spans: ${JSON.stringify(ownLanes)}`);
    assert.ok(ownLanes.some((n) => /^calls · EngineCore_DPN pid N · thread N$/.test(n)), `the engine core's calls: ${JSON.stringify(ownLanes)}`);
    await session.stop();
    session = undefined;

    // Ctrl+C in the terminal.
    process.kill(-demo.pid!, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'hung'>((r) => { timer = setTimeout(() => r('hung'), 60_000); })]);
    clearTimeout(timer);
    assert.notEqual(code, 'hung', `npm run demo did not stop within 60 s of Ctrl+C:\n${output}`);
    // The demo's children end as it exits; give the kernel a moment to reap them.
    const deadline = Date.now() + 10_000;
    while ((alive(enginePid) || groupMembers(codeServerPid).length || groupMembers(demo.pid!).length) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(alive(enginePid), false, 'the streaming server is still running');
    assert.deepEqual(groupMembers(codeServerPid), [], 'code-server or one of its children is still running');
    assert.deepEqual(groupMembers(demo.pid!), [], 'a process of npm run demo is still running');
    assert.equal(await answers(url), false, 'the workbench URL still answers');
    assert.equal(await answers(`${engineUrl}/v1/models`), false, 'the streaming server still answers');
    assert.equal(existsSync(root), false, 'the demo workspace was not removed');
  });
});
