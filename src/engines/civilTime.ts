// A printed date and time as epoch milliseconds, or NaN when no calendar has it (month 84,
// hour 25, 31 February). Date.UTC rolls such fields into another date (month 84 of 2026 is
// December 2032): a line with an impossible stamp keeps no time rather than a wrong one. And a
// time as ISO 8601 at its stamp's resolution (formatTime), as annotate --json prints it.
import type { TimeResolution } from './record';

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Why these fields name no real time, or null when they do (a leap second's :60 is allowed). */
export function stampProblem(year: number, month: number, day: number, hour: number, minute: number, second: number): string | null {
  const bad: string[] = [];
  if (!(month >= 1 && month <= 12)) bad.push(`month ${month}`);
  else {
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    const last = month === 2 && !leap ? 28 : DAYS[month - 1];
    if (!(day >= 1 && day <= last)) bad.push(`day ${day}`);
  }
  if (!(hour >= 0 && hour <= 23)) bad.push(`hour ${hour}`);
  if (!(minute >= 0 && minute <= 59)) bad.push(`minute ${minute}`);
  if (!(second >= 0 && second <= 60)) bad.push(`second ${second}`);
  return bad.length ? bad.join(', ') : null;
}

/** Date.UTC of a printed stamp (month 1-12), NaN when the stamp names no real time. */
export function stampUtc(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  // The common case in two comparisons per field; stampProblem only says why.
  if (month < 1 || month > 12 || day < 1 || day > 28 || hour > 23 || minute > 59 || second > 60) {
    if (stampProblem(year, month, day, hour, minute, second) !== null) return NaN;
  }
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

/** The words a hover shows for a line whose stamp was impossible, from the stamp as printed. */
export function impossibleStampNote(problem: string): string {
  return `the line's timestamp names no real time (${problem}), so its time is unknown`;
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
