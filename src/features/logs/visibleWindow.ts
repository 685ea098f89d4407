// VS Code asks lens and link providers for a whole document at once. For big logs HopLens
// answers only around what is on screen (and re-answers as the user scrolls), so the work and
// the objects sent to the renderer stay proportional to the screen, not to the log.
import * as vscode from 'vscode';
import type { LineWindow } from '../../core/session/servedWindows';

/** Documents with more items than this are served by window. */
const ALL_ITEMS_UP_TO = 5000;
export const WINDOW_MARGIN_LINES = 1000;
/** A scroll may go this far into the margin before the window is renewed. */
export const WINDOW_SLACK_LINES = WINDOW_MARGIN_LINES / 2;

export function isWindowed(items: number): boolean {
  return items > ALL_ITEMS_UP_TO;
}

/** The line ranges of `doc` shown in editors now (none when it is not visible). */
export function visibleLines(doc: vscode.TextDocument): LineWindow[] {
  return vscode.window.visibleTextEditors.filter((e) => e.document === doc)
    .flatMap((e) => e.visibleRanges.map((r): LineWindow => [r.start.line, r.end.line]));
}

/** Inclusive line ranges to serve: the whole document, or each visible range ± a margin. */
export function lineWindows(doc: vscode.TextDocument, items: number): LineWindow[] {
  if (!isWindowed(items)) return [[0, doc.lineCount - 1]];
  return aroundVisible(doc, WINDOW_MARGIN_LINES);
}

/** Each visible range ± `margin` lines (the top of the document when it is not visible). */
export function aroundVisible(doc: vscode.TextDocument, margin: number): LineWindow[] {
  const ranges = visibleLines(doc);
  if (ranges.length === 0) return [[0, Math.min(doc.lineCount - 1, 2 * margin)]];
  return ranges.map(([from, to]): LineWindow => [Math.max(0, from - margin), Math.min(doc.lineCount - 1, to + margin)]);
}

export function inWindows(line: number, windows: readonly LineWindow[]): boolean {
  return windows.some(([from, to]) => line >= from && line <= to);
}
