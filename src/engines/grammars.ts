// The hand-written header grammars (vLLM's and SGLang's: <id>/grammar.ts) in the order the parser
// tries them, and the table of which of their readers a line's first character calls. The parser
// (src/core/logs) asks these; an engine without a grammar of its own gives its line shapes instead
// (EngineProfile.lineShapes, read by src/core/logs/shapedGrammar.ts).
import type { Engine } from './types';
import type { EngineGrammar, GrammarState, HeaderReader } from './grammar';
import { VLLM_GRAMMAR } from './vllm/grammar';
import { SGLANG_GRAMMAR } from './sglang/grammar';

export { processInfo } from './vllm/grammar';

/** The grammars, in the order their readers are tried. */
export const GRAMMARS: readonly EngineGrammar[] = [VLLM_GRAMMAR, SGLANG_GRAMMAR];

/** The grammar of a record's engine, if it has one of its own (a scan: two grammars, ids compared by reference). */
export function grammarOf(engine: Engine | 'other'): EngineGrammar | undefined {
  for (let i = 0; i < GRAMMARS.length; i++) if (GRAMMARS[i].engine === engine) return GRAMMARS[i];
  return undefined;
}

/** Whether a grammar reads this log: not when the log is forced to another engine that has a grammar of its own. */
export function grammarAllowed(g: EngineGrammar, state: GrammarState): boolean {
  const forced = state.forced;
  return forced === null || forced === g.engine || grammarOf(forced) === undefined;
}

const plainOutputs: readonly string[] = GRAMMARS.flatMap((g) => (g.plainOutput !== undefined ? [g.plainOutput] : []));
const timeOnly: readonly string[] = GRAMMARS.flatMap((g) => (g.timeOnly !== undefined ? [g.timeOnly] : []));

/** A record read as a process's plain output (its prefix and no header): a grammar's `plainOutput` (asked on every line). */
export function isPlainOutput(format: string): boolean {
  for (let i = 0; i < plainOutputs.length; i++) if (plainOutputs[i] === format) return true;
  return false;
}

/** A record whose header has a time and no date: a grammar's `timeOnly`. */
export function isTimeOnly(format: string): boolean {
  for (let i = 0; i < timeOnly.length; i++) if (timeOnly[i] === format) return true;
  return false;
}

export interface HeaderStart { grammar: EngineGrammar; read: HeaderReader }

/** By a line's first character (ASCII): the readers to try, in order (each grammar's own, then the `after` ones). */
export const HEADER_STARTS: ReadonlyArray<readonly HeaderStart[] | undefined> = (() => {
  const table: HeaderStart[][] = [];
  for (const after of [false, true]) {
    for (const grammar of GRAMMARS) {
      for (const start of grammar.starts) {
        if ((start.after === true) !== after) continue;
        for (let i = 0; i < start.chars.length; i++) (table[start.chars.charCodeAt(i)] ??= []).push({ grammar, read: start.read });
      }
    }
  }
  return table;
})();
