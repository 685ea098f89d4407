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

  it('a faint note at the end of each hop line gives the time since the previous hop of its request', async () => {
    await s.openFile('logs/vllm.log');
    await s.page.locator('.codelens-decoration a', { hasText: 'hop 2 · api-server' }).first().waitFor({ timeout: 60_000 });
    // The note is decoration text after the line's end (injected text or a ::after rule).
    // Run in the page (no DOM types here): each line's text and the note after its end.
    const notes = async () => s.page.evaluate<{ line: string; note: string }[]>(`(() => {
      const out = [];
      for (const row of document.querySelectorAll('.editor-instance .view-lines .view-line')) {
        let note = '';
        for (const el of row.querySelectorAll('span')) {
          const after = getComputedStyle(el, '::after').content;
          if (after && after !== 'none' && after !== 'normal') note += after.replace(/^"|"$/g, '').replace(/\u00a0/g, ' ');
        }
        const text = (row.textContent || '').replace(/\u00a0/g, ' ');
        const m = /\\s{2}(Δ .*|first hop of this request)$/.exec(text);
        out.push({ line: m ? text.slice(0, m.index) : text, note: (m ? m[1] : note).trim() });
      }
      return out;
    })()`);
    const added = await (async () => {
      for (let i = 0; i < 50; i++) {
        const rows = await notes();
        const row = rows.find((r) => r.line.includes('Added request chatcmpl-myrun-0001'));
        if (row && row.note) return { row, rows };
        await s.page.waitForTimeout(200);
      }
      throw new Error(`no note on the hop lines: ${JSON.stringify(await notes())}`);
    })();
    assert.equal(added.row.note, 'Δ ≤1 s since previous hop');
    const received = added.rows.find((r) => r.line.includes('Received request chatcmpl-myrun-0001'));
    assert.equal(received?.note, 'first hop of this request');
    const access = added.rows.find((r) => r.line.includes('"POST /v1/chat/completions HTTP/1.1" 200 OK'));
    assert.equal(access?.note ?? '', '', 'a line that is no hop has no note');
    await s.screenshot('hop-delta-notes');
  });

  it('Filter Requests by Id… narrows the Requests view; Clear Request Filter brings every request back', async () => {
    await s.openFile('logs/vllm.log');
    // The container may still be open from the test before (a click on its icon would close it).
    if (!(await s.page.locator('.pane-header', { hasText: 'Requests' }).first().isVisible())) await s.openHopLens();
    const rows = s.page.locator('.pane-body .monaco-list-row');
    const requestRows = async () => (await rows.locator('.label-name').allInnerTexts()).map((t) => t.trim()).filter((t) => /^(chat)?cmpl-/.test(t));
    await s.page.locator('.pane-body .monaco-list-row', { hasText: 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0' }).first().waitFor({ timeout: 30_000 });
    await s.runCommand('HopLens: Filter Requests by Id…');
    await s.page.locator('.quick-input-widget input[placeholder*="part of a request id"]').waitFor();
    await s.page.keyboard.type('myrun');
    await s.page.keyboard.press('Enter');
    await s.page.locator('.pane-body .monaco-list-row', { hasText: 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0' }).first().waitFor({ state: 'detached', timeout: 15_000 });
    await s.page.locator('.pane-body .monaco-list-row', { hasText: 'chatcmpl-myrun-0001' }).first().waitFor({ timeout: 15_000 });
    assert.deepEqual(await requestRows(), ['chatcmpl-myrun-0001'], JSON.stringify(await rows.allInnerTexts()));
    await s.screenshot('requests-filtered');
    await s.runCommand('HopLens: Clear Request Filter');
    // The list re-renders row by row: read it until both requests are back (or give up).
    let back: string[] = [];
    for (let i = 0; i < 75 && back.length < 2; i++) { back = (await requestRows()).sort(); if (back.length < 2) await s.page.waitForTimeout(200); }
    assert.deepEqual(back, ['chatcmpl-myrun-0001', 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0'], JSON.stringify(await rows.allInnerTexts()));
  });
});
