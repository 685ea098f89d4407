// The records of one physical line and the columns each covers: a paste that lost its newlines
// puts several records on one line (LogRecord.glued), and the editor shows each where it stands
// (the hover under the cursor, a link on each `[file:line]`).
import type { LogRecord } from './model';

export interface LinePart {
  /** The record's place on the line: 1 for the line's own record, 2, 3, … for the ones glued on. */
  part: number;
  record: LogRecord;
  /** Columns [start, end) of the line's text (without its line break) the record covers. */
  start: number;
  end: number;
}

/**
 * Each record of a line with its columns: the first from the line's start to where the next one's
 * header starts, the last to the line's end. A glued record whose column is not known (a line
 * unwrapped from a JSON envelope) has no place of its own: the record before it covers its text.
 */
export function lineParts(rec: LogRecord, lineLength: number): LinePart[] {
  const parts: LinePart[] = [{ part: 1, record: rec, start: 0, end: lineLength }];
  const glued = rec.glued;
  if (!glued) return parts;
  for (let i = 0; i < glued.length; i++) {
    const at = glued[i].column;
    const prev = parts[parts.length - 1];
    if (at === undefined || at <= prev.start || at >= lineLength) continue;
    prev.end = at;
    parts.push({ part: i + 2, record: glued[i], start: at, end: lineLength });
  }
  return parts;
}

/** The place (1, 2, …) on its line of the record that covers `column`. */
export function partAt(rec: LogRecord, column: number): number {
  if (!rec.glued) return 1;
  const parts = lineParts(rec, Number.MAX_SAFE_INTEGER);
  for (let i = parts.length - 1; i > 0; i--) if (parts[i].start <= column) return parts[i].part;
  return 1;
}
