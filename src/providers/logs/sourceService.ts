// Where a log line's source is: through a local checkout of the engine when one is configured
// or found in the workspace, else the cited file at the pinned commit on the public repository.
import * as vscode from 'vscode';
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Engine, LogRecord } from '../../core/logs/model';
import { citedSource, sourceFor } from '../../core/logs/annotate';
import { detectEngine } from '../../core/logs/parseLine';
import { createSourceResolver, discoverCheckouts, publicSourceUrl, type CheckoutSourceResolver } from '../../core/source/index';
import type { SourceLocation } from '../../core/source/types';
import { readConfig } from '../../config';
import { forWorkbench } from '../../core/text/workbench';
import { Disposable } from '../../util/dispose';
import type { Logger } from '../../logging';

/** Enough of a log's start to tell vLLM from SGLang (detectEngine reads up to 2,000 lines). */
const HEAD_BYTES = 256 * 1024;

export interface ResolvedSource {
  engine: Engine;
  location: SourceLocation;
  /** file URI inside the checkout, or the public https URL at the pinned commit. */
  target: vscode.Uri;
  local: boolean;
}

export class SourceService extends Disposable {
  private readonly resolvers = new Map<Engine, Promise<CheckoutSourceResolver | null>>();
  private readonly pinWarned = new Set<Engine>();
  /** Logs whose engine's checkout was started by prepareFor() (a tab that becomes active again is not re-read). */
  private readonly prepared = new Set<string>();
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires when a checkout became available or changed (lenses re-resolve). */
  readonly onDidChange = this.changed.event;
  private readonly status = this._register(vscode.window.createStatusBarItem('hoplens.checkout', vscode.StatusBarAlignment.Right, 10));

  constructor(private readonly extensionUri: vscode.Uri, private readonly storageUri: vscode.Uri, private readonly log: Logger) {
    super();
    this.status.name = 'HopLens checkout';
    this._register(vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('hoplens.checkouts')) { this.resolvers.clear(); this.changed.fire(); }
    }));
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => { this.resolvers.clear(); this.changed.fire(); }));
  }

  /** The resolver of an engine's checkout, created once (statement index built in a worker). */
  resolver(engine: Engine): Promise<CheckoutSourceResolver | null> {
    let p = this.resolvers.get(engine);
    if (!p) {
      p = this.createResolver(engine);
      this.resolvers.set(engine, p);
    }
    return p;
  }

  /**
   * A log is being opened: start opening its engine's checkout now, from the head of the file on
   * disk, so that it is ready when VS Code has handed the document over (seconds later for a big
   * log) and the first lenses already point into the checkout.
   */
  async prepareFor(uri: vscode.Uri): Promise<void> {
    if (uri.scheme !== 'file' || this.prepared.has(uri.toString())) return;
    this.prepared.add(uri.toString());
    let head = '';
    try {
      const fh = await open(uri.fsPath, 'r');
      try {
        const buf = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
        head = buf.toString('utf8', 0, bytesRead);
      } finally { await fh.close(); }
    } catch { return; } // not readable here: the document path will find the engine later
    const engine = detectEngine(head.split('\n'));
    if (engine) void this.resolver(engine);
  }

  /** Synchronous peek: the resolver when it is already open. */
  private ready = new Map<Engine, CheckoutSourceResolver | null>();
  readyResolver(engine: Engine): CheckoutSourceResolver | null | undefined {
    if (!this.resolvers.has(engine)) void this.resolver(engine);
    return this.ready.get(engine);
  }

  private async createResolver(engine: Engine): Promise<CheckoutSourceResolver | null> {
    this.ready.delete(engine);
    const configured = readConfig().checkouts[engine];
    let dir = configured;
    if (!dir) {
      const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
      const found = await discoverCheckouts(folders, { engine }).catch(() => ({}));
      dir = (found as Partial<Record<Engine, { root: string }>>)[engine]?.root ?? '';
    }
    if (!dir) { this.ready.set(engine, null); return null; }
    try {
      const r = await createSourceResolver(dir, engine, {
        statementIndex: 'background',
        // Until the worker's index is ready, resolve without reading files on this thread.
        syncFileReads: false,
        cacheDir: join(this.storageUri.fsPath, 'statements'),
        workerScript: vscode.Uri.joinPath(this.extensionUri, 'dist', 'statementIndex.js').fsPath,
      });
      this.ready.set(engine, r);
      this.log.info(`${engine} checkout: ${r.checkout.root} at ${r.checkout.head ?? 'no git HEAD'}`);
      this.showPin(engine, r);
      void r.indexReady.then(() => {
        const info = r.indexInfo();
        this.log.info(`${engine} statement index: ${info.statements} statements (${info.source ?? 'none'})${info.error ? `, error: ${info.error}` : ''}`);
        this.changed.fire();
      });
      this.changed.fire();
      return r;
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.log.warn(`${engine} checkout ${dir}: ${msg}`);
      if (configured) void vscode.window.showWarningMessage(`HopLens: the ${engine} checkout setting does not point at a usable checkout: ${forWorkbench(msg)}`);
      this.ready.set(engine, null);
      return null;
    }
  }

  private showPin(engine: Engine, r: CheckoutSourceResolver): void {
    if (r.pin.message === null) { this.status.hide(); return; }
    // Said once, unobtrusively: a status bar item and a line in the log.
    if (this.pinWarned.has(engine)) return;
    this.pinWarned.add(engine);
    this.log.warn(r.pin.message);
    this.status.text = r.pin.state === 'differs' ? `$(git-commit) ${engine} ≠ pin` : `$(git-commit) ${engine}: no commit`;
    this.status.tooltip = `${forWorkbench(r.pin.message)}\nHopLens checks each line against this checkout and reports drift.`;
    this.status.show();
  }

  /** Where a record's source is, now; null for lines with no known emitter. */
  locate(rec: LogRecord): ResolvedSource | null {
    if (rec.engine === 'other') return null;
    const resolver = this.readyResolver(rec.engine) ?? null;
    let loc: SourceLocation | null = null;
    if (resolver) {
      try { loc = sourceFor(rec, resolver); } catch (e) { this.log.warn(`resolve line ${rec.line}: ${(e as Error).message}`); }
    }
    const fromCheckout = loc !== null;
    if (!loc) loc = citedSource(rec);
    if (!loc) return null;
    if (resolver) {
      const abs = resolver.absolutePath(loc);
      if (fromCheckout || existsSync(abs)) {
        return { engine: rec.engine, location: loc, target: vscode.Uri.file(abs).with({ fragment: `L${loc.line}` }), local: true };
      }
    }
    return { engine: rec.engine, location: loc, target: vscode.Uri.parse(publicSourceUrl(rec.engine, loc.path, loc.line)), local: false };
  }

  /** Opens a resolved source: the checkout file at the line, or the browser. */
  async open(src: ResolvedSource): Promise<void> {
    if (!src.local) {
      await vscode.env.openExternal(src.target);
      return;
    }
    const file = src.target.with({ fragment: '' });
    const line = Math.max(0, src.location.line - 1);
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0), preview: true });
  }
}
