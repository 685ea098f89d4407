// Lines of a router or proxy in front of the engines (SGLang's model gateway `sgl-router`, and
// routers built on it) that name a request. Its Rust `tracing` logger prints, per request, an
// `http_request{method=… uri=… request_id="…"}` span around two events (sgl-router
// src/middleware.rs: RequestLogger / ResponseLogger, with the subscriber's time, level, span,
// target and file:line in front):
//
//   2026-08-21 22:30:01  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="…"}: \
//     sglang_router_rs::request: src/middleware.rs:214: started processing request   (one line; split here)
//   2026-08-21 22:30:02  INFO http_request{… request_id="…" status_code=200 latency="812ms"}: \
//     sglang_router_rs::response: src/middleware.rs:252: finished processing request
//
// and the same fields as JSON with `--log-json`. "started" is logged when the router has the
// request, before it forwards it; "finished" (or "request failed …") when the engine's
// response headers are back, before they go to the client (a stream's body follows later).
import type { LogRecord, TimeResolution } from '../logs/model';

export type RouterEvent = 'received' | 'responded' | 'other';

export interface RouterLine {
  requestId: string;
  event: RouterEvent;
  /** Epoch ms: real UTC when the line says its zone, else the router's wall clock read as UTC. */
  time: number;
  resolution: TimeResolution;
  timeIsUtc: boolean;
  message: string;
}

const TEXT = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?\s+(TRACE|DEBUG|INFO|WARN|ERROR)\s+(.*)$/;
const REQUEST_ID = /\brequest_id=(?:"((?:[^"\\]|\\.)*)"|([^\s,}"]+))/;
const JSON_REQUEST_ID = /"request_id":"((?:[^"\\]|\\.)*)"/;
const JSON_TIME = /"timestamp":"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?"/;
const JSON_MESSAGE = /"message":"((?:[^"\\]|\\.)*)"/;

function eventOf(message: string): RouterEvent {
  if (message.endsWith('started processing request')) return 'received';
  if (message.endsWith('finished processing request') || /request failed with (?:server|client) error$/.test(message)) return 'responded';
  return 'other';
}

function resolutionOf(frac: string | undefined): TimeResolution {
  if (!frac) return 's';
  return frac.length <= 3 ? 'ms' : frac.length <= 6 ? 'us' : 'ns';
}

function epochOf(m: RegExpExecArray, first: number): { time: number; utc: boolean } {
  const n = (i: number): number => Number(m[first + i]);
  const frac = m[first + 6];
  let t = Date.UTC(n(0), n(1) - 1, n(2), n(3), n(4), n(5)) + (frac ? Number(`0.${frac}`) * 1000 : 0);
  const zone = m[first + 7];
  if (zone && zone !== 'Z') {
    const z = /([+-])(\d\d):?(\d\d)/.exec(zone)!;
    t -= (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3])) * 60_000;
  }
  return { time: t, utc: zone !== undefined };
}

function unescape(s: string): string {
  return s.includes('\\') ? s.replace(/\\(.)/g, '$1') : s;
}

/** A router line that names a request, or null (any other line; lines without a time). */
export function parseRouterLine(line: string): RouterLine | null {
  const c = line.charCodeAt(0);
  if (c === 123 /* { */) {
    const id = JSON_REQUEST_ID.exec(line);
    const ts = id && JSON_TIME.exec(line);
    if (!id || !ts) return null;
    const message = unescape(JSON_MESSAGE.exec(line)?.[1] ?? '');
    const { time, utc } = epochOf(ts, 1);
    return { requestId: unescape(id[1]), event: eventOf(message), time, resolution: resolutionOf(ts[7]), timeIsUtc: utc, message };
  }
  if (c < 48 || c > 57) return null;
  const m = TEXT.exec(line);
  if (!m) return null;
  const rest = m[10];
  const id = REQUEST_ID.exec(rest);
  if (!id) return null;
  const { time, utc } = epochOf(m, 1);
  // The message follows the span, the target and file:line, each closed by ": ".
  const cut = rest.lastIndexOf(': ');
  const message = cut >= 0 ? rest.slice(cut + 2) : rest;
  return { requestId: unescape(id[1] ?? id[2]), event: eventOf(message), time, resolution: resolutionOf(m[7]), timeIsUtc: utc, message };
}

/**
 * The router line a record is, or null: another program's line read by parseRouterLine, or SGLang's
 * router line (its tracing layout, text or JSON, parsed as SGLang's) whose span names the request.
 */
export function routerLineOf(rec: LogRecord): RouterLine | null {
  if (rec.engine === 'other') return parseRouterLine(rec.message);
  if (rec.role !== 'router' || rec.span === undefined || rec.time === null) return null;
  const id = REQUEST_ID.exec(rec.span);
  if (!id) return null;
  return {
    requestId: unescape(id[1] ?? id[2]), event: eventOf(rec.message), time: rec.time, resolution: rec.timeResolution ?? 's',
    timeIsUtc: rec.timeIsUtc ?? false, message: rec.message,
  };
}
