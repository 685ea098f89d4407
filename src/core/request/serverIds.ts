// The ids a server prints for a request whose id we chose (engine-facts.md §1 and §D).
// vLLM: chat `chatcmpl-<id>`; completions `cmpl-<id>` in the SSE but `cmpl-<id>-0` in the
// request log; engine-side lines append `-<8 hex>`. SGLang: the raw rid everywhere.
// (src/core/logs/requestIds.ts did not exist when this was written; this is the small
// version the request layer needs.)
import type { Api, Engine } from './types';

export interface ServerIds {
  /** Ids exactly as the server prints them (SSE id, request-log id). */
  ids: string[];
  /** Matches any id the server prints for this request, including `-<8hex>` engine ids. */
  pattern: RegExp;
  /** The id the request logger prints (the grouping key of src/core/logs/requestIds.ts serverIdsFor().normalised). */
  logId: string;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function serverIdsFor(engine: Engine, api: Api, requestId: string): ServerIds {
  if (engine === 'sglang') {
    // n>1 / batches expand a string rid to `<rid>_<i>`.
    return { ids: [requestId], logId: requestId, pattern: new RegExp(`(?<![\\w-])${escapeRegExp(requestId)}(?:_\\d+)?(?![\\w-])`) };
  }
  if (api === 'completions') {
    const sse = `cmpl-${requestId}`;
    return {
      ids: [sse, `${sse}-0`],
      logId: `${sse}-0`,
      pattern: new RegExp(`(?<![\\w-])${escapeRegExp(sse)}(?:-\\d+)?(?:-[0-9a-f]{8})?(?![\\w-])`),
    };
  }
  const id = `chatcmpl-${requestId}`;
  return {
    ids: [id],
    logId: id,
    // `<idx>_` prefixes n>1 children; `_<i>` suffixes multi-input requests.
    pattern: new RegExp(`(?<![\\w-])(?:\\d+_)?${escapeRegExp(id)}(?:_\\d+)?(?:-[0-9a-f]{8})?(?![\\w-])`),
  };
}

/** A fresh request id: `hoplens-<UTC time>-<6 hex>`. Six hex, not eight, so it is never
 * mistaken for vLLM's `-<8hex>` engine suffix when ids are normalised. */
export function newRequestId(now: Date = new Date(), random: () => number = Math.random): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const time = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}T${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const rnd = Math.floor(random() * 0x1000000).toString(16).padStart(6, '0');
  return `hoplens-${time}-${rnd}`;
}
