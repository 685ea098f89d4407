// Wires the server-log feature: annotation service, source service, lens, links, decorations,
// hover, the Requests view following the active log, the status bar notice for logs too large
// for CodeLens, and the log commands.
import * as vscode from 'vscode';
import { LogDocumentService, isLogFileName } from './logDocuments';
import { SourceService } from './sourceService';
import { HopCodeLensProvider } from './hopCodeLens';
import { FileInfoLinkProvider, FileInfoLinks } from './fileInfoLinks';
import { HopDecorations } from './hopDecorations';
import { HopHoverProvider } from './hopHover';
import { LargeLogNotice } from './largeLogNotice';
import { registerLargeLogOptions } from '../../commands/largeLogOptionsCommand';
import { LargeLogService, SLICE_SCHEME } from './largeLogs';
import { RequestsViewProvider, documentLogSource } from '../requestsView';
import { registerLogCommands } from '../../commands/logCommands';
import { CommandIds } from '../../commandIds';
import { forWorkbench } from '../../core/text/workbench';
import type { Logger } from '../../logging';

export interface LogFeature {
  readonly logs: LogDocumentService;
  readonly sources: SourceService;
  readonly requests: RequestsViewProvider;
  readonly largeLogs: LargeLogService;
  /** The status bar notice about a log too large for CodeLens or for extensions. */
  readonly notice: LargeLogNotice;
  readonly disposable: vscode.Disposable;
}

const LOG_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file' }, { scheme: 'untitled' }, { scheme: 'vscode-remote' }, { scheme: SLICE_SCHEME },
];

export function createLogFeature(context: vscode.ExtensionContext, log: Logger): LogFeature {
  const logs = new LogDocumentService(log);
  const sources = new SourceService(context.extensionUri, context.globalStorageUri, log);
  const requests = new RequestsViewProvider();
  const largeLogs = new LargeLogService();
  const view = vscode.window.createTreeView('hoplens.requests', { treeDataProvider: requests, showCollapseAll: true });
  requests.attach(view);
  const lenses = new HopCodeLensProvider(logs, sources);
  const notice = new LargeLogNotice(logs);

  const showActive = (editor: vscode.TextEditor | undefined) => {
    // A slice of a large log keeps the Requests view on the whole log it came from.
    if (!editor || editor.document.uri.scheme === SLICE_SCHEME) return;
    const ann = logs.get(editor.document);
    if (ann && ann.hasHops) {
      requests.setSource(documentLogSource(editor.document.uri, ann.annotator, ann));
    }
  };
  showActive(vscode.window.activeTextEditor);
  // A log tab opens before VS Code has read the file and handed the text over: use that time.
  const prepare = (tabs: readonly vscode.Tab[]) => {
    for (const tab of tabs) if (tab.input instanceof vscode.TabInputText && isLogFileName(tab.input.uri.path)) void sources.prepareFor(tab.input.uri);
  };
  prepare(vscode.window.tabGroups.all.flatMap((g) => g.tabs));

  const disposable = vscode.Disposable.from(
    logs, sources, requests, largeLogs, view, lenses, notice,
    vscode.languages.registerCodeLensProvider(LOG_SELECTOR, lenses),
    registerLargeLogOptions(notice, logs),
    new FileInfoLinks(LOG_SELECTOR, new FileInfoLinkProvider(logs, sources), sources, logs),
    vscode.languages.registerHoverProvider(LOG_SELECTOR, new HopHoverProvider(logs, sources)),
    new HopDecorations(logs),
    vscode.window.onDidChangeActiveTextEditor(showActive),
    vscode.window.tabGroups.onDidChangeTabs((e) => prepare([...e.opened, ...e.changed])),
    logs.onDidChange((uri) => {
      if (requests.currentSource?.uri.toString() === uri.toString()) requests.refresh();
      else if (vscode.window.activeTextEditor?.document.uri.toString() === uri.toString()) showActive(vscode.window.activeTextEditor);
    }),
    registerLogCommands({ logs, sources, requests, largeLogs, log }),
    vscode.commands.registerCommand(CommandIds.openLargeLog, async (arg?: vscode.Uri | string) => {
      // A string when it comes from a command link in a tooltip.
      const uri = (typeof arg === 'string' ? vscode.Uri.parse(arg) : arg) ?? (await vscode.window.showOpenDialog({ canSelectMany: false, title: 'Open Large Server Log', filters: { Logs: ['log', 'txt', 'out'], All: ['*'] } }))?.[0];
      if (!uri) return;
      try {
        const large = await largeLogs.openFile(uri);
        if (!large) return;
        requests.setSource(large);
        await vscode.commands.executeCommand('hoplens.requests.focus');
        if (large.tracker.requestCount === 0) void vscode.window.showInformationMessage(`HopLens: no hops found in ${forWorkbench(large.label)} (${large.linesRead} lines).`);
      } catch (e) {
        void vscode.window.showErrorMessage(`HopLens: ${forWorkbench((e as Error).message)}`);
      }
    }),
  );
  return { logs, sources, requests, largeLogs, notice, disposable };
}
