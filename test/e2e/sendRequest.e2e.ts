// A user sends one traced request from the palette and reads TTFT and the frames in the report.
import * as assert from 'node:assert/strict';

import { join } from 'node:path';
import { useWorkbench, type WorkbenchSession } from './workbench';
import { startFakeEngineProcess, type FakeEngineProcess } from '../harness/fakeEngineProcess';
import { makeTempDir } from '../harness/tempDirs';

describe('Send Traced Request, in the browser', function () {
  this.timeout(180_000);
  let engine: FakeEngineProcess;
  let logFile: string;
  before(async () => {
    logFile = join(makeTempDir('hoplens-e2e-server-').path, 'live-vllm.log');
    engine = await startFakeEngineProcess({ engine: 'vllm', logFile, schedule: 'first=150,frames=20,every=20' });
  });
  after(() => engine?.stop());
  const session = useWorkbench(() => ({ workspaceSettings: { 'hoplens.server.url': engine.url, 'hoplens.server.engine': 'vllm', 'hoplens.serverLog': logFile } }));
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  it('palette → Send Traced Request → the report shows TTFT and the frames table', async () => {
    // Accept the quick pick's "Send" row; its server URL tells it apart from the palette row.
    await s.runCommandAndAccept('HopLens: Send Traced Request', ['Send', engine.url]);
    const tab = s.page.locator('.tab', { hasText: /Traced hoplens-/ }).first();
    await tab.waitFor({ timeout: 60_000 });
    const frame = s.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const summary = frame.locator('#summary');
    await summary.waitFor({ timeout: 30_000 });
    const text = await summary.innerText();
    const m = /TTFT[^\n]*content[^\n]*?([\d.]+) ms/i.exec(text);
    assert.ok(m, `summary: ${text}`);
    assert.ok(Number(m[1]) >= 145, `TTFT ${m[1]} ms must include the server's 150 ms first-frame delay`);
    assert.match(text, /connection set-up \(before t = 0\)\s+[\d.]+ ms/, 'the set-up is shown apart from TTFT');
    const rows = await frame.locator('#frames tbody tr').count();
    assert.ok(rows >= 20, `frames table rows: ${rows}`);
    await s.screenshot('traced-request-report');
  });
});
