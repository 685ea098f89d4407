// Statements that moved to another file between releases: a line printed by the older file is
// shown "moved from" it at the newer file's statement, never verified there (vLLM prints only the
// basename, so the printed name alone cannot tell a move from another code path with similar text).
import type { Engine } from '../logs/model';

export interface FileMove {
  /** The file the older releases printed from (repository-relative). */
  from: string;
  /** Where the statement is now. */
  to: string;
  /** The releases of the move, for the hover. */
  when: string;
}

/**
 * From the hop tables' wordings (src/hops/vllm.ts, V1 and V6): the request logger was in
 * engine/async_llm_engine.py until about 0.5, in entrypoints/logger.py from 0.5 to 0.11.1, and in
 * entrypoints/serve/utils/request_logger.py from 0.11.2.
 */
const MOVES: Record<Engine, FileMove[]> = {
  vllm: [
    { from: 'vllm/entrypoints/logger.py', to: 'vllm/entrypoints/serve/utils/request_logger.py', when: '0.11.2' },
    { from: 'vllm/engine/async_llm_engine.py', to: 'vllm/entrypoints/logger.py', when: '0.5' },
    { from: 'vllm/engine/async_llm_engine.py', to: 'vllm/entrypoints/serve/utils/request_logger.py', when: '0.5 and 0.11.2' },
  ],
  sglang: [],
};

/** The older file a statement at `path` moved from, when the printed file name is that file's; else null. */
export function movedFrom(engine: Engine, printed: string, path: string): FileMove | null {
  // The printed name's last two folders (DEBUG's `entrypoints/logger.py`, a pathname) must end the old file's path.
  const tail = printed.replace(/\\/g, '/').split('/').filter((x) => x !== '' && x !== '...').slice(-2).join('/');
  for (const m of MOVES[engine] ?? []) {
    if (m.to === path && `/${m.from}`.endsWith(`/${tail}`)) return m;
  }
  return null;
}

/** The moves away from the file a line names (its last two folders must end the old path). */
export function movesOf(engine: Engine, printed: string): FileMove[] {
  const tail = printed.replace(/\\/g, '/').split('/').filter((x) => x !== '' && x !== '...').slice(-2).join('/');
  return (MOVES[engine] ?? []).filter((m) => `/${m.from}`.endsWith(`/${tail}`));
}

/**
 * Folders that hold another implementation of code kept beside them (vLLM's V1 engine under
 * vllm/v1/ next to V0's engine/, worker/, executor/): for a line whose printed name does not show the
 * folder, a statement there is at most similar. In the real releases (0.6.6 to 0.34.0) some V0 text
 * that only V1 prints later was printed beside V1's own copy (worker.py's `Sleep mode freed …`,
 * engine.py's `Added request …`), and some moved into v1/ (executor/ray_utils.py): a printed name
 * without the folder cannot tell which.
 */
const PARALLEL_TREES: Record<Engine, string[]> = { vllm: ['vllm/v1/'], sglang: [] };

/** A path or printed name as module segments: `.py`, `...` and a closing `__init__` dropped (`vllm/utils/__init__.py` → vllm, utils). */
function moduleSegments(path: string): string[] {
  const s = path.replace(/\\/g, '/').replace(/\.py$/, '').split('/').filter((x) => x !== '' && x !== '...');
  if (s[s.length - 1] === '__init__') s.pop();
  return s;
}

function endsWith(a: readonly string[], b: readonly string[]): boolean {
  if (b.length === 0 || b.length > a.length) return false;
  for (let i = 1; i <= b.length; i++) if (a[a.length - i] !== b[b.length - i]) return false;
  return true;
}

/**
 * The file a statement at `path` moved from, derived from the paths alone, when the name the line
 * prints (`utils.py`, `config.py`, `entrypoints/logger.py`, a module's path) is that statement's
 * module before it became a package or was split into one: `vllm/utils.py` → `vllm/utils/__init__.py`,
 * `vllm/config.py` → `vllm/config/cache.py`, `vllm/utils/__init__.py` → `vllm/utils/nccl.py` (printed
 * with its folder). null for any other pair (a renamed file, another code path): at most a similar
 * statement. The caller checks the rest of the rule: the named file prints no such text, and this
 * statement is the only one of the tree that does.
 */
export function derivedMove(engine: Engine, printed: string, path: string): string | null {
  const sp = moduleSegments(printed);
  if (sp.length === 0) return null;
  const tree = (PARALLEL_TREES[engine] ?? []).find((t) => path.startsWith(t));
  if (tree && !sp.includes(tree.split('/').filter((x) => x !== '').pop()!)) return null;
  const sb = moduleSegments(path);
  let old: string | null = null;
  if (endsWith(sb, sp)) old = `${sb.join('/')}.py`;
  else if (endsWith(sb.slice(0, -1), sp)) old = `${sb.slice(0, -1).join('/')}.py`;
  return old === null || old === path ? null : old;
}

/**
 * The files of the tree a statement of the printed file may have moved to (derivedMove holds), by the
 * file each would have moved from: a basename (`utils.py`) fits every package of that name.
 */
export function derivedMoveTargets(engine: Engine, printed: string, files: Iterable<string>, limit = 256): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let n = 0;
  for (const f of files) {
    const from = f.endsWith('.py') ? derivedMove(engine, printed, f) : null;
    if (from === null) continue;
    const list = out.get(from);
    if (list) list.push(f); else out.set(from, [f]);
    if (++n >= limit) break;
  }
  return out;
}

/**
 * How a derived move names the file it left: the derived path when the line printed it in full (an
 * installed package's path ends with it), else the name as printed (`chat_utils.py` moved from
 * vllm/entrypoints/ into vllm/renderers/chat_utils/: the folder it had is not in the line).
 */
export function movedName(printed: string, from: string): string {
  const p = moduleSegments(printed);
  const f = moduleSegments(from);
  if (endsWith(p, f)) return from;
  return printed.replace(/\\/g, '/');
}
