// A user's session in VS Code (code-server) in Chromium: the packaged .vsix installed in a
// fresh profile, a workspace folder opened, and the actions a person takes, each with a timeout.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Locator } from 'playwright-core';
import { resolveTools, REPO_ROOT } from '../harness/tools';
import { startCodeServer, RunningCodeServer } from '../harness/codeServer';
import { launchBrowser } from '../harness/browser';
import { prepareWorkspace, type FixtureWorkspace } from '../harness/workspace';

export const SCREENSHOTS = join(REPO_ROOT, 'test-results', 'e2e');

export interface SessionOptions {
  /** Workspace settings beyond the fixture's checkout paths. */
  workspaceSettings?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  env?: Record<string, string>;
}

export class WorkbenchSession {
  private constructor(
    readonly page: Page,
    readonly workspace: FixtureWorkspace,
    private readonly browser: Browser,
    /** Absent when the session attached to a workbench someone else started (the demo). */
    private readonly server: RunningCodeServer | undefined,
  ) {}

  static async start(opts: SessionOptions = {}): Promise<WorkbenchSession> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const tools = resolveTools();
    const workspace = prepareWorkspace(opts.workspaceSettings);
    const browser = await launchBrowser(tools);
    let server: RunningCodeServer | undefined;
    try {
      server = await startCodeServer({
        tools, installVsix: [join(REPO_ROOT, 'dist', 'hoplens.vsix')], settings: opts.settings, env: opts.env,
      });
      const page = await openWorkbench(browser, `${server.url}?folder=${encodeURIComponent(workspace.root)}`);
      return new WorkbenchSession(page, workspace, browser, server);
    } catch (e) {
      await browser.close().catch(() => undefined);
      await server?.stop();
      workspace.dispose();
      throw e;
    }
  }

  /** A browser on a workbench that is already running at `url` (e.g. `npm run demo`'s). */
  static async attach(url: string, workspace: FixtureWorkspace): Promise<WorkbenchSession> {
    const browser = await launchBrowser(resolveTools());
    try {
      return new WorkbenchSession(await openWorkbench(browser, url), workspace, browser, undefined);
    } catch (e) {
      await browser.close().catch(() => undefined);
      throw e;
    }
  }

  /** Ends what this session started (the browser; the server and workspace when it made them). */
  async stop(): Promise<void> {
    await this.browser.close().catch(() => undefined);
    if (this.server) {
      await this.server.stop();
      this.workspace.dispose();
    }
  }

  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  }

  /**
   * F1, the command's palette title, Enter — once the focused row is that command. The palette
   * fills its list as contributions and history arrive, so a typed title can land before the
   * input holds its '>' or before the row exists; such an attempt is closed and made again.
   */
  async runCommand(title: string): Promise<void> {
    const focused = this.page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: title }).first();
    for (let attempt = 0; ; attempt++) {
      try {
        const input = await this.openPalette();
        await input.fill(`>${title}`);
        await focused.waitFor({ timeout: 10_000 });
        await this.page.keyboard.press('Enter');
        return;
      } catch (e) {
        if (attempt >= 2) throw e;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  /**
   * Runs a palette command that opens a quick pick, then accepts the row that has all of `rowTexts`
   * with Enter once it is the focused row. A quick pick can close under the pointer (focus taken by
   * a webview or a toast as it opens), so a click on it races; a closed pick is opened again.
   */
  async runCommandAndAccept(title: string, rowTexts: string[]): Promise<void> {
    let row = this.page.locator('.quick-input-widget .monaco-list-row.focused');
    for (const t of rowTexts) row = row.filter({ hasText: t });
    for (let attempt = 0; ; attempt++) {
      try {
        await this.runCommand(title);
        await row.first().waitFor({ timeout: 15_000 });
        await this.page.keyboard.press('Enter');
        await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
        return;
      } catch (e) {
        if (attempt >= 2) throw e;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  async openPalette(): Promise<Locator> {
    const input = this.page.locator('.quick-input-widget input');
    await this.page.locator('.monaco-workbench').click({ position: { x: 700, y: 5 } }).catch(() => undefined);
    await this.page.keyboard.press('F1');
    await input.waitFor();
    // F1 opens the palette with '>' already typed; type it only when it is missing.
    if (!(await input.inputValue()).startsWith('>')) await this.page.keyboard.type('>');
    return input;
  }

  /** Quick-open a workspace file by its relative path, like Ctrl+P, and wait for its tab. */
  async openFile(relativePath: string): Promise<void> {
    const name = relativePath.split('/').pop()!;
    const dir = relativePath.split('/').slice(0, -1).join('/');
    const input = this.page.locator('.quick-input-widget input');
    // The result list re-renders as results arrive, so act only through the keyboard on the
    // focused row, once that row is exactly the file asked for.
    const focused = this.page.locator('.quick-input-widget .monaco-list-row.focused');
    for (let attempt = 0; ; attempt++) {
      await this.page.keyboard.press('Escape');
      await this.page.keyboard.press('Control+P');
      try {
        await input.waitFor({ timeout: 5_000 });
        await input.fill(relativePath);
        const deadline = Date.now() + 10_000;
        for (;;) {
          const label = (await focused.locator('.label-name').first().textContent({ timeout: 1_000 }).catch(() => null))?.trim();
          const desc = (await focused.locator('.label-description').first().textContent({ timeout: 1_000 }).catch(() => null)) ?? '';
          if (label === name && desc.includes(dir)) break;
          if (Date.now() > deadline) throw new Error(`quick open did not offer ${relativePath} first (focused: ${label} ${desc})`);
          await this.page.waitForTimeout(100);
        }
        await this.page.keyboard.press('Enter');
        await this.page.locator('.tab.active', { hasText: name }).waitFor({ timeout: 10_000 });
        return;
      } catch (e) {
        if (attempt >= 2) throw e;
      }
    }
  }

  async activeTabTitle(): Promise<string> {
    const text = await this.page.locator('.tab.active .monaco-icon-label').first().textContent();
    return (text ?? '').replace(/\s+/g, '');
  }

  /** "Ln 3, Col 1" from the status bar. */
  async cursorPosition(): Promise<{ line: number; column: number }> {
    const item = this.page.locator('[id="status.editor.selection"]');
    await item.waitFor();
    const text = await item.innerText();
    const m = /Ln (\d+), Col (\d+)/.exec(text);
    if (!m) throw new Error(`status bar selection item reads '${text}'`);
    return { line: Number(m[1]), column: Number(m[2]) };
  }

  /** Opens the HopLens container from the activity bar. */
  async openHopLens(): Promise<void> {
    await this.page.locator('.activitybar [aria-label^="HopLens"]').first().click();
    await this.page.locator('.pane-header', { hasText: 'Requests' }).first().waitFor();
  }

  notification(text: string | RegExp): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }
}

async function openWorkbench(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(30_000);
  await page.goto(url, { timeout: 60_000 });
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: 60_000 });
  return page;
}

/**
 * Registers the mocha hooks of a browser suite: one session for the suite (options may be
 * computed in an earlier `before`), stopped after it, and a screenshot of every failed test.
 * Returns a getter for the session.
 */
export function useWorkbench(options: () => SessionOptions = () => ({})): () => WorkbenchSession {
  let session: WorkbenchSession | undefined;
  before(async () => { session = await WorkbenchSession.start(options()); });
  after(async () => { await session?.stop(); });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed') await session?.screenshot(`failed-${this.currentTest.title.replace(/\W+/g, '-')}`);
  });
  return () => {
    if (!session) throw new Error('the workbench session did not start');
    return session;
  };
}
