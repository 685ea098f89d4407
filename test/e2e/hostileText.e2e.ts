// Text from a log line or a server never becomes an action in the browser: VS Code turns
// `[label](command:id)` in a notification into a link that runs the command, so a request id
// or a server error built that way must show as plain text. And the API key a user types into
// Set API Key is stored, sent as Bearer, and never shown.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DONE, sse, VllmChunks } from '../../src/testing/fakeEngine/frames';
import { useWorkbench, type WorkbenchSession } from './workbench';

const LINK = '[x](command:workbench.action.terminal.new)';
const MODEL = 'Qwen/Qwen3-0.6B';
const API_KEY = 'sk-e2e-7f3a9c1d0b5e';

/** vLLM's chat endpoint as the browser session's server: streams when given the key, or answers HTTP 500 with a command link. */
class Server {
  mode: 'stream' | 'hostile-500' = 'stream';
  readonly authorizations: (string | undefined)[] = [];
  private readonly server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      this.authorizations.push(req.headers.authorization);
      if (this.mode === 'hostile-500') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(VllmChunks.httpError(`${LINK} engine core died`, 'InternalServerError', 500));
      } else if (req.headers.authorization !== `Bearer ${API_KEY}`) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":"Unauthorized"}');
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        const chunks = new VllmChunks('chatcmpl-e2e', MODEL, Math.floor(Date.now() / 1000), 'chat');
        res.write(sse(chunks.role(null)));
        for (const t of ['One', ',', ' two']) res.write(sse(chunks.content(t, null)));
        res.write(sse(chunks.finish('stop', null)));
        res.end(DONE);
      }
    });
  });
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  stop(): Promise<void> { return new Promise((r) => this.server.close(() => r())); }
}

describe('Hostile text and the API key, in the browser', function () {
  this.timeout(180_000);
  const server = new Server();
  let url = '';
  before(async () => { url = await server.start(); });
  after(() => server.stop());
  const session = useWorkbench(() => ({ workspaceSettings: { 'hoplens.server.url': url, 'hoplens.server.engine': 'vllm', 'hoplens.server.model': MODEL } }));
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  async function goToLine(line: number): Promise<void> {
    await s.page.keyboard.press('Control+G');
    await s.page.locator('.quick-input-widget input').waitFor();
    await s.page.keyboard.type(String(line));
    await s.page.keyboard.press('Enter');
    await s.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${line},` }).waitFor({ timeout: 15_000 });
  }

  it('Export Hop Table of a request whose id is a command link: the notification shows the id as text, no link', async () => {
    // The constructed vLLM log, with the client's X-Request-Id set to a command link.
    const text = readFileSync(s.workspace.vllmLog, 'utf8').replaceAll('myrun-0001', LINK);
    writeFileSync(join(s.workspace.root, 'logs', 'hostile.log'), text);
    const line = text.split('\n').findIndex((l) => l.includes(`Added request chatcmpl-${LINK}`)) + 1;
    await s.openFile('logs/hostile.log');
    await s.page.locator('.codelens-decoration a', { hasText: 'hop 2 · api-server' }).first().waitFor({ timeout: 60_000 });
    await goToLine(line);
    await s.runCommand('HopLens: Export Hop Table of the Request at the Cursor');
    const toast = s.notification('copied to the clipboard');
    await toast.waitFor({ timeout: 30_000 });
    await s.screenshot('hostile-id-export-notification');
    const message = toast.locator('.notification-list-item-message');
    assert.equal(await message.locator('a').count(), 0, `a link in: ${await message.innerHTML()}`);
    assert.equal((await message.innerText()).replaceAll('\u200b', ''), `HopLens: hop table of chatcmpl-${LINK} copied to the clipboard.`);
  });

  it('Set API Key: typed into a password box, sent as Bearer, never shown in the report', async () => {
    await s.runCommand('HopLens: Set API Key');
    const input = s.page.locator('.quick-input-widget input[type="password"]');
    await input.waitFor();
    await s.page.keyboard.type(API_KEY);
    await s.page.keyboard.press('Enter');
    await s.notification('API key stored').waitFor();
    server.authorizations.length = 0;
    await s.runCommandAndAccept('HopLens: Send Traced Request', ['Send', url]);
    await s.page.locator('.tab', { hasText: /Traced hoplens-/ }).first().waitFor({ timeout: 60_000 });
    const frame = s.page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const summary = frame.locator('#summary');
    await summary.waitFor({ timeout: 30_000 });
    assert.match(await summary.innerText(), /HTTP status\s+200/);
    assert.deepEqual(server.authorizations, [`Bearer ${API_KEY}`]);
    assert.ok(!(await frame.locator('body').innerText()).includes(API_KEY), 'the key is not in the report');
  });

  it('a server error carrying a command link: the warning after the request shows it as text', async () => {
    server.mode = 'hostile-500';
    await s.runCommandAndAccept('HopLens: Send Traced Request', ['Send', url]);
    const toast = s.notification('engine core died');
    await toast.waitFor({ timeout: 60_000 });
    await s.screenshot('hostile-server-error-warning');
    const message = toast.locator('.notification-list-item-message');
    assert.equal(await message.locator('a').count(), 0, `a link in: ${await message.innerHTML()}`);
    assert.ok((await message.innerText()).replaceAll('\u200b', '').includes(`HTTP 500: ${LINK} engine core died`), await message.innerText());
  });
});
