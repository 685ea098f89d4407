// Request ids as the engines print them, normalised so every line of one request groups.
//
// An engine whose ids carry server-chosen parts (vLLM: engine-side lines add "-<8 hex>" to the
// external id, n>1 children are "<idx>_<internal id>") is grouped on the external form; one whose
// profile says `ridsVerbatim` prints them as chosen (n>1 children "<rid>_<i>"). The ids a server
// prints for a request whose id the client chose are its profile's (`request.serverIds`).
import type { Engine } from './model';
import type { ApiKind, HopDef, ServerIds } from '../../engines/types';
import { engineProfile } from '../../engines/registry';
import { externalFromInternal } from '../../engines/ids';

export type { ApiKind, ServerIds };

// The external form of an engine-side id (in the bottom layer: an engine's byte fast path takes it too).
export { externalFromInternal };

/** Normalise one id as printed by a hop whose id kind is known. */
export function normaliseRid(engine: Engine, raw: string, kind: NonNullable<HopDef['ridKind']>): string {
  let id = raw.trim();
  if (id.length > 1 && (id[0] === "'" || id[0] === '"') && id[id.length - 1] === id[0]) id = id.slice(1, -1);
  if (engineProfile(engine).ridsVerbatim) return id;
  return kind === 'internal' || kind === 'list' ? externalFromInternal(id) : id;
}

/** The ids of an `Aborted request(s) a,b,c.` line (also tolerates ", " and brackets). */
export function splitIdList(raw: string): string[] {
  return raw.replace(/^[[(]|[\])]$/g, '').split(',').map((s) => s.trim().replace(/^'|'$/g, '')).filter((s) => s.length > 0);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * For a client-chosen base id (sent as the engine's id header or body field), the ids the server
 * will print for the request: its profile's forms, else the id as chosen with `_<i>` children.
 */
export function serverIdsFor(base: string, engine: Engine, api: ApiKind): ServerIds {
  const own = engineProfile(engine).request?.serverIds;
  if (own) return own(base, api);
  return { normalised: base, exact: [base], patterns: [new RegExp(`^${escapeRe(base)}(?:_\\d+)?$`)], streamId: base };
}

/** The normalised ids that answer what the user typed: the base id, the external id, an internal id with its suffix, the SSE id of a completion. */
function idsForQuery(query: string): string[] {
  const q = query.trim();
  return [...new Set([query, q, externalFromInternal(q), `chatcmpl-${q}`, `cmpl-${q}-0`, `${q}-0`])];
}

/** Does a normalised rid belong to what the user typed? */
export function ridMatchesQuery(rid: string, query: string): boolean {
  return idsForQuery(query).includes(rid);
}

/**
 * `ridMatchesQuery` for one query, its ids worked out once: a check per line of a big log
 * (string equality, which rejects on length first, beats hashing a fresh id for a Set).
 */
export function ridQueryMatcher(query: string): (rid: string) => boolean {
  const ids = idsForQuery(query);
  return (rid) => {
    for (let i = 0; i < ids.length; i++) if (ids[i] === rid) return true;
    return false;
  };
}

// ---- lines that name a request without being one of its hops ------------------------------------
// Across pods the lines that carry a request are often not hop-table lines (a KV connector's
// DEBUG line, a router's, a scheduler's): any line that names one of the request's ids belongs
// to it. The id is found where the request's base id occurs in the message, as the whole id
// token there, so `pd-7` does not claim `pd-70` or `xpd-7`.

/** Characters of a request id token (HopLens's own ids use these; engines add `-`, `_` and hex). */
function isIdChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 /* - */ || c === 46 /* . */ || c === 95 /* _ */;
}

/**
 * The id tokens of `message` that contain `needle`, each as printed and in its external form
 * (engine suffix and child index taken off): what a hop's id would be normalised to.
 */
export function idTokensAround(message: string, needle: string): string[] {
  const out: string[] = [];
  if (needle === '') return out;
  for (let at = message.indexOf(needle); at !== -1; at = message.indexOf(needle, at + needle.length)) {
    let s = at, e = at + needle.length;
    while (s > 0 && isIdChar(message.charCodeAt(s - 1))) s--;
    while (e < message.length && isIdChar(message.charCodeAt(e))) e++;
    // A sentence's full stop after the id is not part of it.
    while (e > at + needle.length && message.charCodeAt(e - 1) === 46) e--;
    const token = message.slice(s, e);
    out.push(token);
    const ext = externalFromInternal(token);
    if (ext !== token) out.push(ext);
  }
  return out;
}

/** The base id of what a user typed (or a join key): API prefix and engine suffix off, the needle to look for in a line. */
export function idNeedle(query: string): string {
  const q = externalFromInternal(query.trim());
  if (q.startsWith('chatcmpl-') && q.length > 9) return q.slice(9);
  if (q.startsWith('cmpl-') && q.length > 5) return q.slice(5);
  return q;
}

/**
 * Does a line that is not one of a request's hops name the request? `wanted` tests a
 * normalised id (ridQueryMatcher's, or the timeline's join-key matcher); `needles` are the base
 * ids to look for (idNeedle).
 */
export function mentionsRequest(message: string, needles: readonly string[], wanted: (rid: string) => boolean): boolean {
  for (const n of needles) {
    if (!message.includes(n)) continue;
    for (const id of idTokensAround(message, n)) if (wanted(id)) return true;
  }
  return false;
}
