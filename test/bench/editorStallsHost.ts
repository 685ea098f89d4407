// The extension-host side of bench/editorStalls.mjs, loaded as the workbench's extension-tests
// module: it plays what a user does in each scenario (a 50 MB log opened, scrolled top to bottom
// and appended to; the Call Traces view opening a big trace folder; a request's timeline over a
// 1M-line log set) while it records the event loop (a 10 ms timer probe: every tick late by more
// than 15 ms is a block; perf_hooks' loop-delay histogram beside it) and a V8 CPU profile of this
// thread (inspector, 1 ms samples). It writes the raw record of each scenario to the file the
// plan names; the attribution (test/bench/stallAttribution.ts) runs there too, so the record
// written is already split by owner. Nothing is asserted here beyond "the scenario did its work":
// the figures are the benchmark's output, not a test's verdict.
import * as vscode from 'vscode';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { attributeStalls, type CpuProfile, type LoopBlock, type StallReport } from './stallAttribution';
import type { HopLensApi } from '../../src/extension';

/** What bench/editorStalls.mjs asks for (JSON in $HOPLENS_STALLS_PLAN). */
export interface StallPlan {
  /** The extension's folder: frames of <root>/dist/ are HopLens's. */
  root: string;
  /** Where the results go (JSON), and each scenario's CPU profile (<profiles>/<name>.cpuprofile). */
  out: string;
  profiles: string;
  scenarios: string[];
  log?: { path: string; lines: number; appendPaths: string[]; appendLines: number; scrollSteps: number };
  traces?: { dir: string; threads: number };
  timeline?: { files: string[]; rid: string };
}

export interface ScenarioResult {
  name: string;
  wallMs: number;
  /** Named moments, ms from the start. */
  marks: Record<string, number>;
  /** What the scenario checked it did (lines read, threads listed, lanes shown). */
  checks: Record<string, number | string>;
  loopDelay: { maxMs: number; p99Ms: number; meanMs: number };
  report: StallReport;
}

const PROBE_MS = 10;
/** Blocks shorter than this are not recorded (the report's limit is 50 ms; shorter ones give HopLens's longest task under it). */
const BLOCK_MS = 15;
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** The probe, the loop-delay histogram and the CPU profile of one scenario. */
class Recorder {
  private readonly session = new Session();
  private readonly blocks: LoopBlock[] = [];
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private timer: NodeJS.Timeout | undefined;
  private t0 = 0;
  readonly marks: Record<string, number> = {};

  private post<T>(method: string, params?: object): Promise<T> {
    return new Promise((resolve, reject) => this.session.post(method, params ?? {}, (e, r) => (e ? reject(e) : resolve(r as T))));
  }

  async start(): Promise<void> {
    this.session.connect();
    await this.post('Profiler.enable');
    await this.post('Profiler.setSamplingInterval', { interval: 1000 });
    await this.post('Profiler.start');
    this.histogram.enable();
    this.t0 = Date.now();
    let last = nowUs();
    this.timer = setInterval(() => {
      const now = nowUs();
      if (now - last > (BLOCK_MS + PROBE_MS) * 1000) this.blocks.push({ startUs: last, endUs: now });
      last = now;
    }, PROBE_MS);
  }

  mark(name: string): void { this.marks[name] = Date.now() - this.t0; }

  async stop(): Promise<{ profile: CpuProfile; blocks: LoopBlock[]; wallMs: number; loopDelay: ScenarioResult['loopDelay'] }> {
    clearInterval(this.timer);
    this.histogram.disable();
    const { profile } = await this.post<{ profile: CpuProfile }>('Profiler.stop');
    await this.post('Profiler.disable');
    this.session.disconnect();
    const h = this.histogram;
    return {
      profile, blocks: this.blocks, wallMs: Date.now() - this.t0,
      loopDelay: { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, meanMs: h.mean / 1e6 },
    };
  }
}

type Scenario = (api: HopLensApi, plan: StallPlan, rec: Recorder, checks: ScenarioResult['checks']) => Promise<void>;

/** A 50 MB log: opened, annotated, scrolled top to bottom, then lines appended on disk a few times. */
const bigLog: Scenario = async (api, plan, rec, checks) => {
  const p = plan.log!;
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(p.path));
  rec.mark('document opened');
  const editor = await vscode.window.showTextDocument(doc, { preview: false });
  rec.mark('editor shown');
  const session = await api.logs.session(doc);
  rec.mark('annotated');
  if (!session) throw new Error('the 50 MB log has no HopLens session');
  checks.lines = session.linesParsed;
  checks.requests = session.tracker.requestCount;
  if (session.linesParsed !== p.lines) throw new Error(`read ${session.linesParsed} of ${p.lines} lines`);
  const total = doc.lineCount;
  for (let i = 1; i <= p.scrollSteps; i++) {
    const line = Math.min(total - 1, Math.round((i * (total - 1)) / p.scrollSteps));
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.AtTop);
    await sleep(60);
  }
  await until('the bottom of the log on screen', () => editor.visibleRanges.some((r) => r.end.line >= total - 2));
  rec.mark('scrolled to the bottom');
  for (let k = 1; k <= p.appendPaths.length; k++) {
    appendFileSync(p.path, readFileSync(p.appendPaths[k - 1]));
    const want = p.lines + k * p.appendLines;
    await until(`the document to show append ${k}`, () => doc.lineCount - 1 >= want);
    const s = await api.logs.session(doc);
    if (!s || s.linesParsed !== want) throw new Error(`after append ${k}: ${s?.linesParsed} lines read, ${want} written`);
    editor.revealRange(new vscode.Range(doc.lineCount - 1, 0, doc.lineCount - 1, 0), vscode.TextEditorRevealType.AtTop);
    await sleep(300);
  }
  rec.mark('appended');
  checks.linesAfterAppends = (await api.logs.session(doc))!.linesParsed;
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
};

/** The Call Traces view opening a trace folder: the folder indexed, its processes, threads and first calls listed. */
const callTraces: Scenario = async (api, plan, rec, checks) => {
  const t = plan.traces!;
  await vscode.commands.executeCommand('hoplens.callTraces.focus');
  await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(t.dir));
  rec.mark('folder added');
  const roots = await api.callTraces.rows();
  const folder = roots.find((r) => r.kind === 'folder' && r.folder.path === t.dir);
  if (!folder) throw new Error(`the folder is not listed: ${roots.map((r) => r.kind).join(', ')}`);
  const processes = (await api.callTraces.rows(folder)).filter((r) => r.kind === 'process');
  rec.mark('indexed');
  let threads = 0;
  let calls = 0;
  for (const p of processes) {
    for (const th of (await api.callTraces.rows(p)).filter((r) => r.kind === 'thread')) {
      threads++;
      const rows = await api.callTraces.rows(th);
      calls += rows.length;
      const first = rows.find((r) => r.kind === 'call');
      if (first) calls += (await api.callTraces.rows(first)).length;
    }
  }
  rec.mark('calls listed');
  checks.processes = processes.length;
  checks.threads = threads;
  checks.rowsListed = calls;
  if (threads !== t.threads || calls === 0) throw new Error(`listed ${threads} thread(s) of ${t.threads}, ${calls} call rows`);
};

/** HopLens: Show Request Timeline for one request over the log set's files (read from disk). */
const timeline: Scenario = async (api, plan, rec, checks) => {
  const t = plan.timeline!;
  const panel = await vscode.commands.executeCommand<{ view: { key: string; lanes: { kind: string; items: unknown[] }[] }; dispose(): void } | undefined>(
    'hoplens.showRequestTimeline', t.rid, t.files);
  rec.mark('timeline shown');
  if (!panel) throw new Error(`no timeline of ${t.rid}`);
  const lanes = panel.view.lanes.filter((l) => l.items.length > 0);
  checks.lanes = lanes.length;
  checks.items = lanes.reduce((n, l) => n + l.items.length, 0);
  checks.key = panel.view.key;
  if (lanes.length < t.files.length) throw new Error(`${lanes.length} lane(s) with items for ${t.files.length} logs`);
  await sleep(500); // the page renders and asks for its lazy lanes
  rec.mark('settled');
  panel.dispose();
  void api;
};

const SCENARIOS: Record<string, Scenario> = { log: bigLog, calltraces: callTraces, timeline };

export async function run(): Promise<void> {
  const plan = JSON.parse(process.env.HOPLENS_STALLS_PLAN ?? 'null') as StallPlan | null;
  if (!plan) throw new Error('HOPLENS_STALLS_PLAN is not set: run bench/editorStalls.mjs');
  const ext = vscode.extensions.getExtension<HopLensApi>('hoplens.hoplens');
  if (!ext) throw new Error('HopLens is not installed in this extension host');
  const api = await ext.activate();
  await sleep(2000); // the workbench's own start-up work settles first
  const dist = `${plan.root}/dist/`;
  const harness = `${plan.root}/out/test/bench/`;
  const results: ScenarioResult[] = [];
  const errors: string[] = [];
  for (const name of plan.scenarios) {
    const scenario = SCENARIOS[name];
    if (!scenario) { errors.push(`no scenario ${name}`); continue; }
    const rec = new Recorder();
    const checks: ScenarioResult['checks'] = {};
    await rec.start();
    let failed: unknown;
    try { await scenario(api, plan, rec, checks); } catch (e) { failed = e; }
    const raw = await rec.stop();
    writeFileSync(`${plan.profiles}/${name}.cpuprofile`, JSON.stringify(raw.profile));
    if (failed) { errors.push(`${name}: ${failed instanceof Error ? failed.message : String(failed)}`); continue; }
    const report = attributeStalls(raw.profile, raw.blocks, {
      isHopLens: (url) => url.includes(dist), isHarness: (url) => url.includes(harness), probeIntervalMs: PROBE_MS,
    });
    results.push({ name, wallMs: raw.wallMs, marks: rec.marks, checks, loopDelay: raw.loopDelay, report });
    await sleep(1000);
  }
  writeFileSync(plan.out, JSON.stringify({ results, errors }, null, 1));
  if (errors.length) throw new Error(errors.join('\n'));
}
