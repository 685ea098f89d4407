// The choices for a log VS Code handles as a large file (from the status bar item of
// largeLogNotice.ts): the streamed view, or — at the user's choice, saying what it costs —
// large-file optimisations off for this kind of file, and the log reopened so lenses show.
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import type { LargeLogNotice } from './largeLogNotice';
import type { LogSessions } from './logDocuments';

export function registerLargeLogOptions(notice: Pick<LargeLogNotice, 'state'>, logs: Pick<LogSessions, 'find' | 'onDidClose'>): vscode.Disposable {
  return vscode.commands.registerCommand(CommandIds.largeLogOptions, async (arg?: vscode.Uri | string) => {
    const uri = typeof arg === 'string' ? vscode.Uri.parse(arg) : arg ?? notice.state?.uri;
    const state = notice.state;
    if (!uri || !state || state.uri.toString() !== uri.toString()) {
      void vscode.window.showInformationMessage('HopLens: the active log gets its lenses as usual.');
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    const language = doc?.languageId ?? 'log';
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const scope = folder ? `in ${folder.name}` : 'for this user';
    type Choice = vscode.QuickPickItem & { run: () => Promise<void> };
    const choices: Choice[] = [{
      label: '$(book) Open in the streamed view',
      detail: 'HopLens: Open Large Server Log… — its requests and hops read from disk, with slices around each hop. Works at any size.',
      run: async () => { await vscode.commands.executeCommand(CommandIds.openLargeLog, uri); },
    }];
    if (state.kind === 'noCodeLens' && doc) {
      choices.push({
        label: `$(eye) Show CodeLens: large-file optimisations off for ${language} files ${scope}, and reopen this log`,
        detail: `Sets "[${language}]": { "editor.largeFileOptimizations": false }. `
          + 'VS Code then tokenizes, folds and wraps the whole file: more memory, slower to open. '
          + 'VS Code applies the setting per language and folder, not per file.',
        run: async () => {
          const target = folder ? vscode.ConfigurationTarget.WorkspaceFolder : vscode.ConfigurationTarget.Global;
          await vscode.workspace.getConfiguration('editor', { uri, languageId: language }).update('largeFileOptimizations', false, target, true);
          // VS Code decides when it creates the document: close it, then open it anew.
          const viewColumn = vscode.window.activeTextEditor?.viewColumn;
          for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
            if (tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()) await vscode.window.tabGroups.close(tab);
          }
          if (logs.find(uri)) await closed(logs, uri, 5000);
          await vscode.window.showTextDocument(uri, { viewColumn, preview: false });
        },
      });
    }
    const placeHolder = state.kind === 'noCodeLens'
      ? 'VS Code shows no CodeLens on logs this large; HopLens shows a hop column before the text'
      : 'VS Code gives extensions no text over 50 MiB';
    const pick = await vscode.window.showQuickPick(choices, { title: `HopLens: ${uri.path.split('/').pop()}`, placeHolder });
    await pick?.run();
  });
}

/** Resolves when the log's document is closed (VS Code closes it a moment after its tab), or after `ms`. */
function closed(logs: Pick<LogSessions, 'onDidClose'>, uri: vscode.Uri, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => { clearTimeout(timer); sub.dispose(); resolve(); };
    const timer = setTimeout(done, ms);
    const sub = logs.onDidClose((u) => { if (u.toString() === uri.toString()) done(); });
  });
}
