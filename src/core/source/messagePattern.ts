// What a logging statement can print, reduced to its literal text with wildcards where
// values go, and the matcher that checks a printed message against it.

/** A placeholder whose value is only known at run time (`%s`, `{expr}`, a variable). */
export const WILD = 0 as const;
export type PatternPart = string | typeof WILD;
/** Literal text and wildcards in print order. */
export type Pattern = PatternPart[];

/** Appends parts, merging adjacent literals and adjacent wildcards so matching stays linear. */
export function pushParts(into: Pattern, parts: readonly PatternPart[]): Pattern {
  for (const p of parts) {
    if (p === '') continue;
    const last = into.length ? into[into.length - 1] : undefined;
    if (p === WILD) {
      if (last !== WILD) into.push(WILD);
    } else if (typeof last === 'string') {
      into[into.length - 1] = last + p;
    } else {
      into.push(p);
    }
  }
  return into;
}

const PRINTF = /%(?:\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsab%])/g;

/**
 * Applies Python's `msg % args` to literal text: each conversion becomes a wildcard and
 * `%%` becomes `%`. Only called when the logging call has arguments: logging leaves the
 * text untouched otherwise.
 */
export function applyPercentFormat(text: string): Pattern {
  const out: Pattern = [];
  let last = 0;
  PRINTF.lastIndex = 0;
  for (let m = PRINTF.exec(text); m; m = PRINTF.exec(text)) {
    pushParts(out, [text.slice(last, m.index), m[1] === '%' && m[0] === '%%' ? '%' : WILD]);
    last = m.index + m[0].length;
  }
  pushParts(out, [text.slice(last)]);
  return out;
}

/** Applies `str.format`: `{…}` fields become wildcards, `{{`/`}}` become braces. */
export function applyBraceFormat(text: string): Pattern {
  const out: Pattern = [];
  let lit = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{' && text[i + 1] === '{') { lit += '{'; i++; continue; }
    if (c === '}' && text[i + 1] === '}') { lit += '}'; i++; continue; }
    if (c === '{') {
      let depth = 1;
      let j = i + 1;
      for (; j < text.length && depth > 0; j++) {
        if (text[j] === '{') depth++;
        else if (text[j] === '}') depth--;
      }
      pushParts(out, [lit, WILD]);
      lit = '';
      i = j - 1;
      continue;
    }
    lit += c;
  }
  pushParts(out, [lit]);
  return out;
}

export interface CompiledPattern {
  /** Literal pieces in order. */
  lits: string[];
  /** The message starts with lits[0]. */
  anchoredStart: boolean;
  /** The message ends with the last literal. */
  anchoredEnd: boolean;
  /** Total literal characters: how specific the pattern is. */
  weight: number;
}

/** `text` without trailing spaces and tabs (the same string when it has none). */
function trimEndSpaces(text: string): string {
  const c = text.charCodeAt(text.length - 1);
  return c === 32 || c === 9 ? text.replace(/[ \t]+$/, '') : text;
}

export function compilePattern(p: Pattern, openEnded = false): CompiledPattern {
  const lits = p.filter((x): x is string => typeof x === 'string' && x !== '');
  let anchoredEnd = !openEnded && p.length > 0 && typeof p[p.length - 1] === 'string';
  if (anchoredEnd) {
    // Printed messages come with trailing spaces dropped (terminal padding, pasted lines): so does
    // the text they are checked against (`…#queue-req: {n}, ` matches `…#queue-req: 0,`).
    const last = lits[lits.length - 1].trimEnd();
    if (last === '') { lits.pop(); anchoredEnd = false; } else lits[lits.length - 1] = last;
  }
  return {
    lits,
    // An empty pattern (a blank line of a multi-line message) prints the empty string only.
    anchoredStart: p.length === 0 || typeof p[0] === 'string',
    anchoredEnd,
    weight: lits.reduce((n, s) => n + s.length, 0),
  };
}

/**
 * How many characters each wildcard of the pattern holds when its literal pieces are found
 * leftmost in `message` (a message it prints), in order; null when it does not print it.
 */
export function wildcardSpans(c: CompiledPattern, text: string): number[] | null {
  if (!matchesPattern(c, text)) return null;
  const message = c.anchoredEnd ? trimEndSpaces(text) : text;
  const { lits } = c;
  const spans: number[] = [];
  let pos = 0;
  let first = 0;
  if (c.anchoredStart && lits.length > 0) { pos = lits[0].length; first = 1; }
  const last = c.anchoredEnd && lits.length > first ? lits.length - 1 : lits.length;
  for (let i = first; i < last; i++) {
    const at = message.indexOf(lits[i], pos);
    spans.push(at - pos);
    pos = at + lits[i].length;
  }
  if (c.anchoredEnd && last < lits.length) spans.push(message.length - lits[lits.length - 1].length - pos);
  else spans.push(message.length - pos);
  return spans;
}

/**
 * True when `message` is one of the strings the pattern can print. Literal pieces are
 * found left to right; the leftmost occurrence is always safe because every gap between
 * literals is a wildcard.
 */
export function matchesPattern(c: CompiledPattern, text: string): boolean {
  const { lits } = c;
  // The pattern's own trailing spaces were dropped (compilePattern): so are the message's, for
  // a line kept as printed (NIXL's `… Num remote_block_ids: %s. ` ends in a space).
  const message = c.anchoredEnd ? trimEndSpaces(text) : text;
  if (lits.length === 0) return !c.anchoredStart || message === '';
  let pos = 0;
  let first = 0;
  let last = lits.length;
  if (c.anchoredStart) {
    if (!message.startsWith(lits[0])) return false;
    pos = lits[0].length;
    first = 1;
    if (lits.length === 1 && c.anchoredEnd) return message.length === lits[0].length;
  }
  if (c.anchoredEnd && last > first) last--;
  for (let i = first; i < last; i++) {
    const at = message.indexOf(lits[i], pos);
    if (at < 0 || (i > 0 && swallowsWord(message, pos, at, lits[i]))) return false;
    pos = at + lits[i].length;
  }
  if (c.anchoredEnd && last < lits.length) {
    const tail = lits[lits.length - 1];
    const at = message.length - tail.length;
    return at >= pos && message.endsWith(tail) && !(last > 0 && swallowsWord(message, pos, at, tail));
  }
  return true;
}

/** A word that joins a sentence's words (`Using {x} attention backend`), never the last word of a value. */
const JOINING_WORD = /\s(?:as|to|for|with|of|in|on|at|by|from|the|an?|and|or|is|are|was)$/;

/**
 * True when a field's value (message[from, to)) ends in a joining word and the literal after it goes on with a
 * word: the line's wording has a word the statement lacks (`Using fa3 as attention backend` is not
 * `Using {backend_name} attention backend`), so the statement did not print it.
 */
function swallowsWord(message: string, from: number, to: number, next: string): boolean {
  if (to - from < 3 || next.charCodeAt(0) !== 32 || !/^ [A-Za-z]/.test(next)) return false;
  return JOINING_WORD.test(message.slice(Math.max(from, to - 6), to)) && message.slice(from, to).includes(' ');
}

/**
 * Literal characters of the pattern that a message cut short (a terminal's width, a paste limit,
 * --max-log-len) still shows, or -1 when the message cannot be the start of what the pattern
 * prints. The message must start as the pattern does and hold its literals in order until it
 * ends, inside a value or inside a literal.
 */
export function cutShortWeight(c: CompiledPattern, message: string): number {
  const { lits } = c;
  if (lits.length === 0 || !c.anchoredStart) return -1;
  const weight = prefixWeight(lits, true, message, true);
  // Every literal is there (the weight is all of them): not cut (a full match is matchesPattern's to judge).
  if (weight === lits.reduce((n, l) => n + l.length, 0)) return -1;
  // The text ends as the statement ends, with literals missing before that end: a line printed
  // in full by another wording (0.2's `…, sampling params: …, prompt token ids: [1, 2].` against
  // 0.3's `…, prefix_pos: …,sampling_params: …`), not one cut short.
  const last = lits[lits.length - 1];
  if (weight >= 0 && c.anchoredEnd && lits.length > 1 && last.trim() !== '' && message.length > weight + last.length && message.endsWith(last)) return -1;
  return weight;
}

/**
 * Literal characters of `lits` that `text` shows when it is the start of what they print (with
 * values between them; `anchored`: the printed text starts with the first literal), or -1. Unlike
 * cutShortWeight the text may hold every literal (the pattern's own end then follows).
 */
function prefixWeight(lits: readonly string[], anchored: boolean, text: string, notAtWordEnd = false): number {
  if (lits.length === 0) return anchored ? -1 : 0;
  let pos = 0;
  let weight = 0;
  let i = 0;
  if (anchored) {
    if (!text.startsWith(lits[0])) return lits[0].startsWith(text) ? text.length : -1;
    pos = lits[0].length;
    weight = pos;
    i = 1;
  }
  for (; i < lits.length; i++) {
    const at = text.indexOf(lits[i], pos);
    if (at < 0) {
      // Cut inside the value before this literal, or inside the literal: its start ends the text.
      // A later literal in what is left means a part is missing, not cut: another wording.
      const tail = text.slice(pos);
      for (let j = i + 1; j < lits.length; j++) if (lits[j].trim().length >= 4 && tail.includes(lits[j])) return -1;
      for (let k = Math.min(tail.length, lits[i].length - 1); k > 0; k--) {
        if (!tail.endsWith(lits[i].slice(0, k))) continue;
        // Ending on a literal's whole word that the statement goes on after (`… attention backend` of
        // `… attention backend for {arch}.`): a line printed in full by another wording, not one cut.
        return notAtWordEnd && lits[i][k] === ' ' && /\w/.test(lits[i][k - 1]) ? -1 : weight + k;
      }
      return weight;
    }
    pos = at + lits[i].length;
    weight += lits[i].length;
  }
  return weight;
}

const reversed = (s: string): string => {
  let out = '';
  for (let i = s.length - 1; i >= 0; i--) out += s[i];
  return out;
};

/** Where a paste left text out of a line: `...`, `…`, `[...]`, `[…]`, with the spaces around it. */
const ELISION = / ?(?:\[(?:\.{3}|…)\]|\.{3,}|…) ?/g;
const HAS_ELISION = /\.{3}|…/;

/**
 * Literal characters of the pattern that a message shortened by whoever pasted it still shows:
 * `head … tail` (text left out in the middle) or `head…` (cut, with a mark). The head must be how
 * what the pattern prints starts, the tail how it ends. -1 when the message has no such mark, or
 * cannot be a shortening of what the pattern prints.
 */
export function elidedWeight(c: CompiledPattern, message: string): number {
  ELISION.lastIndex = 0;
  const first = ELISION.exec(message);
  if (!first) return -1;
  let last = first;
  for (let m = ELISION.exec(message); m; m = ELISION.exec(message)) last = m;
  const head = message.slice(0, first.index);
  const tail = message.slice(last.index + last[0].length);
  if (head === '' && tail === '') return -1;
  const hw = head === '' ? 0 : prefixWeight(c.lits, c.anchoredStart, head);
  if (hw < 0) return -1;
  if (tail === '') return hw;
  const tw = prefixWeight(c.lits.map(reversed).reverse(), c.anchoredEnd, reversed(tail));
  return tw < 0 ? -1 : hw + tw;
}

/** Literal weight a message cut short or shortened in the middle still shows of the pattern (-1: neither). */
export function shortenedWeight(c: CompiledPattern, message: string): number {
  // A mark of left-out text: what follows it must be how the text ends, not a value cut short.
  const elided = elidedWeight(c, message);
  if (elided >= 0 || HAS_ELISION.test(message)) return elided;
  return cutShortWeight(c, message);
}

/**
 * The pattern of one printed line of a multi-line message. Python prints a message that
 * contains `\n` as several lines, each with the header repeated; the first line is
 * everything up to the first literal newline.
 */
export function patternLines(p: Pattern): Pattern[] {
  const lines: Pattern[] = [[]];
  for (const part of p) {
    if (part === WILD) { pushParts(lines[lines.length - 1], [WILD]); continue; }
    const pieces = part.split(/\r?\n/);
    pieces.forEach((piece, i) => {
      if (i > 0) lines.push([]);
      pushParts(lines[lines.length - 1], [piece]);
    });
  }
  return lines;
}

/** Renders a pattern for messages and hovers: wildcards as `…`. */
export function patternText(p: Pattern): string {
  return p.map((x) => (x === WILD ? '…' : x)).join('');
}

/**
 * How a message fits the pattern when some of its middle literal pieces are not there (a statement
 * that has gained or renamed a field since the release that printed the line): the literal
 * characters found, in order, and the pieces missing; null when it fits whole, or does not start and
 * end as the pattern does.
 */
export function droppedFit(c: CompiledPattern, text: string): { found: number; missing: string[] } | null {
  const { lits } = c;
  if (!c.anchoredStart || lits.length < 3) return null;
  const message = c.anchoredEnd ? trimEndSpaces(text) : text;
  if (!message.startsWith(lits[0])) return null;
  const end = c.anchoredEnd ? lits[lits.length - 1] : null;
  if (end !== null && !message.endsWith(end)) return null;
  const limit = message.length - (end?.length ?? 0);
  if (limit < lits[0].length) return null;
  let pos = lits[0].length;
  let found = lits[0].length + (end?.length ?? 0);
  const missing: string[] = [];
  let lastMissing = 0;
  let lastFound = 0;
  for (let i = 1; i < (end !== null ? lits.length - 1 : lits.length); i++) {
    const at = message.indexOf(lits[i], pos);
    if (at < 0 || at + lits[i].length > limit) { missing.push(lits[i]); lastMissing = i; continue; }
    pos = at + lits[i].length;
    found += lits[i].length;
    lastFound = i;
  }
  // With no closing literal, pieces missing at the end are a line cut short, not a changed statement.
  if (end === null && lastMissing > lastFound) return null;
  return missing.length ? { found, missing } : null;
}

const LABEL_PIECE = /(?:^|[,;] ?|: )[A-Za-z_][A-Za-z0-9_ ]*: $/;

/** True when the pattern prints a list of labelled fields (`…: %s, params: %s, lora_request: %s.`). */
export function labelledFields(c: CompiledPattern): boolean {
  let n = 0;
  for (const l of c.lits) if (LABEL_PIECE.test(l)) n++;
  return n >= 2;
}

/**
 * Labels (`prompt_adapter_request`) a message shows inside the values of a labelled-field pattern
 * (`…, lora_request: %s.` printing `None, prompt_adapter_request: None.`): fields the statement does
 * not print, so another wording printed the line. Values in quotes, brackets or parentheses are
 * not looked into (a prompt, a repr's `key=value`).
 */
export function labelsInValues(c: CompiledPattern, text: string): string[] {
  const spans = wildcardSpans(c, text);
  if (!spans) return [];
  const message = c.anchoredEnd ? trimEndSpaces(text) : text;
  const own = new Set(c.lits.map((l) => /([A-Za-z_][A-Za-z0-9_ ]*): $/.exec(l)?.[1]).filter((x): x is string => !!x));
  const out: string[] = [];
  let pos = c.anchoredStart && c.lits.length ? c.lits[0].length : 0;
  let li = c.anchoredStart ? 1 : 0;
  for (const span of spans) {
    const value = message.slice(pos, pos + span);
    // Only a field's own value (after `label: `): a value that is a part built elsewhere
    // (SGLang's `{token_msg}`, vLLM's joined `log_parts`) holds labels of its own.
    const label = li > 0 && /[A-Za-z_][A-Za-z0-9_ ]*: $/.test(c.lits[li - 1]);
    pos += span;
    if (li < c.lits.length) { pos = message.indexOf(c.lits[li], pos) + c.lits[li].length; li++; }
    if (!label || /^['"]/.test(value)) continue;
    let depth = 0;
    for (let i = 0; i < value.length; i++) {
      const ch = value[i];
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
      else if (ch === "'" || ch === '"') break;
      else if (depth === 0 && ch === ',' && value[i + 1] === ' ') {
        const m = /^, ([A-Za-z_][A-Za-z0-9_]*(?: [a-z_]+)?): /.exec(value.slice(i));
        if (m && !own.has(m[1])) out.push(m[1]);
      }
    }
  }
  return out;
}
