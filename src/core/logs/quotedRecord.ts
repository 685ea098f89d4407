// A log line quoted inside another format: a JSON string (an exporter's object printed with its
// members one per line, `"message": "(APIServer pid=1) INFO …",`; an object whose message field
// is nested; a `[time, line]` pair of a query API) or a CSV field (a console's CSV download:
// `1756144013378,"(APIServer pid=1) INFO … ""quoted"" …"`). Found when the engine's header
// follows an opening quote; the record is the quoted text, unescaped, up to its closing quote.

/**
 * The quoted text that starts at `start` (right after an opening quote at `start - 1`) in `s`,
 * unescaped, or null when `s` holds no quoted string there. JSON or CSV escaping is chosen by
 * what stands before the quote: `:` or `[` (a JSON value or array element), `,` in a line that
 * opens a JSON array, otherwise CSV.
 */
export function quotedRecord(s: string, start: number): { text: string; kind: 'json' | 'csv' } | null {
  if (start < 1 || s.charCodeAt(start - 1) !== 34 /* " */) return null;
  let i = start - 2;
  while (i >= 0 && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9)) i--;
  const before = i >= 0 ? s[i] : '';
  const json = before === ':' || before === '[' || (before === ',' && s.trimStart().startsWith('['));
  const text = json ? jsonString(s, start) : csvField(s, start);
  return text === null ? null : { text, kind: json ? 'json' : 'csv' };
}

/** A JSON string's value from `start` to its closing quote (escapes decoded); null when malformed. */
function jsonString(s: string, start: number): string | null {
  let i = start;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 92 /* \ */) { i += 2; continue; }
    if (c === 34) break;
    i++;
  }
  // A string cut short (a paste limit) ends at the line's end.
  const literal = i < s.length ? s.slice(start - 1, i + 1) : `${s.slice(start - 1, s.charCodeAt(s.length - 1) === 92 ? -1 : undefined)}"`;
  try {
    const v: unknown = JSON.parse(literal);
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** A CSV field's value from `start` to its closing quote, `""` read as one quote. */
function csvField(s: string, start: number): string {
  let out = '';
  let from = start;
  for (let q = s.indexOf('"', from); q >= 0; q = s.indexOf('"', from)) {
    if (s.charCodeAt(q + 1) === 34) { out += s.slice(from, q + 1); from = q + 2; continue; }
    return out + s.slice(from, q);
  }
  return out + s.slice(from);
}
