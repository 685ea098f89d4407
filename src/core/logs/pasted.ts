// What a copy from a web page or a chat leaves in a log line: non-breaking and other wide spaces
// (U+00A0, U+202F, U+2007) where the log had spaces, zero-width characters (U+200B–U+200D, U+2060,
// a U+FEFF mid-line), markdown's backslash escapes of punctuation (`\[async\_llm.py:439\]`,
// `\*\*`), HTML entities a page's source kept (`&nbsp;`, `&lt;`, `&#39;`), and the double spaces
// that remain where `&nbsp; ` stood after a header field. Looked for only in lines whose header did not parse as they
// are (and at the start of a parsed line's message), so the usual line pays nothing.

/** How far into a line the artefacts are looked for: the header stands within it. */
const WINDOW = 600;

const WIDE_SPACE = /[\u00a0\u2007\u202f]/g;
const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
// CommonMark's backslash escapes of ASCII punctuation that log headers hold.
const MD_ESCAPE = /\\([\\`*_{}[\]()#+\-.!|<>~])/g;
const ENTITY = /&(?:(nbsp|lt|gt|amp|quot|apos)|#(\d{1,5})|#[xX]([0-9a-fA-F]{1,4}));/g;
const NAMED: Record<string, string> = { nbsp: ' ', lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
// A space doubled inside a header: after a level, a time or a bracket that closes a header field
// (not after a process prefix: a traceback's indentation stands there).
const DOUBLED = /(\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)|\d\d:\d\d:\d\d(?:[.,]\d+)?\]?|\]) {2,}(?=[[(\w])/;
const DOUBLED_ALL = new RegExp(DOUBLED.source, 'g');
const ANY = /[\u00a0\u2007\u202f\u200b-\u200d\u2060\ufeff]|\\[[\]()_*`]|&(?:nbsp|lt|gt|amp|quot|apos|#\d{1,5}|#[xX][0-9a-fA-F]{1,4});/;

/** True when the start of the line holds a paste's artefacts (above). */
export function hasPasteArtefacts(s: string): boolean {
  const head = s.length > WINDOW ? s.slice(0, WINDOW) : s;
  return ANY.test(head) || DOUBLED.test(head.length > 200 ? head.slice(0, 200) : head);
}

/** The line as the program wrote it, as near as it can be told: the artefacts above undone. */
export function unpaste(s: string): string {
  let t = s.replace(ENTITY, (_m, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name) return NAMED[name];
    const code = dec ? Number(dec) : parseInt(hex!, 16);
    return code === 0xa0 ? ' ' : String.fromCharCode(code);
  });
  t = t.replace(WIDE_SPACE, ' ').replace(ZERO_WIDTH, '').replace(MD_ESCAPE, '$1');
  return t.replace(DOUBLED_ALL, '$1 ');
}

/** A message that starts with a wide or zero-width character: how much of its start they take, else 0. */
export function pastedLead(message: string): number {
  const c = message.charCodeAt(0);
  if (!(c === 0xa0 || c === 0x2007 || c === 0x202f || (c >= 0x200b && c <= 0x200d) || c === 0x2060 || c === 0xfeff)) return 0;
  let i = 1;
  for (; i < message.length; i++) {
    const d = message.charCodeAt(i);
    if (!(d === 32 || d === 0xa0 || d === 0x2007 || d === 0x202f || (d >= 0x200b && d <= 0x200d) || d === 0x2060 || d === 0xfeff)) break;
  }
  return i;
}
