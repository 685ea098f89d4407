// The time window a store is asked over, from what a user types: RFC 3339 (`2026-12-02T10:00:00Z`)
// or a span back from now (`90s`, `30m`, `2h`, `7d`); the last 24 hours when nothing is given.
import { FleetError } from './http';
import type { TimeWindow } from './model';

export const DEFAULT_LOOKBACK_MS = 24 * 3600 * 1000;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** One bound: RFC 3339, or a relative span meaning "that long before now". */
export function parseTimeBound(text: string, nowMs: number, what: string): number {
  const s = text.trim();
  const rel = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)$/.exec(s);
  if (rel) return nowMs - Number(rel[1]) * UNIT_MS[rel[2]];
  if (s === 'now') return nowMs;
  if (/^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)?(?:Z|[+-]\d\d:?\d\d)?$/i.test(s)) {
    const withZone = /(?:Z|[+-]\d\d:?\d\d)$/i.test(s) || s.length === 10 ? s : `${s}Z`;
    const ms = Date.parse(withZone.replace(' ', 'T'));
    if (!Number.isNaN(ms)) return ms;
  }
  throw new FleetError('bad-url', `${what} "${text}" is neither RFC 3339 (2026-12-02T10:00:00Z) nor a span back from now (30m, 2h, 7d)`);
}

export function parseWindow(since: string | undefined, until: string | undefined, nowMs: number): TimeWindow {
  const endMs = until !== undefined ? parseTimeBound(until, nowMs, '--until') : nowMs;
  const startMs = since !== undefined ? parseTimeBound(since, nowMs, '--since') : endMs - DEFAULT_LOOKBACK_MS;
  if (startMs >= endMs) {
    const [from, to] = [new Date(startMs).toISOString(), new Date(endMs).toISOString()];
    throw new FleetError('bad-url', `the window is empty: --since (${from}) is not before --until (${to})`);
  }
  return { startMs, endMs };
}
