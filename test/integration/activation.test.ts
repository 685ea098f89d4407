// Runs inside a real VS Code extension host (code-server 1.139 here, desktop VS Code elsewhere).
// This file runs first (files run in name order): the host has not activated HopLens yet.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fixture, until } from './fixture';
import type { HopLensApi } from '../../src/extension';

const EXTENSION_ID = 'hoplens.hoplens';

describe('HopLens activation', () => {
  it('stays inactive until a server log is opened, then activates on it and returns its API', async () => {
    const ext = vscode.extensions.getExtension<HopLensApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the host`);
    assert.equal(ext.isActive, false, 'HopLens activated before anything asked for it (activation must stay lazy)');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(fixture().vllmLog));
    assert.equal(doc.languageId, 'log');
    await until('activation on the log language', () => ext.isActive || undefined);
    assert.equal(ext.exports.version, ext.packageJSON.version);
    // The log it woke up for is the one it annotates.
    const session = await ext.exports.logs.session(doc);
    assert.ok(session && session.hasHops, 'the opened log is annotated');
  });

  it('registers every contributed command', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await ext.activate();
    const contributed = (ext.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('opens the HopLens container and its Requests view, which lists the log it woke up for', async () => {
    const api = await vscode.extensions.getExtension<HopLensApi>(EXTENSION_ID)!.activate();
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    // Both reject when the container or the view is not contributed.
    await vscode.commands.executeCommand('workbench.view.extension.hoplens');
    await vscode.commands.executeCommand('hoplens.requests.focus');
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(fixture().vllmLog)));
    const listed = await until('the Requests view on the active log', () => api.logs.requests());
    assert.ok(listed.rids.includes('chatcmpl-myrun-0001'), listed.rids.join(', '));
  });
});
