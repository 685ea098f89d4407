// Commands of the Call Traces view: open a folder, open a call's definition or call site,
// filter, find a function, export Perfetto JSON and the hop sequence as Markdown.
import * as vscode from 'vscode';
import { CommandIds } from '../../commandIds';
import type { CallTracesViewProvider, CallTraceNode } from './callTracesView';
import { engineRelativePath, localTracedFile, displayPath } from '../../core/calltrace/paths';
import { writePerfettoTrace, hopSequenceMarkdown } from '../../core/calltrace/export';
import { DEFAULT_FILTER, parseFilterList } from '../../core/calltrace/filter';
import type { HopLensConfig, HopLensSettings } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import { engineIds } from '../../engines/registry';

/** The release source a traced process ran, when known: its folder for the engine of the file. */
export type ReleaseOfProcess = (pid: number) => { label: string; root: string } | null;

/**
 * Opens a traced file at a 1-based line: the file that ran when it is here, else its place in the
 * source of the release that ran it (known from the log of the same process), else in the checkout.
 */
export async function openAt(config: HopLensConfig, file: string, line: number, release?: { label: string; root: string } | null): Promise<void> {
  const engine = engineRelativePath(file)?.engine;
  const releases = release && engine ? { [engine]: release.root } : undefined;
  // A setting left '' means none (look in the workspace folders).
  const checkouts = Object.fromEntries(Object.entries(config.checkouts).filter(([, root]) => root !== ''));
  const mapped = localTracedFile(file, { checkouts, releases });
  if (!mapped.found) {
    // The file's own engine's setting; for a file of no known engine, each engine's (`hoplens.checkouts.vllm (or .sglang)`).
    const [first, ...others] = engine ? [engine] : engineIds();
    const setting = `hoplens.checkouts.${first}${others.length ? ` (or ${others.map((id) => `.${id}`).join(', ')})` : ''}`;
    void vscode.window.showWarningMessage(`HopLens: ${forWorkbench(mapped.path)} is not on this machine. `
      + `Set ${setting} to a checkout and HopLens maps site-packages and container paths onto it.`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(mapped.path));
  const l = Math.max(0, line - 1);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(l, 0, l, 0), preview: true });
}

/** The pid of the process a call node's thread was traced in. */
function pidOf(node: CallTraceNode & { kind: 'call' }): number | null {
  const thread = node.folder.index?.processes().flatMap((g) => g.threads).find((t) => t.key === node.threadKey);
  return thread ? thread.file.pid : null;
}

export function registerCallTraceCommands(view: CallTracesViewProvider, settings: Pick<HopLensSettings, 'current'>,
  releaseOfProcess: ReleaseOfProcess = () => null): vscode.Disposable {
  const releaseOf = (node: CallTraceNode & { kind: 'call' }) => { const pid = pidOf(node); return pid === null ? null : releaseOfProcess(pid); };
  return vscode.Disposable.from(
    vscode.commands.registerCommand(CommandIds.openCallTraceFolder, async (arg?: vscode.Uri) => {
      const uri = arg ?? (await vscode.window.showOpenDialog({
        canSelectFolders: true, canSelectFiles: false, openLabel: 'Open Call Traces', title: 'Folder with VLLM_TRACE_FUNCTION_*.log files',
      }))?.[0];
      if (!uri) return;
      const index = await view.openFolder(uri.fsPath);
      await vscode.commands.executeCommand('hoplens.callTraces.focus');
      if (index && index.processes().length === 0) {
        void vscode.window.showInformationMessage(`HopLens: no VLLM_TRACE_FUNCTION files in ${forWorkbench(uri.fsPath)}.`);
      }
      return index;
    }),
    vscode.commands.registerCommand(CommandIds.openCallDefinition, async (node: CallTraceNode) => {
      if (node?.kind === 'call') await openAt(settings.current, node.row.file, node.row.line, releaseOf(node));
    }),
    vscode.commands.registerCommand(CommandIds.openCallSite, async (node: CallTraceNode) => {
      if (node?.kind === 'call' && node.row.callSite) await openAt(settings.current, node.row.callSite.file, node.row.callSite.line, releaseOf(node));
    }),
    vscode.commands.registerCommand(CommandIds.loadMoreCalls, (node: CallTraceNode) => { if (node?.kind === 'more') view.loadMore(node); }),
    vscode.commands.registerCommand(CommandIds.refreshCallTraces, () => view.followAll()),
    // Arguments, where a command takes them, are for scripted use (tests, other extensions).
    vscode.commands.registerCommand(CommandIds.filterCalls, async (valueArg?: string) => {
      const current = view.currentFilter === DEFAULT_FILTER ? 'default' : view.currentFilter.join(', ');
      const v = valueArg ?? await vscode.window.showInputBox({
        title: 'Show only these functions (with their callers)', value: current,
        prompt: '"default" = the request path (create_chat_completion, add_request, schedule, execute_model, …); empty = every call',
      });
      if (v === undefined) return;
      view.setFilter(v.trim() === 'default' ? DEFAULT_FILTER : parseFilterList(v));
    }),
    vscode.commands.registerCommand(CommandIds.findFunction, async (queryArg?: string, pickArg?: number) => {
      const indexes = view.indexes();
      if (!indexes.length) { void vscode.window.showInformationMessage('HopLens: open a call trace folder first.'); return; }
      const q = queryArg ?? await vscode.window.showInputBox({ title: 'Find a function in the call traces', placeHolder: 'function name, e.g. execute_model' });
      if (!q) return;
      const hits = indexes.flatMap(({ index }) => index.search(q, 200).map((h) => ({ h, index })));
      if (!hits.length) { void vscode.window.showInformationMessage(`HopLens: no call of '${forWorkbench(q)}' in the open traces.`); return; }
      const items = hits.map(({ h, index }) => ({
        label: forWorkbench(h.fn), description: forWorkbench(`${displayPath(h.file)}:${h.line}`),
        detail: forWorkbench(h.ancestors.map((a) => index.getNode(h.threadKey, a).fn).join(' › ')) || '(top level)', h,
      }));
      const pick = pickArg !== undefined ? items[pickArg]
        : await vscode.window.showQuickPick(items, { title: `${hits.length} call(s) of '${forWorkbench(q)}'`, matchOnDetail: true });
      if (pick) await openAt(settings.current, pick.h.file, pick.h.line);
      return items.map((i) => i.h);
    }),
    vscode.commands.registerCommand(CommandIds.exportPerfetto, async (node?: CallTraceNode, targetArg?: vscode.Uri) => {
      if (!node || (node.kind !== 'thread' && node.kind !== 'call')) {
        void vscode.window.showInformationMessage('HopLens: right-click a thread or a call in the Call Traces view.');
        return undefined;
      }
      const index = node.folder.index!;
      const threadKey = node.kind === 'thread' ? node.thread.key : node.threadKey;
      const target = targetArg ?? await vscode.window.showSaveDialog({ title: 'Export as Perfetto / Chrome trace JSON', filters: { JSON: ['json'] } });
      if (!target) return undefined;
      const maxBytes = settings.current.callTraces.perfettoMaxBytes;
      const res = await writePerfettoTrace(index, [{ threadKey, nodeId: node.kind === 'call' ? node.row.nodeId : undefined }], target.fsPath, { maxBytes });
      const note = res.truncated ? ` — stopped at the ${(maxBytes / 1048576).toFixed(0)} MB limit (setting hoplens.callTraces.perfettoMaxMegabytes)` : '';
      void vscode.window.showInformationMessage(`HopLens: wrote ${res.events} events (${(res.bytes / 1e6).toFixed(1)} MB) `
        + `to ${forWorkbench(target.fsPath)}${note}. Open it in ui.perfetto.dev or chrome://tracing.`);
      return res;
    }),
    vscode.commands.registerCommand(CommandIds.exportHopSequence, async () => {
      const indexes = view.indexes();
      if (!indexes.length) { void vscode.window.showInformationMessage('HopLens: open a call trace folder first.'); return; }
      const filter = view.currentFilter.length ? view.currentFilter : DEFAULT_FILTER;
      const md = indexes.map(({ index }) => hopSequenceMarkdown(index, filter, 500)).join('\n');
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: md });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside });
      return md;
    }),
  );
}
