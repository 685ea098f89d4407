// The source of the release that printed a log: the engine and version the log states, the
// same version installed in a Python environment (read in place), or that release's wheel
// fetched through the user's own pip (their index and proxy settings hold) and unpacked once
// into the tool cache. A checkout at another version makes every lens a guess across versions;
// the release's own files are the ones that printed the lines.
//
// Why wheels: `pip download --no-binary :all:` of vLLM's sdist runs its build back-end to read
// the metadata (it needs vLLM's build dependencies), so it fails on a plain machine. The wheel
// needs no build; only its .py files are kept (a vLLM wheel is 200–420 MB, its Python 2–56 MB).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Engine } from '../logs/model';
import { engineProfile, engineProfiles, isEngine } from '../../engines/registry';

export interface ReleaseSpec { engine: Engine; version: string }

/** What a log says about the release that wrote it, and the line that says it (1-based). */
export interface StatedRelease extends ReleaseSpec { line: number }

/** `vllm==0.8.5`, `sglang==0.5.1.post3`: the spec the CLI takes (an engine with a checkout shape); null for anything else. */
export function parseReleaseSpec(text: string): ReleaseSpec | null {
  const m = /^\s*([A-Za-z][\w-]*)\s*==\s*(\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?(?:\+[A-Za-z0-9.]+)?)\s*$/i.exec(text);
  const engine = m?.[1].toLowerCase();
  return m && isEngine(engine) && engineProfile(engine).checkout ? { engine, version: m[2] } : null;
}

export function releaseLabel(spec: ReleaseSpec): string {
  return `${engineProfile(spec.engine).label} ${spec.version}`;
}

const VERSION = String.raw`(\d+\.\d+(?:\.\d+)*(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?(?:\+[A-Za-z0-9.]+)?)`;

/** The wordings that state a version, per engine (its profile's `checkout.releaseStated`, each read from a real release tree). */
function statedWordings(): ReadonlyArray<{ engine: Engine; re: RegExp }> {
  return engineProfiles().flatMap((p) => (p.checkout?.releaseStated(VERSION) ?? []).map((re) => ({ engine: p.id, re })));
}

/** The first release a log's lines state (looked for in its first `maxLines` lines). */
export function statedRelease(lines: Iterable<string>, maxLines = 5000): StatedRelease | null {
  const stated = statedWordings();
  let n = 0;
  for (const line of lines) {
    if (++n > maxLines) break;
    if (line.indexOf('ersion') < 0 && line.indexOf('engine (v') < 0) continue;
    for (const { engine, re } of stated) {
      const m = re.exec(line);
      const version = m?.slice(1).find((g) => g !== undefined);
      if (version) return { engine, version, line: n };
    }
  }
  return null;
}

/** `${XDG_CACHE_HOME:-~/.cache}/hoplens/releases`: one folder per release, `<engine>-<version>`. */
export function releaseCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens', 'releases');
}

export function releaseDir(spec: ReleaseSpec, cacheRoot = releaseCacheRoot()): string {
  return join(cacheRoot, `${spec.engine}-${spec.version}`);
}

/** Written into each unpacked release: what it is and where it came from. */
export interface ReleaseManifest extends ReleaseSpec { wheel: string; files: number; pythonBytes: number; fetchedAt: string }
const MANIFEST = 'hoplens-release.json';

/** The unpacked release in the cache, if it is there (it is complete: it was renamed into place). */
export function cachedRelease(spec: ReleaseSpec, cacheRoot = releaseCacheRoot()): string | null {
  const dir = releaseDir(spec, cacheRoot);
  return existsSync(join(dir, MANIFEST)) ? dir : null;
}

/** The manifest of a release source folder, null for any other folder. */
export function releaseManifestOf(dir: string): ReleaseManifest | null {
  try { return JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as ReleaseManifest; } catch { return null; }
}

/** The release sources in the cache. */
export function listReleaseSources(cacheRoot = releaseCacheRoot()): Array<ReleaseManifest & { dir: string }> {
  let names: string[];
  try { names = readdirSync(cacheRoot); } catch { return []; }
  const out: Array<ReleaseManifest & { dir: string }> = [];
  for (const name of names) {
    const dir = join(cacheRoot, name);
    try { out.push({ ...(JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as ReleaseManifest), dir }); } catch { /* not one of ours */ }
  }
  return out.sort((a, b) => a.dir.localeCompare(b.dir));
}

/** Removes every release source (and any half-fetched one); returns the folders removed. */
export function removeReleaseSources(cacheRoot = releaseCacheRoot()): string[] {
  let names: string[];
  try { names = readdirSync(cacheRoot); } catch { return []; }
  const removed: string[] = [];
  for (const name of names) {
    const dir = join(cacheRoot, name);
    if (!existsSync(join(dir, MANIFEST)) && !name.startsWith('.fetch-')) continue; // only what this module wrote
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

export class ReleaseSourceError extends Error {
  constructor(message: string, readonly kind: 'no-python' | 'no-pip' | 'not-found' | 'offline' | 'failed' | 'cancelled') { super(message); }
}

interface RunResult { code: number | null; stdout: string; stderr: string; spawnError: NodeJS.ErrnoException | null; timedOut: boolean }

/** Runs a program (never a shell) with a deadline; lines of stderr go to `onLine` as they come. */
function run(cmd: string, args: string[], opts: { timeoutMs: number; signal?: AbortSignal; onLine?: (line: string) => void }): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = '', stderr = '', timedOut = false, pending = '';
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, signal: opts.signal,
      env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_INPUT: '1', PYTHONIOENCODING: 'utf-8' },
    });
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGTERM'); }, opts.timeoutMs);
    const feed = (chunk: string) => {
      pending += chunk;
      const parts = pending.split(/\r?\n|\r/);
      pending = parts.pop() ?? '';
      for (const p of parts) if (p.trim()) opts.onLine?.(p);
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; feed(c); });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19)); feed(c); });
    let spawnError: NodeJS.ErrnoException | null = null;
    child.on('error', (e) => { spawnError = e; });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr, spawnError, timedOut }); });
  });
}

/** Reads where an installed engine's package is and its version, without importing it (find_spec of a top-level name does not run it). */
const LOCATE_SCRIPT = `
import sys, json, importlib.util, importlib.metadata as md
name = sys.argv[1]
try:
    version = md.version(name)
except md.PackageNotFoundError:
    print(json.dumps(None)); sys.exit(0)
spec = importlib.util.find_spec(name)
locs = list(spec.submodule_search_locations or []) if spec else []
print(json.dumps({"version": version, "package": locs[0] if locs else None}))
`;

export interface InstalledRelease extends ReleaseSpec { root: string; packageDir: string; python: string }

/** The engine installed for this Python: its version and the folder that holds its package (read in place). */
export async function installedRelease(python: string, engine: Engine,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<InstalledRelease | null> {
  const r = await run(python, ['-c', LOCATE_SCRIPT, engine], { timeoutMs: opts.timeoutMs ?? 15_000, signal: opts.signal });
  if (r.spawnError || r.code !== 0) return null;
  let found: { version: string; package: string | null } | null;
  try { found = JSON.parse(r.stdout.trim().split('\n').pop() ?? 'null') as typeof found; } catch { return null; }
  if (!found?.package) return null;
  return { engine, version: found.version, root: dirname(found.package), packageDir: engine, python };
}

/** Extracts a wheel's .py files under `prefix` (SGLang's go under python/, as in its repository, so hop citations hold). */
const EXTRACT_SCRIPT = `
import sys, zipfile, os, json
wheel, dest, prefix, package = sys.argv[1:5]
n = size = 0
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        name = info.filename
        parts = name.split('/')
        if not name.endswith('.py') or parts[0] != package or '..' in parts or name.startswith('/'):
            continue
        target = os.path.join(dest, prefix, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(info) as src, open(target, 'wb') as out:
            data = src.read(); out.write(data)
        n += 1; size += len(data)
print(json.dumps({"files": n, "bytes": size}))
`;

/**
 * Interpreter tags: 3.12 first (abi3 and pure wheels, any Requires-Python: vLLM ≥ 0.5 and most
 * SGLang), then the per-CPython wheels of vLLM ≤ 0.5.1 and SGLang ≥ 0.5.11 (cp311 only), asked in
 * parallel: the real index answers each in about 5 s, so an unknown version costs ~10 s, not 30.
 */
const FIRST_TAG = '3.12';
const CPYTHON_TAGS = ['3.11', '3.10', '3.9', '3.8'];
/** pip does not widen an explicit --platform, so the manylinux generations are listed. */
const PLATFORMS = ['manylinux_2_39_x86_64', 'manylinux_2_35_x86_64', 'manylinux_2_34_x86_64', 'manylinux_2_31_x86_64', 'manylinux_2_28_x86_64',
  'manylinux_2_17_x86_64', 'manylinux2014_x86_64', 'manylinux2010_x86_64', 'manylinux1_x86_64', 'linux_x86_64'];

export interface FetchOptions {
  /** The Python whose pip fetches (the user's: their pip.conf, index and proxy hold). Default `python3`. */
  python?: string;
  cacheRoot?: string;
  signal?: AbortSignal;
  /** pip's own progress lines and our steps, for a status line. */
  onProgress?: (line: string) => void;
  /** Deadline per pip run (default 10 minutes: a 400 MB wheel on a slow link). */
  timeoutMs?: number;
}

export interface FetchedRelease extends ReleaseSpec { root: string; fromCache: boolean; manifest: ReleaseManifest }

function pipDownloadArgs(spec: ReleaseSpec, py: string, dest: string): string[] {
  const abi = `cp${py.replace('.', '')}`;
  return ['-m', 'pip', 'download', '--no-deps', '--no-cache-dir', '--only-binary', ':all:', '--ignore-requires-python', '--progress-bar', 'off',
    '--python-version', py, '--implementation', 'cp', '--abi', abi, '--abi', 'abi3', '--abi', 'none',
    ...PLATFORMS.flatMap((p) => ['--platform', p]), '--dest', dest, `${spec.engine}==${spec.version}`];
}

/** A pip failure in words: what the user can act on. */
function pipFailure(spec: ReleaseSpec, r: RunResult): ReleaseSourceError {
  const text = r.stderr;
  if (r.timedOut) return new ReleaseSourceError(`pip did not finish fetching ${spec.engine}==${spec.version} in time`, 'offline');
  if (/No matching distribution found|Could not find a version that satisfies/i.test(text)) {
    // Every index lists some release of vllm and sglang: none at all is an index pip could not read.
    if (/from versions: none\)/.test(text)) {
      const message = `pip cannot reach its package index (offline?), or the index has no ${spec.engine}: `
        + `${spec.engine}==${spec.version} was not fetched`;
      return new ReleaseSourceError(message, 'offline');
    }
    return new ReleaseSourceError(`${spec.engine}==${spec.version} is not a release the package index has a wheel of`, 'not-found');
  }
  if (/No module named pip/i.test(text)) return new ReleaseSourceError('this Python has no pip (python -m pip failed)', 'no-pip');
  const last = text.trim().split('\n').filter((l) => /error/i.test(l)).pop() ?? text.trim().split('\n').pop() ?? `exit ${String(r.code)}`;
  return new ReleaseSourceError(`pip download failed: ${last.trim().slice(0, 300)}`, 'failed');
}

/** One pip download per interpreter tag until one yields the wheel; the first success stops the rest. */
async function downloadWheel(spec: ReleaseSpec, python: string, dest: string, opts: FetchOptions, say: (line: string) => void): Promise<string> {
  const attempt = async (py: string, signal: AbortSignal | undefined): Promise<string> => {
    const dir = join(dest, py);
    mkdirSync(dir, { recursive: true });
    const r = await run(python, pipDownloadArgs(spec, py, dir), {
      timeoutMs: opts.timeoutMs ?? 600_000, signal,
      // pip's steps; its errors are summed up once (each tag would print its own list of versions).
      onLine: (l) => { if (/^\s*(?:Collecting|Downloading|Saved|Successfully downloaded)\b/.test(l)) say(l.trim()); },
    });
    if (signal?.aborted || opts.signal?.aborted) throw new ReleaseSourceError('cancelled', 'cancelled');
    if (r.spawnError) throw new ReleaseSourceError(`${python} was not found (set the Python to use, or install python3)`, 'no-python');
    const wheel = readdirSync(dir).find((n) => n.endsWith('.whl'));
    if (r.code === 0 && wheel) return join(dir, wheel);
    throw pipFailure(spec, r);
  };
  say(`pip download ${spec.engine}==${spec.version} (its wheel)`);
  try {
    return await attempt(FIRST_TAG, opts.signal);
  } catch (e) {
    if (!(e instanceof ReleaseSourceError) || e.kind !== 'not-found') throw e; // offline, no pip: another tag does not help
  }
  const siblings = new AbortController();
  const stop = () => siblings.abort();
  opts.signal?.addEventListener('abort', stop, { once: true });
  try {
    const tries = CPYTHON_TAGS.map((py) => attempt(py, siblings.signal));
    const got = await Promise.any(tries).catch((agg: AggregateError) => {
      const errors = agg.errors as unknown[];
      throw errors.find((e) => e instanceof ReleaseSourceError && e.kind !== 'not-found') ?? errors[0];
    });
    siblings.abort();
    await Promise.allSettled(tries);
    return got;
  } finally { opts.signal?.removeEventListener('abort', stop); }
}

/**
 * That exact release's source, unpacked into the cache once: a temporary folder renamed into
 * place, so a cancelled or failed fetch never leaves a half tree that looks complete.
 */
export async function fetchRelease(spec: ReleaseSpec, opts: FetchOptions = {}): Promise<FetchedRelease> {
  const cacheRoot = opts.cacheRoot ?? releaseCacheRoot();
  const done = cachedRelease(spec, cacheRoot);
  if (done) return { ...spec, root: done, fromCache: true, manifest: JSON.parse(readFileSync(join(done, MANIFEST), 'utf8')) as ReleaseManifest };
  const python = opts.python ?? 'python3';
  const say = opts.onProgress ?? (() => undefined);
  mkdirSync(cacheRoot, { recursive: true });
  const tmp = join(cacheRoot, `.fetch-${spec.engine}-${spec.version}-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(join(tmp, 'wheel'), { recursive: true });
  try {
    const wheelPath = await downloadWheel(spec, python, join(tmp, 'wheel'), opts, say);
    const wheel = basename(wheelPath);
    say(`unpacking the Python files of ${wheel} (${(statSync(wheelPath).size / 1e6).toFixed(0)} MB)`);
    const prefix = engineProfile(spec.engine).checkout?.releasePrefix ?? '';
    const x = await run(python, ['-c', EXTRACT_SCRIPT, wheelPath, join(tmp, 'tree'), prefix, spec.engine], { timeoutMs: 300_000, signal: opts.signal });
    if (x.code !== 0) throw new ReleaseSourceError(`could not unpack ${wheel}: ${x.stderr.trim().split('\n').pop() ?? ''}`, 'failed');
    const counts = JSON.parse(x.stdout.trim().split('\n').pop() ?? '{}') as { files: number; bytes: number };
    if (!counts.files) throw new ReleaseSourceError(`${wheel} holds no ${spec.engine}/ Python files`, 'failed');
    const manifest: ReleaseManifest = { ...spec, wheel, files: counts.files, pythonBytes: counts.bytes, fetchedAt: new Date().toISOString() };
    writeFileSync(join(tmp, 'tree', MANIFEST), JSON.stringify(manifest, null, 1) + '\n');
    const final = releaseDir(spec, cacheRoot);
    try {
      renameSync(join(tmp, 'tree'), final);
    } catch (e) {
      // Another fetch of the same release finished first: its tree is as good as ours.
      if (!cachedRelease(spec, cacheRoot)) throw e;
    }
    return { ...spec, root: final, fromCache: false, manifest };
  } catch (e) {
    if (opts.signal?.aborted || (e as { name?: string }).name === 'AbortError') throw new ReleaseSourceError('cancelled', 'cancelled');
    throw e;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The release's source to resolve into: the installed engine when it is that version (read in
 * place), else the cached or fetched release. `python` is the interpreter the user chose.
 */
export async function releaseSource(spec: ReleaseSpec, opts: FetchOptions & { fetch?: boolean } = {}): Promise<{ root: string; via: 'installed' | 'release' }> {
  const python = opts.python ?? 'python3';
  const installed = await installedRelease(python, spec.engine, { signal: opts.signal }).catch(() => null);
  if (installed && installed.version === spec.version) return { root: installed.root, via: 'installed' };
  const cached = cachedRelease(spec, opts.cacheRoot);
  if (cached) return { root: cached, via: 'release' };
  if (opts.fetch === false) throw new ReleaseSourceError(`${releaseLabel(spec)} is not installed for ${python} nor fetched yet`, 'not-found');
  return { root: (await fetchRelease(spec, opts)).root, via: 'release' };
}

/** Orders two release versions (`0.4.3` < `0.6.6.post1` < `0.10.2`; a pre-release before its release). */
export function compareVersions(a: string, b: string): number {
  const key = (v: string): number[] => {
    const m = /^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?/.exec(v);
    if (!m) return [];
    const nums = m[1].split('.').map(Number);
    while (nums.length < 4) nums.push(0);
    const pre = m[2] ? { a: -3, b: -2, rc: -1 }[m[2] as 'a' | 'b' | 'rc'] : 0;
    return [...nums.slice(0, 4), pre, m[3] ? Number(m[3]) : 0, m[4] ? Number(m[4]) : -1];
  };
  const x = key(a), y = key(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d < 0 ? -1 : 1;
  }
  return 0;
}
