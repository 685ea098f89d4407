// The Call Traces view in a real extension host, on a trace folder written by a real
// sys.settrace run (test/fixtures/calltrace/make_trace.py writes the tracer's exact format).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixture, hoplens, until } from './fixture';
import type { CallTraceRow } from '../../src/api';

const REPO = join(__dirname, '..', '..', '..');

/** Filter Calls… as the user sets it: a list of functions, [] for every call, 'default' for the request path. */
async function setFilter(filter: string[] | 'default'): Promise<void> {
  await vscode.commands.executeCommand('hoplens.callTraces.filter', typeof filter === 'string' ? filter : filter.join(', '));
}

describe('Call Traces view', () => {
  let made: { instanceDir: string; files: string[]; engineRoot: string; sleepMs: number };

  before(() => {
    // Inside the workspace folder, which VS Code watches reliably (the trace-following test needs it).
    const out = mkdtempSync(join(fixture().root, 'traces-'));
    const stdout = execFileSync('python3', [join(REPO, 'test', 'fixtures', 'calltrace', 'make_trace.py'), out, '--sleep-ms', '30'], { encoding: 'utf8' });
    made = JSON.parse(stdout.trim().split('\n').pop()!);
  });

  it('shows process → thread → the nested call tree with durations from call/return pairs', async () => {
    const api = await hoplens();
    await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(made.instanceDir));
    const view = api.callTraces;
    const roots = await view.rows();
    const folder = roots.find((n) => n.kind === 'folder' && n.folder.path === made.instanceDir);
    assert.ok(folder, `roots: ${roots.map((r) => (r.kind === 'folder' ? r.folder.path : r.kind)).join(', ')}`);
    const processes = await view.rows(folder);
    assert.equal(processes.filter((p) => p.kind === 'process').length, 1);
    const threads = (await view.rows(processes[0])).filter((t) => t.kind === 'thread');
    assert.equal(threads.length, 2, 'two traced threads, one file each');

    // Walk down to execute_model: run_busy_loop → step → execute_model.
    const findCall = async (nodes: readonly CallTraceRow[], fn: string, file: string): Promise<CallTraceRow & { kind: 'call' }> => {
      for (const n of nodes) {
        if (n.kind === 'call' && n.row.fn === fn && n.row.file.endsWith(file)) return n;
        if (n.kind === 'call' || n.kind === 'thread') {
          const hit = await findCall(await view.rows(n), fn, file).catch(() => undefined);
          if (hit) return hit;
        }
      }
      throw new Error(`no ${fn}`);
    };
    const exec = await findCall(threads, 'execute_model', 'vllm/v1/engine/core.py');
    // execute_model sleeps 30 ms: its duration comes from the Call/Return timestamps.
    assert.ok(exec.row.durationUs! >= 29_000, `execute_model took ${exec.row.durationUs} µs`);
    // Paired with its own return: it fits inside the step (or the run of steps) that called it.
    const step = await findCall(threads, 'step', 'vllm/v1/engine/core.py');
    assert.ok(exec.row.durationUs! <= step.row.durationUs!, `execute_model ${exec.row.durationUs} µs, step ${step.row.durationUs} µs`);
    const item = view.item(exec);
    assert.match(String(item.description), /ms/);
    assert.match(String(item.description), /v1\/engine\/core\.py:\d+/);

    // Clicking opens the definition line in the source the trace names.
    assert.equal(item.command!.command, 'hoplens.callTraces.openDefinition');
    await vscode.commands.executeCommand(item.command!.command, ...(item.command!.arguments ?? []));
    const editor = await until('core.py to open', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath.endsWith(join('vllm', 'v1', 'engine', 'core.py')) ? e : undefined;
    });
    assert.equal(editor.selection.active.line + 1, exec.row.line);
    assert.match(editor.document.lineAt(exec.row.line - 1).text, /def execute_model/);

    // The inline action opens the call site: the caller's line.
    await vscode.commands.executeCommand('hoplens.callTraces.openCallSite', exec);
    const site = await until('call site', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.selection.active.line + 1 === exec.row.callSite!.line ? e : undefined;
    });
    assert.match(site.document.lineAt(exec.row.callSite!.line - 1).text, /execute_model\(/);
  });

  it('exports a thread as Perfetto trace JSON with one complete event per call', async () => {
    const api = await hoplens();
    const [folder] = (await api.callTraces.rows()).filter((n) => n.kind === 'folder' && n.folder.path === made.instanceDir);
    const [proc] = await api.callTraces.rows(folder);
    const threads = await api.callTraces.rows(proc);
    const out = vscode.Uri.file(join(mkdtempSync(join(tmpdir(), 'hoplens-it-perfetto-')), 'trace.json'));
    const res = await vscode.commands.executeCommand<{ events: number; truncated: boolean }>('hoplens.callTraces.exportPerfetto', threads[0], out);
    assert.ok(res.events > 0 && !res.truncated);
    const json = JSON.parse(readFileSync(out.fsPath, 'utf8')) as { traceEvents: { ph: string; name: string; dur?: number }[] };
    const complete = json.traceEvents.filter((e) => e.ph === 'X');
    assert.ok(complete.length > 0 && complete.every((e) => typeof e.dur === 'number' && e.name.length > 0));
  });

  it('follows a trace file that is still being written', async () => {
    const api = await hoplens();
    const file = made.files.find((f) => readFileSync(f, 'utf8').includes('run_busy_loop'))!;
    const ts = '2026-11-29 10:00:00.000000';
    appendFileSync(file, `${ts} Call to late_request in ${made.engineRoot}/vllm/v1/engine/core.py:1 from  in :0\n` +
      `2026-11-29 10:00:00.005000 Return from late_request in ${made.engineRoot}/vllm/v1/engine/core.py:2 to  in :0\n`);
    await setFilter([]); // everything, not only the request path
    try {
      await until('the appended call to appear', async () => {
        const [folder] = (await api.callTraces.rows()).filter((n) => n.kind === 'folder' && n.folder.path === made.instanceDir);
        const [proc] = await api.callTraces.rows(folder);
        for (const t of await api.callTraces.rows(proc)) {
          const calls = await api.callTraces.rows(t);
          const hit = calls.find((c) => c.kind === 'call' && c.row.fn === 'late_request');
          if (hit && hit.kind === 'call') { assert.equal(hit.row.durationUs, 5000); return true; }
        }
        return undefined;
      }, 20_000);
    } finally {
      await setFilter('default');
    }
  });

  it('Filter Calls… keeps a function with its callers; Find Function… opens a call; the hop sequence exports as Markdown', async () => {
    const api = await hoplens();
    const view = api.callTraces;
    await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(made.instanceDir));
    const namesUnder = async (): Promise<Set<string>> => {
      const [folder] = (await view.rows()).filter((n) => n.kind === 'folder' && n.folder.path === made.instanceDir);
      const names = new Set<string>();
      const walk = async (nodes: readonly CallTraceRow[]) => {
        for (const n of nodes) {
          if (n.kind === 'call') names.add(n.row.fn);
          if (n.kind === 'process' || n.kind === 'thread' || n.kind === 'call') await walk(await view.rows(n));
        }
      };
      await walk(await view.rows(folder));
      return names;
    };
    try {
      await vscode.commands.executeCommand('hoplens.callTraces.filter', 'execute_model');
      assert.deepEqual(view.filter, ['execute_model']);
      const filtered = await namesUnder();
      assert.ok(filtered.has('execute_model'), [...filtered].join(', '));
      assert.ok(!filtered.has('schedule') && !filtered.has('update_from_output'), `only execute_model and its callers: ${[...filtered].join(', ')}`);
      const md = await vscode.commands.executeCommand<string>('hoplens.callTraces.exportHopSequence');
      assert.match(md, /^# Call trace hops\n\nFilter: `execute_model`/);
      assert.match(md, /\| [\d:.]+ \| (· )*`execute_model` \| `vllm\/v1\/engine\/core\.py:\d+` \| `step` \|/);
      assert.ok(!md.includes('`schedule`'));
      assert.ok(vscode.workspace.textDocuments.some((d) => d.languageId === 'markdown' && d.getText() === md), 'the export opened as a document');
    } finally {
      await vscode.commands.executeCommand('hoplens.callTraces.filter', 'default');
    }
    assert.ok((await namesUnder()).has('schedule'), 'the default filter (the request path) is back');

    const hits = await vscode.commands.executeCommand<{ fn: string; file: string; line: number }[]>('hoplens.callTraces.find', 'execute_model', 0);
    assert.ok(hits.length >= 1 && hits.every((h) => h.fn === 'execute_model'), JSON.stringify(hits));
    const editor = await until('the first call of execute_model to open', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === hits[0].file && e.selection.active.line + 1 === hits[0].line ? e : undefined;
    });
    assert.match(editor.document.lineAt(hits[0].line - 1).text, /def execute_model/);
  });

  it('Refresh Call Traces picks up calls appended since the folder was read', async () => {
    const api = await hoplens();
    const dir = join(fixture().root, 'traces-refresh', 'vllm-instance-9');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'VLLM_TRACE_FUNCTION_for_process_9_thread_10_at_2026-08-21_22:30:01.123456.log');
    const core = '/srv/vllm/vllm/v1/engine/core.py';
    writeFileSync(file, `2026-08-21 22:30:01.000000 Call to step in ${core}:1 from  in :0\n2026-08-21 22:30:01.000500 Return from step in ${core}:2 to  in :0\n`);
    const root = join(fixture().root, 'traces-refresh');
    await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(root));
    const view = api.callTraces;
    await setFilter([]);
    const topCalls = async () => {
      const [folder] = (await view.rows()).filter((n) => n.kind === 'folder' && n.folder.path === root);
      const [proc] = await view.rows(folder);
      const [thread] = await view.rows(proc);
      return (await view.rows(thread)).flatMap((n) => (n.kind === 'call' ? [n.row.fn] : []));
    };
    try {
      assert.deepEqual(await topCalls(), ['step']);
      appendFileSync(file, `2026-08-21 22:30:02.000000 Call to late_step in ${core}:3 from  in :0\n2026-08-21 22:30:02.000700 Return from late_step in ${core}:4 to  in :0\n`);
      await vscode.commands.executeCommand('hoplens.callTraces.refresh');
      // Right after the command: no waiting for a file watcher.
      assert.deepEqual(await topCalls(), ['step', 'late_step']);
    } finally {
      await setFilter('default');
    }
  });

  it('Load More Calls pages a thread with more calls than one page', async () => {
    const api = await hoplens();
    const root = join(fixture().root, 'traces-many');
    const dir = join(root, 'vllm-instance-11');
    mkdirSync(dir, { recursive: true });
    const core = '/srv/vllm/vllm/v1/engine/core.py';
    const lines: string[] = [];
    for (let i = 0; i < 450; i++) {
      const us = String(i * 10).padStart(6, '0');
      lines.push(`2026-08-21 22:30:01.${us} Call to handle_${i} in ${core}:${i + 1} from  in :0`, `2026-08-21 22:30:01.${String(i * 10 + 5).padStart(6, '0')} Return from handle_${i} in ${core}:${i + 1} to  in :0`);
    }
    writeFileSync(join(dir, 'VLLM_TRACE_FUNCTION_for_process_11_thread_12_at_2026-08-21_22:30:01.000000.log'), lines.join('\n') + '\n');
    await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(root));
    const view = api.callTraces;
    await setFilter([]);
    try {
      const [folder] = (await view.rows()).filter((n) => n.kind === 'folder' && n.folder.path === root);
      const [proc] = await view.rows(folder);
      const [thread] = await view.rows(proc);
      const first = await view.rows(thread);
      const more = first[first.length - 1];
      assert.equal(more.kind, 'more');
      assert.equal(first.filter((n) => n.kind === 'call').length, 200);
      assert.match(String(view.item(more).label), /more/i);
      await vscode.commands.executeCommand('hoplens.callTraces.loadMore', more);
      const next = await view.rows(thread);
      const calls = next.flatMap((n) => (n.kind === 'call' ? [n.row.fn] : []));
      assert.ok(calls.length > 200, `${calls.length} calls after Load More`);
      assert.deepEqual(calls.slice(0, 3), ['handle_0', 'handle_1', 'handle_2']);
      assert.equal(calls[calls.length - 1], `handle_${calls.length - 1}`, 'the next page continues where the first ended');
    } finally {
      await setFilter('default');
    }
  });

  it('opens a folder of 2,000 small trace files from many restarts (one worker pool, not a thread per file), each file once, no walk out of the folder', async function () {
    this.timeout(120_000);
    const api = await hoplens();
    const root = mkdtempSync(join(fixture().root, 'restarts-'));
    const inst = join(root, 'vllm-instance-restarts');
    mkdirSync(inst);
    const core = '/usr/lib/python3/site-packages/vllm/v1/engine/core.py';
    const body = `2026-08-21 22:30:01.000001 Call to step in ${core}:380 from run_busy_loop in ${core}:870\n` +
      `2026-08-21 22:30:01.000900 Return from step in ${core}:380 to run_busy_loop in ${core}:870\n`;
    for (let i = 0; i < 2000; i++) writeFileSync(join(inst, `VLLM_TRACE_FUNCTION_for_process_${20_000 + i}_thread_7_at_2026-08-21_22:30:01.000001.log`), body);
    symlinkSync('..', join(inst, 'up')); // a loop back up
    const elsewhere = mkdtempSync(join(tmpdir(), 'hoplens-it-other-job-'));
    mkdirSync(join(elsewhere, 'vllm-instance-x'));
    writeFileSync(join(elsewhere, 'vllm-instance-x', 'VLLM_TRACE_FUNCTION_for_process_99_thread_9_at_2026-08-21_22:30:01.000001.log'), body);
    symlinkSync(elsewhere, join(root, 'link')); // like `link -> /`
    try {
      await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(root));
      const [folder] = (await api.callTraces.rows()).filter((n) => n.kind === 'folder' && n.folder.path === root);
      assert.ok(folder, 'the folder is listed');
      const children = await api.callTraces.rows(folder);
      const processes = children.filter((n) => n.kind === 'process');
      assert.equal(processes.length, 2000, 'every restart once (the loop does not list them again)');
      assert.ok(processes.every((p) => p.kind === 'process' && p.group.pid >= 20_000), 'nothing from the other job behind the link');
      const note = children.find((n) => n.kind === 'info' && /ignored/.test(n.text));
      assert.ok(note && note.kind === 'info' && /outside the folder/.test(note.tooltip ?? ''), 'the link out is named in the ignored list');
      const [thread] = await api.callTraces.rows(processes[1999]);
      await setFilter([]);
      try {
        const calls = await api.callTraces.rows(thread);
        assert.ok(calls.some((c) => c.kind === 'call' && c.row.fn === 'step' && c.row.durationUs === 899), JSON.stringify(calls.map((c) => c.kind === 'call' ? [c.row.fn, c.row.durationUs] : c.kind)));
      } finally {
        await setFilter('default');
      }
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
