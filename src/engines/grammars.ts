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

const byEngine = new Map<string, EngineGrammar>(GRAMMARS.map((g) => [g.engine, g]));

/** The grammar of a record's engine, if it has one of its own. */
export function grammarOf(engine: Engine | 'other'): EngineGrammar | undefined {
  return byEngine.get(engine);
}

/** Whether a grammar reads this log: not when the log is forced to another engine that has a grammar of its own. */
export function grammarAllowed(g: EngineGrammar, state: GrammarState): boolean {
  const forced = state.forced;
  return forced === null || forced === g.engine || !byEngine.has(forced);
}

const plainOutputs = new Set(GRAMMARS.flatMap((g) => (g.plainOutput !== undefined ? [g.plainOutput] : [])));
const timeOnly = new Set(GRAMMARS.flatMap((g) => (g.timeOnly !== undefined ? [g.timeOnly] : [])));

/** A record read as a process's plain output (its prefix and no header): a grammar's `plainOutput`. */
export function isPlainOutput(format: string): boolean {
  return plainOutputs.has(format);
}

/** A record whose header has a time and no date: a grammar's `timeOnly`. */
export function isTimeOnly(format: string): boolean {
  return timeOnly.has(format);
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
