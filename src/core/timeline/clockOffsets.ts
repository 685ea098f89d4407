// Clock offsets between the sources of one timeline, from events that must happen in order.
//
// Each source whose stamps come from one clock is a domain (the client, the OTLP spans, each
// log file). A domain's offset is how far its clock runs ahead of the reference clock: its
// stamps minus the offset are reference time. A stamp of resolution r says the event happened
// in [stamp, stamp + r) of its clock (Python's logging truncates to the second).
//
// An ordering "A (in X, stamp a) happens before B (in Y, stamp b)" gives
//     a − o_X  ≤  true A  ≤  true B  <  b + r_B − o_Y     ⇒     o_Y − o_X  <  b + r_B − a
// a difference constraint. Every request seen in several files adds its own (the tightest per
// pair of domains is kept), so many requests with different sub-second phases narrow bounds
// that one second-stamped request alone leaves about two seconds wide. The bounds of each
// offset against the reference are shortest paths in the constraint graph (Floyd–Warshall;
// a negative cycle means the orderings contradict each other). Offsets set by the user are
// fixed first; each other one is then put at 0 when its bounds allow the clocks to agree,
// otherwise in the middle of its bounds, and the chosen values always satisfy every ordering
// together. Whole-second stamps on both sides give whole-second bounds: no number of requests
// places such a clock better than within one second, and the bounds say so.

export interface DomainStamp {
  domain: string;
  /** Epoch ms of that domain's clock. */
  time: number;
  /** The event happened in [time, time + resMs) of its clock. */
  resMs: number;
  /** What happened, in words ("Received request (V1)"). */
  what: string;
  /** Its line in a log file, when it is one. */
  line: number | null;
}

/** "before happened before after", for one request: the ordering that gave a bound. */
export interface OrderingNote {
  /** The rule that says so, in words. */
  rule: string;
  /** The request (join key) both events belong to. */
  key: string;
  before: DomainStamp;
  after: DomainStamp;
}

export type OffsetSource = 'reference' | 'estimated' | 'user' | 'assumed';

export interface OffsetEstimate {
  domain: string;
  /** ms this domain's clock runs ahead of the reference (subtract it from its stamps). */
  ms: number;
  /** What the orderings allow on their own (before any other offset is fixed); null: unbounded. */
  min: number | null;
  max: number | null;
  source: OffsetSource;
  /** Orderings that involve this domain (over all requests). */
  orderings: number;
  /** The orderings that set `max` (reference … this domain) and `min` (this domain … reference), in chain order. */
  upper: OrderingNote[];
  lower: OrderingNote[];
  /** A user offset outside what the orderings allow, in words. */
  conflict?: string;
}

export interface OffsetSolution {
  reference: string;
  offsets: Map<string, OffsetEstimate>;
  /** Set when the orderings contradict each other (clocks stepped during the run, an id reused). */
  inconsistent: string | null;
}

/** The tightest constraint o_to − o_from ≤ c over every ordering of one pair of domains. */
export class PairBound {
  c = Infinity;
  note: OrderingNote | null = null;
  count = 0;
  constructor(readonly from: string, readonly to: string) {}

  /**
   * Event A (stamp aTime of `from`) happened before event B (stamp bTime, resolution bRes, of
   * `to`). Called once per request and rule: it allocates only when the bound tightens.
   */
  offer(aTime: number, aRes: number, aWhat: string, aLine: number | null, bTime: number, bRes: number, bWhat: string, bLine: number | null,
    rule: string, key: string): void {
    if (!Number.isFinite(aTime) || !Number.isFinite(bTime)) return;
    this.count++;
    const c = bTime + bRes - aTime;
    if (c < this.c) {
      this.c = c;
      this.note = {
        rule, key,
        before: { domain: this.from, time: aTime, resMs: aRes, what: aWhat, line: aLine },
        after: { domain: this.to, time: bTime, resMs: bRes, what: bWhat, line: bLine },
      };
    }
  }
}

/** Every ordered pair of domains' tightest constraint, and how many orderings each has. */
export class OrderingSet {
  private readonly pairs = new Map<string, Map<string, PairBound>>();

  /** The bound of one ordered pair (fetch it once, offer to it per request). */
  pair(from: string, to: string): PairBound {
    let row = this.pairs.get(from);
    if (!row) { row = new Map(); this.pairs.set(from, row); }
    let b = row.get(to);
    if (!b) { b = new PairBound(from, to); row.set(to, b); }
    return b;
  }

  add(a: string, aTime: number, aRes: number, aWhat: string, aLine: number | null,
    b: string, bTime: number, bRes: number, bWhat: string, bLine: number | null, rule: string, key: string): void {
    if (a === b) return;
    this.pair(a, b).offer(aTime, aRes, aWhat, aLine, bTime, bRes, bWhat, bLine, rule, key);
  }

  /** The pairs that have a constraint. */
  *bounds(): Generator<PairBound> {
    for (const row of this.pairs.values()) for (const b of row.values()) if (b.note !== null) yield b;
  }

  get(from: string, to: string): PairBound | null {
    const b = this.pairs.get(from)?.get(to);
    return b && b.note !== null ? b : null;
  }

  /** Orderings that involve this domain. */
  countFor(domain: string): number {
    let n = 0;
    for (const b of this.bounds()) if (b.from === domain || b.to === domain) n += b.count;
    return n;
  }
}

/** All-pairs shortest paths (with the next hop of each path when `next` is given); false on a negative cycle. */
function closure(d: number[][], next?: number[][]): boolean {
  const n = d.length;
  for (let k = 0; k < n; k++) {
    for (let i = 0; i < n; i++) {
      const dik = d[i][k];
      if (dik === Infinity) continue;
      for (let j = 0; j < n; j++) {
        const v = dik + d[k][j];
        if (v < d[i][j]) { d[i][j] = v; if (next) next[i][j] = next[i][k]; }
      }
    }
  }
  for (let i = 0; i < n; i++) if (d[i][i] < -1e-9) return false;
  return true;
}

function copy(d: number[][]): number[][] { return d.map((r) => [...r]); }

function fix(d: number[][], ref: number, i: number, v: number): void {
  d[ref][i] = Math.min(d[ref][i], v);
  d[i][ref] = Math.min(d[i][ref], -v);
}

const finite = (v: number): number | null => (Number.isFinite(v) ? v : null);

/**
 * Offsets of `domains` against `reference` from the orderings, with `user` offsets (ms ahead
 * of the reference) taking precedence.
 */
export function solveOffsets(domains: readonly string[], reference: string, orderings: OrderingSet, user: ReadonlyMap<string,
  number> = new Map()): OffsetSolution {
  const all = [reference, ...domains.filter((d) => d !== reference)];
  const n = all.length;
  const idx = new Map(all.map((d, i) => [d, i]));
  const base: number[][] = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : Infinity)));
  for (const e of orderings.bounds()) {
    const i = idx.get(e.from), j = idx.get(e.to);
    if (i === undefined || j === undefined) continue;
    if (e.c < base[i][j]) base[i][j] = e.c;
  }
  const offsets = new Map<string, OffsetEstimate>();
  let d = copy(base);
  const next = base.map((row, i) => row.map((v, j) => (v < Infinity && i !== j ? j : -1)));
  const path = (i: number, j: number): OrderingNote[] => {
    const out: OrderingNote[] = [];
    for (let a = i, guard = 0; a !== j && a >= 0 && guard < n; guard++) {
      const b = next[a][j];
      if (b < 0) return [];
      const e = orderings.get(all[a], all[b]);
      if (e) out.push(e.note!);
      a = b;
    }
    return out;
  };
  let inconsistent: string | null = null;
  if (!closure(d, next)) {
    inconsistent = 'the orderings contradict each other (a clock stepped during the run, or one id names two requests); offsets are not estimated';
    d = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 0 : Infinity)));
  }
  // Bounds from the orderings alone (what is shown), before anything is fixed.
  const marginal = all.map((_, i) => ({ min: -d[i][0], max: d[0][i] }));
  const ref = 0;
  for (const [i, name] of all.entries()) {
    const m = marginal[i];
    const bounded = inconsistent === null && i !== ref;
    offsets.set(name, {
      domain: name, ms: 0, min: i === ref ? 0 : finite(m.min), max: i === ref ? 0 : finite(m.max),
      source: i === ref ? 'reference' : 'assumed', orderings: orderings.countFor(name),
      upper: bounded && Number.isFinite(m.max) ? path(ref, i) : [], lower: bounded && Number.isFinite(m.min) ? path(i, ref) : [],
    });
  }
  // The user's offsets first, each checked against what the orderings allow.
  let work = d;
  for (const [name, v] of user) {
    const i = idx.get(name);
    if (i === undefined || i === ref) continue;
    const est = offsets.get(name)!;
    est.ms = v; est.source = 'user';
    const trial = copy(work);
    fix(trial, ref, i, v);
    if (closure(trial)) work = trial;
    else {
      const lo = -work[i][ref], hi = work[ref][i];
      est.conflict = `the orderings allow ${fmtRange(lo, hi)} given the other offsets; ${v} ms is outside it, so the other offsets are estimated without it`;
    }
  }
  // Then the rest: each at 0 when its bounds allow the clocks to agree, else in the middle of
  // its bounds; all at once when those values satisfy the orderings together, otherwise one at
  // a time, the most tightly bounded first, each within what the ones before it leave.
  const pick = (lo: number, hi: number): number | null => {
    if (!Number.isFinite(lo) && !Number.isFinite(hi)) return null; // no evidence: in step with the reference
    return lo <= 0 && hi >= 0 ? 0 : Number.isFinite(lo) && Number.isFinite(hi) ? (lo + hi) / 2 : Number.isFinite(lo) ? lo : hi;
  };
  const rest = all.map((_, i) => i).filter((i) => i !== ref && offsets.get(all[i])!.source === 'assumed');
  const together = copy(work);
  const chosen = new Map<number, number>();
  for (const i of rest) {
    const v = pick(-work[i][ref], work[ref][i]);
    if (v !== null) { chosen.set(i, v); fix(together, ref, i, v); }
  }
  if (closure(together)) {
    for (const [i, v] of chosen) { const est = offsets.get(all[i])!; est.ms = v; est.source = 'estimated'; }
  } else {
    rest.sort((a, b) => (work[ref][a] + work[a][ref]) - (work[ref][b] + work[b][ref]));
    for (const i of rest) {
      const v = pick(-work[i][ref], work[ref][i]);
      if (v === null) continue;
      const est = offsets.get(all[i])!;
      est.ms = v; est.source = 'estimated';
      fix(work, ref, i, v);
      closure(work);
    }
  }
  return { reference, offsets, inconsistent };
}

export function fmtRange(lo: number, hi: number): string {
  const f = (v: number): string => `${v >= 0 ? '+' : ''}${Math.round(v)} ms`;
  if (Number.isFinite(lo) && Number.isFinite(hi)) return `${f(lo)} … ${f(hi)}`;
  if (Number.isFinite(lo)) return `≥ ${f(lo)}`;
  if (Number.isFinite(hi)) return `≤ ${f(hi)}`;
  return 'any offset';
}
