// Where a log record's source is. One service, one set of caches, one lifetime: the editor
// makes one per window (its checkouts come and go with the settings), the CLI one per run.
//
//   citation  — the record's own file:line, its logger's module path, or the hop table at the
//               pin (no checkout: `verified: false`, opened on the public repository)
//   checkout  — the resolver of an open checkout verifies the statement and finds it where
//               it moved (resolver.ts)
import type { Engine, LogRecord } from '../logs/model';
import { findHop } from '../../engines/index';
import { ENGINE_IDS, engineProfile, packageParent } from '../../engines/registry';
import { readModuleFuncHeader } from '../logs/pythonLayout';
import { publicSourceUrl } from './pins';
import type { ClaimedSource, ClaimQuery, SourceLocation, SourceResolver } from './types';

/** The source of a record from the hop table / its own fileinfo (verified: false). */
export function citedSource(rec: LogRecord): SourceLocation | null {
  if (rec.engine === 'other') return null;
  return citeWith(rec, engineProfile(rec.engine).pathFromFileinfo ?? noPath);
}

/** An engine whose profile reads no path from a printed file. */
const noPath = (): null => null;

function citeWith(rec: LogRecord, pathOf: (fileinfo: string) => string | null): SourceLocation | null {
  if (rec.engine === 'other') return null;
  if (rec.fileinfo && rec.lineno !== null) {
    const path = pathOf(rec.fileinfo);
    if (path) return { path, line: rec.lineno, verified: false, drift: 0, method: 'fileinfo' };
  }
  if (rec.logger && rec.lineno !== null && rec.logger.startsWith(`${rec.engine}.`)) {
    // A logging layout's %(name)s with %(lineno)d: the module path is the file.
    const rel = `${rec.logger.replace(/\./g, '/')}.py`;
    return { path: `${packageParent(rec.engine)}${rel}`, line: rec.lineno, verified: false, drift: 0, method: 'logger' };
  }
  const hop = rec.hop ? findHop(rec.engine, rec.hop) : undefined;
  if (hop && hop.line !== null) {
    // A file (printed, or named by the logger's module path) other than the table's is another
    // file of another release (V0's async_llm_engine.py for V1's async_llm.py): the table cannot
    // say where it is.
    const named = rec.fileinfo ? basename(rec.fileinfo)
      : rec.logger?.startsWith(`${rec.engine}.`) ? `${rec.logger.slice(rec.logger.lastIndexOf('.') + 1)}.py` : null;
    if (named && !hop.file.endsWith(`/${named}`)) return null;
    // An engine that prints the line of the server that wrote the log (vLLM): that line; else the table's, the pin's.
    const line = engineProfile(rec.engine).citesPrintedLine && rec.lineno !== null ? rec.lineno : hop.line;
    return { path: hop.file, line, verified: false, drift: 0, method: 'hop-table' };
  }
  return null;
}

function basename(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return slash < 0 ? path : path.slice(slash + 1);
}

/** Whether a checkout's resolver is asked about this record at all. */
function worthResolving(rec: LogRecord): boolean {
  // An engine that prints no file:line (SGLang): every line of its own is searched for (by hop, else by text).
  const unplaced = rec.engine !== 'other' && engineProfile(rec.engine).resolvesUnplacedLines === true;
  return !(rec.hop === null && rec.fileinfo === null && !unplaced && rec.logger === undefined);
}

function query(rec: LogRecord & { engine: Engine }) {
  return {
    engine: rec.engine, fileinfo: rec.fileinfo, lineno: rec.lineno, message: rec.message, hop: rec.hop,
    continuation: rec.continuation, module: rec.logger ?? null, level: rec.level,
  };
}

/** Resolve through a checkout when one is given (null when it finds nothing), else from the citation. */
export function sourceFor(rec: LogRecord, resolver: SourceResolver | null): SourceLocation | null {
  if (rec.engine === 'other') return null;
  if (resolver) return worthResolving(rec) ? resolver.resolve(query(rec as LogRecord & { engine: Engine })) : null;
  return citedSource(rec);
}

/** What a checkout offers the locator: resolution, and which files it has. */
export interface CheckoutResolver extends SourceResolver {
  /** Absolute path of a location in the checkout. */
  absolutePath(loc: SourceLocation): string;
  /** Whether the checkout has this file (repository-relative path): its file list, not the disk. */
  hasFile(path: string): boolean;
  /** Whether a line that names only a module and a function is this checkout's engine's (resolver.ts: claim). */
  claim?(q: ClaimQuery): ClaimedSource | null;
}

/** The checkouts as they are now: a resolver, null (none for this engine), or undefined (still opening). */
export interface CheckoutLookup {
  ready(engine: Engine): CheckoutResolver | null | undefined;
}

/** A record's source, and where to open it. */
export interface LocatedSource {
  engine: Engine;
  location: SourceLocation;
  /** Absolute path of the file in the local checkout; null when it opens on the public repository. */
  file: string | null;
  /** The pinned file on the public repository at the line (when `file` is null). */
  url: string | null;
}

export interface SourceLocator {
  /** Where a record's source is, now; null for lines with no known emitter. */
  locate(rec: LogRecord): LocatedSource | null;
  /** The answer locate() gave this record since the checkouts last changed, if any (no work). */
  known?(rec: LogRecord): LocatedSource | null | undefined;
}

/** One-entry memo: consecutive lines mostly share their fileinfo. */
class FileinfoPaths {
  private last = '';
  private lastPath: string | null = null;
  constructor(private readonly pathOf: (fileinfo: string) => string | null) {}
  readonly of = (fileinfo: string): string | null => {
    if (fileinfo === this.last) return this.lastPath;
    this.last = fileinfo;
    return (this.lastPath = this.pathOf(fileinfo));
  };
}

/**
 * The locator of the editor and the CLI. Its caches (the fileinfo memos here, the resolvers'
 * own memos behind `checkouts`) live as long as it does; `forget()` drops them when the
 * checkouts changed.
 */
export class RecordSourceLocator implements SourceLocator {
  /** Per engine, its profile's path rule with a one-entry memo. */
  private paths = new Map<Engine, FileinfoPaths>();
  /** locate()'s answers per record: a search of the statement index (SGLang text) is not repeated. */
  private located = new WeakMap<LogRecord, LocatedSource | null>();
  /** Lines parsed as another program's that a checkout showed to be its engine's (claim()), with their statement. */
  private claimed = new WeakMap<LogRecord, { location: SourceLocation; resolver: CheckoutResolver }>();

  constructor(private readonly checkouts: CheckoutLookup, private readonly onError: (rec: LogRecord, e: Error) => void = () => undefined) {}

  forget(): void {
    this.paths = new Map();
    this.located = new WeakMap();
    this.claimed = new WeakMap();
  }

  /**
   * A line the parser left another program's (`other`) that names only `module.func` in a wrapper's
   * layout (NVIDIA Dynamo 0.2/0.3): when an open checkout has a statement in that module and function
   * printing this message, the record becomes its engine's (engine, level, logger and function, the
   * message after the header) and keeps that statement as its source. Without a checkout nothing
   * changes: the parser alone cannot tell the wrapper's `utils.x` from the engine's.
   */
  claim(rec: LogRecord): boolean {
    if (rec.engine !== 'other' || rec.continuation) return false;
    if (this.claimed.has(rec)) return true;
    const h = readModuleFuncHeader(rec.message);
    if (!h) return false;
    const asked = new Set<CheckoutResolver>();
    for (const id of ENGINE_IDS) {
      const resolver = this.checkouts.ready(id);
      if (!resolver?.claim || asked.has(resolver)) continue;
      asked.add(resolver);
      const found = resolver.claim(h);
      if (!found) continue;
      rec.engine = found.engine; rec.format = `${found.engine}-custom`; rec.level = h.level;
      rec.logger = h.module; rec.func = h.func; rec.message = h.message;
      this.claimed.set(rec, { location: found.location, resolver });
      return true;
    }
    return false;
  }

  known(rec: LogRecord): LocatedSource | null | undefined {
    return this.located.get(rec);
  }

  /** The citation, with this locator's memo. */
  cite(rec: LogRecord): SourceLocation | null {
    if (rec.engine === 'other') return null;
    let paths = this.paths.get(rec.engine);
    if (paths === undefined) this.paths.set(rec.engine, (paths = new FileinfoPaths(engineProfile(rec.engine).pathFromFileinfo ?? noPath)));
    return citeWith(rec, paths.of);
  }

  /** As sourceFor(): the checkout's answer when one is open (null when it finds nothing), else the citation. */
  location(rec: LogRecord): SourceLocation | null {
    if (rec.engine === 'other' && this.claim(rec)) return this.claimed.get(rec)?.location ?? null;
    if (rec.engine === 'other') return null;
    const claimed = this.claimed.get(rec);
    if (claimed) return claimed.location;
    const resolver = this.checkouts.ready(rec.engine) ?? null;
    if (resolver) return worthResolving(rec) ? resolver.resolve(query(rec as LogRecord & { engine: Engine })) : null;
    return this.cite(rec);
  }

  locate(rec: LogRecord): LocatedSource | null {
    let answer = this.located.get(rec);
    if (answer === undefined) { answer = this.find(rec); this.located.set(rec, answer); }
    return answer;
  }

  private find(rec: LogRecord): LocatedSource | null {
    if (rec.engine === 'other') this.claim(rec);
    if (rec.engine === 'other') return null;
    const claimed = this.claimed.get(rec);
    if (claimed) return { engine: rec.engine, location: claimed.location, file: claimed.resolver.absolutePath(claimed.location), url: null };
    const engine = rec.engine;
    const resolver = this.checkouts.ready(engine) ?? null;
    let loc: SourceLocation | null = null;
    if (resolver && worthResolving(rec)) {
      try { loc = resolver.resolve(query(rec as LogRecord & { engine: Engine })); } catch (e) { this.onError(rec, e as Error); }
    }
    const fromCheckout = loc !== null;
    if (!loc) loc = this.cite(rec);
    if (!loc) return null;
    // A citation opens in the checkout when the checkout has that file (at another commit it may not).
    if (resolver && (fromCheckout || resolver.hasFile(loc.path))) return { engine, location: loc, file: resolver.absolutePath(loc), url: null };
    return { engine, location: loc, file: null, url: publicSourceUrl(engine, loc.path, loc.line) };
  }
}
