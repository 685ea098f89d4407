// The engine checkouts a session of the editor resolves into: per engine, the configured
// folder or the first checkout found in the workspace folders, opened once (its statement index
// built in a worker) and kept until the settings or the folders change. No `vscode` here: the
// editor passes a snapshot of its settings and folders, and hears what happened through the
// callbacks.
import { open } from 'node:fs/promises';
import type { Engine } from '../../engines/types';
import { detectEngine } from '../logs/parseLine';
import { discoverCheckouts } from './checkout';
import { createSourceResolver, type CheckoutSourceResolver, type ResolverOptions } from './resolver';
import type { CheckoutLookup } from './locate';
import { statedRelease, type ReleaseSpec, type StatedRelease } from './release';

function releaseKey(spec: ReleaseSpec): string { return `${spec.engine}==${spec.version}`; }

/** Enough of a log's start to tell vLLM from SGLang (detectEngine reads up to 2,000 lines). */
const HEAD_BYTES = 256 * 1024;

export interface CheckoutPlaces {
  /** Configured checkout folders ('' = look in the workspace folders). */
  configured: Record<Engine, string>;
  /** Workspace folders (local paths) searched when none is configured. */
  folders: readonly string[];
}

export interface CheckoutEvents {
  /** A checkout was opened (the pin comparison is on the resolver). */
  opened?(engine: Engine, r: CheckoutSourceResolver): void;
  /** Its statement index is ready (answers may change: verified, moved lines). */
  indexReady?(engine: Engine, r: CheckoutSourceResolver): void;
  /** A folder could not be opened as a checkout; `configured` when the user named it. */
  failed?(engine: Engine, dir: string, message: string, configured: boolean): void;
  /** Anything a lens or link shows may differ now. */
  changed?(): void;
  /** A log's first lines state the release that printed it (prepareForLog read them). */
  stated?(path: string, release: StatedRelease): void;
}

export type OpenCheckout = (dir: string, engine: Engine, opts: ResolverOptions) => Promise<CheckoutSourceResolver>;

export class CheckoutSet implements CheckoutLookup {
  private readonly resolvers = new Map<Engine, Promise<CheckoutSourceResolver | null>>();
  private readonly opened = new Map<Engine, CheckoutSourceResolver | null>();
  /** Logs whose engine's checkout prepareForLog() started (a tab shown again is not re-read). */
  private readonly prepared = new Set<string>();
  /** Bumped by reconfigure(): a resolver opened for older places is not reported. */
  private epoch = 0;
  /** A source chosen for an engine over the settings (a release's own source): until cleared. */
  private readonly chosen = new Map<Engine, string>();
  /** The release each log states (by its key: the file's path), read from its head. */
  private readonly logReleases = new Map<string, ReleaseSpec>();
  /** The folder of each release's own source in use (`vllm==0.8.5` → dir): a log stating it resolves there. */
  private readonly releaseRoots = new Map<string, string>();
  /** Resolvers of release folders, opened once each: two logs of two releases are open at once. */
  private readonly releaseResolvers = new Map<string, Promise<CheckoutSourceResolver | null>>();
  private readonly releaseOpened = new Map<string, CheckoutSourceResolver | null>();

  constructor(private places: CheckoutPlaces, private readonly opts: {
    resolver: Pick<ResolverOptions, 'cacheDir' | 'workerScript'>;
    events?: CheckoutEvents;
    open?: OpenCheckout;
  }) {}

  /** New settings or workspace folders: every checkout is looked up again, on demand. */
  reconfigure(places: CheckoutPlaces): void {
    this.places = places;
    this.epoch++;
    this.resolvers.clear();
    this.opened.clear();
    this.opts.events?.changed?.();
  }

  /** Resolve an engine's logs in `dir` (a release source) instead of the configured checkout; null goes back to it. */
  useSource(engine: Engine, dir: string | null): void {
    if (dir === null) this.chosen.delete(engine); else this.chosen.set(engine, dir);
    this.epoch++;
    this.resolvers.delete(engine);
    this.opened.delete(engine);
    this.opts.events?.changed?.();
  }

  /**
   * Resolve the logs that state this release in `dir` (its own source), whatever the engine's
   * checkout; null stops it. Other logs of the engine keep their own source.
   */
  useReleaseSource(spec: ReleaseSpec, dir: string | null): void {
    const key = releaseKey(spec);
    if (dir === null) this.releaseRoots.delete(key); else this.releaseRoots.set(key, dir);
    this.opts.events?.changed?.();
  }

  /** No release folder is used any more (they were removed from the cache): logs go back to their engine's checkout. */
  dropReleaseSources(): void {
    this.releaseRoots.clear();
    this.releaseResolvers.clear();
    this.releaseOpened.clear();
    this.opts.events?.changed?.();
  }

  /** The folder in use for a release's logs, if any. */
  releaseSourceOf(spec: ReleaseSpec): string | null { return this.releaseRoots.get(releaseKey(spec)) ?? null; }

  /** Every release folder in use, by release. */
  releaseSources(): ReadonlyMap<string, string> { return this.releaseRoots; }

  /** What a log states about its release (a file's path, as prepareForLog read it; or noted by the caller). */
  statedFor(logKey: string): ReleaseSpec | null { return this.logReleases.get(logKey) ?? null; }

  noteStated(logKey: string, spec: ReleaseSpec): void {
    const was = this.logReleases.get(logKey);
    if (was && releaseKey(was) === releaseKey(spec)) return;
    this.logReleases.set(logKey, { engine: spec.engine, version: spec.version });
    if (this.releaseRoots.has(releaseKey(spec))) this.opts.events?.changed?.();
  }

  /** The release folder a log's lines of this engine resolve in, if its stated release has one in use. */
  private releaseDirFor(logKey: string, engine: Engine): string | null {
    const spec = this.logReleases.get(logKey);
    return spec && spec.engine === engine ? this.releaseRoots.get(releaseKey(spec)) ?? null : null;
  }

  /** As ready(), for one log: its release's own source when one is in use, else the engine's checkout. */
  readyFor(logKey: string, engine: Engine): CheckoutSourceResolver | null | undefined {
    const dir = this.releaseDirFor(logKey, engine);
    if (dir === null) return this.ready(engine);
    const r = this.releaseOpened.get(dir);
    if (r === undefined) void this.releaseResolver(engine, dir);
    return r;
  }

  /** As resolver(), for one log. */
  resolverFor(logKey: string, engine: Engine): Promise<CheckoutSourceResolver | null> {
    const dir = this.releaseDirFor(logKey, engine);
    return dir === null ? this.resolver(engine) : this.releaseResolver(engine, dir);
  }

  /** The lookup of one log's lines (a RecordSourceLocator per log reads it). */
  forLog(logKey: string): CheckoutLookup {
    return { ready: (engine) => this.readyFor(logKey, engine) };
  }

  private releaseResolver(engine: Engine, dir: string): Promise<CheckoutSourceResolver | null> {
    let p = this.releaseResolvers.get(dir);
    if (!p) {
      p = this.openDir(engine, dir, false, (r) => this.releaseOpened.set(dir, r), () => true);
      this.releaseResolvers.set(dir, p);
    }
    return p;
  }

  /** The source chosen with useSource(), if any. */
  chosenSource(engine: Engine): string | null { return this.chosen.get(engine) ?? null; }

  /** The resolver of an engine's checkout, opened once. */
  resolver(engine: Engine): Promise<CheckoutSourceResolver | null> {
    let p = this.resolvers.get(engine);
    if (!p) {
      p = this.openFor(engine, this.epoch);
      this.resolvers.set(engine, p);
    }
    return p;
  }

  /** Synchronous peek: the open checkout, null (none), or undefined (not opened, or still opening). */
  ready(engine: Engine): CheckoutSourceResolver | null | undefined {
    return this.opened.get(engine);
  }

  /**
   * A log is being opened: start opening its engine's checkout now, from the head of the file on
   * disk, so that it is ready when the editor has the text (seconds later for a big log).
   */
  async prepareForLog(path: string): Promise<void> {
    if (this.prepared.has(path)) return;
    this.prepared.add(path);
    let head: string;
    try {
      const fh = await open(path, 'r');
      try {
        const buf = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
        head = buf.toString('utf8', 0, bytesRead);
      } finally { await fh.close(); }
    } catch { return; } // not readable here: the document finds its engine later
    const lines = head.split('\n');
    const engine = detectEngine(lines);
    if (engine) void this.resolver(engine);
    const stated = statedRelease(lines);
    if (stated) {
      this.noteStated(path, stated);
      this.opts.events?.stated?.(path, stated);
    }
  }

  private async openFor(engine: Engine, epoch: number): Promise<CheckoutSourceResolver | null> {
    const configured = this.chosen.get(engine) ?? this.places.configured[engine];
    let dir = configured;
    if (!dir) {
      const found = await discoverCheckouts([...this.places.folders], { engine }).catch(() => ({}));
      dir = (found as Partial<Record<Engine, { root: string }>>)[engine]?.root ?? '';
    }
    const current = () => epoch === this.epoch;
    if (!dir) { if (current()) this.opened.set(engine, null); return null; }
    return this.openDir(engine, dir, configured !== '', (r) => this.opened.set(engine, r), current);
  }

  /** Opens one folder as an engine's source; `keep` records the outcome while `current()` holds. */
  private async openDir(engine: Engine, dir: string, configured: boolean,
    keep: (r: CheckoutSourceResolver | null) => void, current: () => boolean): Promise<CheckoutSourceResolver | null> {
    try {
      const r = await (this.opts.open ?? createSourceResolver)(dir, engine, {
        ...this.opts.resolver,
        statementIndex: 'background',
        // Until the worker's index is ready, resolve without reading files on this thread.
        syncFileReads: false,
      });
      if (!current()) return r;
      keep(r);
      this.opts.events?.opened?.(engine, r);
      void r.indexReady.then(() => {
        if (!current()) return;
        this.opts.events?.indexReady?.(engine, r);
        this.opts.events?.changed?.();
      });
      this.opts.events?.changed?.();
      return r;
    } catch (e) {
      if (current()) {
        keep(null);
        this.opts.events?.failed?.(engine, dir, e instanceof Error ? e.message : String(e), configured);
      }
      return null;
    }
  }
}
