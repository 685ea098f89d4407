// Finding an engine checkout on disk, reading its commit with git, and comparing it
// with the commit the hop table is pinned to.
import { existsSync, realpathSync, statSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { Engine } from '../logs/model';
import { ENGINE_IDS, engineProfile, engineProfiles, type EngineProfile } from '../../engines/registry';
import type { EngineCheckout, PathMark } from '../../engines/types';
import { runGit } from './git';
import { PINS } from './pins';
import { releaseLabel, releaseManifestOf, type ReleaseSpec } from './release';

export interface CheckoutLayout {
  engine: Engine;
  /** "repo": a git clone of the engine; "site-packages": an installed package's parent folder. */
  layout: 'repo' | 'site-packages';
  /** Folder of the Python package, relative to the root (vLLM's vllm; SGLang's python/sglang in a clone, sglang installed). */
  packageDir: string;
}

export interface CheckoutInfo extends CheckoutLayout {
  /** Absolute, symlinks resolved. */
  root: string;
  /** HEAD commit, or null when the folder is not a git work tree (or git is missing). */
  head: string | null;
  /** Uncommitted changes to .py files (git status), or null when unknown. */
  dirtyPaths: string[] | null;
  /** Why head is null, for a tooltip ("not a git repository", "git not found"). */
  headProblem: string | null;
  /** A release's own source (unpacked from its wheel by core/source/release.ts): which release. */
  release?: ReleaseSpec;
}

function isDir(p: string): boolean {
  try { return statSync(p).isDirectory(); } catch { return false; }
}
function isFile(p: string): boolean {
  try { return statSync(p).isFile(); } catch { return false; }
}

function hasMark(root: string, mark: PathMark): boolean {
  const p = join(root, ...mark.path.split('/'));
  return mark.kind === 'file' ? isFile(p) : isDir(p);
}

/** The profiles with a checkout shape, `engine`'s alone when given, in the registry's order. */
type WithCheckout = EngineProfile & { checkout: EngineCheckout };
function checkoutProfiles(engine?: Engine): WithCheckout[] {
  return engineProfiles().filter((p): p is WithCheckout => p.checkout !== undefined && (engine === undefined || p.id === engine));
}

/**
 * Which engine a folder holds, if any. Accepts a repository root, a site-packages folder
 * that contains the package, or the package folder itself (mapped to its parent). The shapes are
 * the engines' (their profiles' `checkout`).
 */
export function detectCheckout(dir: string, engine?: Engine): (CheckoutLayout & { root: string }) | null {
  const root = resolve(dir);
  if (!isDir(root)) return null;
  const candidates = checkoutProfiles(engine);
  for (const { id, checkout } of candidates) {
    for (const shape of checkout.shapes) {
      if (!shape.marks.some((m) => hasMark(root, m))) continue;
      const layout = typeof shape.layout === 'string' ? shape.layout : shape.layout.repoWhenAny.some((m) => hasMark(root, m)) ? 'repo' : 'site-packages';
      return { engine: id, layout, packageDir: shape.packageDir, root };
    }
  }
  // The package folder itself: .../site-packages/vllm or <repo>/python/sglang, read from the folder that holds it.
  const name = basename(root);
  for (const { id, checkout } of candidates) {
    if (!checkout.shapes.some((s) => basename(s.packageDir) === name) || !checkout.packageMarks.some((m) => hasMark(root, m))) continue;
    const shape = checkout.shapes.find((s) => root.endsWith(sep + s.packageDir.split('/').join(sep)));
    if (shape) return detectCheckout(root.slice(0, root.length - shape.packageDir.length - 1) || sep, id);
  }
  return null;
}

/** Reads HEAD and the dirty .py files of a checkout with git; a folder without git still works. */
export async function inspectCheckout(dir: string, engine?: Engine,
  opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<CheckoutInfo | { error: string }> {
  const found = detectCheckout(dir, engine);
  if (!found) {
    const what = engine !== undefined ? engineProfile(engine).checkout?.notFound ?? `a ${engineProfile(engine).label} checkout`
      : `a ${checkoutProfiles().map((p) => p.label).join(' or ')} checkout`;
    return { error: isDir(dir) ? `${dir} is not ${what}` : `${dir} does not exist or is not a folder` };
  }
  let root = found.root;
  try { root = realpathSync(root); } catch { /* keep the resolved path */ }
  const info: CheckoutInfo = { ...found, root, head: null, dirtyPaths: null, headProblem: null };
  const manifest = releaseManifestOf(root);
  if (manifest && manifest.engine === found.engine) {
    // Not a git tree, and needs none: the files are the release's, byte for byte.
    info.release = { engine: manifest.engine, version: manifest.version };
    info.headProblem = `${releaseLabel(info.release)} · release source`;
    return info;
  }
  const head = await runGit(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], opts);
  if (head.failure === 'git-missing') { info.headProblem = 'git was not found on PATH'; return info; }
  if (!head.ok) {
    const firstLine = head.stderr.trim().split('\n')[0] ?? '';
    info.headProblem = /not a git repository/i.test(head.stderr) ? 'not a git repository' : `git rev-parse failed: ${firstLine}`;
    return info;
  }
  // A site-packages folder inside some unrelated repository must not borrow that repo's HEAD.
  const top = await runGit(root, ['rev-parse', '--show-toplevel'], opts);
  let topReal = top.stdout.trim();
  try { topReal = realpathSync(topReal); } catch { /* keep */ }
  if (!top.ok || topReal !== root) { info.headProblem = 'the folder is inside another git repository, not a checkout of its own'; return info; }
  info.head = head.stdout.trim();
  const st = await runGit(root, ['status', '--porcelain', '-z', '--untracked-files=normal', '--', '*.py'], opts);
  if (st.ok) info.dirtyPaths = parsePorcelainZ(st.stdout);
  return info;
}

/** Paths of `git status --porcelain -z`: `XY path`, and for renames/copies the original path as the next entry. */
export function parsePorcelainZ(out: string): string[] {
  const parts = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const e = parts[i];
    if (e.length < 4) continue;
    paths.push(e.slice(3));
    if (e[0] === 'R' || e[0] === 'C') {
      if (parts[i + 1]) paths.push(parts[i + 1]);
      i++;
    }
  }
  return paths;
}

/**
 * Looks for checkouts in candidate folders (the setting first, then workspace folders),
 * then one level down (a workspace that contains `vllm/` or `sglang/` as a sub-folder),
 * then two levels down for folders named after an engine (`checkouts/vllm`),
 * then a few levels up (a workspace opened inside a checkout).
 * Returns the first match per engine, in candidate order.
 */
/** Whether a folder's name may hold an engine's checkout: it starts with a known engine's id (vllm, SGLang-src). */
function namedAfterEngine(name: string): boolean {
  const lower = name.toLowerCase();
  return ENGINE_IDS.some((id) => lower.startsWith(id));
}

export async function discoverCheckouts(candidates: string[],
  opts: { engine?: Engine; signal?: AbortSignal } = {}): Promise<Partial<Record<Engine, CheckoutInfo>>> {
  const out: Partial<Record<Engine, CheckoutInfo>> = {};
  const seen = new Set<string>();
  const consider = async (dir: string) => {
    const found = detectCheckout(dir, opts.engine);
    if (!found || out[found.engine] || seen.has(found.root)) return;
    seen.add(found.root);
    const info = await inspectCheckout(found.root, found.engine, opts);
    if (!('error' in info)) out[found.engine] = info;
  };
  for (const c of candidates.filter(Boolean)) {
    await consider(c);
  }
  const subFolders = (dir: string): string[] => {
    let names: string[];
    try { names = readdirSync(dir).filter((n) => !n.startsWith('.') && n !== 'node_modules'); } catch { return []; }
    return names.slice(0, 200).map((n) => join(dir, n)).filter(isDir);
  };
  for (const c of candidates.filter(Boolean)) {
    for (const sub of subFolders(c)) await consider(sub);
  }
  // Two levels down, only folders named after an engine (`checkouts/vllm`, `third_party/sglang-src`):
  // a look at every grandchild would stat thousands of folders in a big workspace.
  for (const c of candidates.filter(Boolean)) {
    for (const sub of subFolders(c)) {
      for (const leaf of subFolders(sub)) if (namedAfterEngine(basename(leaf))) await consider(leaf);
    }
  }
  // A workspace opened on a sub-folder of a checkout (e.g. `vllm/vllm/v1`): look up a few levels.
  for (const c of candidates.filter(Boolean)) {
    let dir = resolve(c);
    for (let up = 0; up < 4 && dirname(dir) !== dir; up++) {
      dir = dirname(dir);
      await consider(dir);
    }
  }
  return out;
}

export type PinState = 'pinned' | 'citations-commit' | 'differs' | 'unknown';

interface PinStatusBase {
  engine: Engine;
  head: string | null;
  pin: string;
  /** Commits HEAD is ahead of / behind the pin, when git knows the pin object. */
  ahead: number | null;
  behind: number | null;
}

/** At the pin (or the commit its citations were read at): nothing to say. Otherwise one sentence to show once. */
export type PinStatus =
  | (PinStatusBase & { state: 'pinned' | 'citations-commit'; message: null })
  | (PinStatusBase & { state: 'differs' | 'unknown'; message: string });

/** Compares a checkout's HEAD with the hop table's pin; says so once when they differ. */
export async function comparePin(info: CheckoutInfo, opts: { signal?: AbortSignal; pinSha?: string } = {}): Promise<PinStatus> {
  const pin = { ...PINS[info.engine], ...(opts.pinSha ? { sha: opts.pinSha } : {}) };
  const name = engineProfile(info.engine).label;
  const base: PinStatusBase = { engine: info.engine, head: info.head, pin: pin.sha, ahead: null, behind: null };
  if (info.release) {
    const message = `${releaseLabel(info.release)} · release source: the files of that release (${info.root}); `
      + "line numbers are the release's, the hop table's pin is another version.";
    return { ...base, state: 'unknown', message };
  }
  if (!info.head) {
    const message = `The ${name} source at ${info.root} has no git commit (${info.headProblem ?? 'unknown'}); `
      + 'HopLens verifies each line by its text instead.';
    return { ...base, state: 'unknown', message };
  }
  if (info.head === pin.sha) return { ...base, state: 'pinned', message: null };
  if (info.head === pin.citationsReadAt) return { ...base, state: 'citations-commit', message: null };
  let ahead: number | null = null;
  let behind: number | null = null;
  const has = await runGit(info.root, ['cat-file', '-e', `${pin.sha}^{commit}`], { signal: opts.signal });
  if (has.ok) {
    const counts = await runGit(info.root, ['rev-list', '--left-right', '--count', `${pin.sha}...HEAD`], { signal: opts.signal });
    const m = /^(\d+)\s+(\d+)/.exec(counts.stdout.trim());
    if (counts.ok && m) { behind = Number(m[1]); ahead = Number(m[2]); }
  }
  const where = ahead !== null && behind !== null ? ` (${ahead} commits ahead, ${behind} behind)` : '';
  return {
    ...base,
    state: 'differs',
    ahead,
    behind,
    message: `${name} checkout is at ${info.head.slice(0, 10)}${where}; the hop table is pinned to ${pin.sha.slice(0, 10)}. `
      + 'Line numbers are re-anchored by message text, and drift is shown per line.',
  };
}

/** Whether a path exists, for callers that validate a setting before inspecting it. */
export function pathExists(p: string): boolean {
  return existsSync(p);
}
