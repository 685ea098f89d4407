// Colour codes in every form a log reaches us: real ESC sequences (a terminal capture, or
// VLLM_LOGGING_COLOR=1 into a file), the caret form `^[[1;36m` (less, cat -v, some pasters),
// the ␛ symbol some viewers draw, escapes written out as text by a JSON exporter
// (`\u001b[32m`), syslog's octal escape of a control byte (rsyslog writes ESC as `#033`), and
// the remnant a paste leaves when it drops the ESC byte (`[1;36m`).
// The remnant is only SGR (digits and `;` ending in `m`): a real bracket such as
// `[metrics.py:486]` or `[model.py:645]` has no such shape and is never touched.

/** How far into a line a remnant is looked for: headers sit at the start, after a prefix at most. */
const REMNANT_WINDOW = 512;

const REMNANT = /\[\d{1,3}(?:;\d{1,3})*m/;
const ALL_FORMS = /(?:\x1b|\^\[|\u241b|#033|\\(?:u001[bB]|x1[bB]|033|e))\[[0-9;?]*[A-Za-z]|\x1b[()][0-9A-Za-z]|\[\d{1,3}(?:;\d{1,3})*m/g;

/** True when the line may hold colour codes in any of the forms above. */
export function hasColour(s: string): boolean {
  if (s.indexOf('\x1b') !== -1) return true;
  const head = s.length > REMNANT_WINDOW ? s.slice(0, REMNANT_WINDOW) : s;
  // Every SGR form ends in the remnant shape (`^[[1;36m`, `\u001b[32m`, `␛[0m` all hold `[1;36m`…);
  // other sequences (`^[[K`) only come in the caret or ␛ forms.
  return REMNANT.test(head) || head.indexOf('^[[') !== -1 || head.indexOf('\u241b') !== -1;
}

/** The line with every colour code removed. */
export function stripColour(s: string): string {
  return s.replace(ALL_FORMS, '');
}

/** The column in `s` of what stands at `column` in stripColour(s) (in front of the codes that colour it). */
export function columnBeforeStrip(s: string, column: number): number {
  let removed = 0;
  ALL_FORMS.lastIndex = 0;
  for (let m = ALL_FORMS.exec(s); m; m = ALL_FORMS.exec(s)) {
    if (m.index - removed >= column) break;
    removed += m[0].length;
  }
  ALL_FORMS.lastIndex = 0;
  return column + removed;
}
