// The Call Traces view: trace folders → processes → threads → the call tree, loaded lazily
// page by page from the index (built in worker threads, never on the extension host thread).
import * as vscode from 'vscode';
import { join } from 'node:path';
import { openTraceFolder, findWorkerScript, type CallTraceIndex, type ProcessGroup } from '../../core/calltrace/callTraceIndex';
import type { CallRow, ThreadSummary } from '../../core/calltrace/types';
import { defaultTraceRoots, traceFolderCandidates } from '../../core/calltrace/discovery';
import { displayPath } from '../../core/calltrace/paths';
import { formatDuration } from '../../core/calltrace/export';
import { DEFAULT_FILTER } from '../../core/calltrace/filter';
import { forWorkbench } from '../../core/text/workbench';
import type { HopLensSettings } from '../../config';
import { CommandIds } from '../../commandIds';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';

const PAGE = 200;
const FOLLOW_POLL_MS = 3000;

export interface TraceFolder {
  path: string;
  index: CallTraceIndex | undefined;
  error: string | undefined;
  watcher: vscode.FileSystemWatcher | undefined;
}

export type CallTraceNode =
  | { kind: 'folder'; folder: TraceFolder }
  | { kind: 'process'; folder: TraceFolder; group: ProcessGroup }
  | { kind: 'thread'; folder: TraceFolder; thread: ThreadSummary }
  | { kind: 'call'; folder: TraceFolder; threadKey: string; row: CallRow; member: boolean }
  | { kind: 'more'; folder: TraceFolder; threadKey: string; parent: number | null; runOf: number | null; offset: number; total: number }
  | { kind: 'info'; text: string; tooltip?: string };

export class CallTracesViewProvider extends Disposable implements vscode.TreeDataProvider<CallTraceNode> {
  private readonly changed = this._register(new vscode.EventEmitter<CallTraceNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private readonly folders = new Map<string, TraceFolder>();
  /** Extra rows loaded by "load more" for (thread, parent). */
  private readonly loaded = new Map<string, number>();
  private filter: readonly string[] = DEFAULT_FILTER;
  private view: vscode.TreeView<CallTraceNode> | undefined;

  /** @param traceRoots vLLM's default trace folders (tests pass their own). */
  constructor(private readonly extensionUri: vscode.Uri, private readonly log: Logger, private readonly settings: Pick<HopLensSettings, 'current'>,
    private readonly traceRoots: () => readonly string[] = defaultTraceRoots) {
    super();
    this._register({ dispose: () => { for (const f of this.folders.values()) f.watcher?.dispose(); } });
    this._register(vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('hoplens.traceDirs')) this.refresh(); }));
  }

  attach(view: vscode.TreeView<CallTraceNode>): void { this.view = view; this.updateDescription(); }

  get currentFilter(): readonly string[] { return this.filter; }

  setFilter(filter: readonly string[]): void {
    this.filter = filter;
    this.loaded.clear();
    this.updateDescription();
    this.refresh();
  }

  private updateDescription(): void {
    if (!this.view) return;
    this.view.description = this.filter.length === 0 ? 'all calls' : this.filter === DEFAULT_FILTER ? 'request path' : `filter: ${this.filter.join(', ')}`;
  }

  refresh(): void { this.changed.fire(undefined); }

  private candidateFolders(): string[] {
    return traceFolderCandidates(this.settings.current.traceDirs, this.folders.keys(), { defaults: this.traceRoots() });
  }

  private folder(path: string): TraceFolder {
    let f = this.folders.get(path);
    if (!f) { f = { path, index: undefined, error: undefined, watcher: undefined }; this.folders.set(path, f); }
    return f;
  }

  /** Indexes a folder with a cancellable progress notification; then it opens in the view. */
  async openFolder(path: string): Promise<CallTraceIndex | undefined> {
    const f = this.folder(path);
    f.error = undefined;
    try {
      const progressOptions = {
        location: vscode.ProgressLocation.Notification, title: `HopLens: indexing call traces in ${forWorkbench(path)}`, cancellable: true,
      };
      f.index = await vscode.window.withProgress(progressOptions, (progress, token) => {
        const ac = new AbortController();
        token.onCancellationRequested(() => ac.abort());
        let lastPct = 0;
        return openTraceFolder(path, {
          signal: ac.signal,
          workerPath: findWorkerScript(join(this.extensionUri.fsPath, 'dist', 'calltraceIndex.js')) ?? undefined,
          onProgress: (p) => {
            const pct = p.bytesTotal ? (p.bytesDone / p.bytesTotal) * 100 : 0;
            const message = `${(p.bytesDone / 1e6).toFixed(0)} of ${(p.bytesTotal / 1e6).toFixed(0)} MB, file ${p.filesDone} of ${p.filesTotal}`;
            progress.report({ increment: pct - lastPct, message });
            lastPct = pct;
          },
        });
      });
      this.watch(f);
      const n = f.index.processes().length;
      this.log.info(`call traces: ${path}: ${n} process(es), ${f.index.ignored.length} file(s) ignored`);
    } catch (e) {
      const msg = (e as Error).name === 'CancelledError' || /cancel/i.test((e as Error).message) ? 'indexing cancelled' : (e as Error).message;
      f.error = msg;
      f.index = undefined;
    }
    this.refresh();
    return f.index;
  }

  /**
   * Files still being written: re-index what grew, shortly after a watcher event, and by polling
   * every few seconds while the view is visible (file watchers can miss appends).
   */
  private watch(f: TraceFolder): void {
    if (f.watcher) return;
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(f.path), '**/*TRACE_FUNCTION*'));
    let timer: NodeJS.Timeout | undefined;
    const onChange = () => {
      clearTimeout(timer);
      timer = setTimeout(() => void this.follow(f), 500);
    };
    w.onDidChange(onChange); w.onDidCreate(onChange);
    f.watcher = w;
    if (!this.poller) {
      this.poller = setInterval(() => {
        if (!this.view?.visible) return;
        for (const folder of this.folders.values()) void this.follow(folder);
      }, FOLLOW_POLL_MS);
      this._register({ dispose: () => clearInterval(this.poller) });
    }
  }

  private poller: NodeJS.Timeout | undefined;
  private readonly following = new Set<TraceFolder>();

  /** Re-indexes the grown part of a folder's files; one refresh per folder at a time. */
  async follow(f: TraceFolder): Promise<void> {
    if (!f.index || this.following.has(f)) return;
    this.following.add(f);
    try {
      const changed = await f.index.refresh();
      if (changed.length) { this.loaded.clear(); this.refresh(); }
    } catch (e) {
      this.log.warn(`refreshing ${f.path}: ${(e as Error).message}`);
    } finally {
      this.following.delete(f);
    }
  }

  /** The Refresh button: pick up grown and new trace files everywhere. */
  async followAll(): Promise<void> {
    await Promise.all([...this.folders.values()].map((f) => this.follow(f)));
    this.refresh();
  }

  /**
   * The trace folders a request timeline reads: the view's folders (configured, found at the
   * default roots, or opened), whether or not the user has expanded them yet.
   */
  traceFolders(): string[] {
    return this.candidateFolders();
  }

  indexes(): { path: string; index: CallTraceIndex }[] {
    return [...this.folders.values()].filter((f) => f.index).map((f) => ({ path: f.path, index: f.index! }));
  }

  async getChildren(node?: CallTraceNode): Promise<CallTraceNode[]> {
    if (!node) return this.candidateFolders().map((p) => ({ kind: 'folder', folder: this.folder(p) }));
    switch (node.kind) {
      case 'folder': {
        const f = node.folder;
        if (!f.index && !f.error) await this.openFolder(f.path);
        if (f.error) return [{ kind: 'info', text: f.error }];
        const index = f.index!;
        const out: CallTraceNode[] = index.processes().map((group) => ({ kind: 'process', folder: f, group }));
        if (out.length === 0) out.push({ kind: 'info', text: 'No VLLM_TRACE_FUNCTION files here.' });
        if (index.ignored.length) {
          const tooltip = index.ignored.slice(0, 20).map((i) => `${i.path}: ${i.reason}`).join('\n');
          out.push({ kind: 'info', text: `${index.ignored.length} file(s) ignored`, tooltip });
        }
        return out;
      }
      case 'process':
        return node.group.threads.map((thread) => ({ kind: 'thread', folder: node.folder, thread }));
      case 'thread':
        return this.page(node.folder, node.thread.key, null, null);
      case 'call':
        if (node.row.count > 1 && !node.member) return this.page(node.folder, node.threadKey, null, node.row.nodeId);
        return node.row.childCount > 0 ? this.page(node.folder, node.threadKey, node.row.nodeId, null) : [];
      default:
        return [];
    }
  }

  private page(folder: TraceFolder, threadKey: string, parent: number | null, runOf: number | null): CallTraceNode[] {
    const index = folder.index;
    if (!index) return [];
    const key = `${folder.path}|${threadKey}|${parent}|${runOf}`;
    const limit = this.loaded.get(key) ?? PAGE;
    const res = runOf !== null
      ? index.getRunMembers(threadKey, runOf, { offset: 0, limit })
      : index.getChildren(threadKey, parent, { offset: 0, limit, filter: this.filter });
    const out: CallTraceNode[] = res.rows.map((row) => ({ kind: 'call', folder, threadKey, row, member: runOf !== null }));
    if (res.total > res.rows.length) out.push({ kind: 'more', folder, threadKey, parent, runOf, offset: res.rows.length, total: res.total });
    return out;
  }

  /** "Load more" on a page. */
  loadMore(node: CallTraceNode & { kind: 'more' }): void {
    const key = `${node.folder.path}|${node.threadKey}|${node.parent}|${node.runOf}`;
    this.loaded.set(key, (this.loaded.get(key) ?? PAGE) + PAGE * 5);
    this.refresh();
  }

  getTreeItem(node: CallTraceNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder': {
        const item = new vscode.TreeItem(node.folder.path.split(/[\\/]/).pop() || node.folder.path, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `folder:${node.folder.path}`;
        item.description = node.folder.index ? `${node.folder.index.processes().length} process(es)` : node.folder.error ? 'error' : 'not indexed yet: expand';
        item.tooltip = node.folder.path;
        item.iconPath = new vscode.ThemeIcon('folder');
        item.contextValue = 'hoplens.traceFolder';
        return item;
      }
      case 'process': {
        const g = node.group;
        const item = new vscode.TreeItem(`pid ${g.pid} · ${g.role}`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `proc:${node.folder.path}:${g.instanceId}:${g.pid}`;
        item.description = `instance ${g.instanceId} · ${g.threads.length} thread(s)`;
        item.iconPath = new vscode.ThemeIcon('server-process');
        return item;
      }
      case 'thread': {
        const t = node.thread;
        const item = new vscode.TreeItem(`thread ${t.file.tidText}`, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `thread:${node.folder.path}:${t.key}`;
        const open = t.openStack.length ? ` · ${t.openStack.length} open (stuck in ${t.openStack[t.openStack.length - 1].fn})` : '';
        item.description = `${t.stats.calls.toLocaleString()} calls${open}`;
        item.tooltip = `${t.file.path}\n${t.stats.calls} calls, ${t.stats.returns} returns, `
          + `${t.stats.garbledLines} unreadable lines, ${t.stats.orphanReturns} returns without a call`;
        item.iconPath = new vscode.ThemeIcon('list-tree');
        item.contextValue = 'hoplens.traceThread';
        return item;
      }
      case 'call': {
        const r = node.row;
        const label = `${r.count > 1 && !node.member ? `${r.fn} ×${r.count}` : r.fn}`;
        const hasChildren = (r.count > 1 && !node.member) || r.childCount > 0;
        const item = new vscode.TreeItem(label, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
        item.id = `call:${node.folder.path}:${node.threadKey}:${r.nodeId}:${r.count}:${node.member ? 'm' : ''}`;
        const dur = r.open ? 'open (never returned)' : `${formatDuration(r.durationUs)}${r.selfUs !== null ? ` · self ${formatDuration(r.selfUs)}` : ''}`;
        item.description = `${dur} · ${r.childCount} children · ${displayPath(r.file)}:${r.line}`;
        item.tooltip = new vscode.MarkdownString(undefined, true);
        const calledFrom = r.callSite ? `${r.callSite.fn} at ${r.callSite.file}:${r.callSite.line}` : '(the first traced frame)';
        const synthetic = r.synthetic ? '\n\n(tracing started inside this call)' : '';
        item.tooltip.appendText(`${r.fn}\n\ndefined at ${r.file}:${r.line}\n\ncalled from ${calledFrom}\n\n${dur}${synthetic}`);
        item.iconPath = new vscode.ThemeIcon(r.open ? 'debug-pause' : r.synthetic ? 'question' : 'symbol-method');
        item.contextValue = r.callSite ? 'hoplens.call.withSite' : 'hoplens.call';
        item.command = { command: CommandIds.openCallDefinition, title: 'Open Definition', arguments: [node] };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(`Load more… (${node.offset} of ${node.total} shown)`, vscode.TreeItemCollapsibleState.None);
        item.command = { command: CommandIds.loadMoreCalls, title: 'Load More', arguments: [node] };
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        return item;
      }
      case 'info': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
    }
  }
}
