// Text from data (log lines, request ids, file names, server and OTLP text) shown in VS Code's
// own surfaces: notifications and their progress titles, status bar items, quick picks.
// Those surfaces read a little markup of their own. A notification turns
// `[label](command:id?args)` — and `https:`/`file:` targets — into a link that runs the command
// with its arguments when clicked; status bar items and quick pick rows draw `$(name)` as an
// icon. Everything from outside HopLens goes through forWorkbench() first, so it shows as the
// characters it is and never acts. The workbench puts the rest into text nodes (HTML,
// backticks, `*` are not markup there), so those stay as printed and ids read as in the log.
import { forTerminal } from './terminal';

/**
 * Zero-width space: splits `](` and `$(` so no link or icon can be parsed, while the text looks
 * exactly as printed. The same split at the edges keeps a link from forming across the
 * surrounding message (data ending in `]` or `$` before a `(`, data starting with `(`).
 */
const SPLIT = '\u200b';
const DEFAULT_MAX_CHARS = 400;

/** The text made inert for the workbench: control characters visible, no link or icon syntax, clipped. */
export function forWorkbench(text: string, maxChars = DEFAULT_MAX_CHARS): string {
  const clipped = text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 1))}…` : text;
  let out = forTerminal(clipped).replace(/([\]$])(?=\()/g, `$1${SPLIT}`);
  if (out.startsWith('(')) out = SPLIT + out;
  if (out.endsWith(']') || out.endsWith('$')) out += SPLIT;
  return out;
}
