// VS Code asks lens and link providers for a whole document at once. For big logs HopLens
// answers only around what is on screen (and re-answers as the user scrolls), so the work and
// the objects sent to the renderer stay proportional to the screen, not to the log.
import * as vscode from 'vscode';

/** Documents with more items than this are served by window. */
const ALL_ITEMS_UP_TO = 5000;
const WINDOW_MARGIN_LINES = 1000;

export function isWindowed(items: number): boolean {
  return items > ALL_ITEMS_UP_TO;
}

/** Inclusive line ranges to serve: the whole document, or each visible range ± a margin. */
export function lineWindows(doc: vscode.TextDocument, items: number): [number, number][] {
  if (!isWindowed(items)) return [[0, doc.lineCount - 1]];
  const ranges = vscode.window.visibleTextEditors.filter((e) => e.document === doc).flatMap((e) => e.visibleRanges);
  if (ranges.length === 0) return [[0, Math.min(doc.lineCount - 1, 2 * WINDOW_MARGIN_LINES)]];
  return ranges.map((r) => [Math.max(0, r.start.line - WINDOW_MARGIN_LINES), Math.min(doc.lineCount - 1, r.end.line + WINDOW_MARGIN_LINES)]);
}
