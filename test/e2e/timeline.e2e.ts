// A user opens the API server and engine-core logs of one vLLM run, puts the cursor on a line of
// a request and runs HopLens: Show Request Timeline… from the palette: the request at the
// cursor is offered, the run's logs are picked, the timeline renders its lanes, and a hop
// clicked (or reached with the keyboard and Enter) lands on its log line.
import * as assert from 'node:assert/strict';
import { cpSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/tools';
import { makeTempDir } from '../harness/tempDirs';
import { useWorkbench, type WorkbenchSession } from './workbench';

describe('Request timeline, in the browser', function () {
  this.timeout(180_000);
  // The engine core's call traces (VLLM_TRACE_FUNCTION files of its pid), where the setting points.
  let traceDir = '';
  before(() => {
    traceDir = makeTempDir('hoplens-e2e-timeline-trace-').path;
    cpSync(join(REPO_ROOT, 'test', 'fixtures', 'timeline', 'engine-run', 'trace'), traceDir, { recursive: true });
  });
  const session = useWorkbench(() => ({ workspaceSettings: { 'hoplens.traceDirs': [traceDir] } }));
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  it('palette → Show Request Timeline… → lanes drawn; a hop clicked or entered opens its log line', async () => {
    // The run's logs, last written an hour after it (vLLM stamps have no year: it comes from the file's time).
    const src = join(REPO_ROOT, 'test', 'fixtures', 'timeline', 'engine-run');
    const dir = join(s.workspace.root, 'logs');
    const run = JSON.parse(readFileSync(join(src, 'run.json'), 'utf8')) as { finishedEpochMs: number };
    const when = new Date(run.finishedEpochMs + 3_600_000);
    for (const name of ['api-server.log', 'engine-core.log']) {
      cpSync(join(src, name), join(dir, name));
      utimesSync(join(dir, name), when, when);
    }
    const apiLines = readFileSync(join(dir, 'api-server.log'), 'utf8').split('\n');
    const added = apiLines.findIndex((l) => l.includes('Added request chatcmpl-tl-0001')) + 1;
    const received = apiLines.findIndex((l) => l.includes('Received request chatcmpl-tl-0001')) + 1;

    await s.openFile('logs/engine-core.log');
    await s.openFile('logs/api-server.log');
    await s.page.locator('.codelens-decoration a', { hasText: /^hop / }).first().waitFor({ timeout: 60_000 });
    await s.page.keyboard.press('Control+G');
    await s.page.locator('.quick-input-widget input').waitFor();
    await s.page.keyboard.type(String(added));
    await s.page.keyboard.press('Enter');
    await s.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${added},` }).waitFor({ timeout: 15_000 });

    await s.runCommand('HopLens: Show Request Timeline…');
    const input = s.page.locator('.quick-input-widget input');
    // The palette's own row says "Request Timeline" too: wait for the input box's prompt, then
    // for its value (the palette's text is replaced a moment after the box opens).
    await s.page.locator('.quick-input-widget', { hasText: 'Any id of the request' }).waitFor({ timeout: 15_000 });
    for (let i = 0; i < 50 && (await input.inputValue()) !== 'chatcmpl-tl-0001'; i++) await s.page.waitForTimeout(100);
    assert.equal(await input.inputValue(), 'chatcmpl-tl-0001', 'the request at the cursor is offered');
    await s.page.keyboard.press('Enter');
    // The logs to read: both of the run's, checked; accept.
    await s.page.locator('.quick-input-widget', { hasText: 'Logs for the timeline' }).waitFor({ timeout: 15_000 });
    await s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'api-server.log' }).first().waitFor();
    await s.page.keyboard.press('Enter');

    await s.page.locator('.tab', { hasText: 'Timeline tl-0001' }).first().waitFor({ timeout: 60_000 });
    const frame = s.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('#lanes').waitFor({ timeout: 30_000 });
    const names = await frame.locator('.lane-name').allInnerTexts();
    assert.deepEqual(names.map((n) => n.replace(/\d+/g, 'N')), ['api-server.log · APIServer pid N', 'engine-core.log · EngineCore pid N',
      'calls · EngineCore pid N · thread N', 'calls · EngineCore pid N · thread N']);
    await s.screenshot('request-timeline');

    // A click on the Added hop opens the log at its line. The click is dispatched on the item:
    // Playwright's hit check through the webview's two iframes misses SVG items that Chromium
    // itself hits (a plain page with the same markup and CSS: elementFromPoint is the item's rect).
    await frame.locator('.track [data-item][aria-label^="V2 "]').first().dispatchEvent('click');
    await s.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${added},` }).waitFor({ timeout: 15_000 });
    assert.equal((await s.cursorPosition()).line, added);

    // Keyboard: back to the timeline tab, the first item of the lane, one to the right (V1), Enter.
    // (The mouse rests on the title bar since the palette was opened: its hover would cover the tab.)
    await s.page.mouse.move(600, 600);
    await s.page.locator('.context-view .hover-contents').waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => undefined);
    await s.page.locator('.tab', { hasText: 'Timeline tl-0001' }).first().click();
    const first = frame.locator('.track [data-item][tabindex="0"]').first();
    await first.focus();
    await s.page.keyboard.press('ArrowRight');
    await frame.locator('#detail', { hasText: 'Received request' }).waitFor({ timeout: 10_000 });
    await s.page.keyboard.press('Enter');
    await s.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${received},` }).waitFor({ timeout: 15_000 });

    // Back to the timeline (drawn anew: its context is not kept while hidden). The calls lanes
    // come with their count and no calls; scrolled into view, each draws its calls.
    await s.page.locator('.tab', { hasText: 'Timeline tl-0001' }).first().click();
    await frame.locator('#lanes').waitFor({ timeout: 30_000 });
    const callLanes = frame.locator('.lane[data-kind="calls"]');
    assert.equal(await callLanes.count(), 2);
    for (let i = 0; i < 2; i++) {
      const lane = callLanes.nth(i);
      const count = Number(/^(\d+) call/.exec(await lane.locator('.lane-count').innerText())![1]);
      await lane.locator('.track').scrollIntoViewIfNeeded();
      await lane.locator('.track:not([data-lazy]) .item.k-call').first().waitFor({ timeout: 15_000 });
      assert.equal(await lane.locator('.track .item.k-call').count(), count);
    }
    await s.screenshot('request-timeline-calls');
  });
});
