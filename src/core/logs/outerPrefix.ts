// What other tools put in front of an engine's line: container runtimes (docker --timestamps,
// compose, kubectl --prefix, stern), journald, Slurm's `srun --label`, log aggregators'
// time columns, launchers' `[ISO time]`. Each is removed one at a time so its own timestamp
// can be kept; whatever else stands in front of a header (markdown, pasted words, a progress
// bar) is found by the header search in parseLine, not listed here.
import type { TimeResolution } from './model';
import type { ParseState } from './parseLine';
import { fractionMs, fractionResolution, inferYear } from '../../engines/grammar';

export { fractionMs, fractionResolution, inferYear };

export interface OuterStamp { time: number; res: TimeResolution; utc: boolean }

// docker/kubectl `--timestamps`; with `stdout F ` / `stderr P ` after it, a container log file in the CRI format
// (containerd's /var/log/pods/…: stream and full/partial tag).
const W_DOCKER = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d) ((?:stdout|stderr) [FP] )?/;
// An aggregator's or viewer's time column: ISO time or epoch seconds/milliseconds, then a tab or `|`.
const W_TIME_COLUMN = /^(?:(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?|(1\d{9}(?:\d{3})?)(?:\.(\d+))?)(?:\t+| +\| ?| *\t *)/;
const W_BRACKET_ISO = /^\[(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?\] ?/;
const W_COMPOSE = /^[A-Za-z0-9][\w.-]*\s+\| ?/;
// journalctl's short format: `%b %d %H:%M:%S host ident[pid]: `, with %b in the reader's locale
// (`-o short-precise`: microseconds after the seconds).
const W_JOURNALD = /^ ?([^\s\d][^\s]{0,9}|\d{1,2}月)\.? {1,2}(\d{1,2})\.? (\d\d):(\d\d):(\d\d)(?:\.(\d{6}))? \S+ [^\s:[]+(?:\[\d+\])?: /;
// journalctl -o short-iso / short-iso-precise: `2025-03-04T10:11:12+0000 host ident[pid]: ` (the
// zone `+00:00` since systemd 254), with `.123456` before the zone; -o short-unix: epoch seconds.
const W_JOURNALD_ISO = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{6}))?([+-]\d\d:?\d\d) \S+ [^\s:[]+(?:\[\d+\])?: /;
// -o short-full: `Tue 2025-03-04 10:11:12 UTC host ident[pid]: ` (systemd's English weekday, the zone's abbreviation).
const W_JOURNALD_FULL = new RegExp(String.raw`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{6}))?`
  + String.raw` ([A-Za-z][\w+-]{0,9}) \S+ [^\s:[]+(?:\[\d+\])?: `);
const W_JOURNALD_UNIX = /^(1\d{9})\.(\d{6}) \S+ [^\s:[]+(?:\[\d+\])?: /;
const W_KUBECTL_PREFIX = /^\[pod\/[^\]\s]+\] /;
const W_SLURM = /^\d+: /;

// Month abbreviations as glibc's %b prints them in common locales (lower-cased, dots dropped).
const MONTH_NAMES: string[][] = [
  ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  ['jan', 'feb', 'mär', 'apr', 'mai', 'jun', 'jul', 'aug', 'sep', 'okt', 'nov', 'dez'],
  ['janv', 'févr', 'mars', 'avr', 'mai', 'juin', 'juil', 'août', 'sept', 'oct', 'nov', 'déc'],
  ['ene', 'feb', 'mar', 'abr', 'may', 'jun', 'jul', 'ago', 'sep', 'oct', 'nov', 'dic'],
  ['gen', 'feb', 'mar', 'apr', 'mag', 'giu', 'lug', 'ago', 'set', 'ott', 'nov', 'dic'],
  ['jan', 'fev', 'mar', 'abr', 'mai', 'jun', 'jul', 'ago', 'set', 'out', 'nov', 'dez'],
  ['jan', 'feb', 'mrt', 'apr', 'mei', 'jun', 'jul', 'aug', 'sep', 'okt', 'nov', 'dec'],
  ['янв', 'фев', 'мар', 'апр', 'мая', 'июн', 'июл', 'авг', 'сен', 'окт', 'ноя', 'дек'],
  ['sty', 'lut', 'mar', 'kwi', 'maj', 'cze', 'lip', 'sie', 'wrz', 'paź', 'lis', 'gru'],
  ['oca', 'şub', 'mar', 'nis', 'may', 'haz', 'tem', 'ağu', 'eyl', 'eki', 'kas', 'ara'],
];
const MONTH_BY_NAME = new Map<string, number>();
for (const names of MONTH_NAMES) names.forEach((n, i) => { if (!MONTH_BY_NAME.has(n)) MONTH_BY_NAME.set(n, i + 1); });
// Spellings that differ only in length (`march`, `juni`, `sept`, `мар`/`март`).
const MORE_MONTH_NAMES = [
  ['mär', 3], ['mrz', 3], ['jun', 6], ['juni', 6], ['juli', 7], ['sept', 9], ['févr', 2], ['fév', 2], ['déc', 12], ['dec', 12],
  ['июнь', 6], ['июль', 7], ['май', 5], ['апр', 4],
] as const;
for (const [n, m] of MORE_MONTH_NAMES) MONTH_BY_NAME.set(n, m);

/** The month a journald `%b` names, in any of the locales above (or `8月`); null when unknown. */
export function monthFromName(name: string): number | null {
  const cjk = /^(\d{1,2})月$/.exec(name);
  if (cjk) return Number(cjk[1]);
  const key = name.toLowerCase().replace(/\.$/, '');
  return MONTH_BY_NAME.get(key) ?? MONTH_BY_NAME.get(key.slice(0, 3)) ?? null;
}

/** A wall-clock time read as UTC, moved by its zone offset (`Z` or none: unchanged). */
export function zoned(t: number, zone: string | undefined): number {
  if (!zone || zone === 'Z') return t;
  const off = /([+-])(\d\d):?(\d\d)/.exec(zone)!;
  return t - (off[1] === '-' ? -1 : 1) * (Number(off[2]) * 60 + Number(off[3])) * 60000;
}

/**
 * A wrapper's stamp that has its year (`wall`: its printed digits as UTC, or its epoch time): the
 * year a year-less stamp behind it on the line takes (inferYear); the parser clears it after the line.
 */
function dated(state: ParseState, wall: number): void {
  state.outerDate = wall;
  state.stampKey = '';
}

// A line as a JSON object (docker's json-file driver, journalctl -o json, Loki, GCP and other
// exports): the log line is one of these fields, its time another.
const JSON_MESSAGE_KEYS = ['log', 'message', 'msg', 'MESSAGE', 'textPayload', 'line', 'Line', 'body', '_msg'];
const JSON_TIME_KEYS = ['time', 'timestamp', '@timestamp', 'ts', '__REALTIME_TIMESTAMP'];

function jsonLine(s: string, state: ParseState, stamp: { v: OuterStamp | null }): string | null {
  let o: unknown;
  try { o = JSON.parse(s); } catch { return null; }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return null;
  const rec = o as Record<string, unknown>;
  const key = JSON_MESSAGE_KEYS.find((k) => typeof rec[k] === 'string');
  if (!key) return null;
  const text = rec[key] as string;
  const nl = text.indexOf('\n');
  for (const k of JSON_TIME_KEYS) {
    const v = rec[k];
    if (k === '__REALTIME_TIMESTAMP' && typeof v === 'string' && /^\d{16}$/.test(v)) {
      if (!stamp.v) { stamp.v = { time: Number(v) / 1000, res: 'us', utc: true }; dated(state, stamp.v.time); }
      break;
    }
    if (typeof v === 'string') {
      const m = W_DOCKER.exec(`${v} `);
      if (m) {
        const utc = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
        if (!stamp.v) { stamp.v = { time: zoned(utc + fractionMs(m[7]), m[8]), res: fractionResolution(m[7]), utc: true }; dated(state, utc); }
        break;
      }
    }
  }
  return (nl >= 0 ? text.slice(0, nl) : text).replace(/\r$/, '');
}

/** Remove one outer wrapper; returns the rest or null. Records the wrapper's name and its own timestamp. */
export function stripWrapper(s: string, state: ParseState, wrappers: string[], stamp: { v: OuterStamp | null }): string | null {
  const c = s.charCodeAt(0);
  let m: RegExpExecArray | null;
  if (c === 123 /* { */ && s.charCodeAt(s.length - 1) === 125 /* } */) {
    const inner = jsonLine(s, state, stamp);
    if (inner !== null) wrappers.push('json');
    return inner;
  }
  if (c >= 48 && c <= 57) {
    // journalctl's ISO forms before docker's: the same stamp, then the host and the identifier.
    if ((m = W_JOURNALD_ISO.exec(s) ?? W_DOCKER.exec(s))) {
      const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
      stamp.v = { time: zoned(wall + fractionMs(m[7]), m[8]), res: fractionResolution(m[7]), utc: true };
      dated(state, wall);
      wrappers.push(m[0].endsWith(': ') ? 'journald' : m[9] ? 'cri' : 'docker');
      return s.slice(m[0].length);
    }
    if ((m = W_JOURNALD_UNIX.exec(s))) {
      stamp.v = { time: Number(m[1]) * 1000 + fractionMs(m[2]), res: 'us', utc: true };
      dated(state, stamp.v.time);
      wrappers.push('journald');
      return s.slice(m[0].length);
    }
    if ((m = W_TIME_COLUMN.exec(s))) {
      if (stamp.v) {
        // an outer wrapper's stamp is kept
      } else if (m[9]) {
        const digits = m[9];
        const ms = digits.length === 13 ? Number(digits) : Number(digits) * 1000 + fractionMs(m[10]);
        stamp.v = { time: ms, res: digits.length === 13 ? 'ms' : fractionResolution(m[10]), utc: true };
        dated(state, ms);
      } else {
        const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
        stamp.v = { time: zoned(wall + fractionMs(m[7]), m[8]), res: fractionResolution(m[7]), utc: !!m[8] };
        dated(state, wall);
      }
      wrappers.push('time-column');
      return s.slice(m[0].length);
    }
    if ((m = W_SLURM.exec(s))) { wrappers.push('slurm'); return s.slice(m[0].length); }
  }
  if (c === 91 /* [ */) {
    if ((m = W_BRACKET_ISO.exec(s))) {
      const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
      stamp.v = { time: zoned(wall + fractionMs(m[7]), m[8]), res: fractionResolution(m[7]), utc: !!m[8] };
      dated(state, wall);
      wrappers.push('launcher');
      return s.slice(m[0].length);
    }
    if ((m = W_KUBECTL_PREFIX.exec(s))) { wrappers.push('kubectl'); return s.slice(m[0].length); }
    return null;
  }
  if ((m = W_JOURNALD_FULL.exec(s))) {
    const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    // Only UTC's abbreviation names an offset for sure (CET, EST, IST… are ambiguous): others stay the wall clock.
    const utc = m[8] === 'UTC' || m[8] === 'GMT';
    if (!stamp.v) { stamp.v = { time: wall + fractionMs(m[7]), res: fractionResolution(m[7]), utc }; dated(state, wall); }
    wrappers.push('journald');
    return s.slice(m[0].length);
  }
  if ((m = W_JOURNALD.exec(s))) {
    const month = monthFromName(m[1]);
    if (month !== null && !stamp.v) {
      const year = inferYear(state, month, Number(m[2]));
      const t = Date.UTC(year, month - 1, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) + fractionMs(m[6]);
      stamp.v = { time: t, res: fractionResolution(m[6]), utc: false };
    }
    wrappers.push('journald');
    return s.slice(m[0].length);
  }
  if ((m = W_COMPOSE.exec(s))) { wrappers.push('compose'); return s.slice(m[0].length); }
  return null;
}

/**
 * The message with the closers of markdown that opened before the header removed: a line
 * pasted as `` `INFO … Added request x.` `` or `**INFO … x.**` ends in the closer.
 */
export function dropMarkdownClosers(message: string, prefix: string): string {
  let m = message;
  // `**(APIServer pid=1) INFO … [file.py:N]** Added request x.`: the closer right after the header.
  const lead = /^(?:\*\*|__|`+) /.exec(m);
  if (lead && prefix.includes(lead[0].trimEnd())) m = m.slice(lead[0].length);
  for (let i = 0; i < 3; i++) {
    const end = m.trimEnd();
    if (prefix.includes('`') && end.endsWith('`')) m = end.replace(/`+$/, '');
    else if (prefix.includes('**') && end.endsWith('**')) m = end.slice(0, -2);
    else if (prefix.includes('__') && end.endsWith('__')) m = end.slice(0, -2);
    else if (/<(?:code|pre)>/.test(prefix) && /<\/(?:code|pre)>$/.test(end)) m = end.replace(/<\/(?:code|pre)>$/, '');
    else break;
  }
  return m;
}
