// The editor's side of source lookup: it owns the window's CheckoutSet and RecordSourceLocator
// (core/source), feeds them the settings and workspace folders, says once when a checkout is
// not at the pinned commit, and opens a located source (the checkout file, or the browser).
import * as vscode from 'vscode';
import { join } from 'node:path';
import type { Engine } from '../../core/logs/model';
import { engineIds } from '../../engines/registry';
import { CheckoutSet, type CheckoutPlaces, type OpenCheckout } from '../../core/source/checkouts';
import { RecordSourceLocator, type LocatedSource, type SourceLocator } from '../../core/source/locate';
import type { CheckoutSourceResolver } from '../../core/source/index';
import {
  cachedRelease, releaseCacheRoot, releaseLabel, releaseSource, removeReleaseSources, ReleaseSourceError, type StatedRelease,
} from '../../core/source/release';
import type { HopLensConfig } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';

/** The target a located source opens: the checkout file at its line, or the pinned file online. */
export function sourceTarget(src: LocatedSource): vscode.Uri {
  return src.file !== null ? vscode.Uri.file(src.file).with({ fragment: `L${src.location.line}` }) : vscode.Uri.parse(src.url ?? '');
}

export interface SourceServiceDeps {
  extensionUri: vscode.Uri;
  storageUri: vscode.Uri;
  log: Logger;
  /** The settings now, and when they change (hoplens.checkouts.*). */
  settings: { readonly current: HopLensConfig; readonly onDidChange: vscode.Event<HopLensConfig> };
  /** Opens a checkout (tests pass their own). */
  open?: OpenCheckout;
}

function places(config: HopLensConfig): CheckoutPlaces {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  return { configured: { ...config.checkouts }, folders };
}

/** The open logs' records, by document (the logs feature's LogDocuments). */
export interface OpenLogRecords { find(uri: vscode.Uri): { session: { records: readonly { pid: number | null }[] } } | undefined }

export class SourceService extends Disposable {
  readonly checkouts: CheckoutSet;
  readonly locator: RecordSourceLocator;
  private readonly pinWarned = new Set<Engine>();
  /** Releases already offered in this window (`vllm==0.8.5`). */
  private readonly releasesOffered = new Set<string>();
  /** The active log's engine and key: the notice is of the source its lines resolve in. */
  private active: { engine: Engine; logKey: string | null } | null = null;
  /** One locator per log: each resolves in its own release's source when one is in use (CheckoutSet.forLog). */
  private readonly logLocators = new Map<string, RecordSourceLocator>();
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires when a checkout became available or changed (lenses and links re-resolve). */
  readonly onDidChange = this.changed.event;
  private readonly status = this._register(vscode.window.createStatusBarItem('hoplens.checkout', vscode.StatusBarAlignment.Right, 10));

  constructor(private readonly deps: SourceServiceDeps) {
    super();
    const { log } = deps;
    this.status.name = 'HopLens checkout';
    this.checkouts = new CheckoutSet(places(deps.settings.current), {
      resolver: {
        cacheDir: join(deps.storageUri.fsPath, 'statements'),
        workerScript: vscode.Uri.joinPath(deps.extensionUri, 'dist', 'statementIndex.js').fsPath,
      },
      open: deps.open,
      events: {
        opened: (engine, r) => {
          log.info(`${engine} checkout: ${r.checkout.root} at ${r.checkout.head ?? 'no git HEAD'}`);
          // Logged once; the status bar item shows while a log resolving in this source is the active editor.
          if (!r.checkout.release && r.pin.message !== null && !this.pinWarned.has(engine)) { this.pinWarned.add(engine); log.warn(r.pin.message); }
          const notice = this.noticeOf(engine, r);
          if (notice) { this.status.text = notice.text; this.status.tooltip = notice.tooltip; }
          this.refreshNotice();
        },
        indexReady: (engine, r) => {
          const info = r.indexInfo();
          log.info(`${engine} statement index: ${info.statements} statements (${info.source ?? 'none'})${info.error ? `, error: ${info.error}` : ''}`);
        },
        failed: (engine, dir, message, configured) => {
          log.warn(`${engine} checkout ${dir}: ${message}`);
          if (configured) {
            void vscode.window.showWarningMessage(`HopLens: the ${engine} checkout setting does not point at a usable checkout: ${forWorkbench(message)}`);
          }
        },
        changed: () => {
          this.locator.forget();
          for (const l of this.logLocators.values()) l.forget();
          this.refreshNotice();
          this.changed.fire();
        },
        stated: (_path, release) => { void this.offerRelease(release); },
      },
    });
    this.locator = new RecordSourceLocator(this.checkouts, (rec, e) => log.warn(`resolve line ${rec.line}: ${e.message}`));
    let checkoutSettings = JSON.stringify(deps.settings.current.checkouts);
    this._register(deps.settings.onDidChange((config) => {
      const now = JSON.stringify(config.checkouts);
      if (now !== checkoutSettings) { checkoutSettings = now; this.checkouts.reconfigure(places(config)); }
    }));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.checkouts.reconfigure(places(deps.settings.current))));
  }

  /** The locator providers and sessions read. */
  get sources(): SourceLocator { return this.locator; }

  /** The locator of one log's lines: in its stated release's own source when one is in use, else the engine's checkout. */
  sourcesFor(uri: vscode.Uri): SourceLocator {
    const key = logKey(uri);
    let l = this.logLocators.get(key);
    if (!l) {
      l = new RecordSourceLocator(this.checkouts.forLog(key), (rec, e) => this.deps.log.warn(`resolve line ${rec.line}: ${e.message}`));
      this.logLocators.set(key, l);
    }
    return l;
  }

  /**
   * The release that ran process `pid`: the release stated by an open log with lines of that pid,
   * and that release's source in use or in the cache. For the Call Traces view (a trace file names its pid).
   */
  releaseOfProcess(pid: number, open: readonly vscode.Uri[], logs: OpenLogRecords): { label: string; root: string } | null {
    for (const uri of open) {
      const spec = this.checkouts.statedFor(logKey(uri));
      const records = spec ? logs.find(uri)?.session.records : undefined;
      if (!spec || !records?.some((r) => r.pid === pid)) continue;
      const root = this.checkouts.releaseSourceOf(spec) ?? cachedRelease(spec);
      if (root) return { label: releaseLabel(spec), root };
    }
    return null;
  }

  /** A log closed: its locator goes. */
  closed(uri: vscode.Uri): void { this.logLocators.delete(logKey(uri)); }

  /** The root of the source a log's lines of this engine resolve in now (its release's, else the checkout), or null. */
  sourceRootFor(uri: vscode.Uri, engine: Engine): string | null {
    return this.checkouts.readyFor(logKey(uri), engine)?.checkout.root ?? null;
  }

  /** The source one log's lines of an engine resolve in (its release's, else the engine's checkout). */
  resolverFor(uri: vscode.Uri, engine: Engine): Promise<CheckoutSourceResolver | null> {
    return this.checkouts.resolverFor(logKey(uri), engine);
  }

  /** An engine's checkout, opened once (for a log whose engine is known). */
  resolver(engine: Engine): Promise<CheckoutSourceResolver | null> { return this.checkouts.resolver(engine); }

  /** A log tab opens before VS Code has read the file: start opening its engine's checkout now. */
  async prepareFor(uri: vscode.Uri): Promise<void> {
    if (uri.scheme === 'file') await this.checkouts.prepareForLog(uri.fsPath);
  }

  /**
   * A log states the release that printed it: when the source in use is another (or none), offer
   * that release's own source, once per release and window; fetched with progress, cancellable.
   */
  private async offerRelease(stated: StatedRelease): Promise<void> {
    const key = `${stated.engine}==${stated.version}`;
    if (this.releasesOffered.has(key) || this.checkouts.releaseSourceOf(stated)) return;
    const r = await this.checkouts.resolver(stated.engine);
    if (r?.checkout.release?.version === stated.version) return;
    this.releasesOffered.add(key);
    // Fetched before (the user said yes once, or `hoplens source fetch`): this log's lines resolve in it, unasked.
    const cached = cachedRelease(stated);
    if (cached) { this.checkouts.useReleaseSource(stated, cached); return; }
    const label = releaseLabel(stated);
    const now = r ? (r.checkout.release ? `${releaseLabel(r.checkout.release)} · release source` : `the checkout at ${r.checkout.root}`) : 'no checkout';
    const use = 'Use Release Source';
    const pick = await vscode.window.showInformationMessage(
      `HopLens: this log was printed by ${forWorkbench(label)} (line ${forWorkbench(String(stated.line))}); its lines are resolved in ${forWorkbench(now)}. `
      + `Resolve them in ${forWorkbench(label)}'s own source?`, use);
    if (pick !== use) return;
    await this.useRelease(stated, { wholeEngine: false });
  }

  /**
   * Resolves the logs that state this release in its own source: the installed engine of that
   * version, else fetched once through pip. `wholeEngine` (the command, asked with no log): the
   * engine's other logs too, those that state no release or one with no source of its own.
   */
  async useRelease(spec: StatedRelease | { engine: Engine; version: string }, opts: { wholeEngine: boolean } = { wholeEngine: true }): Promise<string | null> {
    const label = releaseLabel(spec);
    try {
      const python = await selectedPython();
      const got = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `HopLens: ${label} source`, cancellable: true },
        (progress, token) => {
          const ctl = new AbortController();
          token.onCancellationRequested(() => ctl.abort());
          return releaseSource(spec, { python, signal: ctl.signal, onProgress: (line) => progress.report({ message: forWorkbench(line.slice(0, 120)) }) });
        });
      this.deps.log.info(`${label}: ${got.via === 'installed' ? 'the installed package' : 'release source'} at ${got.root}`);
      this.checkouts.useReleaseSource(spec, got.root);
      if (opts.wholeEngine) this.checkouts.useSource(spec.engine, got.root);
      return got.root;
    } catch (e) {
      if (e instanceof ReleaseSourceError && e.kind === 'cancelled') return null;
      const why = e instanceof Error ? e.message : String(e);
      void vscode.window.showWarningMessage(`HopLens: ${forWorkbench(label)}'s source could not be had (${forWorkbench(why)}); `
        + 'the configured checkout stays in use, with its drift shown.');
      return null;
    }
  }

  /** Removes the cached release sources; an engine resolving in one goes back to its checkout. */
  removeReleaseSources(): number {
    const root = releaseCacheRoot();
    for (const engine of engineIds()) {
      if (this.checkouts.chosenSource(engine)?.startsWith(root)) this.checkouts.useSource(engine, null);
    }
    this.checkouts.dropReleaseSources();
    this.releasesOffered.clear();
    return removeReleaseSources(root).length;
  }

  /** The status bar notice of a source: a release's own, off the pin, or no commit; null when on the pin. */
  private noticeOf(engine: Engine, r: CheckoutSourceResolver | null | undefined): { text: string; tooltip: string } | null {
    if (!r) return null;
    if (r.checkout.release) {
      return { text: `$(package) ${releaseLabel(r.checkout.release)} · release source`, tooltip: forWorkbench(r.pin.message ?? r.checkout.root) };
    }
    if (r.pin.message === null) return null;
    return {
      text: r.pin.state === 'differs' ? `$(git-commit) ${engine} ≠ pin` : `$(git-commit) ${engine}: no commit`,
      tooltip: `${forWorkbench(r.pin.message)}\nHopLens checks each line against this checkout and reports drift.`,
    };
  }

  private refreshNotice(): void {
    if (this.active) this.showCheckoutNoticeFor(this.active.engine, this.active.logKey === null ? undefined : this.active.logKey);
    else this.status.hide();
  }

  /**
   * The checkout notice belongs to the active log: the source its lines resolve in (its own
   * release's, or the engine's checkout when off its pin), hidden on any other tab (a source
   * file, no editor) and for a source on the pin.
   */
  showCheckoutNoticeFor(engine: Engine | null, log?: vscode.Uri | string): void {
    const key = log === undefined ? null : typeof log === 'string' ? log : logKey(log);
    this.active = engine === null ? null : { engine, logKey: key };
    if (engine === null) { this.status.hide(); return; }
    const notice = this.noticeOf(engine, key === null ? this.checkouts.ready(engine) : this.checkouts.readyFor(key, engine));
    if (!notice) { this.status.hide(); return; }
    this.status.text = notice.text;
    this.status.tooltip = notice.tooltip;
    this.status.show();
  }

  /** Opens a located source: the checkout file at the line, or the browser. */
  async open(src: LocatedSource): Promise<void> {
    if (src.file === null) {
      await vscode.env.openExternal(sourceTarget(src));
      return;
    }
    const line = Math.max(0, src.location.line - 1);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(src.file));
    // A lens or hover is clicked in the log the user is reading.
    await keepPreviewLog();
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
  }
}

/** A log's key in the CheckoutSet: a file's path (as prepareForLog reads it), else its URI. */
export function logKey(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? uri.fsPath : uri.toString();
}

/**
 * A source opened from the log the user is reading: when that log is still in preview, the
 * source (a preview itself) would take its tab, and the user would lose their place. Pins the
 * active tab first, as VS Code itself pins the editor a code navigation or a link click starts
 * from — and, like VS Code, not when the user keeps such editors in preview
 * (`workbench.editor.enablePreviewFromCodeNavigation`).
 */
async function keepPreviewLog(): Promise<void> {
  if (vscode.window.tabGroups.activeTabGroup.activeTab?.isPreview !== true) return;
  if (vscode.workspace.getConfiguration('workbench.editor').get<boolean>('enablePreviewFromCodeNavigation', false)) return;
  await vscode.commands.executeCommand('workbench.action.keepEditor');
}

/** The interpreter the Python extension selected (its environments API), else python3. */
async function selectedPython(): Promise<string> {
  const ext = vscode.extensions.getExtension<{ environments?: { getActiveEnvironmentPath?(): { path?: string } } }>('ms-python.python');
  try {
    const api = ext ? (ext.isActive ? ext.exports : await ext.activate()) : undefined;
    const path = api?.environments?.getActiveEnvironmentPath?.()?.path;
    if (path) return path;
  } catch { /* not usable: the default */ }
  return 'python3';
}
