// The first screen of a big vLLM log, as a user meets it: the log is opened from the Explorer
// (with "Open Anyway" when VS Code asks), then the HopLens container is shown, and the page is
// watched for the first visible log line, the first `[file:line]` link, the first hop lens — or,
// above VS Code's 20 MiB large-file limit where no extension gets CodeLens, the hop note HopLens
// puts at the start of the line instead — and for the Requests view listing every request.
// Times are printed as ratios to the time the text became visible, never asserted (timing on a
// shared machine is noise); what is asserted is that hop information reaches the screen.
//
// "First lens, restated" (issue 27): from the text being visible to the first lens, split into
// VS Code's own share — the document's sync to the extension host, until HopLens's output
// channel says "VS Code handed over" (every log) —, HopLens's own share — from then until its
// lens provider first returned lenses ("first lens listed", src/features/logs/firstLensTiming.ts;
// where VS Code shows no CodeLens, until the first hops were read: the hop column draws them) —
// and the workbench's rest (the lenses' trip to the renderer and their drawing); the moments are
// cut on one clock (the host's hand-over time is in its line) and the shares add up to the total,
// none below zero (asserted). Printed per log
// after the run; HopLens's own share is held to the goal (300 ms up to 10 MiB, 1 s up to 50 MiB)
// when HOPLENS_FIRST_LENS_GOAL=1.
//
//   HOPLENS_FIRST_SCREEN_MIB=1,10,19,21 (the default) picks the generated sizes in MiB, after the
//   small demo log opened after activation: 10 is the 300 ms goal's size, 19 and 21 either side of
//   VS Code's 20 MiB large-file limit; 49 (HOPLENS_FIRST_SCREEN_MIB=10,49) is the largest log VS
//   Code hands to extensions, the 1 s goal's.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/tools';
import { useWorkbench, SCREENSHOTS, type WorkbenchSession, type FirstScreenTimes } from './workbench';
import { freePort, HostProfiler, printSpan, spanReport } from './hostProfile';
import { writeVllmLog, type GeneratedLog } from './generatedLog';

const SIZES_MIB = (process.env.HOPLENS_FIRST_SCREEN_MIB ?? '1,10,19,21').split(',').map(Number);

const HOLD_TO_GOAL = process.env.HOPLENS_FIRST_LENS_GOAL === '1';
/**
 * HOPLENS_FIRST_LENS_PROFILE=1: a CPU profile of the extension host for each log (hostProfile.ts),
 * what ran from the click to the hand-over, from the hand-over to HopLens's read, and on to the
 * first hops, printed after the run; the profiles go to test-results/e2e/profiles/.
 */
const PROFILE = process.env.HOPLENS_FIRST_LENS_PROFILE === '1';
const isHopLens = (url: string) => /hoplens\.hoplens-[^/]*\/dist\//.test(url);

/** HopLens's own share of the first lens, from its output channel (ms after VS Code handed the log over). */
interface OwnShare {
  /** The handed-over line says the log was open before HopLens activated: timed from the activation. */
  atActivation: boolean;
  /**
   * Date.now() of the hand-over (or the activation) on the extension host's clock, as its line
   * says: the output channel's own stamp can come later (lines logged while HopLens activates).
   */
  hostAt: number | null;
  /** The output channel's stamp of that line (Date.now() ms): later than hostAt while HopLens activates. */
  stampAt: number;
  hopsMs: number | null;
  /** When the session's read of the document began (the hops were read in its first slices). */
  readMs: number | null;
  listedMs: number | null;
  /** When VS Code first asked for the lenses, and how long the answer that listed the first ones took. */
  askedMs: number | null;
  answerMs: number | null;
}

interface Row {
  name: string; log: GeneratedLog; times: FirstScreenTimes; handedOverMs: number | null; own: OwnShare | null;
  annotateMs: number | null; cliMs: number;
}

const number = (re: RegExp, line: string | undefined): number | null => {
  const m = line === undefined ? null : re.exec(line);
  return m ? Number(m[1]) : null;
};

/** HopLens's timing lines for a log handed over at `since` or later (src/features/logs/firstLensTiming.ts). */
async function ownShare(s: WorkbenchSession, name: string, since: number, withLens: boolean): Promise<OwnShare | null> {
  const handed = await s.extensionLog(`${name}: VS Code handed over`, 5_000, since);
  if (!handed) return null;
  const hops = await s.extensionLog(`${name}: first hops read `, 5_000, handed.at);
  const listed = withLens ? await s.extensionLog(`${name}: first lens listed `, 5_000, handed.at) : null;
  const hostAt = / at (\d{4}-\d\d-\d\dT[\d:.]+Z) on the host's clock/.exec(handed.line);
  return {
    atActivation: handed.line.includes('before HopLens activated'),
    hostAt: hostAt ? Date.parse(hostAt[1]) : null,
    stampAt: handed.at,
    hopsMs: number(/first hops read (\d+) ms/, hops?.line),
    readMs: number(/the read began at \+(\d+) ms/, hops?.line),
    listedMs: number(/first lens listed (\d+) ms/, listed?.line),
    askedMs: number(/first at \+(\d+) ms/, listed?.line),
    answerMs: number(/this answer took (\d+) ms/, listed?.line),
  };
}

/**
 * HopLens's own share from the hand-over, as the host timed it: until the lens was listed, less
 * the time the lenses waited for VS Code to ask once HopLens could list them (its first hops
 * read: the workbench's debounce of 250 ms or more, or its threads busy elsewhere); without
 * CodeLens until the hops were read (the hop column draws them).
 */
function hostOwnMs(own: OwnShare | null, withLens: boolean): number | null {
  if (!own) return null;
  if (!withLens) return own.hopsMs;
  if (own.listedMs === null) return null;
  return own.listedMs - (own.askedMs === null ? 0 : Math.max(0, own.askedMs - (own.hopsMs ?? 0)));
}

/**
 * One log's first lens from the text being visible, cut at the moments between, all on this
 * machine's clock: the text visible (T) → the extension host has the document (H, the host's
 * clock in its line) → HopLens listed the first lens (L; its hops read, VS Code's ask between)
 * → the lens drawn (D). The shares are VS Code's document sync T→H, HopLens's own H→L less the
 * wait for VS Code's ask, that wait, and the workbench's rest L→D: they add up to D − T. When the
 * host had the document before the text was seen (H < T), VS Code's share is nil and HopLens's
 * counts from T (nil if it listed the lens before T). A share below zero is a measurement gone
 * wrong (a clock misread, a lens drawn before it was listed): the test fails.
 */
interface Shares { totalMs: number; syncMs: number; ownMs: number; askWaitMs: number; restMs: number; hostBeforeTextMs: number }

function sharesOf(r: Row): Shares | null {
  const { textMs, lensMs, hopMs } = r.times;
  const drawn = lensMs ?? hopMs;
  const own = r.own;
  if (textMs === null || drawn === null || r.handedOverMs === null || !own) return null;
  const H = r.handedOverMs;
  const from = Math.max(H, textMs);
  const at = (ms: number | null) => (ms === null ? null : H + ms);
  const hostListed = lensMs !== null ? at(own.listedMs) : at(own.hopsMs);
  if (hostListed === null) return null;
  const listed = Math.max(hostListed, from);
  // VS Code's ask after the hops were read, within [from, listed].
  const waitFrom = Math.max(at(own.hopsMs) ?? H, from);
  const waitTo = lensMs !== null ? Math.min(at(own.askedMs) ?? waitFrom, listed) : waitFrom;
  const askWaitMs = Math.max(0, waitTo - waitFrom);
  return {
    totalMs: drawn - textMs, syncMs: from - textMs, ownMs: listed - from - askWaitMs, askWaitMs, restMs: drawn - listed,
    hostBeforeTextMs: Math.max(0, textMs - H),
  };
}

/**
 * The goal for HopLens's own share (issue 27): 300 ms up to 10 MB, 1 s up to 50 MB (held to
 * the generated 10 MiB log, which ends a few lines past 10 MiB, and to the 49 MiB one).
 */
function goalMs(bytes: number): number {
  return bytes <= 10.01 * 1024 * 1024 ? 300 : 1000;
}

function seconds(ms: number | null): string {
  return ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

/** The text visible → first lens, with VS Code's and HopLens's shares (sharesOf), in words. */
function firstLensRestated(r: Row): string {
  const head = `    ${r.name}:`;
  const { textMs, lensMs, hopMs } = r.times;
  if (textMs === null) return `${head} the text never became visible`;
  const what = lensMs !== null ? 'first lens' : 'first hop note (no CodeLens over VS Code\'s large-file limit)';
  if ((lensMs ?? hopMs) === null) return `${head} no hop information`;
  const sh = sharesOf(r);
  if (!sh || !r.own) return `${head} ${what} ${seconds3((lensMs ?? hopMs)! - textMs)} after the text; HopLens's output channel never said when VS Code handed it over`;
  const o = r.own;
  const ownWords = lensMs !== null
    ? `HopLens's own share ${seconds3(sh.ownMs)} (host has the document → lens listed, less the wait for VS Code's ask; from the hand-over: the read `
      + `began at ${seconds3(o.readMs)}, first hops read at ${seconds3(o.hopsMs)}, VS Code first asked at ${seconds3(o.askedMs)}, the answer took ${seconds3(o.answerMs)})`
    : `HopLens's own share ${seconds3(sh.ownMs)} (host has the document → first hops read; the read began at ${seconds3(o.readMs)} from the hand-over)`;
  const rest = lensMs !== null
    ? ` + waiting for VS Code to ask ${seconds3(sh.askWaitMs)} + the workbench's rest ${seconds3(sh.restMs)} (listed → lens drawn)`
    : ` + the workbench's rest ${seconds3(sh.restMs)} (hops read → note drawn)`;
  const stamp = o.hostAt === null ? '' : `; the output channel stamped the hand-over line ${seconds3(o.stampAt - o.hostAt)} after the moment`;
  const before = sh.hostBeforeTextMs > 0 ? ` (the host had it ${seconds3(sh.hostBeforeTextMs)} before the text was seen: HopLens's share counts from the text)` : '';
  return `${head} ${what} ${seconds3(sh.totalMs)} after the text = ${o.atActivation ? 'VS Code\'s document sync and HopLens\'s activation' : 'VS Code\'s document sync'} `
    + `${seconds3(sh.syncMs)}${before} + ${ownWords}${rest}${stamp}${r.annotateMs === null ? '' : `; annotation in the host took ${seconds(r.annotateMs)}`}`;
}

/** One row of the summary table: log | text → first lens | VS Code sync | HopLens own share | VS Code's ask | workbench rest. */
function tableRow(r: Row): string {
  const sh = sharesOf(r);
  if (!sh) return `    | ${r.name} | — | — | — | — | — |`;
  const kind = r.times.lensMs === null ? ' (hop note)' : '';
  return `    | ${r.name}${kind} | ${seconds3(sh.totalMs)} | ${seconds3(sh.syncMs)}${r.own?.atActivation ? ' (with activation)' : ''} `
    + `| ${seconds3(sh.ownMs)} (goal ${goalMs(r.log.bytes)} ms) | ${r.times.lensMs === null ? '—' : seconds3(sh.askWaitMs)} | ${seconds3(sh.restMs)} |`;
}

function seconds3(ms: number | null): string {
  return ms === null ? '—' : `${(ms / 1000).toFixed(3)} s`;
}

function ratio(ms: number | null, textMs: number | null): string {
  return ms === null || textMs === null ? 'never' : `${seconds(ms)} (${(ms / textMs).toFixed(2)}×)`;
}

/** Stops the host's profile begun before the click and says what ran in each span up to the first hops read. */
async function whatRan(profiler: HostProfiler, name: string, times: FirstScreenTimes, own: OwnShare | null): Promise<string> {
  const { profile, wallToProfileUs } = await profiler.stop();
  const dir = join(SCREENSHOTS, 'profiles');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  if (own?.hostAt == null) return `    ${name}: no hand-over time on the host's clock`;
  const at = (ms: number | null) => wallToProfileUs(own.hostAt!) + (ms ?? 0) * 1000;
  const drawn = times.lensMs ?? times.hopMs;
  const spans: [string, number, number][] = [
    ['click → hand-over', wallToProfileUs(times.openedAt), at(0)],
    [own.atActivation ? 'activation → HopLens\'s read began' : 'hand-over → HopLens\'s read began', at(0), at(own.readMs)],
    ['read began → first hops read', at(own.readMs), at(own.hopsMs)],
    ...(times.lensMs === null ? [] : [['VS Code asked → first lens listed', at(own.askedMs), at(own.listedMs)] as [string, number, number]]),
    ...(drawn === null ? [] : [[`${times.lensMs === null ? 'first hops read → hop note' : 'first lens listed → lens'} drawn`,
      at(times.lensMs === null ? own.hopsMs : own.listedMs), wallToProfileUs(times.openedAt + drawn)] as [string, number, number]]),
  ];
  return `    ${name} (test-results/e2e/profiles/${name}.cpuprofile):\n`
    + spans.map(([title, from, to]) => printSpan(title, spanReport(profile, from, to, isHopLens))).join('\n');
}

describe('The first screen of a big vLLM log, opened from the Explorer', function () {
  this.timeout(300_000);
  let inspectPort = 0;
  if (PROFILE) before(async () => { inspectPort = await freePort(); });
  const session = useWorkbench(() => (PROFILE ? { inspectExtensionHost: inspectPort } : {}));
  let s: WorkbenchSession;
  let profiler: HostProfiler | null = null;
  const profiled: string[] = [];
  const rows: Row[] = [];
  const logs = new Map<string, { path: string; log: GeneratedLog }>();
  // The demo's small log first: HopLens activates on it, as when a user starts with the demo.
  const names = ['vllm.log', ...SIZES_MIB.map((mib) => `vllm-${mib}mib.log`)];
  /** The log over 20 MiB reopened with CodeLens on: HopLens's own share of its first lens. */
  let reopened: string | null = null;

  before(async () => {
    s = session();
    if (PROFILE) profiler = await HostProfiler.connect(inspectPort);
    const demo = s.workspace.vllmLog;
    logs.set('vllm.log', { path: demo, log: { bytes: statSync(demo).size, lines: readFileSync(demo, 'utf8').split('\n').length - 1, requests: 2 } });
    for (const mib of SIZES_MIB) {
      const path = join(s.workspace.root, 'logs', `vllm-${mib}mib.log`);
      logs.set(`vllm-${mib}mib.log`, { path, log: await writeVllmLog(path, mib * 1024 * 1024) });
    }
  });

  after(() => {
    profiler?.close();
    if (profiled.length) process.stdout.write(`\n    the extension host's CPU profile (load ${loadavg()[0].toFixed(2)}):\n${profiled.join('\n')}\n`);
    if (rows.length === 0) return;
    const lines = rows.map((r) => `    ${r.name} (${(r.log.bytes / 1048576).toFixed(r.log.bytes < 1048576 ? 3 : 1)} MiB, ${r.log.lines.toLocaleString('en-US')} lines, ${r.log.requests.toLocaleString('en-US')} requests) | ${seconds(r.times.textMs)} | ${ratio(r.handedOverMs, r.times.textMs)} | ${ratio(r.times.linkMs, r.times.textMs)} | ${ratio(r.times.hopMs, r.times.textMs)}${r.times.lensMs === null ? ' (no CodeLens: the hop column)' : ''} | ${ratio(r.times.requestsMs, r.times.textMs)} | ${r.annotateMs === null ? '—' : seconds(r.annotateMs)} | ${seconds(r.cliMs)}`);
    process.stdout.write(`\n    first screen, from the click in the Explorer (× = ratio to the time the text became visible):\n    log | text visible | extension host has the text | first link | first hop information | all requests listed | annotated in the extension host | hoplens annotate --json (CLI)\n${lines.join('\n')}\n`);
    const title = 'first lens, restated (from the text being visible; VS Code\'s share = its document sync to the extension host)';
    process.stdout.write(`\n    ${title}:\n${rows.map(firstLensRestated).join('\n')}\n`);
    process.stdout.write(`\n    load ${loadavg().map((l) => l.toFixed(2)).join(' ')}\n    | log | text → first lens | VS Code sync | HopLens own share | VS Code's ask after HopLens was ready | workbench rest |\n`
      + `${rows.map(tableRow).join('\n')}\n${reopened ? `    ${reopened}\n` : ''}`);
  });

  for (const name of names) {
    it(`${name}: links and hop information on the first screen, and every request in the Requests view`, async () => {
      const { path, log } = logs.get(name)!;
      await s.runCommand('View: Close All Editors');
      const clicked = Date.now() - 1_000;
      await profiler?.start();
      const times = await s.openFromExplorerAndWatch(`logs/${name}`, log.requests, 120_000);
      const status = await s.largeLogStatus();
      // VS Code's copy of the document to the extension host, as HopLens's output channel says it.
      const own = await ownShare(s, name, name === 'vllm.log' ? 0 : clicked, times.lensMs !== null);
      // "annotated 102174 lines of …/vllm-19mib.log in 2773 ms (1630 ms of it parsing, …)"
      const annotated = await s.extensionLog(`/${name} in `, 1_000);
      const annotateMs = annotated ? Number(/ in (\d+) ms/.exec(annotated.line)?.[1]) : null;
      await s.screenshot(`first-screen-${name}`);
      const t0 = Date.now();
      const cli = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'annotate', path, '--json'], { stdio: ['ignore', 'ignore', 'pipe'] });
      const row: Row = { name, log, times, handedOverMs: own?.hostAt == null ? null : own.hostAt - times.openedAt, own, annotateMs, cliMs: Date.now() - t0 };
      rows.push(row);
      if (profiler) profiled.push(await whatRan(profiler, name, times, own));
      assert.equal(cli.status, 0, cli.stderr.toString());
      assert.notEqual(times.textMs, null, 'the log text never became visible');
      // VS Code's and HopLens's shares of the first lens are read from these lines (src/features/logs/firstLensTiming.ts).
      assert.notEqual(row.handedOverMs, null, `HopLens's output channel never said when (on the host's clock) VS Code handed ${name} over`);
      const ownMs = hostOwnMs(own, times.lensMs !== null);
      assert.notEqual(ownMs, null, `HopLens's output channel never said when its first ${times.lensMs !== null ? 'lens was listed' : 'hops were read'} on ${name}`);
      // The shares add up to the text → first lens, and none is below zero (a misread clock would make one so).
      const sh = sharesOf(row);
      assert.ok(sh, `no shares for ${name}`);
      for (const [share, ms] of Object.entries(sh)) assert.ok(ms >= 0, `${name}: ${share} ${ms} ms, below zero (${firstLensRestated(row)})`);
      assert.equal(sh.syncMs + sh.ownMs + sh.askWaitMs + sh.restMs, sh.totalMs);
      if (HOLD_TO_GOAL && !own?.atActivation) {
        assert.ok(ownMs! <= goalMs(log.bytes), `HopLens's own share of the first lens on ${name}: ${ownMs} ms, over the goal of ${goalMs(log.bytes)} ms`);
      }
      assert.notEqual(times.linkMs, null, 'no [file:line] link on the first screen');
      assert.notEqual(times.hopMs, null, 'no hop information on the first screen');
      // As a lens reads: the hop, the process, and the source line it opens; the column where
      // VS Code shows no lens names the hop (the hover says the rest).
      assert.match(times.hopText ?? '', times.lensMs === null ? /^hop [A-Za-z0-9]+$/ : /^hop [A-Za-z0-9]+ · api-server · [\w/]+\.py:\d+/);
      assert.notEqual(times.requestsMs, null, `the Requests view never said it lists all ${log.requests} requests`);
      if (log.bytes > 20 * 1024 * 1024) {
        assert.equal(times.lensMs, null, 'a lens on a log VS Code handles as a large file: the size limit moved, update editorLimits.ts');
        assert.match(status ?? '', /no CodeLens/, 'the status bar does not say why there are no lenses');
      } else {
        assert.notEqual(times.lensMs, null, 'no CodeLens');
        assert.equal(status, null, `status bar says '${status}' on a log that has lenses`);
      }
      if (name === 'vllm.log') return;
      // The end of the log: the lenses (or the hop column) follow the user there.
      await s.page.locator('.part.editor .margin-view-overlays .line-numbers').nth(2).click();
      await s.page.keyboard.press('Control+End');
      await s.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${(log.lines + 1).toLocaleString('en-US').replace(/,/g, '')},` }).waitFor({ timeout: 15_000 });
      const deadline = Date.now() + 60_000;
      let atEnd: string | null;
      while (!(atEnd = await s.hopInfoOnScreen()) && Date.now() < deadline) await s.page.waitForTimeout(250);
      await s.screenshot(`first-screen-${name}-end`);
      assert.ok(atEnd, 'no hop information at the end of the log');
    });
  }

  it('over 20 MiB: a hop line\'s hover opens its source; the status bar turns CodeLens on for such logs at the user\'s choice', async () => {
    const mib = SIZES_MIB.find((m) => m > 20) ?? 21;
    const name = `vllm-${mib}mib.log`;
    if (!logs.has(name)) logs.set(name, { path: join(s.workspace.root, 'logs', name), log: await writeVllmLog(join(s.workspace.root, 'logs', name), mib * 1024 * 1024) });
    await s.runCommand('View: Close All Editors');
    const times = await s.openFromExplorerAndWatch(`logs/${name}`, logs.get(name)!.log.requests, 120_000);
    assert.match(times.hopText ?? '', /^hop [A-Za-z0-9]+$/);
    // VS Code may bring the log back where it was left (the end): go to the top.
    await s.page.locator('.part.editor .margin-view-overlays .line-numbers').nth(2).click();
    await s.page.keyboard.press('Control+Home');
    await s.page.locator('[id="status.editor.selection"]', { hasText: 'Ln 1,' }).waitFor({ timeout: 15_000 });
    // An "Added request" line: hop 2, printed at v1/engine/async_llm.py:439.
    const hover = await s.hoverLineUntil('Added request chatcmpl-run-', 'hop 2 (V2)');
    assert.match(await hover.innerText(), /Checkout: v1\/engine\/async_llm\.py:439/);
    await s.screenshot('large-log-hover');
    await hover.locator('a', { hasText: /^Open$/ }).click();
    await s.page.locator('.tab.active', { hasText: 'async_llm.py' }).waitFor({ timeout: 15_000 });
    await s.page.locator('[id="status.editor.selection"]', { hasText: 'Ln 439,' }).waitFor({ timeout: 15_000 });

    // Back to the log (the source replaced its preview tab): the status bar says why no lenses.
    await s.openFromExplorerAndWatch(`logs/${name}`, logs.get(name)!.log.requests, 120_000);
    const status = s.page.locator('[id$=".largeLog"]', { hasText: 'no CodeLens' }).first();
    await status.waitFor({ timeout: 60_000 });
    const streamed = s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Open in the streamed view' }).first();
    await status.click();
    await streamed.waitFor({ timeout: 10_000 }).catch(async () => { await status.click(); await streamed.waitFor(); });
    await s.screenshot('large-log-choices');
    await s.page.keyboard.press('Escape');
    // The same choices from the palette, while such a log is the active editor.
    await s.runCommand('HopLens: Lenses for a Large Log…');
    const chosen = Date.now();
    await s.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'Show CodeLens' }).first().click();
    // VS Code decides when it creates the document: HopLens reopens it, now with lenses.
    const deadline = Date.now() + 120_000;
    let lens: string;
    while (!/^hop [A-Za-z0-9]+ · api-server · /.test(lens = await s.hopInfoOnScreen() ?? '') && Date.now() < deadline) await s.page.waitForTimeout(250);
    assert.match(lens ?? '', /^hop [A-Za-z0-9]+ · api-server · /, 'no lens after turning large-file optimisations off');
    const own = await ownShare(s, name, chosen, true);
    const ownMs = hostOwnMs(own, true);
    reopened = `${name} reopened with CodeLens on: HopLens's own share ${seconds3(ownMs)} (handed over → lens listed, less the wait for `
      + `VS Code's ask: first hops read at ${seconds3(own?.hopsMs ?? null)}, VS Code first asked at ${seconds3(own?.askedMs ?? null)}, `
      + `the answer took ${seconds3(own?.answerMs ?? null)})`;
    if (HOLD_TO_GOAL) assert.ok((ownMs ?? Infinity) <= goalMs(logs.get(name)!.log.bytes), reopened);
    assert.equal(await s.largeLogStatus(), null, 'the status bar still says there are no lenses');
    const settings = JSON.parse(readFileSync(join(s.workspace.root, '.vscode', 'settings.json'), 'utf8'));
    assert.deepEqual(settings['[log]'], { 'editor.largeFileOptimizations': false }, 'set for log files of this folder only');
    await s.screenshot('large-log-with-lenses');
  });
});
