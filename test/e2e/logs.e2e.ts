// A user opens a vLLM server log in the browser, clicks a hop lens and lands on the engine
// source line that printed it; the Requests view lists the request with its hops.
import * as assert from 'node:assert/strict';
import { useWorkbench, type WorkbenchSession } from './workbench';

describe('Server log → source, in the browser', function () {
  this.timeout(180_000);
  const session = useWorkbench();
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  it('clicking the hop 2 lens opens v1/engine/async_llm.py at line 439 of the checkout', async () => {
    await s.openFile('logs/vllm.log');
    const lens = s.page.locator('.codelens-decoration a', { hasText: 'hop 2 · api-server · v1/engine/async_llm.py:439' }).first();
    // The first lens may take a few seconds (extension activation, checkout index).
    await lens.waitFor({ timeout: 60_000 });
    await s.screenshot('vllm-log-lenses');
    await lens.click();
    await s.page.locator('.tab.active', { hasText: 'async_llm.py' }).waitFor();
    assert.equal(await s.activeTabTitle(), 'async_llm.py');
    await s.page.locator('[id="status.editor.selection"]', { hasText: 'Ln 439,' }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await s.cursorPosition(), { line: 439, column: 1 });
    await s.screenshot('async_llm-at-439');
  });

  it('shows the request in the Requests view with its hops in order', async () => {
    await s.openFile('logs/vllm.log');
    await s.openHopLens();
    const request = s.page.locator('.pane-body .monaco-list-row', { hasText: 'chatcmpl-myrun-0001' }).first();
    await request.waitFor({ timeout: 30_000 });
    await request.locator('.monaco-tl-twistie').click();
    const hopRows = s.page.locator('.pane-body .monaco-list-row', { hasText: /^hop \d/ });
    await hopRows.first().waitFor();
    const texts = await s.page.locator('.pane-body .monaco-list-row').allInnerTexts();
    const hops = texts.filter((t) => /hop \d/.test(t));
    assert.ok(hops[0].startsWith('hop 1'), texts.join(' | '));
    assert.ok(hops.some((t) => t.startsWith('hop 2')), texts.join(' | '));
    assert.ok(texts.some((t) => t.includes('not printed')), 'missing hops listed');
    await s.screenshot('requests-view');
  });
});
