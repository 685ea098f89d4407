// What a verified answer must also hold before it is called verified: the statement prints every
// literal part the line shows. The hop tables know each hop's wordings across releases; a line
// that fits an older wording with words the checkout's statement no longer prints (0.8's
// `Received request …: prompt: …, params: …` against 0.11.2's `… params: …, lora_request: …`)
// was printed by a statement that has changed since, not by this one.
import type { Engine } from '../logs/model';
import { HOP_TABLES } from '../../engines';
import { compilePattern, matchesPattern, WILD, type CompiledPattern, type Pattern } from './messagePattern';

interface Wording { compiled: CompiledPattern; words: Set<string>; shape: string }

const WORDINGS = new Map<string, Wording[]>();

/** Words of literal text: names and field labels (`prompt_token_ids`), not numbers or punctuation. */
export function literalWords(text: string): Set<string> {
  return new Set(text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []);
}

/** A wording's text as a pattern: `…`, `<what>` and the optional parts `[…]` / `{a|b}` are values. */
function wordingPattern(text: string): Pattern {
  const out: Pattern = [];
  for (const piece of text.split(/(…|<[^>]*>|\[[^\]]*\]|\{[^}]*\})/)) {
    if (piece === '') continue;
    if (/^(?:…|<.*>|\[.*\]|\{.*\})$/.test(piece)) { if (out[out.length - 1] !== WILD) out.push(WILD); } else out.push(piece);
  }
  return out;
}

function wordingsOf(engine: Engine, hop: string): Wording[] {
  const key = `${engine}:${hop}`;
  let list = WORDINGS.get(key);
  if (!list) {
    const def = HOP_TABLES[engine]?.hops.find((h) => h.id === hop);
    list = (def?.wordings ?? []).map((w) => {
      const p = wordingPattern(w.text);
      const compiled = compilePattern(p);
      return { compiled, words: literalWords(p.filter((x) => x !== WILD).join(' ')), shape: shapeOf(p) };
    });
    WORDINGS.set(key, list);
  }
  return list;
}

/** A text's literal pieces in order, values as one mark: two texts of this shape print the same lines. */
function shapeOf(p: Pattern): string {
  return p.map((x) => (x === WILD ? '\u0000' : x.trim())).join('');
}

/** Per statement text (its first variant's pattern, a stable object): the word sets of its variants that are known wordings. */
const KNOWN = new WeakMap<Pattern, Set<string>[]>();

function knownWordings(statementTexts: readonly Pattern[], wordings: readonly Wording[]): Set<string>[] {
  const key = statementTexts[0];
  if (!key) return [];
  let known = KNOWN.get(key);
  if (!known) {
    // Only a text that is a wording exactly (its literal pieces, in order): a text built from parts
    // (a conditional field name, a spliced message) may print the words this one lacks.
    known = statementTexts.filter((p) => wordings.some((w) => w.shape === shapeOf(p))).map((p) => literalWords(p.filter((x) => x !== WILD).join(' ')));
    KNOWN.set(key, known);
  }
  return known;
}

/**
 * The words a hop line shows that the statement does not print, when the statement's text is one of
 * the hop's known wordings exactly and the line fits another wording with more words; else []. Statements
 * whose text is not one of the wordings (built from parts, or all values) are not judged here.
 */
export function wordsMissingFromStatement(engine: Engine, hop: string, statementTexts: readonly Pattern[], message: string): string[] {
  const wordings = wordingsOf(engine, hop);
  if (wordings.length < 2) return [];
  const known = knownWordings(statementTexts, wordings);
  if (known.length === 0) return [];
  let fit: Wording | null = null;
  for (const w of wordings) if (matchesPattern(w.compiled, message) && (!fit || w.words.size > fit.words.size)) fit = w;
  if (!fit) return [];
  // Missing from every variant the statement has that is a known wording.
  let best: string[] | null = null;
  for (const words of known) {
    const missing = [...fit.words].filter((x) => !words.has(x));
    if (!best || missing.length < best.length) best = missing;
  }
  return best ?? [];
}
