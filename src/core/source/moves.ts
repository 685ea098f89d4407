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
