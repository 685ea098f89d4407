// What the line parser knows of one log while it reads it (ParseState: the part the engines'
// grammars share is GrammarState, src/engines/grammar.ts, and their fast paths FastPathState), the record it starts each line with,
// and what every part of the parser shares: the anchors where a header may start further into a
// line, the process names' roles and ranks.
import type { Engine } from './model';
import type { FastPathState } from '../../engines/fastPath';
import { nextRecordAt } from './onOneLine';

export { DATE_ANCHOR, SEARCH_WINDOW, type ProcessInfo } from '../../engines/grammar';
export { newRecord, tagRanks } from '../../engines/record';
// The `(Name pid=N)` prefix's process names (the fast path and the timeline read them as the parser does).
export { processInfo } from '../../engines/grammars';

export interface ParseState extends FastPathState {
  /** Continuation detection: the previous line's header (prevCR: did it end in the multi-line marker). */
  prevHeader: string;
  prevRid: string | null;
  prevEngine: Engine | 'other';
  /**
   * Custom logging layouts (by their field signature) known to be an engine's: a line of the
   * layout named the engine (its logger or path) or printed one of its hops.
   */
  layouts: Map<string, Engine>;
  /** Lines read in a custom layout that no line has yet shown to be an engine's. */
  unknownLayouts: number;
  /**
   * The text that follows the line being parsed (what the reader already holds), for a layout first
   * seen partway: the lines after it may show whose it is. null: nothing ahead is known.
   */
  ahead: ((maxChars: number) => string) | null;
  /** Bumped by the reader each time it holds new text ahead (a new chunk). */
  aheadEpoch: number;
  /** Layouts already looked ahead for: the epoch of the look, or -1 when it saw a full window. */
  probedLayouts: Map<string, number>;
}

export interface ParseOptions {
  engine?: Engine | 'auto';
  /** When the log was last written (mtime); defaults to now. */
  referenceTime?: Date | number;
}

export function createParseState(opts: ParseOptions = {}): ParseState {
  const ref = new Date(opts.referenceTime ?? Date.now());
  return {
    forced: opts.engine && opts.engine !== 'auto' ? opts.engine : null,
    detected: null,
    refYear: ref.getFullYear(), refMonth: ref.getMonth() + 1, refDay: ref.getDate(),
    year: null, lastMonth: 0, outerDate: null, dayOffset: 0, lastSecondOfDay: -1,
    prevCR: false, prevHeader: '', prevRid: null, prevEngine: 'other', sawBareLF: false, layouts: new Map(), unknownLayouts: 0,
    ahead: null, aheadEpoch: 0, probedLayouts: new Map(), glueYear: '', glueDay: '', glueKeyYear: '',
    stampKey: '', stampValue: 0,
    processCache: new Map(),
    recordEnd: nextRecordAt,
  };
}

// Where an engine header may start further into a line (each grammar's `anchor`, joined): `header`
// for findHeader and gluedAt, `words` for nextRecordAt (it may run while gluedAt's loop holds
// `header`'s place: surelyEngines asks the hop table). Rebuilt when an engine registers.
export { HEADER_ANCHORS } from '../../engines/grammars';
/** Where a custom layout's date may start: with its year, or without it (`[%(asctime)s]` with vLLM's datefmt). */
export const LAYOUT_DATE_ANCHOR = /(?<![\d-])(?:\d{4}-)?\d\d-\d\d[ T]\d\d:\d\d/g;
