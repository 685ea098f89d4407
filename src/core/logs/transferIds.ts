// A request's lines that name only its KV transfer id. A prefill/decode pair knows a request's
// transfer by an id of its own (SGLang's bootstrap_room, its profile's `transferIds`): some lines
// name the request id and the transfer id both, and pair them; others name only the transfer id
// (a Mooncake or NIXL line, a KVTransferError). Those belong to the request the pairing names,
// wherever the pairing line is (another file, another pod). A transfer id that lines pair with two
// requests (a retry that kept the room, a client that reused one) belongs to neither: its lines
// stay unjoined rather than merge two requests.
import type { LogRecord } from './model';
import { engineProfile, engineProfiles, isEngine } from '../../engines/registry';
import type { TransferIds } from '../../engines/types';

/** The engine's transfer id forms for a record, when its engine has any. */
function formsOf(rec: LogRecord): TransferIds | null {
  if (rec.engine === 'other' || !isEngine(rec.engine)) return null;
  return engineProfile(rec.engine).transferIds ?? null;
}

/**
 * Which requests (join keys) lines paired each transfer id with: the one key, or every key when
 * several. Pairings with a request nobody asked for (`pairOther`) only make a transfer id shared:
 * they are listed, not indexed (most of a log's rooms are other requests').
 */
export class TransferPairs {
  private readonly byId = new Map<string, string | string[]>();
  /** Transfer ids lines paired with a request not asked for, in the order seen (repeats allowed). */
  private readonly others: string[] = [];
  /** Of byId's transfer ids, those `others` holds too; null when to be worked out again. */
  private shared: Set<string> | null = null;
  /** What the engine calls the transfer id of the lines seen (`bootstrap_room`), for a message; null before any. */
  label: string | null = null;
  /** With `byKey`: the transfer ids paired with each key (a view of every request asks by key, many times). */
  private readonly idsByKey: Map<string, string[]> | null;

  constructor(opts: { byKey?: boolean } = {}) {
    this.idsByKey = opts.byKey ? new Map() : null;
  }

  pair(id: string, key: string): void {
    const had = this.byId.get(id);
    if (had === undefined) { this.byId.set(id, key); this.shared = null; }
    else if (typeof had === 'string') { if (had === key) return; this.byId.set(id, [had, key]); }
    else if (!had.includes(key)) had.push(key);
    else return;
    if (this.idsByKey) { const ids = this.idsByKey.get(key); if (ids) ids.push(id); else this.idsByKey.set(key, [id]); }
  }

  /** A pairing with a request not asked for. */
  pairOther(id: string): void {
    this.others.push(id);
    this.shared = null;
  }

  merge(other: TransferPairs): void {
    this.label ??= other.label;
    for (const [id, keys] of other.byId) for (const k of typeof keys === 'string' ? [keys] : keys) this.pair(id, k);
    for (const id of other.others) this.others.push(id);
    this.shared = null;
  }

  /** The request a transfer id belongs to: the one request lines paired it with; null when none or several. */
  owner(id: string): string | null {
    const keys = this.byId.get(id);
    if (typeof keys !== 'string') return null;
    return this.pairedWithOther(id) ? null : keys;
  }

  /** Whether a line paired `id` with a request not asked for (and one asked for too: only those are kept). */
  private pairedWithOther(id: string): boolean {
    if (this.shared === null) {
      const shared = new Set<string>();
      for (const o of this.others) if (this.byId.has(o)) shared.add(o);
      this.shared = shared;
    }
    return this.shared.has(id);
  }

  /**
   * The request a transfer id belongs to by the lines of several logs (a prefill and a decode
   * instance's): the one request any of them paired it with; null when none did, or when two
   * requests were paired with it, in one log or across them.
   */
  static ownerIn(all: readonly TransferPairs[], id: string): string | null {
    let owner: string | null = null;
    for (const pairs of all) {
      const keys = pairs.byId.get(id);
      if (keys === undefined) {
        if (pairs.others.includes(id)) return null;
        continue;
      }
      if (typeof keys !== 'string' || pairs.pairedWithOther(id) || (owner !== null && owner !== keys)) return null;
      owner = keys;
    }
    return owner;
  }

  /** The transfer ids lines paired with `key`. */
  idsOf(key: string): string[] {
    if (this.idsByKey) return [...(this.idsByKey.get(key) ?? [])];
    const out: string[] = [];
    for (const [id, keys] of this.byId) if (keys === key || (typeof keys !== 'string' && keys.includes(key))) out.push(id);
    return out;
  }
}

/** Most lines naming only a transfer id one log keeps (past it they are not kept, and `dropped` counts them). */
const MAX_ALONE = 100_000;

/** One log's lines that name a transfer id and no request, by transfer id. */
export class TransferLines {
  private readonly byId = new Map<string, LogRecord[]>();
  /** Transfer ids lines paired with a request not asked for: their lines can join no request asked for. */
  private readonly closed = new Set<string>();
  private kept = 0;
  dropped = 0;

  add(id: string, rec: LogRecord): void {
    if (this.closed.has(id)) return;
    if (this.kept >= MAX_ALONE) { this.dropped++; return; }
    this.kept++;
    const list = this.byId.get(id);
    if (list) list.push(rec); else this.byId.set(id, [rec]);
  }

  /** A transfer id paired with a request not asked for: its lines (kept or to come) are let go. */
  close(id: string): void {
    if (this.closed.has(id)) return;
    this.closed.add(id);
    const list = this.byId.get(id);
    if (list) { this.kept -= list.length; this.byId.delete(id); }
  }

  /** The lines whose transfer id belongs to `key` alone (see TransferPairs.owner), in line order, each once. */
  of(pairs: TransferPairs, key: string): LogRecord[] {
    return this.joinedOf(pairs, key).map((j) => j.record);
  }

  /** As `of`, each line with the transfer id it joined by (one of its ids that is `key`'s). */
  joinedOf(pairs: TransferPairs, key: string): { record: LogRecord; id: string }[] {
    const out = new Map<LogRecord, string>();
    for (const [id, recs] of this.byId) if (pairs.owner(id) === key) for (const r of recs) if (!out.has(r)) out.set(r, id);
    return [...out].map(([record, id]) => ({ record, id })).sort((a, b) => a.record.line - b.record.line);
  }

  /** The transfer ids of the kept lines. */
  ids(): IterableIterator<string> { return this.byId.keys(); }

  /** The kept lines naming transfer id `id`, in the order seen. */
  linesOf(id: string): readonly LogRecord[] { return this.byId.get(id) ?? []; }

  /** Whether any line naming only a transfer id is kept (a log without any costs its callers nothing more). */
  get empty(): boolean { return this.byId.size === 0; }
}

/**
 * Notes what a record says of transfer ids: `named` is the join key of the request the caller
 * found it names (its hop's id, or its text), null when none; `keyOf` makes a printed request id a
 * join key. A line naming a request and exactly one transfer id pairs them; a line naming no
 * request keeps its transfer ids' lines for the join. `asked`: is a key one of the requests asked
 * for (a room another request has lets its lines go). Returns whether the line named a transfer id.
 */
export function noteTransferIds(rec: LogRecord, named: string | null, keyOf: (printedRid: string) => string,
  pairs: TransferPairs, alone: TransferLines | null, asked?: (key: string) => boolean): boolean {
  if (rec.continuation) return false;
  const forms = formsOf(rec);
  if (forms === null || !rec.message.includes(forms.hint)) return false;
  const ids = forms.idsOf(rec.message);
  if (ids.length === 0) return false;
  pairs.label ??= forms.label;
  let key = named;
  if (key === null) {
    const printed = rec.rid ?? forms.ridOf(rec.message);
    if (printed !== null) key = keyOf(printed);
  }
  if (key !== null) {
    // A line naming two rooms (decode's "received metadata from bootstrap_room=…") does not say which is the request's.
    if (ids.length === 1) {
      if (asked === undefined || asked(key)) pairs.pair(ids[0], key);
      else {
        pairs.pairOther(ids[0]);
        // Another request's room: no line of it can join a request asked for.
        alone?.close(ids[0]);
      }
    }
    return true;
  }
  if (alone !== null) for (const id of ids) alone.add(id, rec);
  return true;
}

// ---- raw lines (a store's entries: header and message as the pod printed them) -------------------

/** The transfer ids a raw line names by any registered engine's forms, and the request id printed beside them. */
export function transferIdsInText(text: string): { ids: string[]; rid: string | null } | null {
  for (const p of engineProfiles()) {
    const forms = p.transferIds;
    if (forms === undefined || !text.includes(forms.hint)) continue;
    const ids = forms.idsOf(text);
    if (ids.length) return { ids, rid: forms.ridOf(text) };
  }
  return null;
}

/** The key a search's pairing gives the request asked for (a printed id is never empty). */
export const ASKED_KEY = '';
const ASKED = ASKED_KEY;

/**
 * Pairs over raw lines (every pod's answer from the stores): `names` tells a line naming the
 * request asked for; such a line naming one transfer id pairs it with that request (key ''),
 * a line naming another request's id beside one pairs it with that one. A line naming only a
 * transfer id pairs nothing.
 */
export function pairsInTexts(texts: Iterable<string>, names: (text: string) => boolean): TransferPairs {
  const pairs = new TransferPairs();
  for (const t of texts) {
    const found = transferIdsInText(t);
    if (found === null || found.ids.length !== 1) continue;
    if (names(t)) pairs.pair(found.ids[0], ASKED);
    else if (found.rid !== null) pairs.pair(found.ids[0], `other\u0000${found.rid}`);
  }
  return pairs;
}

/** The transfer ids `pairs` (pairsInTexts') gives the request asked for alone. */
export function askedTransferIds(pairs: TransferPairs): string[] {
  return pairs.idsOf(ASKED).filter((id) => pairs.owner(id) === ASKED);
}

/** Does a raw line name, and name only, a transfer id that `pairs` gives the request asked for alone? */
export function joinedToAsked(text: string, pairs: TransferPairs, names: (text: string) => boolean): boolean {
  const found = transferIdsInText(text);
  if (found === null || found.rid !== null || names(text)) return false;
  return found.ids.some((id) => pairs.owner(id) === ASKED);
}
