// A stamp as the clock that made it reads it. Server logs without a zone are the server's wall
// clock, which the parser keeps as if it were UTC (parseLine.ts): UTC getters give back exactly
// the digits the log printed, whatever the zone of the machine HopLens runs on, and nothing
// calls them UTC. The client's and the spans' clocks are real UTC, and say so.
import type { TimeResolution } from './model';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `2026-08-21 22:30:01` (whole seconds) or `…01.250`; ` UTC` after it only for a real UTC clock. */
export function clockStamp(epochMs: number, resolution: TimeResolution, realUtc: boolean): string {
  const d = new Date(Math.floor(epochMs));
  const base = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} `
    + `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const frac = resolution === 's' ? '' : `.${pad(d.getUTCMilliseconds(), 3)}`;
  return `${base}${frac}${realUtc ? ' UTC' : ''}`;
}

/** The time of day of a log's stamp, as the log printed it (`22:30:01`, `22:30:01.250`). */
export function printedTimeOfDay(epochMs: number, resolution: TimeResolution): string {
  return clockStamp(epochMs, resolution, false).slice(11);
}
