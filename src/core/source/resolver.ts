// From a printed log line to the line of the checkout that printed it, with proof: the
// statement found there must be able to print the message.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../logs/model';
import { HOP_TABLES } from '../../engines';
import { nextRecordAt } from '../logs/parseLine';
import { comparePin, inspectCheckout, type CheckoutInfo, type PinStatus } from './checkout';
import { FileIndex, listPythonFiles } from './fileIndex';
import {
  compilePattern, droppedFit, labelledFields, labelsInValues, matchesPattern, shortenedWeight, patternLines, patternText, wildcardSpans, WILD,
  type CompiledPattern,
} from './messagePattern';
import { wordsMissingFromStatement } from './claims';
import { derivedMove, derivedMoveTargets, movedFrom, movedName, movesOf } from './moves';
import { PINS, type HopCitation } from './pins';
import {
  buildStatementIndex,
  cacheFilePath,
  compileVariant,
  indexSourceFile,
  loadCachedIndex,
  saveCachedIndex,
  specificEnough,
  statementCacheKey,
  StatementIndex,
  variantMatches,
  type BuildProgress,
  type IndexedStatement,
  type StatementMatch,
} from './statementIndex';
import type { ClaimedSource, ClaimQuery, SourceLocation, SourceQuery, SourceResolver } from './types';

export interface ResolverOptions {
  /** Folder for the statement-index cache (one JSON file per checkout state); default defaultCacheDir(); null: no disk cache. */
  cacheDir?: string | null;
  /**
   * When to build the statement index (needed for SGLang lines and vLLM lines whose file
   * is gone): "eager" waits for it before returning, "background" returns at once and uses
   * it when ready (the editor), "off" never builds it.
   */
  statementIndex?: 'eager' | 'background' | 'off';
  /** Bundled worker script; default `statementIndex.js` next to this bundle, else in-process. */
  workerScript?: string | null;
  /** Hop id → citation; default from the hop tables in src/engines. */
  hopCitations?: Record<string, HopCitation>;
  signal?: AbortSignal;
  onProgress?: (stage: 'files' | 'index', p: BuildProgress) => void;
  /** A checkout already inspected (saves the git calls). */
  checkout?: CheckoutInfo;
  /**
   * Whether resolve() may read and parse a source file on the calling thread while the
   * index is not ready (default true: the CLI). The editor passes false: until the worker's
   * index arrives, lines resolve to the printed file:line unverified, and every answer is
   * recomputed (verified) once it is ready.
   */
  syncFileReads?: boolean;
}

export type IndexState = 'off' | 'building' | 'ready' | 'failed' | 'cancelled';

export interface CheckoutSourceResolver extends SourceResolver {
  readonly engine: Engine;
  readonly checkout: CheckoutInfo;
  /** Whether HEAD is the pinned commit; `message` is what to show the user once. */
  readonly pin: PinStatus;
  readonly files: FileIndex;
  /** Resolves when the statement index is ready (null when off, failed or cancelled). */
  readonly indexReady: Promise<StatementIndex | null>;
  indexState(): IndexState;
  /** Where the index came from: "cache" | "built" | null; and the failure message if any. */
  indexInfo(): { source: 'cache' | 'built' | null; error: string | null; statements: number; cacheFile: string | null };
  /** Absolute path of a resolved location. */
  absolutePath(loc: SourceLocation): string;
  /** Whether the checkout's file list has this repository-relative path (no disk access). */
  hasFile(path: string): boolean;
  /** For a hover: the logging statement at a resolved location, its level and its text with `…` for values. */
  describe(loc: SourceLocation): StatementDescription | null;
  /** Whether a line that names only a module and a function is this engine's (Resolver.claim). */
  claim(q: ClaimQuery): ClaimedSource | null;
}

export interface StatementDescription {
  level: string | null;
  /** The message as the source writes it, values shown as `…` (one line per variant). */
  text: string[];
  /** First line of the call, and where its text starts. */
  line: number;
  textLine: number;
}

export class SourceResolverError extends Error {}

type CompiledVariantPair = ReturnType<typeof compileVariant>;

interface MemoEntry {
  /** Statements this printed line (or hop) resolved to, with their compiled text. */
  verified: Array<{ loc: SourceLocation; stmt: IndexedStatement; compiled: CompiledVariantPair[] }>;
  /** The last unverified answer, and how many times verifying failed. */
  miss: SourceLocation | null;
  misses: number;
  /**
   * Hop memos: the message shapes already searched for. A hop can be printed by several
   * statements of one checkout (a decode line with and without the graph field); a shape not
   * seen before is searched for instead of taking the first remembered statement that fits.
   */
  shapes?: Set<string>;
  /** Files seen (Resolver.seenPaths) when the last miss was recorded: a tie may break once more are. */
  seen?: number;
}

/** Shapes searched per hop before the memo answers alone (request lines of a long log differ in text, not statement). */
const SHAPES_PER_HOP = 256;

function matchesAny(compiled: readonly CompiledVariantPair[], message: string): boolean {
  for (let i = 0; i < compiled.length; i++) if (variantMatches(compiled[i], message) >= 0) return true;
  return false;
}

interface FileStatements {
  all: IndexedStatement[];
  byLine: Map<number, IndexedStatement[]>;
}

function citationsFor(engine: Engine, packageDir: string): Record<string, HopCitation> {
  const out: Record<string, HopCitation> = {};
  const table = HOP_TABLES[engine];
  // An installed package (site-packages/sglang) has the repository's python/sglang/ files one level up.
  const repoDir = PINS[engine].packageDir;
  const path = (p: string) => packageDir !== repoDir && p.startsWith(repoDir + '/') ? packageDir + p.slice(repoDir.length) : p;
  for (const h of table?.hops ?? []) if (h.line) out[h.id] = { path: path(h.file), line: h.line };
  return out;
}

/** `$HOPLENS_CACHE_DIR`, else the XDG cache folder: where the CLI keeps statement indexes. */
export function defaultCacheDir(): string {
  return process.env.HOPLENS_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens', 'statements');
}

/** The bundled worker next to the bundle that runs this code (dist/); not the compiled module in out/. */
function defaultWorkerScript(): string | null {
  if (/[\\/]core[\\/]source$/.test(__dirname)) return null;
  const p = join(__dirname, 'statementIndex.js');
  return existsSync(p) ? p : null;
}

/**
 * Opens a checkout for resolution. Rejects with SourceResolverError when the folder is not
 * a checkout of the engine.
 */
export async function createSourceResolver(checkoutDir: string, engine: Engine, opts: ResolverOptions = {}): Promise<CheckoutSourceResolver> {
  const info = opts.checkout ?? (await inspectCheckout(checkoutDir, engine, { signal: opts.signal }));
  if ('error' in info) throw new SourceResolverError(info.error);
  if (info.engine !== engine) throw new SourceResolverError(`${checkoutDir} is a ${info.engine} checkout, not ${engine}`);
  const files = await listPythonFiles(info.root, info.packageDir, { git: info.head !== null, signal: opts.signal });
  if (files.length === 0) throw new SourceResolverError(`${info.root} has no Python files under ${info.packageDir}/`);
  if (info.layout === 'repo') {
    for (const dir of PINS[engine].rustDirs) {
      files.push(...(await listPythonFiles(info.root, dir, { git: info.head !== null, signal: opts.signal, ext: '.rs' })));
    }
  }
  opts.onProgress?.('files', { done: files.length, total: files.length });
  const pin = await comparePin(info, { signal: opts.signal });
  const citations = opts.hopCitations ?? citationsFor(engine, info.packageDir);
  const r = new Resolver(engine, info, pin, new FileIndex(files, info.packageDir), citations, opts.syncFileReads ?? true);
  const mode = opts.statementIndex ?? 'eager';
  if (mode === 'off') {
    r.indexReady = Promise.resolve(null);
  } else {
    r.state = 'building';
    r.indexReady = r.loadIndex(files, opts);
    if (mode === 'eager') await r.indexReady;
  }
  return r;
}

class Resolver implements CheckoutSourceResolver {
  indexReady: Promise<StatementIndex | null> = Promise.resolve(null);
  state: IndexState = 'off';
  private index: StatementIndex | null = null;
  private indexSource: 'cache' | 'built' | null = null;
  private indexError: string | null = null;
  private cacheFile: string | null = null;
  private readonly fileStatements = new Map<string, FileStatements | null>();
  private readonly candidateMemo = new Map<string, string[]>();
  /** changedStatement's answers by named file, hop, level and message shape. */
  private readonly changedMemo = new Map<string, SourceLocation | null>();
  /** derivedFrom's answers, and the files a printed name's statements may have moved to. */
  private readonly movedMemo = new Map<string, string | null>();
  private readonly targetMemo = new Map<string, Map<string, string[]>>();
  private readonly memoByFile = new Map<string, Map<number, MemoEntry>>();
  private readonly memoByHop = new Map<string, MemoEntry>();
  /** Lines with neither file:line nor hop (SGLang's other statements), by the shape of their text. */
  private readonly memoByShape = new Map<string, MemoEntry>();
  private memoCount = 0;
  /** Files this log's lines were verified in (which of several equal statements a line came from). */
  private readonly seenPaths = new Set<string>();
  private readonly continuationMemo = new WeakMap<IndexedStatement, CompiledPattern[]>();
  private readonly compiledMemo = new WeakMap<IndexedStatement, Array<ReturnType<typeof compileVariant>>>();

  constructor(
    readonly engine: Engine,
    readonly checkout: CheckoutInfo,
    readonly pin: PinStatus,
    readonly files: FileIndex,
    private readonly citations: Record<string, HopCitation>,
    private readonly syncFileReads: boolean,
  ) {}

  indexState(): IndexState {
    return this.state;
  }

  indexInfo() {
    return { source: this.indexSource, error: this.indexError, statements: this.index?.size ?? 0, cacheFile: this.cacheFile };
  }

  absolutePath(loc: SourceLocation): string {
    return join(this.checkout.root, loc.path);
  }

  hasFile(path: string): boolean {
    return this.files.files.has(path);
  }

  describe(loc: SourceLocation): StatementDescription | null {
    const s = this.statementAt(loc);
    if (!s) return null;
    return { level: s.level, text: s.variants.map((v) => patternText(v.p) + (v.open ? '…' : '')), line: s.line, textLine: s.textLine };
  }

  async loadIndex(files: string[], opts: ResolverOptions): Promise<StatementIndex | null> {
    try {
      const key = await statementCacheKey(this.checkout, files);
      const cacheDir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
      let data = cacheDir ? await loadCachedIndex(cacheDir, this.engine, key) : null;
      if (data) {
        this.indexSource = 'cache';
      } else {
        data = await buildStatementIndex(this.checkout.root, files, this.engine, key, {
          signal: opts.signal,
          onProgress: (p) => opts.onProgress?.('index', p),
          workerScript: opts.workerScript === undefined ? defaultWorkerScript() : opts.workerScript,
        });
        this.indexSource = 'built';
        if (cacheDir) {
          try { this.cacheFile = await saveCachedIndex(cacheDir, data); } catch (e) { this.indexError = `cache not written: ${(e as Error).message}`; }
        }
      }
      if (cacheDir && this.indexSource === 'cache') this.cacheFile = cacheFilePath(cacheDir, this.engine, key);
      this.index = new StatementIndex(data);
      // Answers given before the index existed may be unverified guesses: forget them.
      this.fileStatements.clear();
      this.memoByFile.clear();
      this.memoByHop.clear();
      this.memoByShape.clear();
      this.memoCount = 0;
      this.state = 'ready';
      return this.index;
    } catch (e) {
      this.state = (e as Error).name === 'AbortError' ? 'cancelled' : 'failed';
      this.indexError = (e as Error).message;
      return null;
    }
  }

  resolve(query: SourceQuery): SourceLocation | null {
    const found = this.noteSeen(this.qualified(query, this.resolveRecord(query)));
    if (found?.verified || query.continuation) return found;
    // Several records on one line (a paste that lost its line breaks): the first one's message
    // ends where the next header begins. Only lines that did not verify pay for the look.
    const at = nextRecordAt(query.message);
    if (at < 0) return this.orChanged(query, found);
    const head = { ...query, message: query.message.slice(0, at) };
    const first = this.noteSeen(this.qualified(head, this.resolveRecord(head)));
    return first?.verified ? first : this.orChanged(query, found ?? first);
  }

  /**
   * A line of another program's layout that names only `module.func` (NVIDIA Dynamo 0.2/0.3's
   * workers print the engine's records so): the engine's when a statement of this checkout in a
   * file `module.py`, inside function `func`, at the printed level, prints exactly this message.
   * The wrapper's own modules share basenames with the engine's files (`utils`, `config`), so the
   * function and the text decide, never the name alone. One such statement: verified; several:
   * candidates, unverified. Null while the index is not ready.
   */
  claim(q: ClaimQuery): ClaimedSource | null {
    if (!this.index || !/^\w+$/.test(q.module) || !/^\w+$/.test(q.func)) return null;
    const message = q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message;
    const file = `${q.module}.py`;
    const fits = this.index.search(message, { limit: 64 }).filter((m) => !m.cut && m.statement.fn === q.func
      && baseName(m.statement.path) === file && levelFits(m.statement.level, q.level));
    const seen = new Set<string>();
    const stmts = fits.map((m) => m.statement).filter((st) => !seen.has(`${st.path}:${st.line}`) && seen.add(`${st.path}:${st.line}`));
    if (stmts.length === 0) return null;
    const first = stmts[0];
    const location: SourceLocation = stmts.length === 1
      ? { path: first.path, line: first.line, verified: true, drift: 0, method: 'module-function' }
      : {
        path: first.path, line: first.line, verified: false, drift: 0, method: 'module-function',
        candidates: stmts.map((st) => ({ path: st.path, line: st.line })),
        note: `${stmts.length} statements named ${q.module}.${q.func} print this text`,
      };
    return { engine: this.engine, location };
  }

  /** An answer that did not verify, or the statement of the named file (or the hop's) that has changed since the line was printed. */
  private orChanged(q: SourceQuery, found: SourceLocation | null): SourceLocation | null {
    if (q.engine !== this.engine || found?.candidates || found?.movedFrom || found?.changed) return found;
    if (!q.fileinfo && !q.module && !q.hop) return found;
    // A similar statement of another file: the named file's own statement, changed since, is the better answer.
    const inNamedFileOnly = found?.similar === true;
    const message = q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message;
    const key = `${q.fileinfo ?? q.module ?? ''}\0${q.hop ?? ''}\0${q.level ?? ''}\0${messageShape(message)}`;
    let changed = this.changedMemo.get(key);
    if (changed === undefined) {
      changed = this.changedStatement(q, message);
      if (this.changedMemo.size > 4096) this.changedMemo.clear();
      this.changedMemo.set(key, changed);
    }
    if (inNamedFileOnly && (!changed || changed.similar || changed.movedFrom)) return found;
    return changed ?? found;
  }

  /**
   * The statement that printed this line in its own release and has gained, lost or renamed a
   * field since (issue 26 item 5): in the file the line names, a file it moved to, or the hop's
   * cited file, the statement that starts and ends as the line does and holds most of its other
   * literal parts. Shown as changed, never verified.
   */
  private changedStatement(q: SourceQuery, message: string): SourceLocation | null {
    const printed = this.printedName(q);
    const named = printed ? this.fileCandidates(printed) : [];
    const moves = printed ? movesOf(this.engine, printed) : [];
    const files = new Set<string>(named);
    for (const m of moves) files.add(m.to);
    if (printed) for (const list of this.moveTargets(printed).values()) for (const f of list) files.add(f);
    const cit = q.hop ? this.citations[q.hop] : undefined;
    if (cit) files.add(cit.path);
    let best: { s: IndexedStatement; path: string; found: number; missing: string[] } | null = null;
    for (const path of files) {
      for (const s of this.statementsOf(path)?.all ?? []) {
        if (q.level && !levelFits(s.level, q.level)) continue;
        for (const c of this.compiled(s)) {
          const fit = droppedFit(c.whole, message);
          if (!fit || fit.found < 16 || fit.found < 0.6 * c.whole.weight) continue;
          const near = (x: IndexedStatement) => (q.lineno == null ? 0 : Math.abs(x.line - q.lineno));
          const better = !best || fit.found > best.found || (fit.found === best.found && near(s) < near(best.s));
          if (better) best = { s, path, found: fit.found, missing: fit.missing };
        }
      }
    }
    if (!best) return null;
    const what = changedWhat(best.s, best.missing, message);
    const loc: SourceLocation = {
      path: best.path, line: best.s.line, verified: false, drift: 0, method: 'changed', changed: true,
      note: `${CHANGED_SINCE}: ${what}`,
    };
    if (printed && !named.includes(best.path)) {
      const move = moves.find((m) => m.to === best!.path);
      if (move) return { ...loc, movedFrom: move.from, note: `moved from ${move.from} (in ${move.when}) and ${loc.note}` };
      const derived = derivedMove(this.engine, printed, best.path);
      if (derived && this.moveTargets(printed).size === 1) {
        const from = movedName(printed, derived);
        return { ...loc, movedFrom: from, note: `moved from ${from} into ${best.path} and ${loc.note}` };
      }
      if (named.length > 0 || printed.includes('/')) {
        return { ...loc, similar: true, note: `a similar statement, lower confidence: the line names another file, and ${loc.note}` };
      }
    }
    return loc;
  }

  /**
   * A verified answer stays verified only when the statement could have printed exactly this line:
   * it is in the file the line names (else it moved there, or it is a similar statement of another
   * code path), its level is the printed one (unless chosen at run time), and it prints every word
   * of the hop's wording the line shows.
   */
  private qualified(q: SourceQuery, found: SourceLocation | null): SourceLocation | null {
    if (!found || !found.verified || q.engine !== this.engine) return found;
    const printed = this.printedName(q);
    if (printed && !this.fileCandidates(printed).includes(found.path)) {
      const move = movedFrom(this.engine, printed, found.path);
      if (move) {
        const note = `moved from ${move.from} (in ${move.when}); the line was printed there, by an older release`;
        return { ...found, verified: false, drift: 0, movedFrom: move.from, note };
      }
      const name = baseName(printed);
      const from = this.derivedFrom(q, printed, found);
      if (from) {
        const note = `moved from ${from} into ${found.path}: no statement of ${name} prints this text, and this is the only statement `
          + 'of the source that does (the line was printed there, by another release)';
        return { ...found, verified: false, drift: 0, movedFrom: from, note };
      }
      const note = `a similar statement, lower confidence: the line names ${name}, `
        + 'and this statement is in another file (another code path or release prints this text)';
      return { ...found, verified: false, drift: 0, similar: true, note };
    }
    const stmt = this.statementAt(found);
    if (!stmt) return found;
    if (q.level && !levelFits(stmt.level, q.level)) {
      return { ...found, verified: false, note: `the line was printed at ${q.level}; the call there logs at ${stmt.level} (another statement printed it)` };
    }
    if (q.hop) {
      const message = q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message;
      const missing = wordsMissingFromStatement(this.engine, q.hop, stmt.variants.map((v) => v.p), message);
      if (missing.length) {
        const shown = missing.slice(0, 4).map((w) => `\`${w}\``).join(', ');
        return { ...found, verified: false, changed: true, note: `${CHANGED_SINCE}: the line shows ${shown}, which this statement does not print` };
      }
    }
    // A statement of labelled fields whose value holds another label (`lora_request: None,
    // prompt_adapter_request: None.` at a statement that ends `lora_request: %s.`): it lost a field since.
    for (const c of this.compiled(stmt)) {
      if (!labelledFields(c.whole) || !matchesPattern(c.whole, q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message)) continue;
      const extra = labelsInValues(c.whole, q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message);
      if (extra.length === 0) return found;
      const shown = extra.slice(0, 4).map((w) => `\`${w}\``).join(', ');
      return { ...found, verified: false, changed: true, note: `${CHANGED_SINCE}: the line shows ${shown}, which this statement does not print` };
    }
    return found;
  }

  /** Checkout files a printed file name may be (memoised). */
  private fileCandidates(fileinfo: string): string[] {
    let cands = this.candidateMemo.get(fileinfo);
    if (!cands) { cands = this.files.candidates(fileinfo); this.candidateMemo.set(fileinfo, cands); }
    return cands;
  }

  /**
   * The file a line names: its fileinfo, else the checkout file of its logger's module; a module of the
   * engine's package whose file is not in this source (it moved since) as the path it had (`sglang.srt.x` → `sglang/srt/x.py`).
   */
  private printedName(q: SourceQuery): string | null {
    if (q.fileinfo) return q.fileinfo;
    if (!q.module) return null;
    const path = this.pathOfModule(q.module);
    if (path) return path;
    return q.module.startsWith(`${this.engine}.`) && /^[\w.]+$/.test(q.module) ? `${q.module.replace(/\./g, '/')}.py` : null;
  }

  /** derivedMoveTargets of a printed name (the files it names left out), memoised. */
  private moveTargets(printed: string): Map<string, string[]> {
    let t = this.targetMemo.get(printed);
    if (!t) {
      const named = this.fileCandidates(printed);
      t = new Map();
      for (const [from, list] of derivedMoveTargets(this.engine, printed, this.files.files)) {
        const rest = list.filter((f) => !named.includes(f));
        if (rest.length) t.set(from, rest);
      }
      if (this.targetMemo.size > 1024) this.targetMemo.clear();
      this.targetMemo.set(printed, t);
    }
    return t;
  }

  /**
   * Where a verified statement of another file than the named one moved from, by the rule derived
   * from the index (issue 26 item 5): the paths agree (derivedMove), the statement logs at the printed
   * level, no statement of the named file prints the message, and no statement of another file does.
   */
  private derivedFrom(q: SourceQuery, printed: string, found: SourceLocation): string | null {
    const from = derivedMove(this.engine, printed, found.path);
    if (!from || !this.index) return null;
    const message = q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message;
    const key = `${printed}\0${found.path}\0${found.line}\0${q.level ?? ''}\0${messageShape(message)}`;
    const memo = this.movedMemo.get(key);
    if (memo !== undefined) return memo;
    const stmt = this.statementAt(found);
    let ok = !!stmt && levelFits(stmt.level, q.level);
    if (ok && this.searchFiles(this.fileCandidates(printed), message, null)) ok = false;
    if (ok) {
      for (const m of this.index.search(message, { limit: TIE_LIMIT })) {
        if (!m.cut && m.statement.path !== found.path) { ok = false; break; }
      }
    }
    // A basename fits several packages (`utils.py`: vllm/utils/ and …/quantization/utils/): nothing tells which
    // one the statement left, and a copy in one may be another code path's (SGLang 0.5.23's
    // multimodal_gen/runtime/utils/common.py prints 0.5.1's srt/utils.py text, which srt/utils/ changed).
    if (ok && this.moveTargets(printed).size !== 1) ok = false;
    const name = ok ? movedName(printed, from) : null;
    if (this.movedMemo.size > 4096) this.movedMemo.clear();
    this.movedMemo.set(key, name);
    return name;
  }

  private noteSeen(found: SourceLocation | null): SourceLocation | null {
    if (found?.verified && this.seenPaths.size < 4096) this.seenPaths.add(found.path);
    return found;
  }

  private resolveRecord(query: SourceQuery): SourceLocation | null {
    if (query.engine !== this.engine) return null;
    let q = query;
    if (!q.fileinfo && q.module) {
      // A logging layout printed the logger (a module path) instead of the file.
      const path = this.pathOfModule(q.module);
      if (path) q = { ...q, fileinfo: path };
    }
    const message = q.message.endsWith('\r') ? q.message.slice(0, -1) : q.message;
    const continuation = q.continuation === true;
    // Logs repeat the same few statements millions of times: remember what each printed
    // file:line (or hop) resolved to, and re-check only that statement against the message.
    const byPrinted = !!q.fileinfo && q.lineno != null;
    const memo = this.memoFor(q, message, byPrinted, continuation, false);
    if (memo && !byPrinted && q.hop && !continuation) {
      memo.shapes ??= new Set();
      const shape = memo.shapes.size < SHAPES_PER_HOP ? messageShape(message) : null;
      if (shape !== null && !memo.shapes.has(shape)) {
        memo.shapes.add(shape);
        const found = this.resolveUncached(q, message, continuation);
        this.remember(memo, found);
        return found;
      }
    }
    if (memo && !byPrinted && q.hop && !continuation) {
      // Of the statements this hop resolved to, the one that prints the most of this message.
      let best: SourceLocation | null = null;
      let bestWeight = -1;
      for (const v of memo.verified) {
        for (const c of v.compiled) {
          const w = variantMatches(c, message);
          if (w > bestWeight) { bestWeight = w; best = v.loc; }
        }
      }
      if (best) return best;
    } else if (memo) {
      for (const v of memo.verified) {
        // A printed `utils.py:92` another file of that name printed at another level is not this statement.
        if (!levelFits(v.stmt.level, q.level)) continue;
        if (continuation ? this.continuationWeight(v.stmt, message) >= 0 : matchesAny(v.compiled, message)) {
          // A call that prints any text (`logger.info(msg)`) is not the answer for every line of a
          // basename several files share: another file's call at that line may print this text.
          if (!continuation && byPrinted && (this.candidateMemo.get(q.fileinfo!)?.length ?? 0) > 1 && this.looseOnly(v.stmt, message)) break;
          return v.loc;
        }
      }
    }
    if (memo) {
      // A text of this shape (digits aside, shape taken whole) matched no statement before: no new search.
      if (!byPrinted && !q.hop && memo.verified.length === 0 && memo.misses > 0 && message.length <= SHAPE_CHARS
        && memo.seen === this.seenPaths.size) return memo.miss;
      if (byPrinted && memo.misses >= 3) {
        // This printed file:line keeps failing to verify: only the cheap exact-line check, no scans.
        const exact = this.byFileinfo(q.fileinfo!, q.lineno!, message, continuation, false, q.level);
        if (exact && exact.verified) { this.remember(memo, exact); return exact; }
        return memo.miss;
      }
    }
    const found = this.resolveUncached(q, message, continuation);
    const entry = memo ?? this.memoFor(q, message, byPrinted, continuation, true);
    if (entry) {
      this.remember(entry, found);
      if (!byPrinted && q.hop && !continuation) (entry.shapes ??= new Set()).add(messageShape(message));
    }
    return found;
  }

  /**
   * The memo entry of a printed file:line (two-level map: no key strings on the hot path), of a
   * hop, or of a message's shape when the line has neither.
   */
  private memoFor(q: SourceQuery, message: string, byPrinted: boolean, continuation: boolean, create: boolean): MemoEntry | undefined {
    if (this.memoCount > 50_000) { this.memoByFile.clear(); this.memoByHop.clear(); this.memoByShape.clear(); this.memoCount = 0; }
    if (byPrinted) {
      let lines = this.memoByFile.get(q.fileinfo!);
      if (!lines) {
        if (!create) return undefined;
        lines = new Map();
        this.memoByFile.set(q.fileinfo!, lines);
      }
      const line = continuation ? -q.lineno! : q.lineno!;
      let e = lines.get(line);
      if (!e && create) { e = { verified: [], miss: null, misses: 0 }; lines.set(line, e); this.memoCount++; }
      return e;
    }
    // A named file without a line (a layout's logger) answers differently from the same text unnamed.
    const [map, key] = q.hop ? [this.memoByHop, q.fileinfo ? `${q.hop}\0${q.fileinfo}` : q.hop]
      : [this.memoByShape, q.fileinfo ? `${q.fileinfo}\0${messageShape(message)}` : messageShape(message)];
    let e = map.get(key);
    if (!e && create) { e = { verified: [], miss: null, misses: 0 }; map.set(key, e); this.memoCount++; }
    return e;
  }

  /** Records what a printed file:line (or hop) resolved to, for the next line that prints it. */
  private remember(memo: MemoEntry, found: SourceLocation | null): void {
    const stmt = found && found.verified ? this.statementAt(found) : null;
    if (found && stmt) {
      // Several statements can share a printed `utils.py:232`: keep a few, most recent first.
      memo.verified.unshift({ loc: found, stmt, compiled: this.compiled(stmt) });
      if (memo.verified.length > 8) memo.verified.pop();
    } else if (!found || !found.verified) {
      memo.miss = found;
      memo.misses++;
      memo.seen = this.seenPaths.size;
    }
  }

  /** The checkout file a module path (`sglang.srt.managers.scheduler`) is, or null. */
  private pathOfModule(module: string): string | null {
    const rel = module.replace(/\./g, '/');
    for (const candidate of [`/${rel}.py`, `/${rel}/__init__.py`]) {
      // Only a file at that module path: another file of the basename (SGLang 0.5.23's parser/template_manager.py
      // for `sglang.srt.managers.template_manager`) is where the statement went, not the file the line names.
      const found = this.files.candidates(candidate).filter((f) => `/${f}`.endsWith(candidate));
      if (found.length === 1) return found[0];
    }
    return null;
  }

  private resolveUncached(q: SourceQuery, message: string, continuation: boolean): SourceLocation | null {
    let fallback: SourceLocation | null = null;
    if (q.fileinfo && (q.lineno === null || q.lineno === undefined) && !continuation) {
      // The file is named but not the line: the hop's own statement when it is in that file,
      // else the statement of the file that prints the message.
      const cands = this.files.candidates(q.fileinfo);
      const viaHop = this.byHop(q.hop, message);
      if (viaHop && cands.includes(viaHop.path)) return viaHop;
      const inFile = this.searchFiles(cands, message, null);
      if (inFile) {
        // Two statements of the named file print this text as specifically (SGLang's `server_args=`
        // twice in entrypoints/engine.py): naming the file does not tell which, so both are candidates.
        const tied = this.tiedInFiles(cands, message, inFile.w);
        if (tied.length > 1 && tied.length <= MAX_CANDIDATES) {
          return {
            path: tied[0].path, line: tied[0].line, verified: false, drift: 0, method: 'fileinfo+literal', candidates: tied,
            note: `${tied.length} statements of ${tied[0].path} print this text and nothing in the line tells which one printed it`,
          };
        }
        return { path: inFile.path, line: inFile.line, verified: true, drift: 0, method: 'fileinfo+literal' };
      }
    }
    if (q.fileinfo && q.lineno !== null && q.lineno !== undefined) {
      const r = this.byFileinfo(q.fileinfo, q.lineno, message, continuation, true, q.level);
      if (r && (r.verified || r.candidates)) return r;
      fallback = r;
      // The file exists but its statement is gone: still try the hop table and the index,
      // then settle for the printed line, unverified.
    }
    if (continuation) return fallback;
    return this.byHop(q.hop, message) ?? this.byIndex(q.hop, message, fallback, q) ?? fallback;
  }

  /** The statement a verified location points at (for the memo's fast path). */
  private statementAt(loc: SourceLocation): IndexedStatement | null {
    const fs = this.statementsOf(loc.path);
    if (fs) {
      const direct = fs.byLine.get(loc.line);
      if (direct?.length === 1) return direct[0];
      const byText = fs.all.filter((s) => s.line === loc.line || s.textLine === loc.line || s.variants.some((v) => v.textLine === loc.line));
      if (byText.length === 1) return byText[0];
    }
    // From the index (a file the lazy reader does not know), or ambiguous: no fast path.
    return null;
  }

  /** The parsed statements of one checkout file (memoised; null when unreadable). */
  private statementsOf(path: string): FileStatements | null {
    if (this.fileStatements.has(path)) return this.fileStatements.get(path)!;
    if (!this.index && !this.syncFileReads) return null; // not on this thread: wait for the index
    let fs: FileStatements | null = null;
    if (this.files.files.has(path)) {
      // With the index ready, no file is read on this thread: the worker already parsed it.
      let statements: readonly IndexedStatement[] | null;
      if (this.index) {
        statements = this.index.isSkipped(path) ? null : this.index.statementsIn(path);
      } else {
        const r = indexSourceFile(this.checkout.root, path);
        statements = r.skipped ? null : r.statements;
      }
      if (statements) {
        // Keyed by every line of the call: Python ≥3.11 prints its first line, older
        // versions a line inside it (the printed line still names this statement). V0's
        // `Initializing an LLM engine (v%s) with config: …` call runs to some 60 lines.
        const byLine = new Map<number, IndexedStatement[]>();
        for (const s of statements) {
          for (let line = s.line; line <= Math.min(s.endLine ?? s.line, s.line + 150); line++) {
            const l = byLine.get(line);
            if (l) l.push(s); else byLine.set(line, [s]);
          }
        }
        fs = { all: [...statements], byLine };
      }
    }
    this.fileStatements.set(path, fs);
    return fs;
  }

  private compiled(s: IndexedStatement) {
    let c = this.compiledMemo.get(s);
    if (!c) { c = s.variants.map(compileVariant); this.compiledMemo.set(s, c); }
    return c;
  }

  /** Literal weight of `s` that a cut-short `message` still shows (-1: it cannot be the start of what `s` prints). */
  private cutWeight(s: IndexedStatement, message: string): number {
    let w = -1;
    for (const v of s.variants) w = Math.max(w, shortenedWeight(compilePattern(v.p, v.open), message));
    return w;
  }

  /** Literal weight with which `s` can print `message` (-1: it cannot). */
  private weight(s: IndexedStatement, message: string, continuation: boolean): number {
    if (continuation) return this.continuationWeight(s, message);
    const compiled = this.compiled(s);
    let w = -1;
    for (let i = 0; i < compiled.length; i++) {
      const vw = variantMatches(compiled[i], message);
      if (vw > w) w = vw;
    }
    return w;
  }

  /** The variant of `s` that prints `message` with the most literal text, and where its text starts. */
  private bestVariant(s: IndexedStatement, message: string): { w: number; textLine: number } {
    let w = -1;
    let textLine = s.textLine;
    this.compiled(s).forEach((c, i) => {
      const vw = variantMatches(c, message);
      if (vw > w) { w = vw; textLine = s.variants[i].textLine; }
    });
    return { w, textLine };
  }

  /**
   * A continuation line (after a `\n` in the message) belongs to the statement when a later line of its text matches, or when a
   * value or traceback may hold the newline.
   */
  private continuationWeight(s: IndexedStatement, message: string): number {
    if (s.traceback) return 0;
    return Math.max(s.variants.some((v) => v.p.includes(WILD)) ? 0 : -1, this.laterLineWeight(s, message));
  }

  /** Literal weight of the later line of `s`'s text (after a `\n`) that prints `message`, or -1. */
  private laterLineWeight(s: IndexedStatement, message: string): number {
    let best = -1;
    for (const c of this.laterLines(s)) if (c.weight > best && matchesPattern(c, message)) best = c.weight;
    return best;
  }

  /** Whether only variants that can print any text (`logger.info(msg)`) print `message`. */
  private looseOnly(s: IndexedStatement, message: string): boolean {
    const compiled = this.compiled(s);
    for (let i = 0; i < compiled.length; i++) {
      const p = s.variants[i].p;
      if (!(p.length === 1 && p[0] === WILD) && variantMatches(compiled[i], message) >= 0) return false;
    }
    if (this.laterLineWeight(s, message) >= 0) return false;
    return true;
  }

  private laterLines(s: IndexedStatement): CompiledPattern[] {
    let later = this.continuationMemo.get(s);
    if (!later) {
      later = s.variants.flatMap((v) => patternLines(v.p).slice(1).map((line) => compilePattern(line)));
      this.continuationMemo.set(s, later);
    }
    return later;
  }

  /** A statement is named by its call's first line: what Python's %(lineno)d prints, for both engines. */
  private reportedLine(s: IndexedStatement): number {
    return s.line;
  }

  private byFileinfo(fileinfo: string, lineno: number, message: string, continuation: boolean, searchMoved = true,
    level: string | null = null): SourceLocation | null {
    const cands = this.fileCandidates(fileinfo);
    if (cands.length === 0) return null;
    // 1. The printed line holds a statement that prints this message. A line inside the call
    //    (older Pythons print one) names the same statement, at its first line. Of several files
    //    a basename names, the call of the printed level first, then the one that prints the most.
    //    A line of a multi-line message whose line break a paste lost (no continuation mark)
    //    is checked against the message's later lines too; a call that prints its text beats one
    //    that can print any text (`logger.info(msg)`).
    let exact: { path: string; line: number; w: number; fits: boolean; loose: boolean } | null = null;
    for (const path of cands) {
      const fs = this.statementsOf(path);
      for (const s of fs?.byLine.get(lineno) ?? []) {
        let w = this.weight(s, message, continuation);
        if (!continuation) w = Math.max(w, this.laterLineWeight(s, message));
        if (w < 0) continue;
        const fits = levelFits(s.level, level);
        const loose = w === 0 && this.looseOnly(s, message);
        if (!exact || better(w, fits, loose, exact)) exact = { path, line: s.line, w, fits, loose };
      }
    }
    if (!exact && !continuation) {
      // A line cut short: the statement at the printed line prints what it still shows.
      for (const path of cands) {
        for (const s of this.statementsOf(path)?.byLine.get(lineno) ?? []) {
          const w = this.cutWeight(s, message);
          if (w >= CUT_MIN_WEIGHT && (!exact || w > exact.w)) exact = { path, line: s.line, w, fits: true, loose: false };
        }
      }
    }
    if (!exact && !continuation && TRACEBACK_LINE.test(message)) {
      // A traceback line of a record whose line-break marks a paste lost (vLLM repeats the header
      // on each): printed by the call at the printed line when that call prints a traceback.
      for (const path of cands) {
        const s = this.statementsOf(path)?.byLine.get(lineno)?.find((t) => t.traceback);
        if (s) { exact = { path, line: s.line, w: 0, fits: true, loose: false }; break; }
      }
    }
    if (exact) return { path: exact.path, line: exact.line, verified: true, drift: 0, method: 'fileinfo' };
    // 2. The checkout is at another commit: the same statement elsewhere in the file, or in
    //    any file the printed name fits (a basename several files share).
    // The statements that print the text, looked for once for the three questions below.
    const printing = !continuation && searchMoved ? this.printing(cands, message) : [];
    const moved = nearestOf(printing, message, lineno);
    if (moved && cands.length > 1) {
      // Files the printed name fits that print the text, none at the printed line: a line number
      // says nothing across files (vLLM 0.8.5's `[api_server.py:1043] vLLM API server version` is
      // entrypoints/openai/api_server.py's, not the demo server's entrypoints/api_server.py:127 that
      // 0.11.2 has nearer). Candidates, never a claim, when more than one file prints it.
      const across = rankedOf(printing, message, level);
      if (new Set(across.map((t) => t.path)).size > 1) {
        const shown = across.slice(0, MAX_CANDIDATES).map(({ path, line }) => ({ path, line }));
        return {
          path: shown[0].path, line: shown[0].line, verified: false, drift: 0, method: 'fileinfo+literal', candidates: shown,
          note: `${new Set(across.map((t) => t.path)).size} files named ${fileinfo.split('/').pop()} print this text, none at the printed line: `
            + 'nothing in the line tells which one printed it',
        };
      }
    }
    if (moved) {
      // Two statements print this text as specifically and neither is at the printed line (vLLM 0.34.0's
      // `Added request %s.` at 575 and 601 for a line printed at 382): the nearer one is a guess.
      const tied = tiedOf(printing, moved.w);
      if (tied.length > 1 && tied.length <= MAX_CANDIDATES && !clearlyNearest(tied.filter((t) => t.path === moved.path).map((t) => t.line), lineno)) {
        return {
          path: tied[0].path, line: tied[0].line, verified: false, drift: 0, method: 'fileinfo+literal', candidates: tied,
          note: `${tied.length} statements print this text, none at the printed line: nothing in the line tells which one printed it`,
        };
      }
      return { path: moved.path, line: moved.line, verified: true, drift: moved.line - lineno, method: 'fileinfo+literal' };
    }
    // 3. Unverified: the printed line of the likeliest file (one with a logging call there).
    if (!this.index && !this.syncFileReads) {
      return { path: cands[0], line: lineno, verified: false, drift: 0, method: 'fileinfo', note: 'the checkout is still being indexed' };
    }
    const withCalls = cands.filter((p) => this.statementsOf(p)?.byLine.has(lineno));
    // Of several files the printed name fits, a guess only when one of them has a call there:
    // else the line is another package's (a platform plugin prints through vLLM's logger from
    // its own `utils.py`), or nothing tells which file it is.
    if (cands.length > 1 && withCalls.length !== 1) return null;
    const withCall = withCalls[0];
    const note = withCall
      ? 'the logging call on this line of the checkout cannot print this message, and no statement in the file can (is the checkout at another commit?)'
      : cands.some((p) => this.statementsOf(p))
        ? 'this line of the checkout holds no logging call, and no statement in the file prints this message (is the checkout at another commit?)'
        : 'the file could not be read';
    return { path: withCall ?? cands[0], line: lineno, verified: false, drift: 0, method: 'fileinfo', note };
  }

  /** Every statement of these files that prints `message` (a weight above 0), in file and statement order. */
  private printing(cands: readonly string[], message: string): Printing[] {
    const out: Printing[] = [];
    for (const path of cands) {
      for (const s of this.statementsOf(path)?.all ?? []) {
        // A line of a multi-line message (its continuation mark lost) is found by its own line of the text.
        const w = Math.max(this.weight(s, message, false), this.laterLineWeight(s, message));
        if (w > 0) out.push({ path, line: s.line, w, level: s.level });
      }
    }
    return out;
  }

  /** The statements of these files that print the message with this weight, in file and line order. */
  private tiedInFiles(cands: readonly string[], message: string, weight: number): Array<{ path: string; line: number }> {
    return tiedOf(this.printing(cands, message), weight);
  }

  /** The statement of these files that prints `message` (specific enough to claim it), nearest to `near` when given, else the first. */
  private searchFiles(cands: readonly string[], message: string, near: number | null): { path: string; line: number; w: number } | null {
    return nearestOf(this.printing(cands, message), message, near);
  }

  private byHop(hop: string | null, message: string): SourceLocation | null {
    const cit = hop ? this.citations[hop] : undefined;
    if (!cit) return null;
    const fs = this.statementsOf(cit.path);
    if (!fs) return null;
    let best: { s: IndexedStatement; line: number; w: number } | null = null;
    let bestAtCitation = false;
    const fits: Array<{ line: number; w: number }> = [];
    for (const s of fs.all) {
      const { w } = this.bestVariant(s, message);
      if (w < 0) continue;
      const line = this.reportedLine(s);
      const atCitation = line === cit.line || s.line === cit.line;
      if (!atCitation && (w === 0 || !specificEnough(w, message))) continue;
      fits.push({ line, w });
      const d = atCitation ? 0 : Math.abs(line - cit.line);
      const bd = best ? (best.line === cit.line || best.s.line === cit.line ? 0 : Math.abs(best.line - cit.line)) : Infinity;
      if (!best || d < bd || (d === bd && w > best.w)) { best = { s, line: atCitation ? cit.line : line, w }; bestAtCitation = atCitation; }
    }
    const chosen = best;
    if (chosen !== null && !bestAtCitation) {
      // Not at the table's line (another release): when another statement of the file prints this text as
      // specifically (vLLM 0.34's `Added request %s.` for a request and for each child of an n>1 one),
      // being nearer the table's line does not tell which printed it.
      const tied = fits.filter((f) => f.w === chosen.w).map((f) => ({ path: cit.path, line: f.line })).sort((a, b) => a.line - b.line);
      if (tied.length > 1 && tied.length <= MAX_CANDIDATES && !clearlyNearest(tied.map((t) => t.line), cit.line)) {
        return {
          path: tied[0].path, line: tied[0].line, verified: false, drift: 0, method: 'hop-table', candidates: tied,
          note: `${tied.length} statements of ${cit.path} print this text and nothing in the line tells which one printed it`,
        };
      }
    }
    if (!best) {
      // The hop's line cut short: the statement of the cited file that prints what it still shows, nearest the citation.
      for (const s of fs.all) {
        const w = this.cutWeight(s, message);
        if (w < CUT_MIN_WEIGHT) continue;
        const d = Math.abs(s.line - cit.line);
        if (!best || d < Math.abs(best.line - cit.line) || (d === Math.abs(best.line - cit.line) && w > best.w)) best = { s, line: s.line, w };
      }
    }
    if (!best) return null;
    return { path: cit.path, line: best.line, verified: true, drift: best.line - cit.line, method: 'hop-table' };
  }

  /**
   * Of statements that print a message with the same literal text (the same words in several files
   * of a real checkout: a backend's copy of the model runner, a test helper), the one that wrote it:
   * the only one whose text is the whole message, else the only one in a preferred file (the hop's,
   * the printed file's), else the only one whose literal text the line reaches first (`loading {name}. {e}`
   * over `loading {name}: {e}` for `loading a.b. x: y`: the other would need its field to hold
   * `a.b. x`), else the only one in a file (or else a folder) this log's other lines came from.
   * null when nothing tells them apart: a wrong file is worse than none.
   */
  private breakTie(tied: StatementMatch[], prefer: readonly string[], message: string): StatementMatch | null {
    const byStatement = new Map<IndexedStatement, StatementMatch>();
    for (const m of tied) if (!byStatement.has(m.statement)) byStatement.set(m.statement, m);
    let cands = [...byStatement.values()];
    if (cands.length === 1) return cands[0];
    const whole = cands.filter((m) => !m.variant.open && m.variant.p.every((x) => x !== WILD));
    if (whole.length === 1) return whole[0];
    if (whole.length > 1) cands = whole;
    const preferred = cands.filter((m) => prefer.includes(m.statement.path));
    if (preferred.length === 1) return preferred[0];
    const tightest = tightestFit(cands, message);
    if (tightest) return tightest;
    if (this.seenPaths.size === 0) return null;
    let best: StatementMatch | null = null;
    let bestAffinity = -1;
    let unique = false;
    for (const m of cands) {
      const a = this.affinity(m.statement.path);
      if (a > bestAffinity) { best = m; bestAffinity = a; unique = true; } else if (a === bestAffinity) unique = false;
    }
    return unique && bestAffinity > 0 ? best : null;
  }

  /**
   * Several statements print this text and nothing tells which one did: all of them (at most
   * MAX_CANDIDATES), ranked by agreement with the line (the file it or its logger names, the
   * printed level, the files this log's other lines came from), as one unverified answer.
   */
  private candidatesOf(tied: readonly StatementMatch[], prefer: readonly string[], q: SourceQuery | null): SourceLocation | null {
    const seen = new Set<IndexedStatement>();
    const named = q?.fileinfo ? this.fileCandidates(q.fileinfo) : q?.module ? [this.pathOfModule(q.module)].filter((x): x is string => !!x) : [];
    const ranked: Array<{ path: string; line: number; score: number }> = [];
    for (const m of tied) {
      if (seen.has(m.statement)) continue;
      seen.add(m.statement);
      const st = m.statement;
      const score = (named.includes(st.path) ? 8 : 0) + (prefer.includes(st.path) ? 4 : 0) + (levelFits(st.level, q?.level) ? 2 : 0)
        + this.affinity(st.path) / 2;
      ranked.push({ path: st.path, line: this.reportedLine(st), score });
    }
    if (ranked.length < 2 || ranked.length > MAX_CANDIDATES) return null;
    ranked.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    const candidates = ranked.map(({ path, line }) => ({ path, line }));
    return {
      path: candidates[0].path, line: candidates[0].line, verified: false, drift: 0, method: 'statement-index', candidates,
      note: `${candidates.length} statements print this text and nothing in the line tells which one printed it`,
    };
  }

  /** How close a file is to those this log's lines resolved to: 2 one of them, 1 in the folder of one, else 0. */
  private affinity(path: string): number {
    if (this.seenPaths.has(path)) return 2;
    const dir = path.slice(0, path.lastIndexOf('/') + 1);
    for (const seen of this.seenPaths) if (seen.length > dir.length && seen.startsWith(dir) && seen.indexOf('/', dir.length) < 0) return 1;
    return 0;
  }

  private byIndex(hop: string | null, message: string, fallback: SourceLocation | null, q?: SourceQuery): SourceLocation | null {
    if (!this.index) return null;
    const cit = hop ? this.citations[hop] : undefined;
    const prefer = [cit?.path, fallback?.path].filter((x): x is string => !!x);
    // A line keeps its constant words when cut short or shortened in the middle: it matches by what
    // it shows; a hop line by the statement nearest its hop, any other line only when no other
    // statement shows as much of that text.
    const found = this.index.search(message, { preferPaths: prefer, limit: hop ? 1 : TIE_LIMIT, cutMinWeight: CUT_MIN_WEIGHT });
    let best = found[0];
    if (!best) return null;
    if (!hop && best.cut && found[1] && found[1].weight >= best.weight && found[1].statement !== best.statement) return null;
    if (!hop && !best.cut) {
      const tied = found.filter((m) => !m.cut && m.weight === best.weight);
      // More statements print these words than were looked at: the one that wrote the line may be among the rest.
      if (tied.length >= TIE_LIMIT) return null;
      const chosen = this.breakTie(tied, prefer, message);
      if (!chosen) return this.candidatesOf(tied, prefer, q ?? null);
      best = chosen;
    }
    const line = this.reportedLine(best.statement);
    const drift = cit && cit.path === best.statement.path ? line - cit.line : 0;
    return { path: best.statement.path, line, verified: true, drift, method: 'statement-index' };
  }
}

/**
 * Of statements whose texts differ but fit a line equally (the same literal characters), the only
 * one whose fields hold the least text, field by field from the left: its literal pieces are found
 * where the line shows them first. null when two fit alike (the same text in two files).
 */
function tightestFit(cands: readonly StatementMatch[], message: string): StatementMatch | null {
  const fits: Array<{ m: StatementMatch; spans: number[] }> = [];
  for (const m of cands) {
    const c = compileVariant(m.variant);
    const spans = wildcardSpans(c.whole, message) ?? (c.firstLine ? wildcardSpans(c.firstLine, message) : null);
    if (!spans) return null;
    fits.push({ m, spans });
  }
  const cmp = (a: number[], b: number[]): number => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return 0;
  };
  let best = fits[0];
  let unique = true;
  for (const f of fits.slice(1)) {
    const d = cmp(f.spans, best.spans);
    if (d < 0) { best = f; unique = true; } else if (d === 0) unique = false;
  }
  return unique ? best.m : null;
}

/**
 * Ranks the calls at a printed line: one that prints some of the text beats one that prints any
 * text, then the printed level decides, then the most text, then a call that prints this text
 * (a later line of it) over `logger.info(msg)`.
 */
function better(w: number, fits: boolean, loose: boolean, than: { w: number; fits: boolean; loose: boolean }): boolean {
  if ((w > 0) !== (than.w > 0)) return w > 0;
  if (fits !== than.fits) return fits;
  if (w !== than.w) return w > than.w;
  return than.loose && !loose;
}

/**
 * Whether a statement of this level (`info`, `exception`, null when not visible) can print a line
 * of the printed level (`INFO`, `WARN`; null when the layout prints none).
 */
export function levelFits(stmtLevel: string | null, printed: string | null | undefined): boolean {
  if (!stmtLevel || !printed) return true;
  const want = PRINTED_LEVELS.get(printed) ?? PRINTED_LEVELS.get(printed.toUpperCase());
  if (want === undefined) return true;
  return (stmtLevel === 'exception' ? 'error' : stmtLevel) === want;
}
const PRINTED_LEVELS = new Map([
  ['DEBUG', 'debug'], ['INFO', 'info'], ['WARNING', 'warning'], ['WARN', 'warning'], ['ERROR', 'error'], ['CRITICAL', 'critical'], ['FATAL', 'critical'],
]);

const SHAPE_CHARS = 160;
/**
 * Of statements of one file that print the same text, whether the one nearest `line` is surely the one (a checkout a few
 * commits from the printing server: within 20 lines, and the next over three times as far). Else the nearer is a guess.
 */
/**
 * What changed between a statement and the line another release printed with it: the statement's
 * literal parts the line does not show at all (a part the line shows elsewhere only moved), and the
 * line's own `field: ` labels the statement never prints (quoted text, a prompt, left out).
 */
function changedWhat(s: IndexedStatement, missing: readonly string[], message: string): string {
  const words = (xs: readonly string[]) => xs.slice(0, 4).map((w) => `\`${w}\``).join(', ');
  const lacking = [...new Set(missing.map((l) => l.replace(/^[,;:\s]+|[:\s]+$/g, '')))].filter((x) => x !== '' && !message.includes(x));
  const literal = s.variants.flatMap((v) => v.p.filter((x): x is string => typeof x === 'string')).join('\u0000');
  const unquoted = message.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/g, "''");
  const extra = [...new Set([...unquoted.matchAll(/(?:^|[:,] )([a-z_][a-z0-9_]*): /g)].map((m) => m[1]))].filter((l) => !literal.includes(`${l}:`));
  const parts: string[] = [];
  if (lacking.length) parts.push(`this statement prints ${words(lacking)}, which the line does not show`);
  if (extra.length) parts.push(`the line shows ${words(extra)}, which ${lacking.length ? 'it' : 'this statement'} does not print`);
  return parts.length ? parts.join('; ') : 'its literal text differs from the line';
}

/** A statement of the files a printed name fits that prints a message, and how literally (`w` > 0). */
interface Printing { path: string; line: number; w: number; level: IndexedStatement['level'] }

/** Of `printing`, the one specific enough to claim the message nearest to `near` (the more literal of two as near); null for none. */
function nearestOf(printing: readonly Printing[], message: string, near: number | null): { path: string; line: number; w: number } | null {
  let best: { path: string; line: number; w: number } | null = null;
  for (const { path, line, w } of printing) {
    if (!specificEnough(w, message)) continue;
    if (!best) { best = { path, line, w }; continue; }
    const d = near === null ? 0 : Math.abs(line - near);
    const bd = near === null ? 0 : Math.abs(best.line - near);
    if (d < bd || (d === bd && w > best.w)) best = { path, line, w };
  }
  return best;
}

/** Of `printing`, the places printing with this weight, each once, in file and line order. */
function tiedOf(printing: readonly Printing[], weight: number): Array<{ path: string; line: number }> {
  const out: Array<{ path: string; line: number }> = [];
  for (const { path, line, w } of printing) if (w === weight && !out.some((x) => x.path === path && x.line === line)) out.push({ path, line });
  return out.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
}

/**
 * Of `printing`, the places specific enough to claim the message, each once, ranked: those of the
 * printed level first, then the more literal, then by file and line.
 */
function rankedOf(printing: readonly Printing[], message: string, level: string | null): Array<{ path: string; line: number }> {
  const out: Array<{ path: string; line: number; w: number; fits: boolean }> = [];
  for (const p of printing) {
    if (!specificEnough(p.w, message) || out.some((x) => x.path === p.path && x.line === p.line)) continue;
    out.push({ path: p.path, line: p.line, w: p.w, fits: levelFits(p.level, level) });
  }
  const byPlace = (a: { path: string; line: number }, b: { path: string; line: number }) =>
    (a.path !== b.path ? (a.path < b.path ? -1 : 1) : a.line - b.line);
  return out.sort((a, b) => (a.fits !== b.fits ? (a.fits ? -1 : 1) : a.w !== b.w ? b.w - a.w : byPlace(a, b)));
}

function clearlyNearest(lines: readonly number[], line: number): boolean {
  const d = lines.map((l) => Math.abs(l - line)).sort((a, b) => a - b);
  return d.length < 2 || (d[0] <= 20 && d[1] > 3 * d[0]);
}

/** At most this many statements are offered as a line's candidates (more: no answer at all). */
const MAX_CANDIDATES = 8;
/** Statements with the same words a line is chosen among (more: no claim). */
const TIE_LIMIT = 24;
/** Literal characters a cut-short line must still show of a statement to be verified by them. */
const CUT_MIN_WEIGHT = 12;
/** How every "changed since" note opens. */
const CHANGED_SINCE = 'changed since the release that printed the line';
/** A line of a Python traceback as `logger.exception` / `exc_info=True` prints it after the message. */
const TRACEBACK_LINE = new RegExp(`^(?:${[
  /Traceback \(most recent call last\):/,
  /\s+File "[^"]+", line \d+(?:, in \S.*)?/,
  /\s+\S.*/,
  /(?:During handling of the above exception, another exception occurred|The above exception was the direct cause of the following exception):/,
  /[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)(?:: .*)?/,
].map((r) => r.source).join('|')})$`);
/** A message with its numbers blanked and its tail cut: lines printed by one statement mostly share it. */
function messageShape(message: string): string {
  return (message.length > SHAPE_CHARS ? message.slice(0, SHAPE_CHARS) : message).replace(/\d+/g, '0');
}

/** The last part of a printed file name or path. */
function baseName(printed: string): string {
  return printed.slice(printed.replace(/\\/g, '/').lastIndexOf('/') + 1);
}
