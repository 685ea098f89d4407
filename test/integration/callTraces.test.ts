// The Call Traces view in a real extension host, on a trace folder written by a real
// sys.settrace run (test/fixtures/calltrace/make_trace.py writes the tracer's exact format).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hoplens, until } from './fixture';
import type { CallTraceNode } from '../../src/providers/calltrace/callTracesView';

const REPO = join(__dirname, '..', '..', '..');

describe('Call Traces view', () => {
  let made: { instanceDir: string; files: string[]; engineRoot: string; sleepMs: number };

  before(() => {
    const out = mkdtempSync(join(tmpdir(), 'hoplens-it-trace-'));
    const stdout = execFileSync('python3', [join(REPO, 'test', 'fixtures', 'calltrace', 'make_trace.py'), out, '--sleep-ms', '30'], { encoding: 'utf8' });
    made = JSON.parse(stdout.trim().split('\n').pop()!);
  });

  it('shows process → thread → the nested call tree with durations from call/return pairs', async () => {
    const api = await hoplens();
    await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(made.instanceDir));
    const view = api.callTraces;
    const roots = await view.getChildren();
    const folder = roots.find((n) => n.kind === 'folder' && n.folder.path === made.instanceDir);
    assert.ok(folder, `roots: ${roots.map((r) => (r.kind === 'folder' ? r.folder.path : r.kind)).join(', ')}`);
    const processes = await view.getChildren(folder);
    assert.equal(processes.filter((p) => p.kind === 'process').length, 1);
    const threads = (await view.getChildren(processes[0])).filter((t) => t.kind === 'thread');
    assert.equal(threads.length, 2, 'two traced threads, one file each');

    // Walk down to execute_model: run_busy_loop → step → execute_model.
    const findCall = async (nodes: CallTraceNode[], fn: string, file: string): Promise<CallTraceNode & { kind: 'call' }> => {
      for (const n of nodes) {
        if (n.kind === 'call' && n.row.fn === fn && n.row.file.endsWith(file)) return n;
        if (n.kind === 'call' || n.kind === 'thread') {
          const hit = await findCall(await view.getChildren(n), fn, file).catch(() => undefined);
          if (hit) return hit;
        }
      }
      throw new Error(`no ${fn}`);
    };
    const exec = await findCall(threads, 'execute_model', 'vllm/v1/engine/core.py');
    // execute_model sleeps 30 ms: its duration comes from the Call/Return timestamps.
    assert.ok(exec.row.durationUs! >= 29_000 && exec.row.durationUs! < 2_000_000, `execute_model took ${exec.row.durationUs} µs`);
    const item = view.getTreeItem(exec);
    assert.match(String(item.description), /ms/);
    assert.match(String(item.description), /v1\/engine\/core\.py:\d+/);

    // Clicking opens the definition line in the source the trace names.
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
});
