// The walkthrough's button commands in a real extension host: the demo's log opens beside the
// editor that was active (the walkthrough, when its button is clicked) at the step's line, a path
// out of the workspace opens nothing; the timeline step shows the request traced last, unasked.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fixture, hoplens, until } from './fixture';
import type { TracedRequest } from '../../src/core/request/index';

describe('Walkthrough: the command behind its Open buttons', () => {
  before(async () => { await hoplens(); });

  it('opens logs/vllm.log beside the active editor at the Added line, kept open, the line on screen', async () => {
    const ws = fixture();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const readme = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: 'the walkthrough stands here' }));
    assert.equal(readme.viewColumn, vscode.ViewColumn.One);
    const opened = await vscode.commands.executeCommand<vscode.Uri | undefined>('hoplens.walkthrough.openFile', 'logs/vllm.log', 11);
    assert.equal(opened?.fsPath, vscode.Uri.file(ws.vllmLog).fsPath);
    const editor = await until('the log is the active editor', () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.fsPath === opened?.fsPath ? e : undefined;
    });
    assert.equal(editor.viewColumn, vscode.ViewColumn.Two, 'beside the editor the button was clicked in');
    assert.equal(editor.selection.active.line, 10);
    assert.match(editor.document.lineAt(10).text, /\[async_llm\.py:439\] Added request chatcmpl-myrun-0001-/);
    assert.ok(editor.visibleRanges.some((r) => r.contains(new vscode.Position(10, 0))), 'line 11 is on screen');
    const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.fsPath === opened?.fsPath);
    assert.equal(tab?.isPreview, false, 'a pinned tab: a lens click does not replace it');
  });

  it('a path out of the workspace, or a file it does not have, opens nothing', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const refused = [['../../../etc/passwd', 1], ['/etc/passwd', 1], ['file:///etc/passwd', 1], ['logs/none.log', 1], ['logs/vllm.log', 0]] as const;
    for (const [path, line] of refused) {
      assert.equal(await vscode.commands.executeCommand('hoplens.walkthrough.openFile', path, line), undefined, path);
    }
    assert.equal(vscode.window.visibleTextEditors.length, 0, 'no editor opened');
  });

  it('the timeline step shows the timeline of the request traced last, with no prompt', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const traced = await vscode.commands.executeCommand<TracedRequest>('hoplens.sendTracedRequest', { interactive: false, maxTokens: 6 });
    assert.equal(traced.record.error, null, JSON.stringify(traced.record.error));
    const shown = await vscode.commands.executeCommand<string | undefined>('hoplens.walkthrough.showTimeline');
    assert.equal(shown, traced.record.logRequestId);
    const tab = await until('the timeline tab', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith('Timeline ')));
    assert.ok(tab);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
