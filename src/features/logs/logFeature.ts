// The server-log feature's services and providers: one session per open log, the window's
// source locator, lens, links, decorations, hover, the Requests view following the active log,
// and the status bar notice for logs too large for CodeLens. Its commands are registered beside
// it by the feature's register() (index.ts).
import * as vscode from 'vscode';
import { statSync } from 'node:fs';
import { LogDocumentService, isLogFileName } from './logDocuments';
import { SourceService } from './sourceService';
import { CommandIds } from '../../commandIds';
import { parseReleaseSpec } from '../../core/source/release';
import { releaseExamples, releaseSpecWords } from '../../engines/registry';
import { forWorkbench } from '../../core/text/workbench';
import { HopCodeLensProvider } from './hopCodeLens';
import { FileInfoLinkProvider, FileInfoLinks } from './fileInfoLinks';
import { HopDecorations } from './hopDecorations';
import { HopHoverProvider } from './hopHover';
import { LargeLogNotice } from './largeLogNotice';
import { LargeLogService, SLICE_SCHEME } from './largeLogs';
import { RequestsViewProvider, documentLogSource } from './requestsView';
import type { HopLensSettings } from '../../config';
import { FLEET_SCHEME } from '../shared/logSessions';
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
  { scheme: 'file' }, { scheme: 'untitled' }, { scheme: 'vscode-remote' }, { scheme: SLICE_SCHEME }, { scheme: FLEET_SCHEME },
];

export function createLogFeature(context: vscode.ExtensionContext, log: Logger, settings: HopLensSettings): LogFeature {
  const sources = new SourceService({ extensionUri: context.extensionUri, storageUri: context.globalStorageUri, log, settings });
  const logs = new LogDocumentService({
    log,
    sources: (uri) => sources.sourcesFor(uri),
    largeFileOptimizations: (doc) => vscode.workspace.getConfiguration('editor', { uri: doc.uri, languageId: doc.languageId })
      .get<boolean>('largeFileOptimizations', true),
    referenceTime: (uri) => {
      if (uri.scheme !== 'file') return undefined;
      try { return statSync(uri.fsPath).mtimeMs; } catch { return undefined; }
    },
  });
  const requests = new RequestsViewProvider();
  // The other open logs a row looks in for the line pairing a room with its request (a decode log beside a prefill log).
  requests.setPeerLogs(() => vscode.workspace.textDocuments.flatMap((doc) => {
    const session = doc.uri.scheme === SLICE_SCHEME ? undefined : logs.find(doc.uri)?.session;
    return session ? [documentLogSource(doc.uri, session)] : [];
  }), logs.onDidChange);
  const largeLogs = new LargeLogService(vscode.Uri.joinPath(context.extensionUri, 'dist', 'streamedLog.js').fsPath);
  const view = vscode.window.createTreeView('hoplens.requests', { treeDataProvider: requests, showCollapseAll: true });
  requests.attach(view);
  const lenses = new HopCodeLensProvider(logs, sources.onDidChange, { firstRead: (doc) => logs.firstRead(doc), times: logs.times });
  const notice = new LargeLogNotice(logs);

  const showActive = (editor: vscode.TextEditor | undefined) => {
    // A slice of a large log keeps the Requests view on the whole log it came from.
    if (!editor) { sources.showCheckoutNoticeFor(null); return; }
    if (editor.document.uri.scheme === SLICE_SCHEME) return;
    const session = logs.get(editor.document)?.session;
    sources.showCheckoutNoticeFor(session?.engine ?? null, editor.document.uri);
    // A fleet document is one request's lines: listed even with no hop line (its plain lines are).
    const listed = session && (session.hasHops || editor.document.uri.scheme === FLEET_SCHEME);
    if (session && listed) requests.setSource(documentLogSource(editor.document.uri, session));
  };
  showActive(vscode.window.activeTextEditor);
  // A log tab opens before VS Code has read the file and handed the text over: use that time.
  const prepare = (tabs: readonly vscode.Tab[]) => {
    for (const tab of tabs) if (tab.input instanceof vscode.TabInputText && isLogFileName(tab.input.uri.path)) void sources.prepareFor(tab.input.uri);
  };
  prepare(vscode.window.tabGroups.all.flatMap((g) => g.tabs));

  const disposable = vscode.Disposable.from(
    logs, sources, requests, largeLogs, view, lenses, notice,
    vscode.languages.registerCodeLensProvider(LOG_SELECTOR, lenses.registered()),
    new FileInfoLinks(LOG_SELECTOR, new FileInfoLinkProvider(logs, (uri, engine) => sources.sourceRootFor(uri, engine)), sources.onDidChange, logs),
    vscode.languages.registerHoverProvider(LOG_SELECTOR, new HopHoverProvider(logs)),
    new HopDecorations(logs),
    vscode.window.onDidChangeActiveTextEditor(showActive),
    vscode.commands.registerCommand(CommandIds.useReleaseSource, async (specArg?: string) => {
      const text = specArg ?? await vscode.window.showInputBox({
        title: 'Resolve logs in a release\'s own source', placeHolder: releaseExamples().join(' or '),
      });
      if (text === undefined) return null;
      const spec = parseReleaseSpec(text);
      if (!spec) { void vscode.window.showWarningMessage(`HopLens: '${forWorkbench(text)}' is not ${releaseSpecWords()}.`); return null; }
      return sources.useRelease(spec);
    }),
    vscode.commands.registerCommand(CommandIds.removeReleaseSources, () => {
      const n = sources.removeReleaseSources();
      void vscode.window.showInformationMessage(`HopLens: removed ${n} cached release source(s).`);
      return n;
    }),
    vscode.window.tabGroups.onDidChangeTabs((e) => prepare([...e.opened, ...e.changed])),
    logs.onDidClose((uri) => sources.closed(uri)),
    logs.onDidChange((uri) => {
      // A log whose engine is known now: open that engine's checkout (lenses then point into it).
      const engine = logs.find(uri)?.session.engine;
      // The release this log states (read once from its head on disk): its lines resolve in that release's source when one is in use.
      if (uri.scheme === 'file') void sources.prepareFor(uri);
      if (engine) void sources.resolverFor(uri, engine);
      if (engine && vscode.window.activeTextEditor?.document.uri.toString() === uri.toString()) sources.showCheckoutNoticeFor(engine, uri);
      if (requests.currentSource?.uri.toString() === uri.toString()) requests.refresh();
      else if (vscode.window.activeTextEditor?.document.uri.toString() === uri.toString()) showActive(vscode.window.activeTextEditor);
    }),
  );
  return { logs, sources, requests, largeLogs, notice, disposable };
}
