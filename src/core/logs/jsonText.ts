// Pieces of the JSON Lines output of `hoplens annotate --json`, shared by the record writer
// (core/session/recordJson.ts) and the byte-level fast path (fastVllm.ts), so both print the
// same bytes for the same line.
import type { TimeResolution } from './model';

const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029]/;

export function jsonString(s: string | null): string {
  if (s === null) return 'null';
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/**
 * An integer from a log line (pid, line number, repeat count) as JSON. Digits past what a
 * double holds exactly (a 309-digit pid parses to Infinity, which is not JSON) become null.
 */
export function jsonInt(n: number | null | undefined): string {
  return n !== null && n !== undefined && Number.isSafeInteger(n) ? String(n) : 'null';
}

function pad2(n: number): string { return n < 10 ? `0${n}` : `${n}`; }

/** ISO 8601 at the stamp's own resolution; "Z" only when the zone is known. */
export function formatTime(ms: number, res: TimeResolution, utc: boolean): string {
  const d = new Date(Math.floor(ms));
  let s = `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`
    + `T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
  if (res !== 's') {
    const frac = ms / 1000 - Math.floor(ms / 1000);
    const digits = res === 'ms' ? 3 : 6;
    s += '.' + Math.round(frac * 10 ** digits).toString().padStart(digits, '0').slice(0, digits);
  }
  return utc ? s + 'Z' : s;
}
