// The Python files of a checkout, and the mapping from what a log line prints as its
// file (a basename, a shrunk path with `...`, or an absolute path) to files of the checkout.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { runGit } from './git';

const SKIP_DIRS = new Set(['.git', 'node_modules', '__pycache__', 'build', 'dist', '.venv', 'venv', '.tox', '.mypy_cache', '.pytest_cache', '.eggs']);

export interface ListOptions {
  /** Use `git ls-files` (true for a git checkout). */
  git: boolean;
  /** Stop after this many files (a bounded walk never runs away on a huge folder). */
  maxFiles?: number;
  /** File name ending to list (default `.py`). */
  ext?: string;
  signal?: AbortSignal;
}

/** Python files (or `opts.ext`) under `packageDir`, relative to `root`, forward slashes, sorted. */
export async function listPythonFiles(root: string, packageDir: string, opts: ListOptions): Promise<string[]> {
  const max = opts.maxFiles ?? 200_000;
  const ext = opts.ext ?? '.py';
  if (opts.git) {
    const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', packageDir];
    const r = await runGit(root, args, { signal: opts.signal, timeoutMs: 30_000 });
    if (r.ok) {
      const files = [...new Set(r.stdout.split('\0').filter((f) => f.endsWith(ext)))];
      return files.slice(0, max).sort();
    }
  }
  const out: string[] = [];
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (out.length >= max || depth > 24 || opts.signal?.aborted) return;
    let entries: import('node:fs').Dirent[];
    try { entries = await fsp.readdir(join(root, rel), { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.endsWith('.egg-info')) await walk(child, depth + 1);
      } else if ((e.isFile() || e.isSymbolicLink()) && e.name.endsWith(ext)) {
        out.push(child);
        if (out.length >= max) return;
      }
    }
  };
  await walk(packageDir, 0);
  return out.sort();
}

export class FileIndex {
  readonly files: ReadonlySet<string>;
  private readonly byBase = new Map<string, string[]>();
  /** The engine's package name (vLLM's vllm, SGLang's sglang): it marks where a printed path enters the checkout. */
  private readonly pkgName: string;
  /** Checkout path of the package's parent ("" for vLLM, "python/" for an SGLang repo). */
  private readonly pkgParent: string;

  constructor(files: readonly string[], packageDir: string) {
    this.files = new Set(files);
    const parts = packageDir.split('/');
    this.pkgName = parts[parts.length - 1];
    this.pkgParent = parts.slice(0, -1).map((p) => p + '/').join('');
    for (const f of files) {
      const base = f.slice(f.lastIndexOf('/') + 1);
      const list = this.byBase.get(base);
      if (list) list.push(f);
      else this.byBase.set(base, [f]);
    }
  }

  withBasename(base: string): readonly string[] {
    return this.byBase.get(base) ?? [];
  }

  /**
   * Checkout files a printed fileinfo may name, best first. vLLM prints paths relative to the
   * package's parent: `async_llm.py` at INFO, `v1/engine/core.py` or
   * `entrypoints/.../utils/request_logger.py` at DEBUG (engine-facts §A.4); a logging config
   * with `%(pathname)s` prints absolute paths from another machine or a container.
   */
  candidates(fileinfo: string): string[] {
    const fi = fileinfo.trim().replace(/\\/g, '/');
    if (!fi || fi.startsWith('<')) return [];
    const base = fi.slice(fi.lastIndexOf('/') + 1);
    const sameBase = this.withBasename(base);
    if (sameBase.length === 0) return [];
    const pkgRoot = this.pkgParent + this.pkgName + '/';
    if (/^(?:\/|[A-Za-z]:\/)/.test(fi)) {
      // Absolute: enter the checkout at the last `/<pkg>/` that leads to a real file.
      const marker = `/${this.pkgName}/`;
      for (let at = fi.lastIndexOf(marker); at >= 0; at = at === 0 ? -1 : fi.lastIndexOf(marker, at - 1)) {
        const candidate = this.pkgParent + fi.slice(at + 1);
        if (this.files.has(candidate)) return [candidate];
      }
      return bySuffix(sameBase, fi);
    }
    const parts = fi.split('/');
    const dots = parts.indexOf('...');
    if (dots >= 0) {
      const head = pkgRoot + parts.slice(0, dots).map((p) => p + '/').join('');
      const tail = '/' + parts.slice(dots + 1).join('/');
      return sameBase.filter((f) => f.startsWith(head) && f.endsWith(tail) && f.length - tail.length > head.length);
    }
    if (parts.length > 1) {
      const exact = pkgRoot + fi;
      if (this.files.has(exact)) return [exact];
      if (this.files.has(this.pkgParent + fi)) return [this.pkgParent + fi];
      // Already a path of the checkout (a logger's module path mapped to its file).
      if (this.files.has(fi)) return [fi];
      return sameBase.filter((f) => f.endsWith('/' + fi));
    }
    // A basename: every file with that name is a candidate; shallower first.
    return [...sameBase].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  }
}

/** Files ordered by how many trailing path parts they share with `printed`. */
function bySuffix(files: readonly string[], printed: string): string[] {
  const p = printed.split('/').reverse();
  const shared = (f: string) => {
    const q = f.split('/').reverse();
    let n = 0;
    while (n < q.length && n < p.length && q[n] === p[n]) n++;
    return n;
  };
  return [...files].sort((a, b) => shared(b) - shared(a));
}
