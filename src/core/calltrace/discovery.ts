// Finding trace folders and files.
// vLLM writes `os.path.join(tempfile.gettempdir(), getpass.getuser(), "vllm",
// f"vllm-instance-{id}", f"VLLM_TRACE_FUNCTION_for_process_{pid}_thread_{tid}_at_{datetime.now()}.log"
// .replace(" ", "_"))`. Older vLLM used `<tmp>/vllm/<instance>/` without the user, and before that
// `/tmp/vllm_trace_frame_for_process_…` (VLLM_TRACE_FRAME). SGLang's diffusion runtime carries a
// copy of the tracer; we accept its wording (`SGLANG_DIFFUSION_TRACE_FUNCTION_for_process_…`).
import { readdir, stat } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { DiscoveryResult, IgnoredFile, TraceFileInfo, TraceFlavor, TraceInstance } from './types';

const TRACE_NAME = /^(VLLM_TRACE_FUNCTION|SGLANG_DIFFUSION_TRACE_FUNCTION|SGL_DIFFUSION_TRACE_FUNCTION|vllm_trace_frame)_for_process_(\d+)_thread_(\d+)_at_(.+)\.log$/;
const INSTANCE_DIR = /^vllm-instance-(.+)$/;
/** How deep below a given folder to look (user/vllm/vllm-instance-x/file is 3 levels). */
const MAX_DEPTH = 4;
/** Folders with more entries than this are not walked into further (a huge /tmp). */
const MAX_ENTRIES_PER_DIR = 20_000;

export function parseTraceFileName(name: string): Omit<TraceFileInfo, 'path' | 'instanceId' | 'size'> | null {
  const m = TRACE_NAME.exec(name);
  if (!m) return null;
  const flavor: TraceFlavor = m[1] === 'vllm_trace_frame' ? 'vllm-legacy-frame' : m[1].startsWith('VLLM') ? 'vllm' : 'sglang-diffusion';
  return { pid: Number(m[2]), tid: Number(m[3]), tidText: m[3], startedAt: m[4], flavor };
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

/** Folders where vLLM puts traces by default: `<tmp>/<user>/vllm`, and the older `<tmp>/vllm`. */
export function defaultTraceRoots(user: string = pythonUserName(), env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const tmp = pythonTempDir(env, platform);
  return [join(tmp, user, 'vllm'), join(tmp, 'vllm')];
}

/** Walks the given folders (or single files) and groups trace files by vLLM instance. */
export async function discoverTraceFiles(paths: readonly string[], options: { maxDepth?: number } = {}): Promise<DiscoveryResult> {
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  const byDir = new Map<string, TraceInstance>();
  const ignored: IgnoredFile[] = [];
  const errors: IgnoredFile[] = [];
  const seen = new Set<string>();

  const addFile = async (path: string, size: number | null): Promise<void> => {
    if (seen.has(path)) return;
    seen.add(path);
    const name = basename(path);
    const parsed = parseTraceFileName(name);
    if (!parsed) { ignored.push({ path, reason: ignoreReason(name) ?? 'not a trace file' }); return; }
    const dir = dirname(path);
    let instance = byDir.get(dir);
    if (!instance) {
      const dirName = basename(dir);
      instance = { id: INSTANCE_DIR.exec(dirName)?.[1] ?? dirName, dir, files: [] };
      byDir.set(dir, instance);
    }
    let fileSize = size;
    if (fileSize === null) { try { fileSize = (await stat(path)).size; } catch { fileSize = 0; } }
    instance.files.push({ ...parsed, path, instanceId: instance.id, size: fileSize });
  };

  const walk = async (dir: string, depth: number): Promise<void> => {
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
      if (entry.isSymbolicLink()) {
        // Follow links; a dangling link with a trace name is still listed, and reported unreadable when indexed.
        try { const st = await stat(p); isFile = st.isFile(); isDir = st.isDirectory(); } catch { isFile = true; }
      }
      if (isFile) {
        if (entry.name.endsWith('.log') || /TRACE_FUNCTION|trace_frame/.test(entry.name)) await addFile(p, null);
        else if (depth === 0) ignored.push({ path: p, reason: 'not a VLLM_TRACE_FUNCTION file' });
      } else if (isDir && depth < maxDepth && entries.length <= MAX_ENTRIES_PER_DIR) {
        await walk(p, depth + 1);
      }
    }
  };

  for (const p of paths) {
    let st;
    try { st = await stat(p); } catch (e) { errors.push({ path: p, reason: (e as Error).message }); continue; }
    if (st.isDirectory()) await walk(p, 0);
    else await addFile(p, st.size);
  }
  const instances = [...byDir.values()];
  for (const inst of instances) inst.files.sort((a, b) => a.pid - b.pid || a.tidText.localeCompare(b.tidText) || a.startedAt.localeCompare(b.startedAt));
  instances.sort((a, b) => a.dir.localeCompare(b.dir));
  return { instances, ignored, errors };
}
