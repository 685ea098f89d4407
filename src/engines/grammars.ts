// The hand-written header grammars in the order the parser tries them (the built-in engines':
// <id>/grammar.ts; then those of engines registered at run time, from their profiles' `grammar`),
// and what is derived from them: which readers a line's first character calls, where a header may
// start further into a line, the formats they name. The parser (src/core/logs) asks these; an engine
// without a grammar of its own gives its line shapes instead (EngineProfile.lineShapes, read by
// src/core/logs/shapedGrammar.ts).
import type { Engine } from './types';
import { setAskableGrammars, type EngineGrammar, type GrammarState, type HeaderReader } from './grammar';
import type { FastLineHandler, FastPathOptions, FastPathState } from './fastPath';
import { ENGINE_PROFILES, onRegistryChange } from './registry';
import { VLLM_GRAMMAR } from './vllm/grammar';
import { SGLANG_GRAMMAR } from './sglang/grammar';

export { processInfo } from './vllm/grammar';

/**
 * The built-in engines' grammars. Their profiles cannot hand them over (a grammar asks the hop
 * tables, which the registry holds: the import would go round), so they are listed here.
 */
const BUILT_IN: readonly EngineGrammar[] = [VLLM_GRAMMAR, SGLANG_GRAMMAR];

/** The grammars, in the order their readers are tried (derived: read it, do not change it). */
export const GRAMMARS: EngineGrammar[] = [];

/** The grammar of a record's engine, if it has one of its own (a scan: a few grammars, ids compared by reference). */
export function grammarOf(engine: Engine | 'other'): EngineGrammar | undefined {
  for (let i = 0; i < GRAMMARS.length; i++) if (GRAMMARS[i].engine === engine) return GRAMMARS[i];
  return undefined;
}

/** Whether a grammar reads this log: not when the log is forced to another engine that has a grammar of its own. */
export function grammarAllowed(g: EngineGrammar, state: GrammarState): boolean {
  const forced = state.forced;
  return forced === null || forced === g.engine || grammarOf(forced) === undefined;
}

/**
 * The byte fast path for one scan of a log: the fast paths of the grammars that read it (a forced
 * engine's own, else every one's, tried in order), or null when none has one.
 */
export function fastPathFor(state: FastPathState, opts: FastPathOptions = {}): FastLineHandler | null {
  const handlers: FastLineHandler[] = [];
  for (const g of GRAMMARS) if (g.fastPath !== undefined && grammarAllowed(g, state)) handlers.push(g.fastPath(state, opts));
  if (handlers.length < 2) return handlers[0] ?? null;
  return (b, s, e, lineNo, offset) => {
    for (let i = 0; i < handlers.length; i++) if (handlers[i](b, s, e, lineNo, offset)) return true;
    return false;
  };
}

const plainOutputs: string[] = [];
const timeOnly: string[] = [];

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
export const HEADER_STARTS: Array<HeaderStart[] | undefined> = [];

/**
 * Where a header may start further into a line: every grammar's `anchor`, in the grammars' order.
 * `header` is the parser's (engineHeader.ts, onOneLine.ts: gluedAt); `words` the same pattern for
 * nextRecordAt, which may run while a loop over `header` holds its place.
 */
export const HEADER_ANCHORS: { header: RegExp; words: RegExp } = { header: /$^/g, words: /$^/g };

/** Rebuilds every table above from the grammars (in place: the parser holds them). */
function derive(): void {
  GRAMMARS.splice(0, GRAMMARS.length, ...BUILT_IN, ...ENGINE_PROFILES.flatMap((p) => (p.grammar !== undefined ? [p.grammar] : [])));
  setAskableGrammars(GRAMMARS);
  plainOutputs.splice(0, plainOutputs.length, ...GRAMMARS.flatMap((g) => (g.plainOutput !== undefined ? [g.plainOutput] : [])));
  timeOnly.splice(0, timeOnly.length, ...GRAMMARS.flatMap((g) => (g.timeOnly !== undefined ? [g.timeOnly] : [])));
  HEADER_STARTS.length = 0;
  for (const after of [false, true]) {
    for (const grammar of GRAMMARS) {
      for (const start of grammar.starts) {
        if ((start.after === true) !== after) continue;
        for (let i = 0; i < start.chars.length; i++) (HEADER_STARTS[start.chars.charCodeAt(i)] ??= []).push({ grammar, read: start.read });
      }
    }
  }
  const anchors = GRAMMARS.flatMap((g) => (g.anchor !== undefined ? [g.anchor] : []));
  const source = anchors.length > 0 ? anchors.join('|') : '$^';
  HEADER_ANCHORS.header = new RegExp(source, 'g');
  HEADER_ANCHORS.words = new RegExp(source, 'g');
}
derive();
onRegistryChange(derive);
