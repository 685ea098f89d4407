// Short names for hops in lists (the Requests view): the constant words of the format string.

/** A hop's format, short: "Received request …", "Request … aborted", "Prefill batch…" ("" when it is all values). */
export function shortFormat(format: string): string {
  let text = format.replace(/%\([^)]*\)[-\d.]*[sdrfi]|%[-\d.]*[sdrfi]|\{[^}]*\}/g, '…').replace(/…+/g, '…');
  const firstValue = text.indexOf('…');
  if (firstValue >= 0) {
    const cut = text.slice(firstValue).search(/[:,] /);
    if (cut >= 0) text = text.slice(0, firstValue + cut);
  }
  // Strip what a cut leaves dangling: a final period, an opening bracket, a stray brace.
  text = text.replace(/[\s.:,;[\]{}(]+$/, '').replace(/…[{}\][]+$/, '…').trim();
  if ((text.match(/[A-Za-z]/g) ?? []).length < 4) return '';
  return text.length > 40 ? text.slice(0, 39) + '…' : text;
}
