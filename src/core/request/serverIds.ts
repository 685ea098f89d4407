// The ids a server prints for a request whose id we chose, in the shape the request layer needs
// (ids to show, a pattern to find them inside log lines, the grouping key). The facts live in
// src/core/logs/requestIds.ts (engine-facts.md §1 and §D); this only re-shapes them.
import { serverIdsFor as logServerIds } from '../logs/requestIds';
import type { Api, Engine } from './types';
import { ownApi } from '../../engines/registry';

export interface ServerIds {
  /** Ids exactly as the server prints them (SSE id, request-log id). */
  ids: string[];
  /** Matches any id the server prints for this request inside a line, engine `-<8hex>` ids included. */
  pattern: RegExp;
  /** The id the request logger prints: the key the Requests view groups this request under. */
  logId: string;
}

export function serverIdsFor(engine: Engine, api: Api, requestId: string): ServerIds {
  const s = logServerIds(requestId, engine, ownApi(api)?.kind ?? (api === 'chat' ? 'chat' : 'completions'));
  const whole = s.patterns.map((p) => p.source.replace(/^\^/, '').replace(/\$$/, '')).join('|');
  return {
    ids: [...new Set([s.streamId, ...s.exact])],
    logId: s.normalised,
    pattern: new RegExp(`(?<![\\w-])(?:${whole})(?![\\w-])`),
  };
}

/** A fresh request id: `hoplens-<UTC time>-<6 hex>`. Six hex, not eight, so it is never
 * mistaken for vLLM's `-<8hex>` engine suffix when ids are normalised. */
export function newRequestId(now: Date = new Date(), random: () => number = Math.random): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}`;
  const time = `${date}T${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const rnd = Math.floor(random() * 0x1000000).toString(16).padStart(6, '0');
  return `hoplens-${time}-${rnd}`;
}
