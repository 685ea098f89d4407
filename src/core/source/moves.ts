// Statements that moved to another file between releases: a line printed by the older file is
// shown "moved from" it at the newer file's statement, never verified there (vLLM prints only the
// basename, so the printed name alone cannot tell a move from another code path with similar text).
import type { Engine } from '../logs/model';
import { engineProfiles } from '../../engines/registry';
import type { EngineCheckout, FileMove } from '../../engines/types';

export type { FileMove } from '../../engines/types';

/** What the engine's profile says of its code on disk (its renames, its parallel trees); undefined for an unknown id. */
function checkoutOf(engine: Engine): EngineCheckout | undefined {
  return engineProfiles().find((p) => p.id === engine)?.checkout;
}

/** The engine's own renames (its profile's checkout.moves): none for an engine that lists none. */
function movesFor(engine: Engine): FileMove[] {
  return checkoutOf(engine)?.moves ?? [];
}

/** The older file a statement at `path` moved from, when the printed file name is that file's; else null. */
export function movedFrom(engine: Engine, printed: string, path: string): FileMove | null {
  // The printed name's last two folders (DEBUG's `entrypoints/logger.py`, a pathname) must end the old file's path.
  const tail = printed.replace(/\\/g, '/').split('/').filter((x) => x !== '' && x !== '...').slice(-2).join('/');
  for (const m of movesFor(engine)) {
    if (m.to === path && `/${m.from}`.endsWith(`/${tail}`)) return m;
  }
  return null;
}

/** The moves away from the file a line names (its last two folders must end the old path). */
export function movesOf(engine: Engine, printed: string): FileMove[] {
  const tail = printed.replace(/\\/g, '/').split('/').filter((x) => x !== '' && x !== '...').slice(-2).join('/');
  return movesFor(engine).filter((m) => `/${m.from}`.endsWith(`/${tail}`));
}


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
  const tree = (checkoutOf(engine)?.parallelTrees ?? []).find((t) => path.startsWith(t));
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
