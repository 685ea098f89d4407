// A small Python tokenizer: just enough to find logging calls and read their string
// literals (plain, raw, f-strings, implicit concatenation) without being fooled by
// comments, strings that contain `logger.info(`, or brackets inside strings.

import { pushParts, WILD, type Pattern } from './messagePattern';

export type TokKind = 'name' | 'str' | 'num' | 'op' | 'nl';

export interface StrInfo {
  /** f-string: placeholders already turned into wildcards. */
  f: boolean;
  bytes: boolean;
  /** The literal value (escapes decoded); for f-strings, literal parts and wildcards. */
  parts: Pattern;
  /**
   * f-strings: for each wildcard of `parts` in order, the variable it prints when the field is
   * a bare name with no conversion or format (`{prefix}`), else null.
   */
  fields?: Array<string | null>;
}

export interface Tok {
  kind: TokKind;
  /** Name, operator or number text; for strings the raw source is not kept. */
  text: string;
  /** 1-based line where the token starts. */
  line: number;
  /** Column of the token's first character on its line (0-based); used for indentation. */
  col: number;
  str?: StrInfo;
}

const MULTI_OPS = new Set(['+=', '-=', '*=', '/=', '%=', '==', '!=', '<=', '>=', '**', '//', '->', ':=', '|=', '&=', '@=', '<<', '>>']);
const STRING_PREFIX = /^(?:[rRuUbBfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;

function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c > 127;
}
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}

/** Thrown for text that cannot be Python source (e.g. NUL bytes); callers skip the file. */
export class NotPythonError extends Error {}

export function tokenize(src: string): Tok[] {
  if (src.indexOf('\0') >= 0) throw new NotPythonError('file contains NUL bytes (binary?)');
  const toks: Tok[] = [];
  const n = src.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  let depth = 0;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 10) { // \n
      if (depth === 0 && toks.length && toks[toks.length - 1].kind !== 'nl') toks.push({ kind: 'nl', text: '', line, col: i - lineStart });
      i++; line++; lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12) { i++; continue; }
    if (c === 35) { // # comment
      while (i < n && src.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 92) { // backslash line continuation
      i++;
      if (src.charCodeAt(i) === 13) i++;
      if (src.charCodeAt(i) === 10) { i++; line++; lineStart = i; }
      continue;
    }
    const col = i - lineStart;
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNameChar(src.charCodeAt(j))) j++;
      const word = src.slice(i, j);
      const q = src[j];
      if ((q === '"' || q === "'") && STRING_PREFIX.test(word)) {
        const startLine = line;
        const r = readString(src, j, word.toLowerCase());
        for (let k = j; k < r.end; k++) if (src.charCodeAt(k) === 10) { line++; lineStart = k + 1; }
        toks.push({ kind: 'str', text: '', line: startLine, col, str: r.info });
        i = r.end;
        continue;
      }
      toks.push({ kind: 'name', text: word, line, col });
      i = j;
      continue;
    }
    if (c === 34 || c === 39) { // " or '
      const startLine = line;
      const r = readString(src, i, '');
      for (let k = i; k < r.end; k++) if (src.charCodeAt(k) === 10) { line++; lineStart = k + 1; }
      toks.push({ kind: 'str', text: '', line: startLine, col, str: r.info });
      i = r.end;
      continue;
    }
    if ((c >= 48 && c <= 57) || (c === 46 && i + 1 < n && src.charCodeAt(i + 1) >= 48 && src.charCodeAt(i + 1) <= 57)) {
      let j = i + 1;
      while (j < n && (isNameChar(src.charCodeAt(j)) || src.charCodeAt(j) === 46)) j++;
      toks.push({ kind: 'num', text: src.slice(i, j), line, col });
      i = j;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (MULTI_OPS.has(two)) {
      toks.push({ kind: 'op', text: two, line, col });
      i += 2;
      continue;
    }
    const ch = src[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
    toks.push({ kind: 'op', text: ch, line, col });
    i++;
  }
  return toks;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v',
};

/** Reads one string literal starting at its opening quote; returns its value and end offset. */
function readString(src: string, start: number, prefix: string): { info: StrInfo; end: number } {
  const raw = prefix.includes('r');
  const isF = prefix.includes('f') || prefix.includes('t');
  const bytes = prefix.includes('b');
  const q = src[start];
  const triple = src.startsWith(q + q + q, start);
  const quote = triple ? q + q + q : q;
  let i = start + quote.length;
  const n = src.length;
  const parts: Pattern = [];
  let lit = '';
  const fields: Array<string | null> = [];
  /** Pushes `lit` and a wildcard, keeping `fields` aligned with the wildcards (adjacent ones merge). */
  const wild = (name: string | null) => {
    if (lit === '' && parts.length > 0 && parts[parts.length - 1] === WILD) fields[fields.length - 1] = null;
    else fields.push(name);
    pushParts(parts, [lit, WILD]);
    lit = '';
  };
  while (i < n) {
    const ch = src[i];
    if (src.startsWith(quote, i)) { i += quote.length; break; }
    if (!triple && ch === '\n') break; // unterminated: stop at the line end
    if (ch === '\\') {
      const nx = src[i + 1];
      if (raw) { lit += ch + (nx ?? ''); i += 2; continue; }
      if (nx === '\n') { i += 2; continue; }
      if (nx === '\r' && src[i + 2] === '\n') { i += 3; continue; }
      if (nx !== undefined && SIMPLE_ESCAPES[nx] !== undefined) { lit += SIMPLE_ESCAPES[nx]; i += 2; continue; }
      if (nx === 'x' || (!bytes && (nx === 'u' || nx === 'U'))) {
        const len = nx === 'x' ? 2 : nx === 'u' ? 4 : 8;
        const hex = src.slice(i + 2, i + 2 + len);
        if (/^[0-9a-fA-F]+$/.test(hex) && hex.length === len) {
          lit += String.fromCodePoint(parseInt(hex, 16));
          i += 2 + len;
          continue;
        }
      }
      if (nx !== undefined && nx >= '0' && nx <= '7') {
        const m = /^[0-7]{1,3}/.exec(src.slice(i + 1, i + 4))!;
        lit += String.fromCharCode(parseInt(m[0], 8));
        i += 1 + m[0].length;
        continue;
      }
      if (nx === 'N' && src[i + 2] === '{') {
        const close = src.indexOf('}', i + 3);
        if (close > 0) { wild(null); i = close + 1; continue; }
      }
      lit += ch + (nx ?? '');
      i += 2;
      continue;
    }
    if (isF && ch === '{') {
      if (src[i + 1] === '{') { lit += '{'; i += 2; continue; }
      const r = readFieldExpr(src, i + 1, quote);
      if (r.debugText) lit += r.debugText;
      wild(r.name);
      i = r.end;
      continue;
    }
    if (isF && ch === '}' && src[i + 1] === '}') { lit += '}'; i += 2; continue; }
    lit += ch;
    i++;
  }
  pushParts(parts, [lit]);
  return { info: isF ? { f: isF, bytes, parts, fields } : { f: isF, bytes, parts }, end: i };
}

/**
 * Skips an f-string replacement field `{expr!r:spec}` starting after its `{`. Returns the
 * offset after the closing `}`, and for the `{expr=}` debug form the text it prints
 * before the value (`expr=`).
 */
function readFieldExpr(src: string, start: number, outerQuote: string): { end: number; debugText: string | null; name: string | null } {
  let depth = 0;
  let i = start;
  const n = src.length;
  let exprEnd = -1;
  while (i < n) {
    const ch = src[i];
    if (src.startsWith(outerQuote, i) && outerQuote.length === 3) break;
    if (ch === '"' || ch === "'") {
      // A nested string inside the expression (Python 3.12 allows the outer quote too).
      const r = readString(src, i, '');
      i = r.end;
      continue;
    }
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === '}') {
      if (depth === 0) { if (exprEnd < 0) exprEnd = i; i++; break; }
      depth--;
    } else if (depth === 0 && exprEnd < 0 && (ch === ':' || (ch === '!' && src[i + 1] !== '='))) {
      exprEnd = i;
      // The format spec may hold nested fields: `{x:{width}}`.
      if (ch === ':') {
        let d = 0;
        i++;
        while (i < n) {
          if (src[i] === '{') d++;
          else if (src[i] === '}') { if (d === 0) break; d--; }
          else if (src[i] === '\n' && outerQuote.length === 1) break;
          i++;
        }
        continue;
      }
    } else if (ch === '\n' && outerQuote.length === 1) break;
    i++;
  }
  const expr = src.slice(start, exprEnd < 0 ? i : exprEnd);
  const dbg = /^\s*[^=!<>]*?=\s*$/.test(expr) && /=\s*$/.test(expr) && !/[=!<>]=\s*$/.test(expr) ? expr : null;
  // `{prefix}` alone (the field closes right after the name) prints the variable as it is.
  const bare = exprEnd < 0 || src[exprEnd] === '}' ? /^\s*([A-Za-z_]\w*)\s*$/.exec(expr) : null;
  return { end: i, debugText: dbg, name: bare ? bare[1] : null };
}
