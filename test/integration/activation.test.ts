// Runs inside a real VS Code extension host (code-server 1.139 here, desktop VS Code elsewhere).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'hoplens.hoplens';

describe('HopLens activation', () => {
  it('activates and returns its API', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the host`);
    const api = (await ext.activate()) as { version: string };
    assert.equal(ext.isActive, true);
    assert.equal(api.version, ext.packageJSON.version);
  });

  it('registers every contributed command', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    await ext.activate();
    const contributed = (ext.packageJSON.contributes.commands as { command: string }[]).map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('opens the HopLens container and its Requests view', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.hoplens');
    await vscode.commands.executeCommand('hoplens.requests.focus');
  });
});
