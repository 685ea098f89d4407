// Hop lines cut short. A terminal, a log viewer, a search index or a paste limit cuts long lines
// (`Engine 000: Avg p...`, `Request chatcmpl-1 abort`, `Received request cmpl-c52d…`): the hop's
// patterns need words that are gone. Such a message is still the hop when it is the beginning of
// one of the hop's wordings as the hop table writes them: every constant word it shows is the
// wording's, in order, and the text stops inside the wording. The table's wordings are the
// templates (`…`, `<id>`, `{a|b}`, `[opt]` and printf fields are values), so each new wording a
// hop gains is understood cut as well.
import type { HopDef } from './types';

type Piece = string | null; // literal text, or null for a value

// Figures in a wording are examples (`Engine 000:`): values too.
const VALUE = /…|<[^<>]*>|\{[^{}]*\}|\[[^[\]]*\]|%%|%[-+ #0]*\d*(?:\.\d+)?[sdrfxi]|\d+/g;

function piecesOf(template: string): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const m of template.matchAll(VALUE)) {
    if (m[0] === '%%') continue; // a literal %, kept in the text around it
    const lit = template.slice(last, m.index).replace(/%%/g, '%');
    if (lit) out.push(lit);
    if (out[out.length - 1] !== null) out.push(null);
    last = m.index + m[0].length;
  }
  const tail = template.slice(last).replace(/%%/g, '%');
  if (tail) out.push(tail);
  return out;
}

const templatesMemo = new WeakMap<HopDef, Piece[][]>();

function templatesOf(hop: HopDef): Piece[][] {
  let t = templatesMemo.get(hop);
  if (!t) {
    const texts = hop.wordings?.length ? hop.wordings.map((w) => w.text) : [hop.format];
    t = texts.map(piecesOf).filter((p) => typeof p[0] === 'string');
    templatesMemo.set(hop, t);
  }
  return t;
}

/** Literal characters a cut message must show: enough words that no other message starts so. */
const MIN_LITERAL = 12;

export interface CutMatch {
  /** The first value when it is whole (followed by the wording's next words), and the words before it. */
  firstValue: string | null;
  firstValueAfter: string;
}

/** A trailing mark a cutting tool leaves. */
const CUT_MARK = /\s*(?:\.\.\.|…|\[\.\.\.\])$/;

/**
 * Whether `message` is the beginning of one of the hop's wordings, cut short inside it (a whole
 * wording is for the hop's patterns to judge, not this).
 */
export function cutHopMatch(hop: HopDef, message: string): CutMatch | null {
  const marked = CUT_MARK.exec(message);
  const msg = marked ? message.slice(0, marked.index) : message.trimEnd();
  for (const pieces of templatesOf(hop)) {
    const m = matchCut(pieces, msg, marked !== null);
    if (m) return { firstValue: m.firstValue, firstValueAfter: pieces.find((p): p is string => p !== null) ?? '' };
  }
  return null;
}

function matchCut(pieces: Piece[], msg: string, marked: boolean): { firstValue: string | null } | null {
  let pos = 0;
  let lit = 0;
  let firstValue: string | null = null;
  let values = 0;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i];
    if (p !== null) {
      const rest = msg.slice(pos);
      if (rest.length < p.length) {
        // The text ends inside these words.
        return p.startsWith(rest) && lit + rest.length >= MIN_LITERAL ? { firstValue } : null;
      }
      if (!rest.startsWith(p)) return null;
      pos += p.length;
      lit += p.length;
      if (pos === msg.length && i < pieces.length - 1) return lit >= MIN_LITERAL ? { firstValue } : null;
      continue;
    }
    const next = pieces[i + 1];
    if (next === undefined) return null; // a value ends the wording: the whole wording is shown
    const j = msg.indexOf(next as string, pos);
    if (j >= 0) {
      if (values++ === 0) firstValue = msg.slice(pos, j);
      pos = j;
      continue;
    }
    // The text ends inside this value, or inside the words after it.
    for (let k = pos + 1; k < msg.length; k++) {
      const tail = msg.slice(k);
      if ((next as string).startsWith(tail)) return lit + tail.length >= MIN_LITERAL ? { firstValue: values === 0 ? msg.slice(pos, k) : firstValue } : null;
    }
    // Inside the value itself: one token of a value (an id, a figure), or anything when the line says it was cut.
    const value = msg.slice(pos);
    if (!marked && /\s/.test(value)) return null;
    return lit >= MIN_LITERAL ? { firstValue: null } : null;
  }
  return null;
}
