// Pieces of the JSON Lines output of `hoplens annotate --json`, shared by the record writer
// (core/session/recordJson.ts) and the byte-level fast path (src/engines/vllm/fastPath.ts), so both print the
// same bytes for the same line.
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

// An ISO 8601 time at the stamp's resolution: in the bottom layer, where an engine's byte fast path prints it too.
export { formatTime } from '../../engines/civilTime';
