// Finding trace folders and files. The tracers' file names and default folders are the engines'
// profiles' (`tracing`: vLLM's VLLM_TRACE_FUNCTION under `<tmp>/<user>/vllm/vllm-instance-<id>/`,
// its older places, SGLang diffusion's copy of the tracer), each file
// `<PREFIX>_for_process_<pid>_thread_<tid>_at_<datetime>.log`.
import { readdir, realpath, stat } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, join, sep } from 'node:path';
import type { DiscoveryResult, IgnoredFile, TraceFileInfo, TraceFlavor, TraceInstance } from './types';
import { ENGINE_PROFILES } from '../../engines/registry';

// The datetime part is whatever Python's str(datetime.now()) gave, so any character (even a newline) is kept.
// The tracers' names are the engines' profiles' (`tracing.files`); made again when an engine is registered.
let traceName: { engines: number; re: RegExp; flavors: Map<string, TraceFlavor> } | null = null;

function traceNames(): { re: RegExp; flavors: Map<string, TraceFlavor> } {
  if (traceName?.engines !== ENGINE_PROFILES.length) {
    const files = ENGINE_PROFILES.flatMap((p) => p.tracing?.files ?? []);
    const re = new RegExp(`^(${files.map((f) => f.prefix).join('|')})_for_process_(\\d+)_thread_(\\d+)_at_([^]+)\\.log$`);
    traceName = { engines: ENGINE_PROFILES.length, re, flavors: new Map(files.map((f) => [f.prefix, f.flavor])) };
  }
  return traceName;
}
/** How deep below a given folder to look (user/vllm/vllm-instance-x/file is 3 levels). */
export const DEFAULT_MAX_DEPTH = 4;
/** Folders with more entries than this are not walked into further (a huge /tmp). */
const MAX_ENTRIES_PER_DIR = 20_000;

export function parseTraceFileName(name: string): Omit<TraceFileInfo, 'path' | 'instanceId' | 'size'> | null {
  const names = traceNames();
  const m = names.re.exec(name);
  if (!m) return null;
  const flavor = names.flavors.get(m[1])!;
  return { pid: Number(m[2]), tid: Number(m[3]), tidText: m[3], startedAt: m[4], flavor };
}

/** An engine instance's id from its traces' folder (a tracer's `instanceDir`: `vllm-instance-<id>`), else the folder's name. */
function instanceId(dirName: string): string {
  for (const p of ENGINE_PROFILES) {
    const m = p.tracing?.instanceDir?.exec(dirName);
    if (m) return m[1];
  }
  return dirName;
}

/** Why a .log-ish file next to traces is not one, in words for the user. */
function ignoreReason(name: string): string | null {
  if (/TRACE_FUNCTION|trace_frame/i.test(name)) {
    return 'name looks like a trace file but does not match `VLLM_TRACE_FUNCTION_for_process_<pid>_thread_<tid>_at_<datetime>.log`';
  }
  return 'not a VLLM_TRACE_FUNCTION file';
}

/** Python's `tempfile.gettempdir()` candidate order: TMPDIR, TEMP, TMP, then the platform's defaults. */
export function pythonTempDirCandidates(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string[] {
  const out: string[] = [];
  for (const name of ['TMPDIR', 'TEMP', 'TMP']) {
    const v = env[name];
    if (v) out.push(v);
  }
  if (platform === 'win32') out.push('C:\\TEMP', 'C:\\TMP', '\\TEMP', '\\TMP');
  else out.push('/tmp', '/var/tmp', '/usr/tmp');
  return out;
}

/** The first candidate that is an existing folder, as Python picks it (it also checks writability). */
export function pythonTempDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  for (const c of pythonTempDirCandidates(env, platform)) {
    try { if (statSync(c).isDirectory()) return c; } catch { /* try the next one */ }
  }
  return platform === 'win32' ? 'C:\\TEMP' : '/tmp';
}

/** Python's `getpass.getuser()`: LOGNAME, USER, LNAME, USERNAME, then the account name. */
export function pythonUserName(env: NodeJS.ProcessEnv = process.env): string {
  for (const name of ['LOGNAME', 'USER', 'LNAME', 'USERNAME']) {
    const v = env[name];
    if (v) return v;
  }
  try { return userInfo().username; } catch { return 'root'; }
}

/** Folders where the engines' tracers put traces by default (vLLM: `<tmp>/<user>/vllm`, and the older `<tmp>/vllm`). */
export function defaultTraceRoots(user: string = pythonUserName(), env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform): string[] {
  const tmp = pythonTempDir(env, platform);
  return ENGINE_PROFILES.flatMap((p) => p.tracing?.defaultDirs?.(user) ?? []).map((parts) => join(tmp, ...parts));
}

/**
 * The folders the Call Traces view lists: the configured ones and vLLM's default places that
 * exist, in that order, then the folders the user opened (listed even when gone: their error shows).
 */
export function traceFolderCandidates(configured: readonly string[], opened: Iterable<string>,
  opts: { defaults?: readonly string[]; exists?: (path: string) => boolean } = {}): string[] {
  const exists = opts.exists ?? existsSync;
  const out = new Set<string>();
  for (const d of [...configured, ...(opts.defaults ?? defaultTraceRoots())]) if (d && exists(d)) out.add(d);
  for (const p of opened) out.add(p);
  return [...out];
}

export interface DiscoveryOptions {
  /** Folder levels below each root to walk (default 4). */
  maxDepth?: number;
  /** Follow symbolic links that lead outside the roots (default: no, they are listed as skipped). */
  followLinksOutside?: boolean;
}

/** True when `path` is `root` or inside it (both real paths). */
function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Walks the given folders (or single files) and groups trace files by vLLM instance. Each file
 * and folder is taken once by its real path (a `sub/up -> ..` loop or two links to one file
 * count once); links that lead out of the roots are not followed unless asked, and folders the
 * depth limit kept out are listed in `skipped`, so "no files" is never said for a walk that stopped.
 */
export async function discoverTraceFiles(paths: readonly string[], options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const byDir = new Map<string, TraceInstance>();
  const ignored: IgnoredFile[] = [];
  const errors: IgnoredFile[] = [];
  const skipped: IgnoredFile[] = [];
  const seenFiles = new Set<string>();
  const walkedDirs = new Set<string>();
  const realRoots: string[] = [];

  // Files are collected first and added afterwards, so that of several names for one file
  // (a link beside the file itself) the real one is kept.
  const found: Array<{ path: string; real: string; viaLink: boolean; size: number | null }> = [];
  const addFile = async (path: string, real: string, size: number | null): Promise<void> => {
    const name = basename(path);
    const parsed = parseTraceFileName(name);
    if (!parsed) { ignored.push({ path, reason: ignoreReason(name) ?? 'not a trace file' }); return; }
    if (seenFiles.has(real)) return;
    seenFiles.add(real);
    const dir = dirname(path);
    let instance = byDir.get(dir);
    if (!instance) {
      const dirName = basename(dir);
      instance = { id: instanceId(dirName), dir, files: [] };
      byDir.set(dir, instance);
    }
    let fileSize = size;
    if (fileSize === null) { try { fileSize = (await stat(path)).size; } catch { fileSize = 0; } }
    instance.files.push({ ...parsed, path, instanceId: instance.id, size: fileSize });
  };

  const walk = async (dir: string, realDir: string, depth: number): Promise<void> => {
    if (walkedDirs.has(realDir)) return;
    walkedDirs.add(realDir);
    let entries;
    try { entries = await readdir(dir, { withFileTypes: true }); }
    catch (e) { errors.push({ path: dir, reason: (e as Error).message }); return; }
    if (entries.length > MAX_ENTRIES_PER_DIR) {
      errors.push({ path: dir, reason: `${entries.length} entries: only trace files directly inside were read` });
    }
    for (const entry of entries) {
      const p = join(dir, entry.name);
      let isFile = entry.isFile();
      let isDir = entry.isDirectory();
      let real = join(realDir, entry.name);
      if (entry.isSymbolicLink()) {
        let target: string | null = null;
        try { target = await realpath(p); const st = await stat(target); isFile = st.isFile(); isDir = st.isDirectory(); }
        catch { isFile = true; } // dangling: a trace name is still listed, and reported unreadable when indexed
        if (target !== null) {
          if (!options.followLinksOutside && !realRoots.some((r) => isInside(target!, r))) {
            if (isDir || /TRACE_FUNCTION|trace_frame/.test(entry.name)) {
              skipped.push({ path: p, reason: `a link to ${target}, outside the folder (not followed)` });
            }
            continue;
          }
          real = target;
        }
      }
      if (isFile) {
        if (entry.name.endsWith('.log') || /TRACE_FUNCTION|trace_frame/.test(entry.name)) {
          found.push({ path: p, real, viaLink: entry.isSymbolicLink(), size: null });
        }
        else if (depth === 0) ignored.push({ path: p, reason: 'not a VLLM_TRACE_FUNCTION file' });
      } else if (isDir && entries.length <= MAX_ENTRIES_PER_DIR) {
        if (depth < maxDepth) await walk(p, real, depth + 1);
        else if (!walkedDirs.has(real)) skipped.push({ path: p, reason: `deeper than ${maxDepth} folder levels below the root (not searched)` });
      }
    }
  };

  const starts: Array<{ path: string; real: string; dir: boolean; size: number }> = [];
  for (const p of paths) {
    let st;
    let real;
    try { st = await stat(p); real = await realpath(p); } catch (e) { errors.push({ path: p, reason: (e as Error).message }); continue; }
    starts.push({ path: p, real, dir: st.isDirectory(), size: st.size });
    realRoots.push(st.isDirectory() ? real : dirname(real));
  }
  for (const s of starts) {
    if (s.dir) await walk(s.path, s.real, 0);
    else found.push({ path: s.path, real: s.real, viaLink: false, size: s.size });
  }
  found.sort((a, b) => Number(a.viaLink) - Number(b.viaLink));
  for (const f of found) await addFile(f.path, f.real, f.size);
  const instances = [...byDir.values()];
  for (const inst of instances) inst.files.sort((a, b) => a.pid - b.pid || a.tidText.localeCompare(b.tidText) || a.startedAt.localeCompare(b.startedAt));
  instances.sort((a, b) => a.dir.localeCompare(b.dir));
  return { instances, ignored, errors, skipped };
}
