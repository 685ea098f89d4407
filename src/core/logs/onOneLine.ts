// Several records on one line (a paste that lost its line breaks), one mechanism: recordHeaderAt
// finds where another record's header starts with the parser's own grammars; gluedAt parses what
// follows as records of their own, nextRecordAt ends a message's own words there (for the hop
// matcher and the resolver).
import type { LogRecord } from './model';
import { createParseState, HEADER_ANCHORS, newRecord, type ParseState } from './parseState';
import { LEVELS } from '../../engines/lineShapes';
import { parseEngine, surelyEngines } from './engineHeader';
import { grammarOf, isPlainOutput, isTimeOnly } from '../../engines/grammars';
import { parseLine } from './parseLine';

/**
 * Where another record's header starts inside `msg` (a record pasted onto this one's line), to be
 * parsed as a record of its own; or -1. A cheap look first: the header of the next record of the
 * same log shows the same year (SGLang's `[YYYY-`) or day (vLLM's `MM-DD `), as the record's grammar
 * says (EngineGrammar.glueKey); only then is the header looked for and parsed, with this log's
 * state (what counts further into a line: surelyEngines).
 */
export function gluedAt(msg: string, rec: LogRecord, state: ParseState): number {
  const key = grammarOf(rec.engine)?.glueKey?.(rec, state) ?? null;
  if (key === null) return -1;
  if (key.length !== 6 || msg.indexOf(key) < 0) return -1;
  return recordHeaderAt(msg.length > 64 * 1024 ? msg.slice(0, 64 * 1024) : msg, HEADER_ANCHORS.header, state,
    (probe) => probe.message.length > 0 && surelyEngines(probe, state));
}

/**
 * The first place after 0 in `s` where a record's header starts, as the engine grammars read it
 * (an anchor `anchor` finds: HEADER_ANCHORS' source), followed by a space, and that
 * `accept` takes; or -1. The one reading of "another record starts here" on a pasted line: gluedAt
 * parses what it finds as a record, nextRecordAt ends a message's own words there.
 */
function recordHeaderAt(s: string, anchor: RegExp, state: ParseState, accept: (probe: LogRecord, at: number) => boolean): number {
  anchor.lastIndex = 1;
  for (let m = anchor.exec(s); m; m = anchor.exec(s)) {
    const probe = newRecord(0, 0, '');
    const rest = s.slice(m.index);
    // A header as the engine prints it is followed by a space: `[date], resuming` is text.
    if (parseEngine(rest, probe, state) && probe.format !== 'uvicorn' && !isPlainOutput(probe.format)
      && rest.charCodeAt(rest.length - probe.message.length - 1) === 32 && accept(probe, m.index)) return m.index;
    anchor.lastIndex = m.index + 1;
  }
  return -1;
}

// nextRecordAt's state: no log's.
let wordsState: ParseState | null = null;
// What ends a record's own words though no record of its own follows (gluedAt glues none): uvicorn's
// access line, behind vLLM's process prefix or not, and its other lines (`ERROR: Exception in ASGI
// application` after the hop a crash ended); the last header of a paste cut short where the text
// ends (`… Aborted request cmpl-2. INFO 06-19 11:`, `… ERROR 07-07 18:10:2...`).
const WORDS_END = new RegExp(
  ` (?:\\([A-Za-z_][^()]{0,80}? pid=\\d+(?:, ip=[\\d.]+)?\\) )?`
  + `(?:INFO: *\\S+:\\d+ ?- ?"|(?:${LEVELS}): +(?=[A-Z])|(?:${LEVELS}) \\d\\d?(?:[-: .]\\d*)*(?:\\.\\.\\.|…)?$)`,
);
// uvicorn's level word, for the cheap look before WORDS_END.
const UVICORN_WORD = new RegExp(`(?:${LEVELS}):`);

/**
 * Where a message's own words end because another record follows on its line (a paste that lost
 * its line breaks): the space before the next record's header (any engine's, read as gluedAt reads
 * it, after a space) or before what ends the words though it is no record (WORDS_END); -1 when
 * none. Only a header counts, so a message that mentions a level word or a date keeps its text.
 * For the hop matcher and the resolver, which look only when the whole message fit nothing.
 */
export function nextRecordAt(message: string): number {
  // Most messages are ruled out cheaply: a whole header holds `] ` or `INFO:`, a cut one ends in a digit or `...`.
  const last = message.charCodeAt(message.length - 1);
  if (message.indexOf('] ', 1) < 0 && !UVICORN_WORD.test(message) && !(last >= 48 && last <= 58) && last !== 46 && last !== 0x2026) return -1;
  const tail = WORDS_END.exec(message);
  let at = tail ? tail.index : -1;
  if (wordsState === null || wordsState.processCache.size > 256) wordsState = createParseState();
  // After a space; a time-only header (SGLang's 2024 `[HH:MM:SS]`) has no date to tell it from a time a message names.
  const header = recordHeaderAt(message, HEADER_ANCHORS.words, wordsState, (probe, p) => message.charCodeAt(p - 1) === 32 && !isTimeOnly(probe.format));
  if (header > 0 && (at < 0 || header - 1 < at)) at = header - 1;
  return at > 0 ? at : -1;
}

/**
 * Parses the records glued onto `rec`'s line and keeps them on it, in order, each with its column
 * on the line (`column`: where `rest` starts on it; -1 when not known).
 */
export function parseGlued(rec: LogRecord, rest: string, column: number, state: ParseState, marker: boolean): void {
  const sawBareLF = state.sawBareLF;
  const g = parseLine(rest, rec.line, rec.offset, state);
  state.sawBareLF = sawBareLF;
  state.prevCR = marker;
  const more = g.glued;
  delete g.glued;
  rec.glued = more ? [g, ...more] : [g];
  rec.glued.forEach((x, i) => {
    x.part = i + 2;
    // The records after `g` know their column on `rest`.
    const own = x === g ? 0 : x.column;
    if (column >= 0 && own !== undefined) x.column = column + own;
    else delete x.column;
  });
}
