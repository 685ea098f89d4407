// A Rust program's line in tracing-subscriber's JSON layout (SGLang's router with `--log-json`:
// `.json().flatten_event(true)`, sgl-router/src/logging.rs and sgl-model-gateway's
// observability/logging.rs): `{"timestamp":…,"level":"INFO","message":…,"target":…,"filename":…,
// "line_number":N}`, the event's other fields beside the message (or all of them under "fields"
// without flattening), the span it ran in under "span" / "spans". Whose line it is comes from its
// target, as for the text layout.
import { stampUtc } from './civilTime';
import type { Engine, TimeResolution } from './model';
import { fractionMs, fractionResolution, zoned } from './outerPrefix';
import { rustEngine } from './pythonLayout';

export interface TracingJsonLine {
  engine: Engine;
  time: number | null;
  timeResolution: TimeResolution | null;
  timeIsUtc: boolean;
  level: string;
  target: string;
  file: string | null;
  lineno: number | null;
  /** The message as the text layout prints it: the format string filled in, then the event's other fields. */
  message: string;
  /** The spans it ran in as the text layout prints them (`name{field=value …}`, outermost first, joined by `:`). */
  span: string | null;
}

const STAMP = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$/;
const LEVELS: Record<string, string> = { TRACE: 'DEBUG', DEBUG: 'DEBUG', INFO: 'INFO', WARN: 'WARNING', ERROR: 'ERROR' };
/** Keys of the layout itself, not the event's fields. */
const LAYOUT_KEYS = new Set(['timestamp', 'level', 'fields', 'target', 'filename', 'line_number', 'span', 'spans', 'threadName', 'threadId', 'message']);

function fieldText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** One span object (`{"name":…, fields…}`) as the text layout prints it; strings quoted as their Debug form. */
function spanText(v: unknown): string | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.name !== 'string') return null;
  const fields = Object.entries(o).filter(([k]) => k !== 'name').map(([k, x]) => `${k}=${JSON.stringify(x)}`);
  return fields.length ? `${o.name}{${fields.join(' ')}}` : o.name;
}

function spansText(r: Record<string, unknown>): string | null {
  const list = Array.isArray(r.spans) && r.spans.length > 0 ? r.spans.map(spanText) : [spanText(r.span)];
  const parts = list.filter((x): x is string => x !== null);
  return parts.length ? parts.join(':') : null;
}

/** The line read as tracing's JSON layout of an engine's Rust program; null when it is none (or another program's). */
export function tracingJsonLine(s: string): TracingJsonLine | null {
  if (s.indexOf('"target"') < 0 || s.indexOf('"level"') < 0) return null;
  let o: unknown;
  try { o = JSON.parse(s); } catch { return null; }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return null;
  const r = o as Record<string, unknown>;
  if (typeof r.target !== 'string' || typeof r.level !== 'string' || !(r.level in LEVELS)) return null;
  const engine = rustEngine(r.target);
  if (engine === null) return null;
  const nested = r.fields !== null && typeof r.fields === 'object' && !Array.isArray(r.fields) ? r.fields as Record<string, unknown> : null;
  const fields = nested ?? r;
  const message = typeof fields.message === 'string' ? fields.message : '';
  const extra: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'message' || (nested === null && LAYOUT_KEYS.has(k))) continue;
    extra.push(`${k}=${fieldText(v)}`);
  }
  let time: number | null = null;
  let timeResolution: TimeResolution | null = null;
  let timeIsUtc = false;
  const m = typeof r.timestamp === 'string' ? STAMP.exec(r.timestamp) : null;
  if (m) {
    // ChronoUtc (the router's timer) prints UTC without a zone; RFC 3339 (tracing's default) with one
    // (a stamp without its zone counts as the router's wall clock, as its text lines do).
    time = zoned(stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]), m[8]);
    timeResolution = fractionResolution(m[7]);
    timeIsUtc = m[8] !== undefined;
  }
  return {
    engine, time, timeResolution, timeIsUtc, level: LEVELS[r.level], target: r.target,
    file: typeof r.filename === 'string' ? r.filename : null,
    lineno: typeof r.line_number === 'number' && Number.isSafeInteger(r.line_number) ? r.line_number : null,
    message: extra.length ? `${message} ${extra.join(' ')}` : message,
    span: spansText(r),
  };
}
