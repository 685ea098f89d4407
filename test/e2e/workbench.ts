// A user's session in VS Code (code-server) in Chromium: the packaged .vsix installed in a
// fresh profile, a workspace folder opened, and the actions a person takes, each with a timeout.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
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
  /** The extension host's inspector on this port of 127.0.0.1 (to profile it: hostProfile.ts); the smoke-test driver takes it from the URL. */
  inspectExtensionHost?: number;
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
        tools, installVsix: [join(REPO_ROOT, 'dist', 'hoplens.vsix')], settings: opts.settings, env: opts.env, smokeTestDriver: opts.inspectExtensionHost !== undefined,
      });
      const payload = opts.inspectExtensionHost === undefined ? '' : `&payload=${encodeURIComponent(JSON.stringify([['inspect-extensions', String(opts.inspectExtensionHost)]]))}`;
      const page = await openWorkbench(browser, `${server.url}?folder=${encodeURIComponent(workspace.root)}${payload}`);
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
  /** Ctrl+G, the line number, Enter; returns once the status bar shows the cursor there. */
  async goToLine(line: number): Promise<void> {
    await this.page.keyboard.press('Control+G');
    await this.page.locator('.quick-input-widget input').waitFor();
    await this.page.keyboard.type(String(line));
    await this.page.keyboard.press('Enter');
    await this.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${line},` }).waitFor({ timeout: 15_000 });
  }

  async cursorPosition(): Promise<{ line: number; column: number }> {
    const item = this.page.locator('[id="status.editor.selection"]');
    await item.waitFor();
    const text = await item.innerText();
    const m = /Ln (\d+), Col (\d+)/.exec(text);
    if (!m) throw new Error(`status bar selection item reads '${text}'`);
    return { line: Number(m[1]), column: Number(m[2]) };
  }

  /**
   * Follows the first detected link on a line of the active editor the way a user does: Ctrl
   * held over it, then Ctrl+click. `lineText`: text of that line. (The editor draws a link in
   * as many spans as it has tokens, so the link is found through its line.)
   */
  async followLink(lineText: string | RegExp): Promise<void> {
    const line = this.page.locator('.part.editor .editor-instance .view-lines .view-line', { hasText: lineText }).first();
    const link = line.locator('.detected-link').first();
    await link.waitFor({ timeout: 60_000 });
    await link.hover();
    await this.page.keyboard.down('Control');
    try {
      await link.click({ modifiers: ['Control'] });
    } finally {
      await this.page.keyboard.up('Control');
    }
  }

  /** Opens the HopLens container from the activity bar. */
  async openHopLens(): Promise<void> {
    // Opening a big log can keep the page busy for many seconds on a loaded machine, and a click
    // on the icon of the container already open closes it: look before each click.
    const requests = this.page.locator('.pane-header', { hasText: 'Requests' }).first();
    const deadline = Date.now() + 150_000;
    for (;;) {
      if (await requests.isVisible().catch(() => false)) return;
      try {
        await this.page.locator('.activitybar [aria-label^="HopLens"]').first().click({ timeout: 60_000 });
        await requests.waitFor({ timeout: 30_000 });
        return;
      } catch (e) {
        if (Date.now() > deadline) throw e;
      }
    }
  }

  /** Shows the Explorer and clicks a workspace file in it, expanding its folders first. */
  async clickInExplorer(relativePath: string): Promise<void> {
    const tree = this.page.locator('.explorer-folders-view');
    // The activity bar icon of the open container closes the side bar: click it only when hidden.
    if (!(await tree.isVisible())) await this.page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    await tree.waitFor();
    const parts = relativePath.split('/');
    for (let i = 0; i < parts.length; i++) {
      const row = tree.locator('.monaco-list-row', { has: this.page.locator('.label-name', { hasText: new RegExp(`^${parts[i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) }).first();
      await row.waitFor({ timeout: 30_000 });
      if (i < parts.length - 1) {
        if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
      } else {
        await row.click();
      }
    }
  }

  /**
   * Opens a log from the Explorer, then shows the HopLens container (a user who opens a log and
   * looks at its requests), and watches the page every 20 ms, in the page itself, until hop
   * information, a link and the complete Requests view have shown or `timeoutMs` passed. Clicks
   * "Open Anyway" when VS Code asks, as a user would. Times count from the click in the Explorer.
   */
  async openFromExplorerAndWatch(relativePath: string, requests: number, timeoutMs: number): Promise<FirstScreenTimes> {
    const name = relativePath.split('/').pop()!;
    await this.page.evaluate(installFirstScreenWatch, { requestsDescription: `${name} · ${requests.toLocaleString('en-US')} request${requests === 1 ? '' : 's'}` });
    const openedAt = Date.now();
    await this.clickInExplorer(relativePath);
    await this.openHopLens();
    const deadline = openedAt + timeoutMs;
    let seen: WatchState;
    for (;;) {
      seen = await this.page.evaluate(() => (globalThis as unknown as PageGlobals).__hoplensWatch!);
      if ((seen.hop !== null && seen.link !== null && seen.requests !== null) || Date.now() > deadline) break;
      await this.page.waitForTimeout(200);
    }
    await this.page.evaluate(() => { const g = globalThis as unknown as PageGlobals; g.clearInterval(g.__hoplensWatch!.timer); });
    const since = (t: number | null) => (t === null ? null : t - openedAt);
    return {
      openedAt, textMs: since(seen.text), linkMs: since(seen.link), lensMs: since(seen.lens), hopMs: since(seen.hop), hopText: seen.hopText,
      requestsMs: since(seen.requests),
    };
  }

  /**
   * The line of HopLens's output channel that contains `text`, and when it was logged (Date.now()
   * clock), waiting up to `timeoutMs` for the log file to be written; null when there is none.
   */
  async extensionLog(text: string, timeoutMs = 5_000, since = 0): Promise<{ at: number; line: string } | null> {
    if (!this.server) return null;
    const logs = join(this.server.temp, 'user-data', 'logs');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const session of existsSync(logs) ? readdirSync(logs) : []) {
        for (const host of readdirSync(join(logs, session)).filter((n) => n.startsWith('exthost'))) {
          const file = join(logs, session, host, 'hoplens.hoplens', 'HopLens.log');
          if (!existsSync(file)) continue;
          for (const line of readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(text))) {
            // "2026-12-01 07:41:20.123 [info] …", local time; the first at `since` or later
            const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})/.exec(line);
            const at = m ? new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]).getTime() : -1;
            if (m && at >= since) return { at, line: line.slice(m[0].length) };
          }
        }
      }
      if (Date.now() > deadline) return null;
      await this.page.waitForTimeout(250);
    }
  }

  /** A hop lens, or the hop column's note, drawn inside the editor's visible area now (its text). */
  async hopInfoOnScreen(): Promise<string | null> {
    return this.page.evaluate(() => {
      const g = globalThis as unknown as PageGlobals;
      const editor = g.document.querySelector('.part.editor .editor-instance .monaco-editor');
      if (!editor) return null;
      const box = editor.getBoundingClientRect();
      const onScreen = (e: PageElement) => { const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= box.top && r.bottom <= box.bottom; };
      const lens = [...editor.querySelectorAll('.codelens-decoration a')].find((a) => /^hop [A-Za-z0-9]+ · /.test(a.textContent ?? '') && onScreen(a));
      if (lens) return lens.textContent;
      for (const e of editor.querySelectorAll('.view-lines .view-line span[class*="ced-"]')) {
        const content = g.getComputedStyle(e, '::before').content.replace(/^"|"$/g, '').replace(/\u00a0/g, ' ').trim();
        if (/^hop [A-Za-z0-9]+$/.test(content) && onScreen(e)) return content;
      }
      return null;
    });
  }

  /**
   * Hovers a line of the active editor, as a user does, until the hover that has `hoverText`
   * shows, and returns it. The line is found by its text among the lines drawn, each attempt
   * anew: a scroll or a re-render can move lines under a resting mouse, and VS Code asks for a
   * hover only when the mouse moves, so each attempt first moves the mouse off the text. On
   * time-out the error says what was drawn and which hovers showed.
   */
  async hoverLineUntil(lineText: string | RegExp, hoverText: string, timeoutMs = 30_000): Promise<Locator> {
    const hover = this.page.locator('.monaco-hover', { hasText: hoverText }).first();
    const line = this.page.locator('.part.editor .editor-instance .view-lines .view-line', { hasText: lineText }).first();
    const gutter = this.page.locator('.part.editor .editor-instance .margin-view-overlays').first();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await line.waitFor({ timeout: Math.max(1, Math.min(5_000, deadline - Date.now())) });
        const box = await gutter.boundingBox();
        if (box) await this.page.mouse.move(box.x + 2, box.y + box.height - 4);
        await line.hover({ position: { x: 300, y: 5 }, timeout: 5_000 });
        await hover.waitFor({ timeout: Math.max(1, Math.min(4_000, deadline - Date.now())) });
        return hover;
      } catch (e) {
        if (Date.now() < deadline) continue;
        const seen = await this.page.evaluate(() => {
          const g = globalThis as unknown as PageGlobals;
          const text = (e: PageElement) => (e.textContent ?? '').replace(/\u00a0/g, ' ');
          return {
            lines: [...g.document.querySelectorAll('.part.editor .editor-instance .view-lines .view-line')].slice(0, 4).map(text),
            hovers: [...g.document.querySelectorAll('.monaco-hover')].map(text).filter((t) => t.trim() !== ''),
          };
        }).catch(() => ({ lines: [], hovers: [] }));
        throw new Error(`no hover with "${hoverText}" over a line with ${String(lineText)} in ${timeoutMs} ms (${(e as Error).message.split("\n")[0]}); lines drawn first: ${JSON.stringify(seen.lines)}; hovers shown: ${JSON.stringify(seen.hovers)}`, { cause: e });
      }
    }
  }

  /** The HopLens status bar item about a large log, or null when it is not shown. */
  async largeLogStatus(): Promise<string | null> {
    const item = this.page.locator('[id="hoplens.hoplens.largeLog"], [id$=".largeLog"]').first();
    return (await item.isVisible().catch(() => false)) ? (await item.innerText()).trim() : null;
  }

  notification(text: string | RegExp): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  }
}

export interface FirstScreenTimes {
  /** Date.now() of the click in the Explorer; the times below count from it. */
  openedAt: number;
  /** A line of the log drawn in the editor. */
  textMs: number | null;
  /** A `[file:line]` link drawn (VS Code underlines detected links on hover; the span is there). */
  linkMs: number | null;
  /** A hop CodeLens drawn with its title. */
  lensMs: number | null;
  /** Any hop information: a lens, or the inline hop note HopLens draws where VS Code shows no lens. */
  hopMs: number | null;
  hopText: string | null;
  /** The Requests view says it lists every request of the log (its count, no longer "reading"). */
  requestsMs: number | null;
}

interface WatchState { timer: number; text: number | null; link: number | null; lens: number | null; hop: number | null;
  hopText: string | null; requests: number | null }

/** The little of the DOM the page watch uses (the tests compile without the DOM library). */
interface PageElement {
  readonly textContent: string | null;
  readonly className: string;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  click(): void;
  getBoundingClientRect(): { top: number; bottom: number; height: number };
}
interface PageGlobals {
  document: PageElement;
  setInterval(f: () => void, ms: number): number;
  clearInterval(id: number): void;
  getComputedStyle(e: PageElement, pseudo: string): { content: string };
  __hoplensWatch?: WatchState;
}

/** Runs in the page: records when each thing is first drawn in the editor area. */
function installFirstScreenWatch(expect: { requestsDescription: string }): void {
  const g = globalThis as unknown as PageGlobals;
  if (g.__hoplensWatch) g.clearInterval(g.__hoplensWatch.timer);
  const state: WatchState = { timer: 0, text: null, link: null, lens: null, hop: null, hopText: null, requests: null };
  const HOP = /^\s*hop [A-Za-z0-9]+ · /;
  // The editor draws spaces as no-break spaces.
  const text = (e: PageElement) => (e.textContent ?? '').replace(/\u00a0/g, ' ');
  state.timer = g.setInterval(() => {
    if (state.requests === null) {
      const header = [...g.document.querySelectorAll('.pane-header')].find((h) => text(h).includes('Requests'));
      const description = header ? text(header) : '';
      if (description.includes(expect.requestsDescription) && !description.includes('reading')) state.requests = Date.now();
    }
    const editor = g.document.querySelector('.part.editor .editor-instance .monaco-editor');
    if (!editor) {
      // Above the remote's large-file limit VS Code asks first; a user clicks "Open Anyway".
      const anyway = [...g.document.querySelectorAll('.part.editor a, .part.editor .monaco-button')].find((b) => b.textContent?.trim() === 'Open Anyway');
      anyway?.click();
      return;
    }
    const now = Date.now();
    if (state.text === null && [...editor.querySelectorAll('.view-lines .view-line')].some((l) => text(l).includes(' pid='))) state.text = now;
    if (state.link === null && editor.querySelector('.view-lines .detected-link')) state.link = now;
    if (state.lens === null || state.hop === null) {
      const lens = [...editor.querySelectorAll('.codelens-decoration a')].find((a) => HOP.test(text(a)));
      if (lens && state.lens === null) state.lens = now;
      // Where VS Code shows no lens, HopLens's note is a decoration drawn before the line's
      // text: CSS content of an empty span's ::before, in the view line.
      let note: string | undefined;
      if (!lens) {
        for (const e of editor.querySelectorAll('.view-lines .view-line span[class*="ced-"]')) {
          const content = g.getComputedStyle(e, '::before').content.replace(/^"|"$/g, '').replace(/\u00a0/g, ' ');
          if (/^hop [A-Za-z0-9]+$/.test(content.trim())) { note = content; break; }
        }
      }
      if ((lens || note) && state.hop === null) { state.hop = now; state.hopText = lens ? text(lens).trim() : note!.trim(); }
    }
  }, 20);
  g.__hoplensWatch = state;
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

/** `npm run demo` running in its own process group, as in a terminal, once it printed its URL. */
export interface RunningDemo {
  /** The workbench URL it printed (with ?folder=). */
  readonly url: string;
  /** The demo workspace. */
  readonly root: string;
  /** Its streaming server (vLLM's API). */
  readonly engineUrl: string;
  readonly codeServerPid: number;
  readonly enginePid: number;
  readonly pid: number;
  /** Everything it printed so far. */
  output(): string;
  /** Ctrl+C; resolves with its exit code, or 'hung' after `timeoutMs`. */
  interrupt(timeoutMs?: number): Promise<number | null | 'hung'>;
  /** SIGKILL to its group if it still runs (for an `after` hook). */
  kill(): void;
}

/**
 * Starts `npm run demo` and waits (up to `timeoutMs`) for the URL it prints. `env` adds to the
 * environment (e.g. HOPLENS_DEMO_PREBUILT=1 when the caller has just compiled and packaged).
 */
export async function startNpmDemo(env: Record<string, string> = {}, timeoutMs = 300_000): Promise<RunningDemo> {
  const demo = spawn('npm', ['run', 'demo'], { cwd: REPO_ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  demo.stdout!.on('data', (d) => { output += d; });
  demo.stderr!.on('data', (d) => { output += d; });
  const exited = new Promise<number | null>((resolve) => demo.once('exit', (code) => resolve(code)));
  const kill = () => { if (demo.pid !== undefined && demo.exitCode === null) { try { process.kill(-demo.pid, 'SIGKILL'); } catch { /* gone */ } } };
  const started = Date.now();
  let m: RegExpExecArray | null;
  while (!(m = /^\s+(http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+)$/m.exec(output))) {
    if (demo.exitCode !== null || Date.now() - started > timeoutMs) {
      kill();
      throw new Error(`npm run demo ${demo.exitCode !== null ? `exited (${demo.exitCode})` : `printed no URL in ${timeoutMs} ms`}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const pids = /code-server pid (\d+) .*streaming server pid (\d+), workspace (\S+)/.exec(output);
  const engine = /streaming server \(vLLM API\) at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
  if (!pids || !engine) { kill(); throw new Error(`npm run demo did not name what it started:\n${output}`); }
  return {
    url: m[1], root: pids[3], engineUrl: engine[1], codeServerPid: Number(pids[1]), enginePid: Number(pids[2]), pid: demo.pid!,
    output: () => output,
    kill,
    async interrupt(ms = 60_000) {
      process.kill(-demo.pid!, 'SIGINT');
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([exited, new Promise<'hung'>((r) => { timer = setTimeout(() => r('hung'), ms); })]);
      clearTimeout(timer);
      return code;
    },
  };
}
