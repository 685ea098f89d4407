// Text from data (request ids, log messages, file names, server output) inside Markdown that
// HopLens writes: the hop table export, the traced-request report, the call-trace hop
// sequence. Markdown reads `[x](command:…)` and bare URLs as links, `<img onerror=…>` as HTML,
// `*`/`_` as emphasis and `|` as a table column. Data goes into a code span (or a fenced block),
// where nothing but the closing backticks is markup: ids stay exactly as printed, in a monospace
// face, with no backslashes sprinkled through them. Control characters are made visible, which
// also keeps a newline from ending a table row.
import { forTerminal } from './terminal';

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

function clip(text: string, maxChars: number | undefined): string {
  return maxChars !== undefined && text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 1))}…` : text;
}

function codeSpan(body: string): string {
  if (body === '') return '` `';
  const fence = '`'.repeat(longestBacktickRun(body) + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || (body.startsWith(' ') && body.endsWith(' ')) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** The text as an inline code span: fenced with more backticks than it holds, padded when it starts or ends with one. */
export function markdownCode(text: string, opts: { maxChars?: number } = {}): string {
  return codeSpan(forTerminal(clip(text, opts.maxChars)));
}

/**
 * The same, for a table cell: `|` escaped too (GFM splits a row into cells before it looks for
 * code spans, and takes that backslash out again).
 */
export function markdownCell(text: string, opts: { maxChars?: number } = {}): string {
  return codeSpan(forTerminal(clip(text, opts.maxChars)).replace(/\|/g, '\\|'));
}

/** Lines of data as a fenced code block that no line of the data can close. */
export function markdownCodeBlock(text: string, info = ''): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n').map((l) => forTerminal(l));
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(lines.join('\n')) + 1));
  return `${fence}${info}\n${lines.join('\n')}\n${fence}\n`;
}
