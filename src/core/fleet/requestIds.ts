// The names one request goes by, as a store is to be asked for it. A log store searches text, and
// every form a server prints (the client's id, vLLM's `chatcmpl-<id>` / `cmpl-<id>-<i>`, engine
// lines' `-<8 hex>` suffix, `<i>_` children, SGLang's raw rid) contains the join key, so the key is
// the search term. A trace store matches an attribute's whole value, so it gets the whole values
// vLLM's gen_ai.request.id and SGLang's rid take.
import { keyMatcher, queryKeys } from '../timeline/requestKey';
import { idNeedle, mentionsRequest } from '../logs/requestIds';

/** What a log store searches for: the join keys of what the user typed (see requestKey.ts). */
export function logSearchTerms(query: string): string[] {
  return queryKeys(query);
}

/** Does a store's line name the request, as the timeline reads it (a Loki `|=` filter also matches `req-10` for `req-1`)? */
export function namesRequestText(query: string): (text: string) => boolean {
  const keys = queryKeys(query);
  const match = keyMatcher(keys);
  const needles = keys.map(idNeedle);
  return (text) => mentionsRequest(text, needles, (id) => match(id) !== null);
}

/** Whole attribute values a request's spans may carry, for what the user typed. */
export function traceAttributeValues(query: string): string[] {
  const q = query.trim();
  const out = new Set<string>();
  if (q !== '') out.add(q);
  for (const k of queryKeys(q)) {
    out.add(k);
    out.add(`chatcmpl-${k}`);
    out.add(`cmpl-${k}-0`);
  }
  return [...out];
}

/** The span attributes a request id is filed under: vLLM's llm_request, SGLang's root span. */
export const REQUEST_ID_ATTRIBUTES = ['gen_ai.request.id', 'rid'] as const;

/** A W3C trace id (32 hex, not all zero), lower-cased; undefined when it is not one. */
export function normaliseTraceId(id: string): string | undefined {
  const s = id.trim().toLowerCase();
  if (!/^[0-9a-f]{1,32}$/.test(s)) return undefined;
  const padded = s.padStart(32, '0');
  return /^0+$/.test(padded) ? undefined : padded;
}
