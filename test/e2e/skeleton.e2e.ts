// The packaged extension, installed from its .vsix, as a user meets it in the browser.
import * as assert from 'node:assert/strict';
import { useWorkbench, type WorkbenchSession } from './workbench';

describe('HopLens in the browser (packaged .vsix)', function () {
  this.timeout(180_000);
  const session = useWorkbench();
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  it('shows the HopLens container with its two views and their welcome text', async () => {
    await s.openHopLens();
    await s.page.locator('.pane-header', { hasText: 'Call Traces' }).first().waitFor();
    const welcome = s.page.locator('.welcome-view-content', { hasText: 'No requests yet' }).first();
    await welcome.waitFor();
    assert.match(await welcome.innerText(), /Open a vLLM or SGLang server log/);
    await s.screenshot('hoplens-container');
  });

  it('lists the HopLens commands in the command palette under their category', async () => {
    const input = await s.openPalette();
    // The palette's list is virtualised: look each command up by its full title.
    for (const title of ['Send Traced Request', 'Show Hop Table', 'Annotate This Log', 'Open Call Trace Folder…', 'Start Trace Receiver (OpenTelemetry)']) {
      await input.fill(`>HopLens: ${title}`);
      const row = s.page.locator('.quick-input-widget .monaco-list-row', { hasText: `HopLens: ${title}` }).first();
      await row.waitFor({ timeout: 10_000 });
      assert.ok((await row.innerText()).includes(`HopLens: ${title}`));
    }
    await input.fill('>HopLens:');
    await s.page.locator('.quick-input-widget .monaco-list-row').first().waitFor();
    await s.screenshot('palette');
    await s.page.keyboard.press('Escape');
  });
});
