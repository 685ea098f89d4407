// An index of every logging statement in a checkout: built once per checkout state (off
// the editor's thread), cached on disk, and searched by a printed message when the line
// carries no usable file:line (SGLang, or a vLLM file that no longer exists).
import { createHash } from 'node:crypto';
import { existsSync, promises as fsp, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Engine } from '../logs/model';
import type { CheckoutInfo } from './checkout';
import { findHelperCalls, findLogStatements, helperCallPattern, type LogHelper, type LogStatement } from './logStatements';
import { findRustLogStatements } from './rustStatements';
import { compilePattern, matchesPattern, patternLines, shortenedWeight, type CompiledPattern, type Pattern } from './messagePattern';

/** Bump when the index layout or the parser's output changes: old cache files are ignored. */
export const INDEX_FORMAT = 13;
/** Larger .py files are skipped (generated tables, vendored blobs), with a reason in the index. */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;
/**
 * Characters of source an index build keeps from its first pass for the second (the callers of
 * logging helpers), so each file is read once: an engine's checkout holds a few tens of MB of Python.
 */
const KEEP_TEXT_CHARS = 96 * 1024 * 1024;

export interface IndexedVariant {
  p: Pattern;
  /** Text may follow (message extended with `+=`). */
  open: boolean;
  textLine: number;
}

export interface IndexedStatement {
  path: string;
  /** First line of the call (what Python ≥3.11 prints). */
  line: number;
  /** Last line of the call: older Pythons print a line inside the call's span. */
  endLine: number;
  textLine: number;
  level: string | null;
  variants: IndexedVariant[];
  traceback: boolean;
  /** The function the call is in, when it is in one (LogStatement.func). */
  fn?: string;
}

export interface StatementIndexData {
  format: number;
  engine: Engine;
  /** The checkout state this index was built from (see statementCacheKey). */
  key: string;
  builtAt: string;
  fileCount: number;
  statements: IndexedStatement[];
  skipped: Array<{ path: string; reason: string }>;
  /**
   * Search key of each variant (statements × variants, in order): a rare piece of its text,
   * prefixed by the piece-length class. Computed where the index is built (a worker), so
   * the editor's thread only fills a map. null: the variant has too little text to search.
   */
  keys?: Array<string | null>;
}

function indexed(path: string, list: LogStatement[]): IndexedStatement[] {
  return list.map((s) => ({
    path,
    line: s.line,
    endLine: s.endLine,
    textLine: s.textLine,
    level: s.level,
    traceback: s.withTraceback,
    variants: s.variants.map((v) => ({ p: v.pattern, open: v.openEnded, textLine: v.textLine })),
    ...(s.func ? { fn: s.func } : {}),
  }));
}

export interface IndexedFile { statements: IndexedStatement[]; skipped: string | null; text?: string }

/**
 * Logging statements of one file, or why it was skipped. Synchronous: callers batch it. With
 * `helpers`, the logging helpers the file defines are added to it (for helperCalls). `text`: the
 * file's text as read (for helperCalls, so a file is read once), unless it was skipped.
 */
export function indexSourceFile(root: string, path: string, maxBytes = MAX_SOURCE_BYTES, helpers?: LogHelper[]): IndexedFile {
  let text: string;
  try {
    const size = statSync(join(root, path)).size;
    if (size > maxBytes) return { statements: [], skipped: `larger than ${Math.round(maxBytes / 1048576)} MB` };
    text = readFileSync(join(root, path), 'utf8');
  } catch (e) {
    return { statements: [], skipped: `unreadable: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  if (text.indexOf('\0') >= 0) return { statements: [], skipped: 'not Python source: binary content (NUL bytes)' };
  try {
    // SGLang's router is Rust (sgl-router/): its tracing macros are statements too.
    if (path.endsWith('.rs')) return { statements: indexed(path, findRustLogStatements(text)), skipped: null };
    const before = helpers?.length ?? 0;
    const statements = indexed(path, findLogStatements(text, helpers));
    // The helpers this file defines know their file (a method called as `self.x(…)` is this file's own).
    if (helpers) for (let k = before; k < helpers.length; k++) helpers[k].files = [path];
    return { statements, skipped: null, text };
  } catch (e) {
    return { statements: [], skipped: `not Python source: ${(e as Error).message}` };
  }
}

/**
 * The calls of logging helpers (found by indexSourceFile) in one file, as statements. `text`: the
 * file's text when the caller kept it from indexSourceFile; else the file is read.
 */
export function helperCalls(root: string, path: string, helpers: ReadonlyMap<string, readonly LogHelper[]>, test: RegExp, text?: string): IndexedStatement[] {
  try {
    const src = text ?? readFileSync(join(root, path), 'utf8');
    if (!test.test(src)) return [];
    return indexed(path, findHelperCalls(src, helpers, path));
  } catch {
    return [];
  }
}

/** Helpers by name; a name defined differently in several files keeps each definition. */
export function helperMap(helpers: readonly LogHelper[]): Map<string, LogHelper[]> {
  const byName = new Map<string, LogHelper[]>();
  for (const h of helpers) {
    const list = byName.get(h.name);
    const same = list?.some((x) => x.index === h.index && x.method === h.method && JSON.stringify([x.before, x.after]) === JSON.stringify([h.before, h.after]));
    if (same) {
      const text = JSON.stringify([h.before, h.after]);
      const kept = list?.find((x) => x.index === h.index && x.method === h.method && JSON.stringify([x.before, x.after]) === text);
      if (kept && h.files) kept.files = [...(kept.files ?? []), ...h.files];
      continue;
    }
    const copy = { ...h, files: h.files ? [...h.files] : undefined };
    if (list) list.push(copy); else byName.set(h.name, [copy]);
  }
  return byName;
}

export interface BuildProgress {
  done: number;
  total: number;
}

export interface BuildOptions {
  signal?: AbortSignal;
  onProgress?: (p: BuildProgress) => void;
  /** Path of the bundled worker (dist/statementIndex.js). Missing or absent: builds in-process. */
  workerScript?: string | null;
  maxFileBytes?: number;
}

/** Message the worker posts back. */
export type WorkerMessage =
  | { type: 'progress'; done: number; total: number }
  | { type: 'done'; statements: IndexedStatement[]; skipped: Array<{ path: string; reason: string }>; keys: Array<string | null> }
  | { type: 'error'; message: string };

export interface WorkerInput {
  root: string;
  files: string[];
  maxFileBytes: number;
}

/** The loop both the worker and the in-process fallback run. `yieldEvery` lets the latter breathe. */
export async function runIndexLoop(
  input: WorkerInput,
  report: (done: number, total: number) => void,
  yieldEvery: number | null,
  signal?: AbortSignal,
): Promise<{ statements: IndexedStatement[]; skipped: Array<{ path: string; reason: string }>; keys: Array<string | null> }> {
  const statements: IndexedStatement[] = [];
  const skipped: Array<{ path: string; reason: string }> = [];
  const helpers: LogHelper[] = [];
  let slice = Date.now();
  const breathe = async () => {
    if (yieldEvery !== null && Date.now() - slice > yieldEvery) {
      await new Promise((res) => setImmediate(res));
      slice = Date.now();
    }
  };
  // The texts read, for the second pass (one read of each file), up to a budget; past it, read again.
  const texts = new Map<string, string>();
  let kept = 0;
  for (let i = 0; i < input.files.length; i++) {
    if (signal?.aborted) throw abortError();
    const r = indexSourceFile(input.root, input.files[i], input.maxFileBytes, helpers);
    for (const s of r.statements) statements.push(s);
    if (r.skipped) skipped.push({ path: input.files[i], reason: r.skipped });
    if (r.text !== undefined && kept + r.text.length <= KEEP_TEXT_CHARS) { texts.set(input.files[i], r.text); kept += r.text.length; }
    if ((i + 1) % 100 === 0) report(i + 1, input.files.length);
    await breathe();
  }
  // Second pass: the callers of logging helpers (defined anywhere in the checkout) are statements too.
  const test = helperCallPattern(helpers);
  if (test) {
    const byName = helperMap(helpers);
    const skip = new Set(skipped.map((x) => x.path));
    for (const f of input.files) {
      if (signal?.aborted) throw abortError();
      if (skip.has(f) || f.endsWith('.rs')) continue;
      for (const s of helperCalls(input.root, f, byName, test, texts.get(f))) statements.push(s);
      await breathe();
    }
  }
  report(input.files.length, input.files.length);
  return { statements, skipped, keys: computeSearchKeys(statements) };
}

function abortError(): Error {
  const e = new Error('statement index build was cancelled');
  e.name = 'AbortError';
  return e;
}

/** Builds the index of `files` under `root`: in a worker thread when a worker script is given. */
export async function buildStatementIndex(root: string, files: string[], engine: Engine, key: string, opts: BuildOptions = {}): Promise<StatementIndexData> {
  const input: WorkerInput = { root, files, maxFileBytes: opts.maxFileBytes ?? MAX_SOURCE_BYTES };
  const report = (done: number, total: number) => opts.onProgress?.({ done, total });
  type Built = { statements: IndexedStatement[]; skipped: Array<{ path: string; reason: string }>; keys: Array<string | null> };
  if (opts.signal?.aborted) throw abortError();
  let viaWorker: Built | null = null;
  if (opts.workerScript && existsSync(opts.workerScript)) {
    viaWorker = await new Promise((resolve, reject) => {
      let settled = false;
      const worker = new Worker(opts.workerScript!, { workerData: input });
      const settle = (f: () => void) => {
        if (settled) return;
        settled = true;
        opts.signal?.removeEventListener('abort', onAbort);
        void worker.terminate();
        f();
      };
      const onAbort = () => settle(() => reject(abortError()));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'progress') report(m.done, m.total);
        else if (m.type === 'done') settle(() => resolve({ statements: m.statements, skipped: m.skipped, keys: m.keys }));
        else settle(() => reject(new Error(m.message)));
      });
      worker.on('error', (e) => settle(() => reject(e)));
      // A script that is not the worker (or one that died) exits without an answer: build here instead.
      worker.on('exit', () => settle(() => resolve(null)));
    });
  }
  const result: Built = viaWorker ?? (await runIndexLoop(input, report, 15, opts.signal));
  return { format: INDEX_FORMAT, engine, key, builtAt: new Date().toISOString(), fileCount: files.length, ...result };
}

/**
 * The cache key of a checkout's current state. A clean git tree is its HEAD commit; a
 * dirty tree adds a digest of the changed .py files' sizes and mtimes (so edits rebuild,
 * and reverting them hits the clean cache again); a folder without git is a digest of
 * every file's path, size and mtime.
 */
export async function statementCacheKey(info: CheckoutInfo, files: readonly string[]): Promise<string> {
  const h = createHash('sha256');
  const stamp = async (rel: string) => {
    try {
      const st = await fsp.stat(join(info.root, rel));
      h.update(`${rel}\0${st.size}\0${Math.floor(st.mtimeMs)}\n`);
    } catch {
      h.update(`${rel}\0gone\n`);
    }
  };
  if (info.head && info.dirtyPaths && info.dirtyPaths.length === 0) return info.head;
  if (info.head && info.dirtyPaths) {
    for (const p of [...info.dirtyPaths].sort()) await stamp(p);
    return `${info.head}+${h.digest('hex').slice(0, 16)}`;
  }
  h.update(info.root + '\n');
  for (const f of files) await stamp(f);
  return `nogit-${h.digest('hex').slice(0, 24)}`;
}

export function cacheFilePath(cacheDir: string, engine: Engine, key: string): string {
  return join(cacheDir, `statements-${engine}-${key.replace(/[^A-Za-z0-9+-]/g, '_')}.json`);
}

/** Reads a cached index if it exists and was built for this key and format. */
export async function loadCachedIndex(cacheDir: string, engine: Engine, key: string): Promise<StatementIndexData | null> {
  try {
    const data = JSON.parse(await fsp.readFile(cacheFilePath(cacheDir, engine, key), 'utf8')) as StatementIndexData;
    return data && data.format === INDEX_FORMAT && data.key === key && data.engine === engine && Array.isArray(data.statements) ? data : null;
  } catch {
    return null;
  }
}

/** Writes atomically (temp file + rename) so a crash never leaves a half-written cache. */
export async function saveCachedIndex(cacheDir: string, data: StatementIndexData): Promise<string> {
  await fsp.mkdir(cacheDir, { recursive: true });
  const file = cacheFilePath(cacheDir, data.engine, data.key);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fsp.writeFile(tmp, JSON.stringify(data));
  await fsp.rename(tmp, file);
  await pruneCache(cacheDir, data.engine, KEEP_CACHED);
  return file;
}

/** Cached indexes kept per engine (one per recently used commit); older ones are deleted. */
export const KEEP_CACHED = 8;

async function pruneCache(cacheDir: string, engine: Engine, keep: number): Promise<void> {
  try {
    const prefix = `statements-${engine}-`;
    const names = (await fsp.readdir(cacheDir)).filter((n) => n.startsWith(prefix) && n.endsWith('.json'));
    if (names.length <= keep) return;
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await fsp.stat(join(cacheDir, n))).mtimeMs })));
    dated.sort((a, b) => b.t - a.t);
    for (const { n } of dated.slice(keep)) await fsp.rm(join(cacheDir, n), { force: true });
  } catch {
    // Pruning is housekeeping: a failure must not fail the index.
  }
}

export interface StatementMatch {
  statement: IndexedStatement;
  variant: IndexedVariant;
  /** Literal characters the match consumed: higher is more specific. */
  weight: number;
  /** Matched as a message cut short (by the literal text it still shows). */
  cut?: boolean;
}

interface CompiledVariant {
  stmt: number;
  variant: IndexedVariant;
  whole: CompiledPattern;
  /** The first printed line of a multi-line message, when the text holds a newline. */
  firstLine: CompiledPattern | null;
}

export function compileVariant(v: IndexedVariant): { whole: CompiledPattern; firstLine: CompiledPattern | null } {
  const whole = compilePattern(v.p, v.open);
  const lines = patternLines(v.p);
  return { whole, firstLine: lines.length > 1 ? compilePattern(lines[0]) : null };
}

/** Whether a printed message (one physical line) is something this variant prints. */
export function variantMatches(c: { whole: CompiledPattern; firstLine: CompiledPattern | null }, message: string): number {
  if (matchesPattern(c.whole, message)) return c.whole.weight;
  if (c.firstLine && matchesPattern(c.firstLine, message)) return c.firstLine.weight;
  return -1;
}

/** A message needs this many literal characters in common with a statement to count as printed by it. */
export function specificEnough(weight: number, message: string): boolean {
  return weight >= 8 || (weight >= 3 && weight * 2 >= message.length);
}

/** Key lengths: a long piece of text is keyed by a rare 8-character piece, a short one by 4. */
const GRAMS = [8, 4] as const;
const SCAN_LIMIT = 4096;
/** Characters of a variant's opening text it is found by when a line is cut short. */
const OPENING = 8;

/** The piece-length class of a literal: 0 for 8-character keys, 1 for 4, -1 too short. */
function gramClass(lit: string): number {
  return lit.length >= GRAMS[0] ? 0 : lit.length >= GRAMS[1] ? 1 : -1;
}

/**
 * Keys each variant by the rarest piece of text among its literals (all of them must appear
 * in a message it prints), so a lookup only tests the few statements that share an unusual
 * piece of text with the message.
 */
export function computeSearchKeys(statements: readonly IndexedStatement[]): Array<string | null> {
  const freq = new Map<string, number>();
  const litsOf: string[][] = [];
  for (const s of statements) {
    for (const v of s.variants) {
      const c = compileVariant(v);
      const lits = (c.firstLine ?? c.whole).lits;
      litsOf.push(lits);
      forEachGram(lits, (k) => freq.set(k, (freq.get(k) ?? 0) + 1));
    }
  }
  return litsOf.map((lits) => {
    let bestKey: string | null = null;
    let bestFreq = Infinity;
    forEachGram(lits, (k, gi) => {
      const f = freq.get(k)! * (gi === 0 ? 1 : 4); // prefer long keys
      if (f < bestFreq) { bestFreq = f; bestKey = k; }
    });
    return bestKey;
  });
}

/** Every search key of a variant's literals: its gram class digit followed by the gram text. */
function forEachGram(lits: readonly string[], visit: (key: string, gramClass: number) => void): void {
  for (const lit of lits) {
    const gi = gramClass(lit);
    if (gi < 0) continue;
    const g = GRAMS[gi as 0 | 1];
    for (let i = 0; i + g <= lit.length; i++) visit(gi + lit.slice(i, i + g), gi);
  }
}

export class StatementIndex {
  readonly data: StatementIndexData;
  private readonly compiled: Array<CompiledVariant | undefined> = [];
  private readonly variants: Array<{ stmt: number; variant: IndexedVariant }> = [];
  private readonly byGram: Array<Map<string, number[]>> = GRAMS.map(() => new Map());
  /** Variants by the first characters their text opens with: a line cut short still shows them. */
  private readonly byOpening = new Map<string, number[]>();
  private readonly byPath = new Map<string, IndexedStatement[]>();
  private skippedPaths: Set<string> | null = null;
  private keyed = false;

  constructor(data: StatementIndexData) {
    this.data = data;
    data.statements.forEach((s) => {
      const list = this.byPath.get(s.path);
      if (list) list.push(s); else this.byPath.set(s.path, [s]);
    });
  }

  /** Fills the search maps from the keys computed at build time (or computes them now, for old data). */
  private ensureKeys(): void {
    if (this.keyed) return;
    this.keyed = true;
    const keys = this.data.keys ?? computeSearchKeys(this.data.statements);
    let ci = 0;
    this.data.statements.forEach((s, si) => {
      for (const v of s.variants) {
        this.variants.push({ stmt: si, variant: v });
        const open = typeof v.p[0] === 'string' && v.p[0].length >= OPENING ? v.p[0].slice(0, OPENING) : null;
        if (open !== null) {
          const list = this.byOpening.get(open);
          if (list) list.push(ci); else this.byOpening.set(open, [ci]);
        }
        const key = keys[ci];
        if (key) {
          const map = this.byGram[Number(key[0])];
          const piece = key.slice(1);
          const list = map.get(piece);
          if (list) list.push(ci); else map.set(piece, [ci]);
        }
        ci++;
      }
    });
  }

  private compiledAt(ci: number): CompiledVariant {
    let c = this.compiled[ci];
    if (!c) {
      const { stmt, variant } = this.variants[ci];
      c = { stmt, variant, ...compileVariant(variant) };
      this.compiled[ci] = c;
    }
    return c;
  }

  get size(): number {
    return this.data.statements.length;
  }

  /** True when the build skipped the file (binary, too large, unreadable). */
  isSkipped(path: string): boolean {
    if (!this.skippedPaths) this.skippedPaths = new Set(this.data.skipped.map((s) => s.path));
    return this.skippedPaths.has(path);
  }

  statementsIn(path: string): readonly IndexedStatement[] {
    return this.byPath.get(path) ?? [];
  }

  /**
   * Statements that can print `message`, most specific first. With `cutMinWeight`, a message cut
   * short (it ends inside a value or a literal) or shortened in the middle (`…`) also matches by the
   * literal text it still shows, at least that many characters, ranked after every full match.
   */
  search(message: string, opts: { preferPaths?: readonly string[]; limit?: number; cutMinWeight?: number } = {}): StatementMatch[] {
    this.ensureKeys();
    const text = message.length > 2 * SCAN_LIMIT ? message.slice(0, SCAN_LIMIT) + '\n' + message.slice(-SCAN_LIMIT) : message;
    const seen = new Set<number>();
    const out: StatementMatch[] = [];
    const consider = (ci: number) => {
      if (seen.has(ci)) return;
      seen.add(ci);
      const c = this.compiledAt(ci);
      const w = variantMatches(c, message);
      if (w >= 0 && specificEnough(w, message)) out.push({ statement: this.data.statements[c.stmt], variant: c.variant, weight: w });
      else if (w < 0 && opts.cutMinWeight !== undefined) {
        const cut = shortenedWeight(c.whole, message);
        if (cut >= opts.cutMinWeight) out.push({ statement: this.data.statements[c.stmt], variant: c.variant, weight: cut, cut: true });
      }
    };
    GRAMS.forEach((g, gi) => {
      const map = this.byGram[gi];
      for (let i = 0; i + g <= text.length; i++) {
        const list = map.get(text.slice(i, i + g));
        if (list) for (const ci of list) consider(ci);
      }
    });
    if (opts.cutMinWeight !== undefined && !out.some((m) => !m.cut)) {
      // Cut short: the rare piece a variant is keyed by may be in the part that is gone; its opening is not.
      const list = this.byOpening.get(message.slice(0, OPENING));
      if (list) for (const ci of list) consider(ci);
    }
    const prefer = new Set(opts.preferPaths ?? []);
    out.sort((a, b) => Number(a.cut ?? false) - Number(b.cut ?? false) || b.weight - a.weight
      || Number(prefer.has(b.statement.path)) - Number(prefer.has(a.statement.path))
      || a.statement.path.localeCompare(b.statement.path) || a.statement.line - b.statement.line);
    return out.slice(0, opts.limit ?? 5);
  }
}
