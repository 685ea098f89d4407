// The walkthrough feature: the commands behind the "Get started with HopLens" steps that the
// workbench's own commands cannot run from a walkthrough button (package.json
// contributes.walkthroughs): open a file of the demo workspace at a line, and show the last
// traced request's timeline without asking. The other steps run HopLens commands and views.
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import { openWalkthroughFile, resolvesInside, type WalkthroughWorkspace } from './openWalkthroughFile';
import { showLastTracedTimeline } from './timelineStep';
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
    // Local folders: symbolic links followed on disk. Other file systems (virtual, in the browser)
    // have no links for the extension host to follow: their paths were checked to stay inside.
    inside: (root, uri) => (root.scheme === 'file' && uri.scheme === 'file' ? resolvesInside(root.fsPath, uri.fsPath) : Promise.resolve(true)),
    show: async (uri, line) => {
      const doc = await vscode.workspace.openTextDocument(uri);
      const at = Math.min(line, doc.lineCount) - 1;
      const range = new vscode.Range(at, 0, at, 0);
      // Where the file is open already (the step before opened it), else beside the active group:
      // the walkthrough's, as its button was just clicked. Kept open, not a preview a lens click
      // would replace.
      const isFile = (t: vscode.Tab) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString();
      const open = vscode.window.tabGroups.all.find((g) => g.tabs.some(isFile));
      const viewColumn = open?.viewColumn ?? vscode.ViewColumn.Beside;
      const editor = await vscode.window.showTextDocument(doc, { viewColumn, selection: range, preview: false });
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
  const timeline = vscode.commands.registerCommand(CommandIds.walkthroughTimeline, () => showLastTracedTimeline({
    lastTraced: () => services.features.traced?.lastResult?.record,
    showTimeline: (rid) => Promise.resolve(vscode.commands.executeCommand(CommandIds.showRequestTimeline, rid)),
    inform: (message) => { void vscode.window.showInformationMessage(message); },
  }));
  return { api: undefined, disposables: [command, timeline] };
}
