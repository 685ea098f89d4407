// One request under every name it goes by across sources: the id the client chose (or a router
// generated), vLLM's `chatcmpl-<id>` / `cmpl-<id>-<i>` in its serving layer (engine-side ids are
// already brought back to that form by the log parser, requestIds.ts), SGLang's raw rid, and
// `request_id` in a router's log. Lines are joined across files on the id they share: the
// client's part, with the API's prefix and the completion's prompt index taken off.
import { externalFromInternal } from '../logs/requestIds';

const CHAT = 'chatcmpl-';
const COMPLETION = 'cmpl-';
const PROMPT_INDEX = /-\d+$/;
const ENGINE_SUFFIX = /-[0-9a-f]{8}$/;

/**
 * The join key of a normalised id (a LogRecord's rid, an llm_request's gen_ai.request.id, a
 * router's request_id, the id a client sent): `chatcmpl-X` → X, `cmpl-X-0` → X, anything else
 * as it is.
 */
export function requestKey(id: string): string {
  const s = id.trim();
  if (s.startsWith(CHAT) && s.length > CHAT.length) return s.slice(CHAT.length);
  if (s.startsWith(COMPLETION) && s.length > COMPLETION.length) {
    const rest = s.slice(COMPLETION.length);
    // The request logger prints cmpl-<id>-<prompt index>; the SSE frames cmpl-<id>.
    return PROMPT_INDEX.test(rest) && rest.length > 2 ? rest.replace(PROMPT_INDEX, '') : rest;
  }
  return s;
}

/**
 * The keys what the user typed may stand for: the id as typed, and, when it ends like an
 * engine-internal id (`…-<8 hex>`, `<i>_…`) or a completion's prompt index, the other
 * readings. The first one that has lines wins (a client may well have chosen an id that ends
 * in 8 hex digits).
 */
export function queryKeys(query: string): string[] {
  const q = query.trim();
  const keys = [requestKey(q)];
  // `cmpl-<id>` is also the SSE id of a completion, whose <id> may itself end in -<digits>.
  if (q.startsWith(COMPLETION) && PROMPT_INDEX.test(q)) keys.push(q.slice(COMPLETION.length));
  if (ENGINE_SUFFIX.test(q) || /^\d+_/.test(q)) {
    const ext = requestKey(externalFromInternal(q));
    if (ext !== '' && !keys.includes(ext)) keys.push(ext);
  }
  return keys.filter((k) => k !== '');
}

/**
 * A cheap test for the hot path (every hop line of a big log): does this normalised id belong
 * to one of `keys`? A substring check rejects almost every id without allocating.
 */
export function keyMatcher(keys: readonly string[]): (rid: string) => string | null {
  return (rid) => {
    for (const k of keys) if (rid.includes(k) && requestKey(rid) === k) return k;
    return null;
  };
}
