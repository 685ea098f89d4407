// Finds every logging call in a Python file and reduces its message argument to a
// Pattern: the literal text it prints with wildcards for values.

import { applyBraceFormat, applyPercentFormat, pushParts, WILD, type Pattern } from './messagePattern';
import { tokenize, type Tok } from './pythonLexer';

export interface MessageVariant {
  pattern: Pattern;
  /** More text may follow (the message variable is extended with `+=` before the call). */
  openEnded: boolean;
  /** 1-based line where this variant's text starts (an assignment above the call, or the call). */
  textLine: number;
}

export interface LogStatement {
  /** 1-based line of the call's first token: what Python ≥3.11 prints as `%(lineno)d`. */
  line: number;
  /** Line of the closing parenthesis. */
  endLine: number;
  /** Where the message text starts (the string literal, possibly in an assignment above). */
  textLine: number;
  /** "debug" | "info" | "warning" | "error" | "exception" | "critical", or null when not visible (`log`, `_log`). */
  level: string | null;
  /** Method as written: "info", "warning_once", "_log", … */
  method: string;
  /** What the call can print; several when the message variable is assigned in branches. */
  variants: MessageVariant[];
  /** Traceback text follows (`exception`, `exc_info=`, `stack_info=`). */
  withTraceback: boolean;
  /**
   * The function the call is in (its nearest enclosing `def`), null at module or class level: what a
   * layout's `%(funcName)s` prints (NVIDIA Dynamo's `module.func:`), so such a line is told by it.
   */
  func?: string | null;
}

const LOG_METHOD = /^(?:(?:debug|info|warning|warn|error|exception|critical|fatal)(?:_once)?|log|_log)$/;
/** Methods an alias can be bound to: `log_fn = logger.info` (not `log = math.log`). */
const LEVEL_METHOD = /^(?:debug|info|warning|warn|error|exception|critical|fatal)(?:_once)?$/;
const NOT_LOGGERS = new Set(['warnings', 'parser', 'argparse', 'np', 'numpy', 'math', 'torch']);

/** Parses a Python file's text. Throws NotPythonError for binary content. */
export function findLogStatements(src: string, helpers?: LogHelper[]): LogStatement[] {
  if (!/\.(?:debug|info|warning|warn|error|exception|critical|fatal|log|_log)\w*\b/.test(src)) return [];
  const toks = tokenize(src);
  const out: LogStatement[] = [];
  const aliases = logMethodAliases(toks);
  for (let i = 2; i < toks.length - 1; i++) {
    const t = toks[i];
    if (t.kind !== 'name') continue;
    if (aliases.has(t.text) && toks[i + 1].text === '(' && toks[i - 1].text !== '.' && toks[i - 1].text !== 'def') {
      // `log_fn = logger.info if busy else logger.debug; log_fn("…", x)`
      const stmt = readCall(toks, i, i);
      if (stmt) out.push({ ...stmt, level: null });
      continue;
    }
    if (!LOG_METHOD.test(t.text)) continue;
    if (toks[i + 1].text !== '(' || toks[i - 1].text !== '.') continue;
    // Walk back over the receiver chain: `a.b.c`, also through calls like `logging.getLogger(x)`.
    let start = i - 2;
    let ok = true;
    for (;;) {
      if (toks[start].text === ')') {
        let depth = 0;
        let k = start;
        for (; k >= 0; k--) {
          if (toks[k].text === ')') depth++;
          else if (toks[k].text === '(' && --depth === 0) break;
        }
        if (k <= 0 || toks[k - 1].kind !== 'name') { ok = false; break; }
        start = k - 1;
      } else if (toks[start].kind !== 'name') {
        ok = false;
        break;
      }
      if (start >= 2 && toks[start - 1].text === '.' && (toks[start - 2].kind === 'name' || toks[start - 2].text === ')')) start -= 2;
      else break;
    }
    if (!ok || NOT_LOGGERS.has(toks[start].text)) continue;
    const stmt = readCall(toks, start, i);
    if (stmt) out.push({ ...stmt, func: enclosingFunction(toks, start) });
    if (helpers) {
      const h = helperOf(toks, start, i);
      if (h) helpers.push(h);
    }
  }
  return out;
}

/** Whether the source may call one of these helpers (a cheap test before tokenizing a file again). */
export function helperCallPattern(helpers: readonly LogHelper[]): RegExp | null {
  const names = [...new Set(helpers.map((h) => h.name))];
  if (names.length === 0) return null;
  return new RegExp(`\\b(?:${names.map((n) => n.replace(/[^\w]/g, '')).join('|')})\\s*\\(`);
}

/**
 * The calls of logging helpers in a file, as statements: the message the caller passes, with the
 * text the helper adds around it, named by the call's first line.
 */
export function findHelperCalls(src: string, helpers: ReadonlyMap<string, readonly LogHelper[]>, path?: string): LogStatement[] {
  const toks = tokenize(src);
  const out: LogStatement[] = [];
  // Names this file defines: `self.name(…)` calls this file's own method of that name, not a
  // helper of the same name in another file (SGLang's mooncake and NIXL `send_kvcache`).
  const defined = new Set<string>();
  for (let i = 0; i + 1 < toks.length; i++) if (toks[i].kind === 'name' && toks[i].text === 'def' && toks[i + 1].kind === 'name') defined.add(toks[i + 1].text);
  for (let i = 1; i < toks.length - 1; i++) {
    const t = toks[i];
    if (t.kind !== 'name' || toks[i + 1].text !== '(') continue;
    const defs = helpers.get(t.text);
    if (!defs) continue;
    const prev = toks[i - 1];
    if (prev.text === 'def') continue;
    const dotted = prev.text === '.';
    let start = i;
    if (dotted) {
      // The receiver: `self._log(…)`, `utils.log_info_on_rank0(…)`.
      if (toks[i - 2]?.kind !== 'name') continue;
      start = i - 2;
      while (start >= 2 && toks[start - 1].text === '.' && toks[start - 2].kind === 'name') start -= 2;
    }
    const own = dotted && (toks[i - 2].text === 'self' || toks[i - 2].text === 'cls') && start === i - 2;
    const fits = defs.filter((h) => (h.method ? dotted : true) && !(own && path && defined.has(t.text) && h.files && !h.files.includes(path)));
    if (fits.length === 0) continue;
    const stmt = readCall(toks, start, i, fits);
    if (stmt) out.push({ ...stmt, func: enclosingFunction(toks, start) });
  }
  return out;
}

/**
 * The name of the function the statement at token `at` is in: walking up, the first line that is
 * less indented than every line passed is the enclosing block; a `def` there names it. Null at
 * module or class level, or when a token's column does not tell (text after a closing `"""`).
 */
function enclosingFunction(toks: Tok[], at: number): string | null {
  let k = at;
  while (k > 0 && toks[k - 1].line === toks[at].line) k--;
  let indent = toks[k].col;
  for (k--; k >= 0 && indent > 0; k--) {
    const t = toks[k];
    // Only the first token of a line shows its indentation.
    if ((k > 0 && toks[k - 1].line === t.line) || t.col >= indent) continue;
    const def = t.kind === 'name' && t.text === 'def' ? k : t.kind === 'name' && t.text === 'async' && toks[k + 1]?.text === 'def' ? k + 1 : -1;
    if (def >= 0) return toks[def + 1]?.kind === 'name' ? toks[def + 1].text : null;
    indent = t.col;
  }
  return null;
}

/** The helper this logging call makes of its enclosing function, when it logs one of its parameters. */
/** dict, list, set, str, queue and file methods taking one argument: a helper method of that name is not told apart by its calls. */
const BUILTIN_METHODS = new Set([
  'get', 'pop', 'setdefault', 'update', 'append', 'extend', 'insert', 'remove', 'add', 'discard', 'index', 'count',
  'put', 'join', 'format', 'split', 'replace', 'startswith', 'endswith', 'read', 'write',
]);

function helperOf(toks: Tok[], start: number, methodIdx: number): LogHelper | null {
  const method = toks[methodIdx].text;
  if (method === '_log') return null;
  // The enclosing def: the nearest one above whose indentation is less than the call's line.
  let d = start - 1;
  const limit = Math.max(0, start - 400);
  while (d > limit && !(toks[d].kind === 'name' && toks[d].text === 'def')) d--;
  if (d <= limit || toks[d].kind !== 'name' || toks[d].text !== 'def') return null;
  const nameTok = toks[d + 1];
  if (!nameTok || nameTok.kind !== 'name' || toks[d + 2]?.text !== '(' || LOG_METHOD.test(nameTok.text) || nameTok.text.length < 3) return null;
  if (toks[start].col <= toks[d].col) return null;
  // Parameters: the first name of each top-level item (`*args` and `**kw` kept with their stars).
  const params: string[] = [];
  let depth = 1;
  let expectName = true;
  for (let k = d + 3; k < toks.length && depth > 0; k++) {
    const x = toks[k];
    if (x.text === '(' || x.text === '[' || x.text === '{') { depth++; continue; }
    if (x.text === ')' || x.text === ']' || x.text === '}') { depth--; continue; }
    if (depth !== 1) continue;
    if (x.text === ',') { expectName = true; continue; }
    if (!expectName) continue;
    expectName = false;
    if (x.kind === 'name') params.push(x.text);
    else if ((x.text === '*' || x.text === '**') && toks[k + 1]?.kind === 'name') { params.push(x.text + toks[k + 1].text); k++; }
    else if (x.text === '*') params.push('*');
  }
  const isMethod = params[0] === 'self' || params[0] === 'cls';
  // A method named as the built-in containers' and files' own (`def get(self, key): … logger.warning(f"… {key} …")`
  // in SGLang 0.5's hicache storage): `x.get("key")` anywhere calls a dict's far more often than it.
  if (isMethod && BUILTIN_METHODS.has(nameTok.text)) return null;
  const positional = (isMethod ? params.slice(1) : params).filter((p) => p !== '/');
  const stmtInfo = readCallArgs(toks, methodIdx);
  if (!stmtInfo) return null;
  const { positional: args } = stmtInfo;
  // `logger.log(level, msg)`: the message is the second argument, the level a run-time choice.
  const viaLog = method === 'log';
  const msgArg = args[viaLog ? 1 : 0];
  if (!msgArg || args.length > (viaLog ? 2 : 1)) return null;
  for (let pi = 0; pi < positional.length; pi++) {
    const p = positional[pi];
    if (p.startsWith('*')) break;
    const ctx = new Scope(toks, start, p);
    const segs = msgArg.length === 1 && msgArg[0].kind === 'name' ? (msgArg[0].text === p ? [PARAM] : []) : flatChoices(evalExpr(msgArg, ctx));
    const at = segs.indexOf(PARAM);
    if (at < 0 || segs.indexOf(PARAM, at + 1) >= 0) continue;
    const part = (xs: Seg[]): Pattern => {
      const out: Pattern = [];
      for (const x of xs) pushParts(out, [x === WILD || x === PARAM || isAlts(x) ? WILD : x.lit]);
      return out;
    };
    const baseLevel = method.replace(/_once$/, '');
    const level = viaLog ? null : baseLevel === 'warn' ? 'warning' : baseLevel === 'fatal' ? 'critical' : baseLevel;
    return {
      name: nameTok.text, index: pi, param: p, method: isMethod, level,
      before: part(segs.slice(0, at)), after: part(segs.slice(at + 1)),
      withTraceback: method === 'exception' || stmtInfo.keywords.includes('exc_info') || stmtInfo.keywords.includes('stack_info'),
    };
  }
  return null;
}

/**
 * Names bound to a logger method (not called): `log_fn = logger.info if x else logger.debug`,
 * and a parameter whose default is one: `def log(self, log_fn=logger.info): … log_fn("…", x)`
 * (vLLM's spec-decoding and KV-transfer metrics).
 */
function logMethodAliases(toks: Tok[]): Set<string> {
  const names = new Set<string>();
  for (let i = 1; i + 2 < toks.length; i++) {
    if (toks[i].kind !== 'name' || toks[i + 1].text !== '=') continue;
    const prev = toks[i - 1];
    if (prev.text === '(' || prev.text === ',') {
      // A parameter default (or a keyword argument): exactly `name=<receiver>.<level method>` up to `,` or `)`.
      const m = toks[i + 4];
      const receiver = toks[i + 2].kind === 'name' && /log/i.test(toks[i + 2].text) && toks[i + 3]?.text === '.';
      const endsThere = toks[i + 5]?.text === ',' || toks[i + 5]?.text === ')';
      if (receiver && m?.kind === 'name' && LEVEL_METHOD.test(m.text) && endsThere) names.add(toks[i].text);
      continue;
    }
    if (!(prev.kind === 'nl' || prev.text === ':')) continue;
    for (let j = i + 2; j < toks.length && toks[j].kind !== 'nl'; j++) {
      const levelMethod = toks[j + 1]?.kind === 'name' && LEVEL_METHOD.test(toks[j + 1].text);
      if (toks[j].text === '.' && levelMethod && /log/i.test(toks[j - 1]?.text ?? '') && toks[j + 2]?.text !== '(') {
        names.add(toks[i].text);
        break;
      }
    }
  }
  return names;
}

/** Where a helper's message parameter goes in the text its own logging call prints. */
const PARAM = 1 as const;
/**
 * A piece of a message: literal text, a value (WILD), a helper's parameter (PARAM), or one of
 * several texts chosen at run time (a variable assigned in branches, `a if c else b`).
 */
type Seg = { lit: string; logFmt: boolean; line: number } | typeof WILD | typeof PARAM | { alts: Seg[][] };
/** Variants one statement may expand to through run-time choices; past it, a choice prints as a value. */
const MAX_VARIANTS = 8;

const isAlts = (s: Seg): s is { alts: Seg[][] } => typeof s === 'object' && 'alts' in s;

/** The choice's texts when they differ (else the one text, inline). */
function choice(alts: Seg[][]): Seg[] {
  if (alts.length === 1) return alts[0];
  const keyOf = (xs: Seg[]) => xs.map((x) => (typeof x !== 'object' ? String(x) : 'lit' in x ? `"${x.lit}` : JSON.stringify(x.alts))).join('\u0000');
  const distinct: Seg[][] = [];
  const keys = new Set<string>();
  for (const a of alts) {
    const k = keyOf(a);
    if (!keys.has(k)) { keys.add(k); distinct.push(a); }
  }
  return distinct.length === 1 ? distinct[0] : [{ alts: distinct }];
}

/** Every flat sequence a message's segments can print (run-time choices expanded, at most MAX_VARIANTS). */
function expandChoices(segs: Seg[]): Seg[][] {
  let out: Seg[][] = [[]];
  for (const s of segs) {
    if (!isAlts(s)) { for (const o of out) o.push(s); continue; }
    const options = s.alts.flatMap((a) => expandChoices(a));
    if (out.length * options.length > MAX_VARIANTS) { for (const o of out) o.push(WILD); continue; }
    out = out.flatMap((o) => options.map((opt) => [...o, ...opt]));
  }
  return out;
}

/** Segments with every run-time choice printed as a value (for a helper's text around its parameter). */
function flatChoices(segs: Seg[]): Seg[] {
  return segs.map((s) => (isAlts(s) ? WILD : s));
}

/**
 * A function that logs one of its parameters: `def log_info_on_rank0(logger, msg): … logger.info(msg)`,
 * `def print_warning_once(msg): logger.warning(msg, stacklevel=2)`, `def _log(self, msg): logger.info(f"[x] {msg}")`.
 * Its callers are the statements: what they pass is what the line prints.
 */
export interface LogHelper {
  name: string;
  /** Position of the message among the call's positional arguments (a method's `self` not counted). */
  index: number;
  /** The parameter's name (a call may pass it by keyword). */
  param: string;
  /** Defined with `self`/`cls` first: called as `obj.name(…)`. */
  method: boolean;
  level: string | null;
  /** Text the helper prints before and after the message. */
  before: Pattern;
  after: Pattern;
  withTraceback: boolean;
  /** The files that define it (set by the index; unknown when absent). */
  files?: string[];
}

interface CallArgs {
  args: Tok[][];
  /** Arguments not passed by keyword (a `msg=` keyword counts as the message). */
  positional: Tok[][];
  keywords: string[];
  /** Index of the closing parenthesis. */
  end: number;
}

function readCallArgs(toks: Tok[], methodIdx: number): CallArgs | null {
  const args: Tok[][] = [];
  let depth = 0;
  let cur: Tok[] = [];
  let k = methodIdx + 1;
  for (; k < toks.length; k++) {
    const x = toks[k];
    if (x.kind === 'op' && (x.text === '(' || x.text === '[' || x.text === '{')) {
      depth++;
      if (depth === 1) continue;
    } else if (x.kind === 'op' && (x.text === ')' || x.text === ']' || x.text === '}')) {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1 && x.text === ',') {
      args.push(cur);
      cur = [];
      continue;
    }
    if (x.kind !== 'nl') cur.push(x);
  }
  if (cur.length) args.push(cur);
  if (k >= toks.length) return null;
  const isKw = (a: Tok[]) => a.length >= 2 && a[0].kind === 'name' && a[1].text === '=';
  const positional = args.filter((a) => !(isKw(a) && a[0].text !== 'msg'));
  const keywords = args.filter(isKw).map((a) => a[0].text);
  return { args, positional, keywords, end: k };
}

function readCall(toks: Tok[], start: number, methodIdx: number, viaHelpers?: readonly LogHelper[]): LogStatement | null {
  const method = toks[methodIdx].text;
  const call = readCallArgs(toks, methodIdx);
  if (!call) return null;
  const { args, positional, keywords } = call;
  const endLine = toks[call.end].line;
  const line = toks[start].line;
  const ctx = new Scope(toks, start);
  if (viaHelpers) {
    // A helper's call: the message is the argument in the helper's parameter's place.
    const variants: MessageVariant[] = [];
    for (const h of viaHelpers) {
      const msgArg = args.find((a) => a.length > 2 && a[0].text === h.param && a[1].text === '=')?.slice(2) ?? positional[h.index];
      if (!msgArg || msgArg.length === 0 || msgArg[0].text === '*' || msgArg[0].text === '**') continue;
      for (const v of messageVariants(msgArg, ctx, false, line)) {
        // An argument that is all values prints what the helper's own logging call shows: that
        // statement is the answer, the call would only be a second candidate for the same text.
        if (!v.pattern.some((x) => x !== WILD && x.trim() !== '')) continue;
        const pattern = pushParts([...h.before], v.pattern);
        pushParts(pattern, h.after);
        if (variants.some((x) => x.pattern.length === pattern.length && x.pattern.every((p, i) => p === pattern[i]))) continue;
        variants.push({ ...v, pattern });
      }
    }
    if (variants.length === 0) return null;
    const levels = new Set(viaHelpers.map((h) => h.level));
    return {
      line, endLine, textLine: variants.reduce((m, v) => Math.min(m, v.textLine), Number.MAX_SAFE_INTEGER),
      level: levels.size === 1 ? viaHelpers[0].level : null, method, variants, withTraceback: viaHelpers.some((h) => h.withTraceback),
    };
  }
  let msgIdx = 0;
  if (method === 'log' && positional.length >= 2 && !positional[0].some((x) => x.kind === 'str')) msgIdx = 1;
  const msgArg = positional[msgIdx] ?? args.find((a) => a[0]?.text === 'msg')?.slice(2);
  if (!msgArg || msgArg.length === 0) return null;
  const hasFormatArgs = positional.length > msgIdx + 1;
  const baseLevel = method.replace(/_once$/, '').replace(/^_/, '');
  const level = baseLevel === 'warn' ? 'warning' : baseLevel === 'fatal' ? 'critical' : baseLevel === 'log' ? null : baseLevel;
  const withTraceback = method === 'exception' || keywords.includes('exc_info') || keywords.includes('stack_info');
  const variants = messageVariants(msgArg, ctx, hasFormatArgs, line);
  const textLine = variants.reduce((m, v) => Math.min(m, v.textLine), Number.MAX_SAFE_INTEGER);
  return { line, endLine, textLine, level, method, variants, withTraceback };
}

/** What a message argument can print: one variant per branch that assigns its variable. */
function messageVariants(msgArg: Tok[], ctx: Scope, hasFormatArgs: boolean, line: number): MessageVariant[] {
  let segVariants: Array<{ segs: Seg[]; openEnded: boolean }>;
  if (msgArg.length === 1 && msgArg[0].kind === 'name') {
    // The variable's text where the call reads it: each branch's, not one a later line replaced.
    segVariants = [{ segs: ctx.value(msgArg[0].text, 1) ?? [WILD], openEnded: false }];
  } else {
    segVariants = [{ segs: evalExpr(msgArg, ctx), openEnded: false }];
  }
  const expanded = segVariants.flatMap(({ segs, openEnded }) => expandChoices(segs).map((flat) => ({ segs: flat, openEnded })));
  return expanded.map(({ segs, openEnded }) => {
    const pattern: Pattern = [];
    let textLine = 0;
    for (const s of segs) {
      if (s === WILD || s === PARAM || isAlts(s)) { pushParts(pattern, [WILD]); continue; }
      if (!textLine && s.lit) textLine = s.line;
      pushParts(pattern, s.logFmt && hasFormatArgs ? applyPercentFormat(s.lit) : [s.lit]);
    }
    return { pattern, openEnded, textLine: textLine || line };
  });
}

/** Splits tokens at top-level occurrences of an operator. */
function splitTop(tokens: Tok[], op: string): Tok[][] {
  const out: Tok[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (t.kind === 'op') {
      if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
      else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
      else if (depth === 0 && t.text === op) { out.push([]); continue; }
    }
    out[out.length - 1].push(t);
  }
  return out;
}

function evalExpr(tokens: Tok[], ctx: Scope, nameDepth = 0): Seg[] {
  if (hasTopLevelChoice(tokens) && !startsWithParenGroup(tokens)) {
    // `a if cond else b`: either text prints, a run-time choice. A comprehension or lambda: a value.
    // One inside brackets (`"Using %s" + (" with X" if y else "")`) is that operand's choice only.
    const ifAt = topLevelName(tokens, 'if');
    const elseAt = ifAt > 0 ? topLevelName(tokens, 'else', ifAt) : -1;
    if (elseAt < 0 || topLevelName(tokens, 'for') >= 0 || topLevelName(tokens, 'lambda') >= 0) return [WILD];
    return choice([evalExpr(tokens.slice(0, ifAt), ctx, nameDepth), evalExpr(tokens.slice(elseAt + 1), ctx, nameDepth)]);
  }
  const segs: Seg[] = [];
  for (const operand of splitTop(tokens, '+')) segs.push(...evalOperand(operand, ctx, nameDepth));
  return segs;
}

/** `if`, `for` or `lambda` outside any brackets. */
function hasTopLevelChoice(tokens: Tok[]): boolean {
  return topLevelName(tokens, 'if') >= 0 || topLevelName(tokens, 'for') >= 0 || topLevelName(tokens, 'lambda') >= 0;
}

/** Index of a keyword outside any brackets (from `from`), or -1. */
function topLevelName(tokens: Tok[], name: string, from = 0): number {
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'op' && (t.text === '(' || t.text === '[' || t.text === '{')) depth++;
    else if (t.kind === 'op' && (t.text === ')' || t.text === ']' || t.text === '}')) depth--;
    else if (i >= from && depth === 0 && t.kind === 'name' && t.text === name) return i;
  }
  return -1;
}

function startsWithParenGroup(tokens: Tok[]): boolean {
  if (tokens[0]?.text !== '(') return false;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i].text;
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') { depth--; if (depth === 0) return i === tokens.length - 1; }
  }
  return false;
}

function evalOperand(tokens: Tok[], ctx: Scope, nameDepth: number): Seg[] {
  if (tokens.length === 0) return [WILD];
  if (startsWithParenGroup(tokens)) return evalExpr(tokens.slice(1, -1), ctx, nameDepth);
  const template = templateText(tokens, ctx, nameDepth);
  if (template) return template;
  if (tokens.length === 1 && tokens[0].kind === 'name' && tokens[0].text === ctx.param) return [PARAM];
  if (tokens.length === 1 && tokens[0].kind === 'name' && nameDepth < 2) return ctx.value(tokens[0].text, nameDepth + 1) ?? [WILD];
  const joined = joinedList(tokens, ctx, nameDepth);
  if (joined) return joined;
  let k = 0;
  const segs: Seg[] = [];
  while (k < tokens.length && tokens[k].kind === 'str') {
    const s = tokens[k].str!;
    let field = 0;
    for (const p of s.parts) {
      if (p !== WILD) { segs.push({ lit: p, logFmt: true, line: tokens[k].line }); continue; }
      // `prefix = f"Req Time Stats(…)"; logger.info(f"{prefix}: {…}")`: the variable's own text.
      const name = s.fields?.[field++] ?? null;
      if (name !== null && name === ctx.param) { segs.push(PARAM); continue; }
      const assigned = name !== null && nameDepth < 2 ? ctx.value(name, nameDepth + 1) : null;
      segs.push(...(assigned ?? [WILD]));
    }
    k++;
  }
  if (k === 0) return [WILD];
  if (k === tokens.length) return segs;
  const next = tokens[k];
  if (next.text === '%') return convertLiterals(segs, applyPercentFormat);
  if (next.text === '.' && tokens[k + 1]?.text === 'format') return convertLiterals(segs, applyBraceFormat);
  return [WILD];
}

/**
 * `", ".join(parts)` of a list literal assigned in the function (vLLM 0.11.2+'s stats line:
 * `log_parts = ["Avg prompt throughput: %.1f tokens/s", …]`, parts appended under conditions, then
 * `log_fn(self.log_prefix + ", ".join(log_parts), *log_args)`): its items joined by the separator,
 * and a wildcard after them when the list is appended to or extended before the call. null: not
 * that shape (or a list built otherwise: inserted into, reassigned, a comprehension).
 */
function joinedList(tokens: Tok[], ctx: Scope, nameDepth: number): Seg[] | null {
  if (tokens.length !== 6 || tokens[0].kind !== 'str' || tokens[1].text !== '.' || tokens[2].text !== 'join') return null;
  if (tokens[3].text !== '(' || tokens[4].kind !== 'name' || tokens[5].text !== ')' || tokens[0].str!.parts.some((p) => p === WILD)) return null;
  const list = ctx.listLiteral(tokens[4].text);
  if (list === null || list.items.length === 0) return null;
  const sep = tokens[0].str!.parts.join('');
  const segs: Seg[] = [];
  list.items.forEach((item, i) => {
    if (i > 0) segs.push({ lit: sep, logFmt: true, line: tokens[0].line });
    segs.push(...evalExpr(item, ctx, nameDepth));
  });
  if (list.grows) segs.push(WILD);
  return segs;
}

/**
 * `string.Template`: `Template("… ${w}█ … version %s …")`, and `name.substitute(…)` of a name
 * bound to one. Its `$name` / `${name}` fields print values; `$$` prints `$`; `%s` stays for
 * the logging call's own arguments.
 */
function templateText(tokens: Tok[], ctx: Scope, nameDepth: number): Seg[] | null {
  const last = tokens[tokens.length - 1];
  if (last.text !== ')') return null;
  const head = tokens[0];
  if (head.kind === 'name' && (head.text === 'Template' || (head.text === 'string' && tokens[2]?.text === 'Template'))) {
    const open = head.text === 'Template' ? 1 : 3;
    if (tokens[open]?.text !== '(') return null;
    const inner = tokens.slice(open + 1, -1);
    if (inner.length === 0 || inner.some((t) => t.kind !== 'str')) return [WILD];
    const segs: Seg[] = [];
    for (const s of evalOperand(inner, ctx, nameDepth)) {
      if (s === WILD || s === PARAM || isAlts(s)) { segs.push(s); continue; }
      for (const p of applyTemplateFormat(s.lit)) segs.push(p === WILD ? WILD : { lit: p, logFmt: s.logFmt, line: s.line });
    }
    return segs;
  }
  const substitute = tokens[2]?.text === 'substitute' || tokens[2]?.text === 'safe_substitute';
  if (head.kind === 'name' && tokens[1]?.text === '.' && substitute && tokens[3]?.text === '(') {
    if (nameDepth >= 2) return [WILD];
    return ctx.value(head.text, nameDepth + 1) ?? [WILD];
  }
  return null;
}

/** `$name`, `${name}` → wildcards; `$$` → `$`. */
function applyTemplateFormat(text: string): Pattern {
  const out: Pattern = [];
  let lit = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '$') { lit += text[i]; continue; }
    if (text[i + 1] === '$') { lit += '$'; i++; continue; }
    const m = /^(?:\{[_a-zA-Z][_a-zA-Z0-9]*\}|[_a-zA-Z][_a-zA-Z0-9]*)/.exec(text.slice(i + 1));
    if (!m) { lit += '$'; continue; }
    pushParts(out, [lit, WILD]);
    lit = '';
    i += m[0].length;
  }
  pushParts(out, [lit]);
  return out;
}

function convertLiterals(segs: Seg[], fmt: (s: string) => Pattern): Seg[] {
  const out: Seg[] = [];
  for (const s of segs) {
    if (s === WILD || s === PARAM || isAlts(s)) { out.push(s); continue; }
    for (const p of fmt(s.lit)) out.push(p === WILD ? WILD : { lit: p, logFmt: false, line: s.line });
  }
  return out;
}

const constantsOf = new WeakMap<Tok[], Map<string, Tok[]>>();

/**
 * A module's text constants: `UNBALANCED_MSG = ("…" "…")` at the top level, whose name a function
 * logs (`logger.warning(UNBALANCED_MSG)`). Only string literals: the text is known at import.
 */
function moduleConstants(toks: Tok[]): Map<string, Tok[]> {
  let found = constantsOf.get(toks);
  if (found) return found;
  found = new Map();
  for (let i = 0; i + 2 < toks.length; i++) {
    const t = toks[i];
    if (t.kind !== 'name' || t.col !== 0 || toks[i + 1].text !== '=' || (i > 0 && toks[i - 1].kind !== 'nl')) continue;
    let j = i + 2;
    while (j < toks.length && toks[j].kind !== 'nl') j++;
    const rhs = toks.slice(i + 2, j);
    if (rhs.some((x) => x.kind === 'str') && rhs.every((x) => x.kind === 'str' || x.text === '(' || x.text === ')')) {
      found.set(t.text, rhs.filter((x) => x.kind === 'str'));
    }
    i = j;
  }
  constantsOf.set(toks, found);
  return found;
}

/** Assignments to a name earlier in the same function, for `logger.info(msg)`. */
class Scope {
  private fnStart = -1;
  /** `param`: a helper's message parameter, evaluated as the PARAM marker. */
  /** `fnStart`: where the enclosing function starts, when the caller already knows (a scope inside the same function). */
  constructor(private readonly toks: Tok[], private readonly callIdx: number, readonly param: string | null = null, fnStart = -1) {
    this.fnStart = fnStart;
  }

  private functionStart(): number {
    if (this.fnStart >= 0) return this.fnStart;
    let i = this.callIdx - 1;
    const limit = Math.max(0, this.callIdx - 4000);
    while (i > limit && !(this.toks[i].kind === 'name' && this.toks[i].text === 'def')) i--;
    this.fnStart = i;
    return i;
  }

  /**
   * What a name holds where the call uses it: its last assignment, and the earlier ones a branch
   * may have left in place instead (`if a: x = …` / `else: x = …`, or `x = …` then `if c: x = …`).
   * Several texts make a run-time choice. null: not assigned in the function.
   */
  value(name: string, nameDepth: number): Seg[] | null {
    const found = this.assignments(name, true, nameDepth);
    if (found.length === 0) {
      const constant = moduleConstants(this.toks).get(name);
      return constant && !this.isParameter(name) ? evalExpr(constant, this, nameDepth) : null;
    }
    const picked = [found[found.length - 1]];
    for (let k = found.length - 2; k >= 0; k--) {
      const later = picked[0];
      if (!(later.col > found[k].col || this.branchBetween(found[k].at, later.at, later.col))) break;
      picked.unshift(found[k]);
    }
    return choice(picked.map((f) => [...f.segs, ...(f.openEnded ? [WILD] : [])]));
  }

  /** Whether the enclosing function takes `name` as a parameter (it shadows a module constant). */
  private isParameter(name: string): boolean {
    const start = this.functionStart();
    if (this.toks[start]?.text !== 'def') return false;
    let depth = 0;
    for (let i = start + 2; i < this.callIdx; i++) {
      const t = this.toks[i];
      if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
      else if (t.text === ')' || t.text === ']' || t.text === '}') { if (--depth === 0) return false; }
      else if (depth === 1 && t.kind === 'name' && t.text === name) return true;
    }
    return false;
  }

  /** Whether another branch (`else`, `elif`, `except`, `case`) opens between two token positions, outside `col`. */
  private branchBetween(from: number, to: number, col: number): boolean {
    for (let i = from + 1; i < to; i++) {
      const t = this.toks[i];
      const branch = t.text === 'else' || t.text === 'elif' || t.text === 'except' || t.text === 'case';
      if (t.kind === 'name' && t.col < col && this.toks[i - 1].kind === 'nl' && branch) return true;
    }
    return false;
  }

  /**
   * The items of the one list literal `name = [ … ]` (or `name: T = [ … ]`) assigned in the function before the
   * call, and whether `name.append(…)` / `.extend(…)` / `+=` may add to its end before it; null when the list is
   * assigned otherwise or more than once, or inserted into.
   */
  listLiteral(name: string): { items: Tok[][]; grows: boolean } | null {
    const toks = this.toks;
    let items: Tok[][] | null = null;
    let grows = false;
    for (let i = this.functionStart(); i < this.callIdx - 1; i++) {
      const t = toks[i];
      if (t.kind !== 'name' || t.text !== name) continue;
      const prev = toks[i - 1];
      const next = toks[i + 1]?.text;
      if (prev?.text === '.') continue;
      if (next === '.' ) {
        const method = toks[i + 2]?.text;
        if (method === 'append' || method === 'extend') { if (items !== null) grows = true; continue; }
        if (method === 'insert' || method === 'clear' || method === 'pop' || method === 'remove' || method === 'sort' || method === 'reverse') return null;
        continue;
      }
      if (next === '+=') { if (items === null) return null; grows = true; continue; }
      if (!(prev && (prev.kind === 'nl' || prev.text === ':' || prev.text === ';'))) continue;
      let eq = i + 1;
      if (toks[eq]?.text === ':') {
        // An annotation: `log_parts: list[str] = [`.
        let depth = 0;
        for (eq = i + 2; eq < this.callIdx; eq++) {
          const x = toks[eq];
          if (x.text === '(' || x.text === '[' || x.text === '{') depth++;
          else if (x.text === ')' || x.text === ']' || x.text === '}') depth--;
          else if (depth === 0 && (x.text === '=' || x.kind === 'nl')) break;
        }
      }
      if (toks[eq]?.text !== '=') continue;
      if (items !== null || toks[eq + 1]?.text !== '[') return null;
      const found: Tok[][] = [];
      let cur: Tok[] = [];
      let depth = 0;
      let j = eq + 2;
      for (; j < this.callIdx; j++) {
        const x = toks[j];
        if (x.kind === 'nl') continue;
        if (x.text === '(' || x.text === '[' || x.text === '{') depth++;
        else if (x.text === ')' || x.text === ']' || x.text === '}') { if (depth === 0) break; depth--; }
        else if (depth === 0 && x.text === ',') { if (cur.length) found.push(cur); cur = []; continue; }
        else if (depth === 0 && x.kind === 'name' && x.text === 'for') return null;
        cur.push(x);
      }
      if (cur.length) found.push(cur);
      if (j >= this.callIdx) return null;
      items = found;
      i = j;
    }
    return items === null ? null : { items, grows };
  }

  assignments(name: string, allBranches: boolean, nameDepth = 1): Array<{ segs: Seg[]; openEnded: boolean; col: number; at: number }> {
    const toks = this.toks;
    const found: Array<{ segs: Seg[]; openEnded: boolean; col: number; at: number }> = [];
    for (let i = this.functionStart(); i < this.callIdx - 1; i++) {
      const t = toks[i];
      if (t.kind !== 'name' || t.text !== name) continue;
      const prev = toks[i - 1];
      if (prev && !(prev.kind === 'nl' || prev.text === ':' || prev.text === ';')) continue;
      const op = toks[i + 1].text;
      if (op !== '=' && op !== '+=') continue;
      let j = i + 2;
      let depth = 0;
      for (; j < this.callIdx; j++) {
        const x = toks[j];
        if (x.kind === 'nl' && depth === 0) break;
        if (x.text === '(' || x.text === '[' || x.text === '{') depth++;
        else if (x.text === ')' || x.text === ']' || x.text === '}') depth--;
      }
      const rhs = toks.slice(i + 2, j).filter((x) => x.kind !== 'nl');
      // The right-hand side sees the names as they were before this line (`msg = msg + " more"`).
      const before = new Scope(toks, i, this.param, this.functionStart());
      if (op === '=') {
        found.push({ segs: evalExpr(rhs, before, nameDepth), openEnded: false, col: t.col, at: i });
      } else {
        // `+=` at the assignment's own indentation (or after its branch, further out) always runs:
        // its text is part of the message. A deeper one is conditional: something may or may not
        // be inserted there.
        for (const f of found) {
          // Another branch opened since this assignment (`else:` at its level or out): not its text.
          if (t.col === f.col && f !== found[found.length - 1] && this.branchBetween(f.at, i, f.col)) continue;
          if (t.col <= f.col) {
            f.segs.push(...evalExpr(rhs, before, nameDepth));
            f.openEnded = false;
          } else if (t.col > f.col) {
            f.segs.push(WILD);
            f.openEnded = true;
          }
        }
      }
      i = j;
    }
    return allBranches ? found : found.slice(-1);
  }
}
