// vLLM's request ids as its server prints them, and what a missing hop means in a vLLM log beyond
// the table's words. The serving layer names a request chatcmpl-<base> (chat) or
// cmpl-<base>-<prompt idx> (completions); engine-side lines add "-<8 hex>", n>1 children are
// "<idx>_<internal id>", several engine inputs "<id>_<i>".
import type { ApiKind, MissingReason, ServerIds } from '../types';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The ids vLLM prints for a request sent with X-Request-Id / request_id `base`. */
export function vllmServerIds(base: string, api: ApiKind): ServerIds {
  if (api === 'completions') {
    // The request logger prints cmpl-<id>-<prompt index>; engine lines add -<8hex>.
    const logged = `cmpl-${base}-0`;
    return {
      normalised: logged, exact: [logged], streamId: `cmpl-${base}`,
      patterns: [new RegExp(`^(?:\\d+_)?cmpl-${escapeRe(base)}-\\d+(?:-[0-9a-f]{8})?$`)],
    };
  }
  // n>1 children are "<idx>_<id>"; several engine inputs make "<id>_<i>"; engine lines add -<8hex>.
  const logged = `chatcmpl-${base}`;
  return {
    normalised: logged, exact: [logged], streamId: logged,
    patterns: [new RegExp(`^(?:\\d+_)?${escapeRe(logged)}(?:_\\d+)?(?:-[0-9a-f]{8})?$`)],
  };
}

/** A request's missing vLLM hop, explained by the startup notices (V0a, V0b) or the API path. */
export const vllmMissingReason: MissingReason = (hop, request) => {
  if (request.startupSeen.has('V0a') && hop.scope === 'request') {
    return { kind: 'level', text: 'The log level is above INFO (see the startup warning V0a), so request lines are hidden.' };
  }
  if (hop.id === 'V6' && request.rid.startsWith('cmpl-')) {
    return { kind: 'path', text: 'Path not taken: /v1/completions never logs outputs, even with --enable-log-outputs.' };
  }
  if (hop.id === 'V1b' && request.startupSeen.has('V0b')) {
    return { kind: 'level', text: 'DEBUG only: the startup notice (V0b) says this server ran at INFO.' };
  }
  return null;
};
