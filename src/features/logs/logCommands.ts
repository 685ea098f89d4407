// Commands of the log annotation feature: open a line's source, reveal a line, annotate,
// show the hop table, export a request's hops, write a logging config, clone the pinned checkout,
// open a large log in the streamed view. Each adapts: the sessions and the locator answer.
import * as vscode from 'vscode';
import { displaySource } from './hopPresentation';
import { CommandIds } from '../../commandIds';
import type { LogDocuments } from './logDocuments';
import type { LocatedSource } from '../../core/source/locate';
import { documentLogSource, type RequestsViewProvider } from './requestsView';
import type { LargeLogService } from './largeLogs';
import { renderHopTableMarkdown } from '../../engines/index';
import { engineProfiles } from '../../engines/registry';
import { loggingConfig } from '../../core/logs/loggingConfig';
import { requestHopTableMarkdown } from '../../core/session/requestExport';
import { clonePinnedCheckout, CloneError, PINS } from '../../core/source/index';
import type { Engine } from '../../core/logs/model';
import type { HopLensSettings } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import type { Logger } from '../../logging';

/** Set once a source was opened from a log (lens, link or hover): the walkthrough's lens step. */
export const SOURCE_OPENED_KEY = 'hoplens.sourceOpened';

export interface LogCommandDeps {
  logs: LogDocuments;
  /** Opens a located source (the checkout file, or the browser). */
  sources: { open(src: LocatedSource): Promise<void> };
  requests: Pick<RequestsViewProvider, 'setSource' | 'setFilter'>;
  largeLogs: Pick<LargeLogService, 'get' | 'reveal' | 'openFile'>;
  settings: Pick<HopLensSettings, 'current'>;
  log: Logger;
}

async function pickEngine(title: string): Promise<Engine | undefined> {
  const pick = await vscode.window.showQuickPick(
    engineProfiles().filter((p) => p.pin).map((p) => ({ label: p.label, engine: p.id })),
    { title, placeHolder: 'Engine' });
  return pick?.engine;
}

function documentFor(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

/** Writes an engine's logging config where the user says and offers its launch line. */
async function createLoggingConfig(engineArg?: Engine, targetArg?: vscode.Uri) {
  const engine = engineArg ?? await pickEngine('HopLens: Create Logging Config');
  if (!engine) return undefined;
  const base = vscode.workspace.workspaceFolders?.[0]?.uri;
  const draft = loggingConfig(engine);
  const target = targetArg ?? await vscode.window.showSaveDialog({
    title: `Save the ${engine} logging config`, filters: { JSON: ['json'] },
    defaultUri: base ? vscode.Uri.joinPath(base, draft.fileName) : undefined,
  });
  if (!target) return undefined;
  const result = loggingConfig(engine, { path: target.fsPath });
  try {
    await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(result.json));
  } catch (e) {
    void vscode.window.showErrorMessage(`HopLens: could not write ${forWorkbench(target.fsPath)}: ${forWorkbench((e as Error).message)}`);
    return undefined;
  }
  const wrote = `HopLens: wrote ${forWorkbench(target.fsPath)}. Launch with: ${result.envVar}=${forWorkbench(target.fsPath)} …`;
  void vscode.window.showInformationMessage(wrote, 'Copy Launch Line', 'Open Config').then(async (choice) => {
    if (choice === 'Copy Launch Line') await vscode.env.clipboard.writeText(result.launchLine);
    if (choice === 'Open Config') await vscode.window.showTextDocument(target);
  });
  return result;
}

/** Clones the pinned checkout and points the setting at it. Arguments other than the engine are for scripted use (tests, other extensions). */
async function clonePinned(engineArg?: Engine, parentArg?: vscode.Uri, remote?: { url?: string; sha?: string }) {
  const engine = engineArg ?? await pickEngine('HopLens: Clone Pinned Checkout');
  if (!engine) return undefined;
  const parent = parentArg ? [parentArg] : await vscode.window.showOpenDialog({
    canSelectFolders: true, canSelectFiles: false, openLabel: 'Clone Here', title: `Folder to clone ${engine} into`,
  });
  if (!parent?.[0]) return undefined;
  const target = vscode.Uri.joinPath(parent[0], engine).fsPath;
  const sha = remote?.sha ?? PINS[engine].sha;
  try {
    const progressOptions = {
      location: vscode.ProgressLocation.Notification, title: `Cloning ${engine} at ${forWorkbench(sha.slice(0, 10))}`, cancellable: true,
    };
    const info = await vscode.window.withProgress(progressOptions, (progress, token) => {
      const ac = new AbortController();
      token.onCancellationRequested(() => ac.abort());
      return clonePinnedCheckout(engine, target, { url: remote?.url, sha, signal: ac.signal,
        onProgress: (m: string) => progress.report({ message: forWorkbench(m) }) });
    });
    await vscode.workspace.getConfiguration('hoplens').update(`checkouts.${engine}`, info.root, vscode.ConfigurationTarget.Global);
    void vscode.window.showInformationMessage(`HopLens: cloned ${engine} into ${forWorkbench(info.root)} and set hoplens.checkouts.${engine}.`);
    return info.root;
  } catch (e) {
    const msg = e instanceof CloneError || e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`HopLens: clone failed: ${forWorkbench(msg)}`);
    return undefined;
  }
}

export function registerLogCommands(deps: LogCommandDeps): vscode.Disposable {
  const { logs, sources, requests, largeLogs, settings } = deps;

  /**
   * From lenses with a Uri and the source the lens located (opened as is); from links with a Uri and
   * the hover's command link with its string (the session is asked for the line's source).
   */
  const openSource = async (arg: vscode.Uri | string, line0: number, part = 1, located?: LocatedSource) => {
    const src = located ?? await sourceOfLine(typeof arg === 'string' ? vscode.Uri.parse(arg) : arg, line0, part);
    if (!src) { void vscode.window.showWarningMessage('HopLens: no source is known for this line.'); return; }
    const candidates = src.location.candidates;
    if (candidates && candidates.length > 1) {
      // Several statements print this text: the user picks (best agreement first); none is verified.
      const items = candidates.map((c, i) => ({
        label: forWorkbench(displaySource({ ...src.location, ...c })), description: i === 0 ? 'best agreement' : undefined, c,
      }));
      const placeHolder = `${candidates.length} statements print this text; none is verified. Open which?`;
      const picked = await vscode.window.showQuickPick(items, { placeHolder });
      if (!picked) return;
      const root = src.file !== null && src.file.endsWith(src.location.path) ? src.file.slice(0, src.file.length - src.location.path.length) : null;
      const location = { ...src.location, path: picked.c.path, line: picked.c.line };
      await sources.open({ ...src, location, file: root !== null ? root + picked.c.path : null });
      sourceOpened();
      return;
    }
    await sources.open(src);
    sourceOpened();
  };
  // The walkthrough's "Click a lens" step is done on this key: a lens passes arguments that are not
  // JSON (a Uri, the located source), so the workbench runs it under an id its onCommand: never sees.
  const sourceOpened = () => { void vscode.commands.executeCommand('setContext', SOURCE_OPENED_KEY, true); };

  const sourceOfLine = async (uri: vscode.Uri, line0: number, part: number): Promise<LocatedSource | null> => {
    const doc = documentFor(uri) ?? await vscode.workspace.openTextDocument(uri);
    return logs.get(doc)?.session.source(line0, part) ?? null;
  };

  const revealLogLine = async (uri: vscode.Uri, line1: number) => {
    if (largeLogs.get(uri)) { await largeLogs.reveal(uri, line1); return; }
    const doc = await vscode.workspace.openTextDocument(uri);
    const line = Math.max(0, Math.min(doc.lineCount - 1, line1 - 1));
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preserveFocus: false });
  };

  const annotateLog = async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) { void vscode.window.showInformationMessage('HopLens: open a vLLM or SGLang server log first.'); return; }
    logs.force(editor.document);
    const ann = await logs.settled(editor.document);
    if (!ann) { void vscode.window.showWarningMessage('HopLens: this document is too large for the editor; use "HopLens: Open Large Server Log…".'); return; }
    const session = ann.session;
    if (!session.hasHops) {
      const lines = session.records.length;
      void vscode.window.showInformationMessage(`HopLens: no hops found in ${forWorkbench(editor.document.fileName.split(/[\\/]/).pop() ?? '')} `
        + `(${lines} lines, ${session.engine ?? 'not a vLLM or SGLang log'}).`);
    }
    requests.setSource(documentLogSource(editor.document.uri, session));
    await vscode.commands.executeCommand('hoplens.requests.focus');
  };

  const showHopTable = async (engineArg?: Engine) => {
    const engine = engineArg ?? await pickEngine('HopLens: Show Hop Table');
    if (!engine) return;
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: renderHopTableMarkdown(engine) });
    await vscode.window.showTextDocument(doc, { preview: true });
    await vscode.commands.executeCommand('markdown.showPreview', doc.uri).then(undefined, () => undefined);
  };

  const exportHopTable = async () => {
    const editor = vscode.window.activeTextEditor;
    const ann = editor ? await logs.settled(editor.document) : undefined;
    const session = ann?.session;
    const rid = editor && session?.record(editor.selection.active.line)?.rid;
    if (!editor || !session || !rid) { void vscode.window.showInformationMessage('HopLens: put the cursor on a line of a request in a server log.'); return; }
    const group = session.tracker.get(rid);
    if (!group) return;
    const rows = group.hops.map((h) => ({ record: session.records[h.line - 1], source: session.source(h.line - 1)?.location ?? null }));
    const logName = editor.document.fileName.split(/[\\/]/).pop()!;
    const md = requestHopTableMarkdown(group, rows, { includeText: settings.current.export.includePromptsAndOutputs, logName });
    await vscode.env.clipboard.writeText(md);
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: md });
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
    void vscode.window.showInformationMessage(`HopLens: hop table of ${forWorkbench(rid)} copied to the clipboard.`);
    return md;
  };

  const filterRequests = async (valueArg?: string) => {
    const value = valueArg ?? await vscode.window.showInputBox({ title: 'Filter requests by id', placeHolder: 'part of a request id, e.g. myrun-0001' });
    if (value !== undefined) requests.setFilter(value);
  };

  const openLargeLog = async (arg?: vscode.Uri | string) => {
    // A string when it comes from a command link in a tooltip.
    const uri = (typeof arg === 'string' ? vscode.Uri.parse(arg) : arg) ?? (await vscode.window.showOpenDialog({
      canSelectMany: false, title: 'Open Large Server Log', filters: { Logs: ['log', 'txt', 'out'], All: ['*'] },
    }))?.[0];
    if (!uri) return;
    try {
      const large = await largeLogs.openFile(uri);
      if (!large) return;
      requests.setSource(large);
      await vscode.commands.executeCommand('hoplens.requests.focus');
      if (large.tracker.requestCount === 0) {
        void vscode.window.showInformationMessage(`HopLens: no hops found in ${forWorkbench(large.label)} (${large.linesRead} lines).`);
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`HopLens: ${forWorkbench((e as Error).message)}`);
    }
  };

  return vscode.Disposable.from(
    vscode.commands.registerCommand(CommandIds.openLargeLog, openLargeLog),
    vscode.commands.registerCommand(CommandIds.openSource, openSource),
    vscode.commands.registerCommand(CommandIds.revealLogLine, revealLogLine),
    vscode.commands.registerCommand(CommandIds.annotateLog, annotateLog),
    vscode.commands.registerCommand(CommandIds.showHopTable, showHopTable),
    vscode.commands.registerCommand(CommandIds.exportHopTable, exportHopTable),
    vscode.commands.registerCommand(CommandIds.createLoggingConfig, createLoggingConfig),
    vscode.commands.registerCommand(CommandIds.clonePinnedCheckout, clonePinned),
    vscode.commands.registerCommand(CommandIds.filterRequests, filterRequests),
    vscode.commands.registerCommand(CommandIds.clearRequestFilter, () => requests.setFilter('')),
  );
}
