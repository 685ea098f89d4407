// The request timeline in a real extension host: the API server and engine-core logs of one
// vLLM run open in the editor (test/fixtures/timeline/engine-run), its OTLP spans read and its
// call-trace folder open, then HopLens: Show Request Timeline… for the request. The panel's
// read-only view model has one lane per source; a hop opens its log line, a call its definition
// in the checkout, and a clock offset set by the user moves that log's lane.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { cpSync, mkdtempSync, readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { fixture, hoplens, until } from './fixture';
import type { RequestTimelinePanel } from '../../src/features/timeline/timelinePanel';

const REPO = join(__dirname, '..', '..', '..');

/** The run's files, last written an hour after it (vLLM stamps have no year: it comes from the file's time). */
function stageRun(): string {
  const dir = mkdtempSync(join(fixture().root, 'timeline-'));
  cpSync(join(REPO, 'test', 'fixtures', 'timeline', 'engine-run'), dir, { recursive: true });
  const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { finishedEpochMs: number };
  const when = new Date(run.finishedEpochMs + 3_600_000);
  const touch = (d: string): void => {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) touch(p); else if (n.endsWith('.log')) utimesSync(p, when, when);
    }
  };
  touch(dir);
  return dir;
}

describe('Request timeline', () => {
  let dir: string;
  let panel: RequestTimelinePanel;

  before(async () => {
    dir = stageRun();
  });
  after(async () => {
    panel?.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Show Request Timeline on the open logs: one lane per source on one axis', async () => {
    const api = await hoplens();
    const apiLog = await vscode.workspace.openTextDocument(join(dir, 'api-server.log'));
    const coreLog = await vscode.workspace.openTextDocument(join(dir, 'engine-core.log'));
    await vscode.window.showTextDocument(coreLog, { preview: false });
    await vscode.window.showTextDocument(apiLog, { preview: false });
    assert.ok(await api.logs.session(apiLog));
    assert.ok(await api.logs.session(coreLog));
    const spans = await vscode.commands.executeCommand<number>('hoplens.openOtlpFile', vscode.Uri.file(join(dir, 'otlp.jsonl')));
    assert.ok(spans > 0);
    await vscode.commands.executeCommand('hoplens.openCallTraceFolder', vscode.Uri.file(join(dir, 'trace')));

    const shown = await vscode.commands.executeCommand<RequestTimelinePanel | undefined>('hoplens.showRequestTimeline', 'tl-0001');
    assert.ok(shown, 'a panel');
    panel = shown;
    assert.equal(api.timelines.current, panel);
    const view = panel.view;
    assert.equal(view.key, 'tl-0001');
    const titles = view.lanes.map((l) => `${l.kind}: ${l.title.replace(/\d+/g, 'N')}`);
    assert.deepEqual(titles, [
      'process: api-server.log · APIServer pid N',
      'process: engine-core.log · EngineCore pid N',
      'engine-spans: engine spans (OTLP)',
      'engine-steps: scheduler steps of the request',
      'engine-batches: scheduler steps (all requests)',
      'calls: calls · EngineCore pid N · thread N',
      'calls: calls · EngineCore pid N · thread N',
    ]);
    assert.deepEqual(view.lanes[0].items.map((i) => i.hop), ['V1b', 'V1', 'V2', 'V6', 'V6', 'V6', 'V6']);
    // The two logs of the run, not the other logs and trace files earlier tests left open.
    assert.deepEqual(view.clocks.map((c) => [c.id, c.path, c.source]), [
      ['log:0', join(dir, 'api-server.log'), 'reference'], ['log:1', join(dir, 'engine-core.log'), 'assumed'], ['otlp', null, 'estimated'],
    ]);
    assert.ok(panel.panel.visible || panel.panel.active !== undefined);
  });

  it('the Timeline lens on the request\'s first hop line opens the same timeline', async () => {
    const apiLog = await vscode.workspace.openTextDocument(join(dir, 'api-server.log'));
    const lenses = await until('a Timeline lens in the API server log', async () => {
      const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', apiLog.uri, 100);
      const found = all.filter((l) => l.command?.command === 'hoplens.showRequestTimeline');
      return found.length ? found : undefined;
    }, 30_000);
    // One per request, on its first hop line.
    assert.equal(lenses.length, 1);
    const first = apiLog.getText().split('\n').findIndex((l) => l.includes('Request chatcmpl-tl-0001 details:'));
    assert.equal(lenses[0].range.start.line, first);
    const before = panel;
    const shown = await vscode.commands.executeCommand<RequestTimelinePanel | undefined>(lenses[0].command!.command, ...(lenses[0].command!.arguments ?? []));
    assert.ok(shown, 'a panel');
    panel = shown;
    assert.ok(panel.view.key.endsWith('tl-0001'), panel.view.key);
    assert.deepEqual(panel.view.lanes.map((l) => l.kind), before.view.lanes.map((l) => l.kind));
    assert.deepEqual(panel.view.lanes[0].items.map((i) => i.hop), ['V1b', 'V1', 'V2', 'V6', 'V6', 'V6', 'V6']);
  });

  it('a hop opens its log line; a call opens its definition in the checkout', async () => {
    const hop = panel.view.lanes[0].items.find((i) => i.hop === 'V2')!;
    const line = Number(/:(\d+)$/.exec(hop.where!)![1]);
    assert.equal(await panel.openItem(hop.id), true);
    const editor = await until('the log line', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === join(dir, 'api-server.log') && e.selection.active.line === line - 1 ? e : undefined;
    });
    assert.match(editor.document.lineAt(line - 1).text, /Added request chatcmpl-tl-0001/);

    const calls = panel.view.lanes.find((l) => l.kind === 'calls' && l.items.some((c) => c.label === 'run_busy_loop'))!;
    const loop = calls.items.find((c) => c.label === 'run_busy_loop')!;
    assert.equal(await panel.openItem(loop.id), true);
    const code = await until('the definition', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === join(fixture().vllmCheckout, 'vllm', 'v1', 'engine', 'core.py') ? e : undefined;
    });
    assert.equal(code.selection.active.line, Math.min(25, code.document.lineCount - 1));
  });

  it('an offset the user sets moves that clock\'s lane by it, and can be taken back', async () => {
    // Measured from the API server's Received line: axis 0 is the earliest item, which may move too.
    const spanStart = () => panel.view.lanes.find((l) => l.kind === 'engine-spans')!.items.find((i) => i.kind === 'span')!.start
      - panel.view.lanes[0].items.find((i) => i.hop === 'V1')!.start;
    const before = spanStart();
    const renders = panel.renderCount;
    assert.equal(await panel.setOffset('otlp', 1500), true);
    assert.equal(panel.renderCount, renders + 1);
    const clock = panel.view.clocks.find((c) => c.id === 'otlp')!;
    assert.deepEqual([clock.offsetMs, clock.source, clock.offsetText], [1500, 'user', '+1.50 s']);
    assert.equal(panel.userOffsets.get('otlp'), 1500);
    // The spans' stamps are moved back by 1.5 s.
    assert.ok(Math.abs(before - spanStart() - 1500) < 1e-6, `${before} → ${spanStart()}`);
    // A log's offset is kept by its path (as --offset FILE=MS on the command line).
    assert.equal(await panel.setOffset('log:1', -250), true);
    assert.equal(panel.userOffsets.get(join(dir, 'engine-core.log')), -250);
    assert.equal(panel.view.clocks.find((c) => c.id === 'log:1')!.source, 'user');
    assert.equal(await panel.setOffset('log:0', 10), false, 'the reference clock has no offset to set');
    assert.equal(await panel.setOffset('otlp', null), true);
    assert.equal(await panel.setOffset('log:1', null), true);
    assert.equal(panel.view.clocks.find((c) => c.id === 'otlp')!.source, 'estimated');
    assert.ok(Math.abs(spanStart() - before) < 1e-6);
  });

  it('an unsaved edit of an open log is on its timeline (the session is read, not the file)', async () => {
    const api = await hoplens();
    const apiLog = await vscode.workspace.openTextDocument(join(dir, 'api-server.log'));
    const editor = await vscode.window.showTextDocument(apiLog, { preview: false });
    // The user pastes one more streaming line of the request after the last delta and does not save.
    const delta = [...Array(apiLog.lineCount).keys()].filter((i) => /Generated response chatcmpl-tl-0001 \(streaming delta\)/.test(apiLog.lineAt(i).text)).pop()!;
    const pasted = apiLog.lineAt(delta).text.replace("output: ' How can I help?'", "output: ' Pasted.'");
    assert.ok(await editor.edit((e) => e.insert(new vscode.Position(delta + 1, 0), `${pasted}\n`)));
    assert.ok(apiLog.isDirty);
    try {
      const shown = await vscode.commands.executeCommand<RequestTimelinePanel | undefined>('hoplens.showRequestTimeline', 'tl-0001');
      assert.ok(shown, 'a panel');
      panel.dispose();
      panel = shown;
      assert.equal(api.timelines.current, panel);
      const hops = panel.view.lanes[0].items;
      assert.deepEqual(hops.map((i) => i.hop), ['V1b', 'V1', 'V2', 'V6', 'V6', 'V6', 'V6', 'V6']);
      assert.deepEqual(hops.slice(-2).map((i) => /:(\d+)$/.exec(i.where!)![1]), [String(delta + 2), String(delta + 3)], 'the pasted line and the complete line after it');
    } finally {
      await vscode.window.showTextDocument(apiLog, { preview: false });
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    assert.ok(!apiLog.isDirty);
  });
});
