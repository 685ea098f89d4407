// The walkthrough feature: the command behind the "Get started with HopLens" steps that open a
// file of the demo workspace (package.json contributes.walkthroughs; the other steps run HopLens
// commands and views directly).
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import { openWalkthroughFile, type WalkthroughWorkspace } from './openWalkthroughFile';
import type { FeatureServices, Registered } from '../shared/contracts';

/** The workspace as VS Code has it: folders, files, and an editor beside the walkthrough. */
export function vscodeWalkthroughWorkspace(): WalkthroughWorkspace {
  return {
    folders: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri),
    join: (root, segments) => vscode.Uri.joinPath(root, ...segments),
    isFile: async (uri) => {
      try {
        return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.File) !== 0;
      } catch {
        return false;
      }
    },
    show: async (uri, line) => {
      const doc = await vscode.workspace.openTextDocument(uri);
      const at = Math.min(line, doc.lineCount) - 1;
      const range = new vscode.Range(at, 0, at, 0);
      // Beside the walkthrough (its group is the active one when its button is clicked), kept
      // open (not a preview a lens click would replace).
      const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, selection: range, preview: false });
      editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    },
    warn: (message) => { void vscode.window.showWarningMessage(message); },
  };
}

export function register(context: vscode.ExtensionContext, services: FeatureServices): Registered<undefined> {
  void context; // the command needs nothing of the extension's own (the signature is every feature's)
  const ws = vscodeWalkthroughWorkspace();
  const command = vscode.commands.registerCommand(CommandIds.openWalkthroughFile, async (path: unknown, line: unknown) => {
    const opened = await openWalkthroughFile(ws, path, line);
    if (opened) services.log.info(`walkthrough: opened ${opened.path.split('/').pop()} at line ${String(line ?? 1)}`);
    return opened;
  });
  return { api: undefined, disposables: [command] };
}
