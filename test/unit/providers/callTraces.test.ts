// The Call Traces view and its commands without a VS Code host: a trace folder written in
// VLLM_TRACE_FUNCTION's exact format becomes folder → process → thread → call rows (durations
// from call/return pairs, runs as ×N, a call that never returned), and the commands open the
// file that ran, filter, find, and export what the user asked for.
import '../fakes/register';
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { asked, executed, messages, registered, replies, shownWith, Uri, workspace } from '../fakes/vscode';
import { CallTracesViewProvider, type CallTraceNode } from '../../../src/features/callTraces/callTracesView';
import { registerCallTraceCommands } from '../../../src/features/callTraces/callTraceCommands';
import { DEFAULT_FILTER } from '../../../src/core/calltrace/filter';
import type { HopLensConfig } from '../../../src/config';
import { callLine, returnLine, tempDir, writeTrace } from '../calltrace/helpers';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
/** Views of the test that ran (a failed one too): their watchers and pollers end with it. */
const live: { dispose(): void }[] = [];
afterEach(() => { for (const d of live.splice(0)) d.dispose(); });

/**
 * An engine-core thread as vLLM's tracer writes it: the busy loop steps three times (schedule,
 * execute_model), then a fourth step is still inside execute_model when the file ends.
 */
function engineCoreTrace(root: string): string {
  const core = join(root, 'vllm', 'v1', 'engine', 'core.py');
  const sched = join(root, 'vllm', 'v1', 'core', 'sched', 'scheduler.py');
  mkdirSync(join(root, 'vllm', 'v1', 'engine'), { recursive: true });
  // The source the trace names, so Open Definition finds the lines that ran.
  writeFileSync(core, Array.from({ length: 400 }, (_, i) => (i === 379 ? '    def step(self):' : i === 289 ? '    def execute_model(self, scheduler_output):' : `    # line ${i + 1}`)).join('\n'));
  const lines = [callLine('01.000000', 'run_busy_loop', core, 870, '', '', 0)];
  for (let s = 0; s < 4; s++) {
    const t = (ms: number) => `01.${String(s * 10_000 + ms * 1000).padStart(6, '0')}`;
    lines.push(callLine(t(1), 'step', core, 380, 'run_busy_loop', core, 880));
    lines.push(callLine(t(2), 'schedule', sched, 200, 'step', core, 385));
    lines.push(returnLine(t(3), 'schedule', sched, 200, 'step', core, 385));
    lines.push(callLine(t(3), 'execute_model', core, 290, 'step', core, 390));
    if (s === 3) break; // stuck in execute_model
    lines.push(returnLine(t(8), 'execute_model', core, 290, 'step', core, 390));
    lines.push(returnLine(t(9), 'step', core, 380, 'run_busy_loop', core, 880));
  }
  return writeTrace(root, lines, { pid: 4242, tid: 139871 });
}

function setUp(config: Partial<HopLensConfig> = {}) {
  const settings = { current: { traceDirs: [], checkouts: { vllm: '', sglang: '' }, callTraces: { perfettoMaxBytes: 64 * 1048576 }, ...config } as unknown as HopLensConfig };
  const view = new CallTracesViewProvider(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings, () => []);
  const commands = registerCallTraceCommands(view, settings);
  messages.length = 0;
  const run = (id: string, ...args: unknown[]) => registered.get(id)!(...args);
  const label = (n: CallTraceNode) => String(view.getTreeItem(n).label);
  const dispose = () => { commands.dispose(); view.dispose(); };
  live.push({ dispose });
  return { view, run, label, dispose };
}

async function threadOf(view: CallTracesViewProvider, root: string): Promise<CallTraceNode> {
  const folder = (await view.getChildren()).find((n) => n.kind === 'folder' && n.folder.path === root)!;
  const [proc] = await view.getChildren(folder);
  const [thread] = await view.getChildren(proc);
  return thread;
}

test('a trace folder: process and thread rows, the thread stuck in a call says where, steps collapse into ×N', async () => {
  const root = tempDir();
  engineCoreTrace(root);
  const t = setUp();
  await t.run('hoplens.openCallTraceFolder', Uri.file(root));
  assert.ok(executed.some((c) => c.id === 'hoplens.callTraces.focus'), 'the view is shown');
  const [folder] = await t.view.getChildren();
  assert.equal(t.view.getTreeItem(folder).description, '1 process(es)');
  const [proc] = await t.view.getChildren(folder);
  assert.match(t.label(proc), /^pid 4242 · /);
  assert.equal(t.view.getTreeItem(proc).description, 'instance 42 · 1 thread(s)');
  const [thread] = await t.view.getChildren(proc);
  assert.equal(t.label(thread), 'thread 139871');
  assert.equal(t.view.getTreeItem(thread).description, '13 calls · 3 open (stuck in execute_model)');

  t.view.setFilter([]);
  const [loop] = await t.view.getChildren(thread);
  assert.equal(t.label(loop), 'run_busy_loop');
  assert.match(String(t.view.getTreeItem(loop).description), /^open \(never returned\) · 4 children · .*core\.py:870$/);
  const [run] = await t.view.getChildren(loop);
  assert.equal(t.label(run), 'step ×4', 'four steps in a row, one row');
  const steps = await t.view.getChildren(run);
  assert.deepEqual(steps.map(t.label), ['step', 'step', 'step', 'step']);
  const [schedule, exec] = await t.view.getChildren(steps[0]);
  assert.equal(t.label(exec), 'execute_model');
  assert.equal(t.view.getTreeItem(exec).description, '5.000 ms · self 5.000 ms · 0 children · vllm/v1/engine/core.py:290');
  assert.match(String(t.view.getTreeItem(schedule).description), /^1\.000 ms/);
  const stuck = await t.view.getChildren(steps[3]);
  assert.equal(String(t.view.getTreeItem(stuck[1]).description).split(' · ')[0], 'open (never returned)');
  t.dispose();
});

test('Open Definition opens the file that ran at the call\'s line; a path not on this machine says how to map it', async () => {
  const root = tempDir();
  engineCoreTrace(root);
  const t = setUp();
  await t.run('hoplens.openCallTraceFolder', Uri.file(root));
  t.view.setFilter(['execute_model']);
  const thread = await threadOf(t.view, root);
  const find = async (nodes: CallTraceNode[]): Promise<CallTraceNode & { kind: 'call' }> => {
    for (const n of nodes) {
      if (n.kind === 'call' && n.row.fn === 'execute_model') return n;
      const hit = await find(await t.view.getChildren(n)).catch(() => undefined);
      if (hit) return hit;
    }
    throw new Error('no execute_model');
  };
  const exec = await find(await t.view.getChildren(thread));
  const item = t.view.getTreeItem(exec);
  assert.equal(item.command?.command, 'hoplens.callTraces.openDefinition');
  await t.run(item.command!.command, ...(item.command!.arguments ?? []));
  const opened = shownWith[shownWith.length - 1];
  assert.equal(opened.doc.uri.fsPath, join(root, 'vllm', 'v1', 'engine', 'core.py'));
  assert.equal(opened.doc.lineAt(opened.options!.selection!.start.line).text, '    def execute_model(self, scheduler_output):');
  await t.run('hoplens.callTraces.openCallSite', exec);
  assert.equal(shownWith[shownWith.length - 1].options!.selection!.start.line, 389, 'the caller\'s line (390)');

  // A trace from a container: the path is not here, and no checkout is set to map it onto.
  const gone = { ...exec, row: { ...exec.row, file: '/workspace/$(alert)/vllm/v1/engine/core.py' } };
  const before = shownWith.length;
  await t.run('hoplens.callTraces.openDefinition', gone);
  assert.equal(shownWith.length, before, 'nothing opened');
  assert.equal(messages.length, 1);
  assert.match(messages[0].text, /is not on this machine\. Set hoplens\.checkouts\.vllm/);
  assert.doesNotMatch(messages[0].text, /\$\(alert\)/, 'the path from the trace is not drawn as an icon');
  t.dispose();

  // With the checkout set, the container path maps onto it.
  const mapped = setUp({ checkouts: { vllm: root, sglang: '' } } as Partial<HopLensConfig>);
  await mapped.run('hoplens.callTraces.openDefinition', { ...gone, row: { ...gone.row, file: '/workspace/vllm/vllm/v1/engine/core.py' } });
  assert.equal(shownWith[shownWith.length - 1].doc.uri.fsPath, join(root, 'vllm', 'v1', 'engine', 'core.py'));
  mapped.dispose();
});

test('Filter Calls… sets the view\'s filter from the input box; "default" is the request path; cancelling keeps it', async () => {
  const t = setUp();
  replies.push('execute_model, schedule');
  await t.run('hoplens.callTraces.filter');
  assert.deepEqual(t.view.currentFilter, ['execute_model', 'schedule']);
  assert.equal((asked[asked.length - 1].options as { value: string }).value, 'default', 'the box shows what was set before');
  await t.run('hoplens.callTraces.filter'); // dismissed
  assert.deepEqual(t.view.currentFilter, ['execute_model', 'schedule']);
  replies.push('default');
  await t.run('hoplens.callTraces.filter');
  assert.equal(t.view.currentFilter, DEFAULT_FILTER);
  t.dispose();
});

test('Find Function… lists each call with its callers and opens the one picked; no trace open or no call says so', async () => {
  const t = setUp();
  await t.run('hoplens.callTraces.find', 'execute_model');
  assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: open a call trace folder first.' }]);
  const root = tempDir();
  engineCoreTrace(root);
  await t.run('hoplens.openCallTraceFolder', Uri.file(root));
  replies.push((items: { label: string; detail: string }[]) => items[3]);
  const hits = await t.run('hoplens.callTraces.find', 'execute_model') as { fn: string; line: number }[];
  assert.equal(hits.length, 4);
  const pick = asked[asked.length - 1];
  assert.equal((pick.options as { title: string }).title, '4 call(s) of \'execute_model\'');
  assert.deepEqual((pick.items as { detail: string }[]).map((i) => i.detail), Array(4).fill('run_busy_loop › step'));
  assert.equal(shownWith[shownWith.length - 1].options!.selection!.start.line, 289);
  messages.length = 0;
  await t.run('hoplens.callTraces.find', '$(flame)nothing');
  assert.equal(messages[0].text.replace(/\u200b/g, ''), 'HopLens: no call of \'$(flame)nothing\' in the open traces.');
  assert.doesNotMatch(messages[0].text, /\$\(flame\)/);
  t.dispose();
});

test('Export as Perfetto writes one complete event per returned call of the thread; Export Hop Sequence opens Markdown beside', async () => {
  const root = tempDir();
  engineCoreTrace(root);
  const t = setUp();
  await t.run('hoplens.callTraces.exportPerfetto');
  assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: right-click a thread or a call in the Call Traces view.' }]);
  await t.run('hoplens.openCallTraceFolder', Uri.file(root));
  const thread = await threadOf(t.view, root);
  const out = join(tempDir(), 'trace.json');
  replies.push(Uri.file(out));
  const res = await t.run('hoplens.callTraces.exportPerfetto', thread) as { events: number; truncated: boolean };
  const json = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: { ph: string; name: string; dur?: number }[] };
  const complete = json.traceEvents.filter((e) => e.ph === 'X');
  assert.equal(complete.filter((e) => e.name === 'execute_model').length, 4);
  assert.equal(complete.find((e) => e.name === 'execute_model')!.dur, 5000);
  assert.match(messages[messages.length - 1].text, new RegExp(`^HopLens: wrote ${res.events} events \\(0\\.0 MB\\) to .*trace\\.json\\. Open it in ui\\.perfetto\\.dev`));

  const md = await t.run('hoplens.callTraces.exportHopSequence') as string;
  assert.match(md, /^# Call trace hops\n\nFilter: `create_chat_completion`/);
  assert.match(md, /\| 22:30:01\.003000 \| · · `execute_model` \| `vllm\/v1\/engine\/core\.py:290` \| `step` \| 5\.000 ms \|/);
  const shown = shownWith[shownWith.length - 1];
  assert.equal(shown.doc.getText(), md);
  assert.equal(shown.options?.viewColumn, -2, 'beside the view');
  t.dispose();
});

test('the view lists configured trace folders that exist and folders opened; a folder of no traces says so', async () => {
  const empty = tempDir();
  const t = setUp({ traceDirs: [empty, join(empty, 'missing')] } as Partial<HopLensConfig>);
  const roots = await t.view.getChildren();
  assert.deepEqual(roots.map((n) => n.kind === 'folder' && n.folder.path), [empty]);
  assert.equal(t.view.getTreeItem(roots[0]).description, 'not indexed yet: expand');
  const rows = await t.view.getChildren(roots[0]);
  assert.deepEqual(rows.map(t.label), ['No VLLM_TRACE_FUNCTION files here.']);
  await t.run('hoplens.openCallTraceFolder', Uri.file(empty));
  assert.equal(messages[messages.length - 1].text, `HopLens: no VLLM_TRACE_FUNCTION files in ${empty}.`);
  workspace.textDocuments = [];
  t.dispose();
});

test('a request timeline reads the configured trace folders (and the opened ones) before the view has indexed any', async () => {
  const configured = tempDir();
  engineCoreTrace(configured);
  const opened = tempDir();
  engineCoreTrace(opened);
  const t = setUp({ traceDirs: [configured, join(configured, 'no-such-folder')] } as Partial<HopLensConfig>);
  assert.deepEqual(t.view.indexes(), [], 'nothing indexed yet');
  assert.deepEqual(t.view.traceFolders(), [configured], 'a configured folder that exists');
  await t.run('hoplens.openCallTraceFolder', Uri.file(opened));
  assert.deepEqual(t.view.traceFolders(), [configured, opened]);
});
