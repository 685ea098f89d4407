// Logging calls in the Rust sources SGLang ships (its router, sgl-router/): the `log` and
// `tracing` crates' macros `info!(…)`, `debug!(…)`, … . tracing prints `file.rs:N` with N the
// line of the macro's name (line!() names the outermost invocation); the message is the format
// string with its `{…}` arguments filled in, and tracing prints structured fields (`name = value`
// before the format string) after the message.
import { applyBraceFormat, WILD, pushParts } from './messagePattern';
import type { LogStatement } from './logStatements';

const MACRO = /(?<![\w:])(?:(?:tracing|log)::)?(trace|debug|info|warn|error)!\s*\(/g;
const LEVEL: Record<string, string> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warning', error: 'error' };

/** Where comments and string literals are in `src`: `code[i]` is false inside them. */
function codeMask(src: string): Uint8Array {
  const code = new Uint8Array(src.length).fill(1);
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      code.fill(0, i, stop);
      i = stop;
    } else if (c === '/' && src[i + 1] === '*') {
      // Rust block comments nest.
      let depth = 0;
      let j = i;
      for (; j < src.length; j++) {
        if (src[j] === '/' && src[j + 1] === '*') {
          depth++; j++;
        } else if (src[j] === '*' && src[j + 1] === '/') {
          depth--; j++;
          if (depth === 0) { j++; break; }
        }
      }
      code.fill(0, i, j);
      i = j;
    } else if (c === '"' || ((c === 'r' || c === 'b') && /^(?:b?r#*"|b")/.test(src.slice(i, i + 40)) && !/\w/.test(src[i - 1] ?? ''))) {
      const end = stringEnd(src, i);
      code.fill(0, i, end);
      i = end;
    } else if (c === "'") {
      // A char literal ('a', '\n', '\u{1F600}') or a lifetime ('a): only the former is skipped.
      const m = /^'(?:\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|.)|[^\\'\n]{1,2})'/.exec(src.slice(i, i + 14));
      if (m && (m[0].length <= 4 || m[0].startsWith("'\\"))) { code.fill(0, i, i + m[0].length); i += m[0].length; } else i++;
    } else {
      i++;
    }
  }
  return code;
}

/** The index just past the string literal starting at `i` (`"…"`, `r#"…"#`, `b"…"`). */
function stringEnd(src: string, i: number): number {
  let j = i;
  if (src[j] === 'b') j++;
  if (src[j] === 'r') {
    let hashes = 0;
    j++;
    while (src[j] === '#') { hashes++; j++; }
    const close = '"' + '#'.repeat(hashes);
    const end = src.indexOf(close, j + 1);
    return end < 0 ? src.length : end + close.length;
  }
  for (j++; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === '"') return j + 1;
  }
  return src.length;
}

/** The text a string literal stands for (escapes applied, `\` + newline + indentation dropped). */
function literalText(lit: string): string | null {
  const raw = /^b?r(#*)"([\s\S]*)"\1$/.exec(lit);
  if (raw) return raw[2];
  const m = /^b?"([\s\S]*)"$/.exec(lit);
  if (!m) return null;
  const ESCAPE = /\\(?:\r?\n\s*|u\{([0-9a-fA-F]{1,6})\}|x([0-9a-fA-F]{2})|(.))/g;
  return m[1].replace(ESCAPE, (_all, u: string | undefined, x: string | undefined, c: string | undefined) => {
    if (u) return String.fromCodePoint(parseInt(u, 16));
    if (x) return String.fromCharCode(parseInt(x, 16));
    if (c === undefined) return '';
    return c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c === '0' ? '\0' : c;
  });
}

function lineAt(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= index) lo = mid; else hi = mid - 1;
  }
  return lo + 1;
}

/** The logging macro calls of a Rust file, as statements (the same shape as Python's). */
export function findRustLogStatements(src: string): LogStatement[] {
  if (!/(?:trace|debug|info|warn|error)!/.test(src)) return [];
  const code = codeMask(src);
  const starts = [0];
  for (let i = src.indexOf('\n'); i >= 0; i = src.indexOf('\n', i + 1)) starts.push(i + 1);
  const out: LogStatement[] = [];
  MACRO.lastIndex = 0;
  for (let m = MACRO.exec(src); m; m = MACRO.exec(src)) {
    if (!code[m.index]) continue;
    const open = m.index + m[0].length - 1;
    // The top-level arguments, split at commas outside brackets and literals.
    const args: Array<{ from: number; to: number }> = [];
    let depth = 0;
    let from = open + 1;
    let close = -1;
    for (let i = open + 1; i < src.length; i++) {
      if (!code[i]) continue;
      const c = src[i];
      if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') {
        if (depth === 0) { close = i; break; }
        depth--;
      } else if (c === ',' && depth === 0) { args.push({ from, to: i }); from = i + 1; }
    }
    if (close < 0) break;
    args.push({ from, to: close });
    // Fields (`name = value`, `%x`, `?x`) and `target:` / `parent:` come before the format string.
    let fields = false;
    let fmt: { text: string; at: number } | null = null;
    for (const a of args) {
      const text = src.slice(a.from, a.to).trim();
      if (text === '') continue;
      const lead = a.from + src.slice(a.from, a.to).search(/\S/);
      if (/^(?:target|parent|name)\s*:(?!:)/.test(text)) continue;
      if ((text.startsWith('"') || /^b?r#*"/.test(text)) && stringEnd(src, lead) === lead + text.length) {
        const t = literalText(text);
        if (t !== null) fmt = { text: t, at: lead };
        break;
      }
      fields = true;
    }
    if (!fmt) continue;
    const pattern = pushParts([], applyBraceFormat(fmt.text));
    if (fields) pushParts(pattern, [WILD]);
    const line = lineAt(starts, m.index);
    const textLine = lineAt(starts, fmt.at);
    out.push({
      line, endLine: lineAt(starts, close), textLine, level: LEVEL[m[1]], method: m[1],
      variants: [{ pattern, openEnded: fields, textLine }], withTraceback: false,
    });
  }
  return out;
}
