// A small OTLP/HTTP trace receiver (POST /v1/traces, protobuf or JSON, optionally gzip), answering
// as the OTLP specification asks (opentelemetry-proto docs/specification.md, "OTLP/HTTP Response"):
//   200, empty response          every span kept;
//   200, partial_success         some spans could not be read: the rest are kept, the bad ones
//                                counted in rejected_spans with the reason (exporters must not retry);
//   400 / 413 / 415 + Status     the request cannot be read at all (not retried);
//   503 + Retry-After + Status   the spans were read but could not be kept (the sink failed): a
//                                retryable answer, so the exporter keeps them and sends them again.
// Bad requests are answered and counted; the server and what it already received are unaffected.
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import {
  decodeOtlpJson, decodeOtlpProtobuf, emptyExportResponseProtobuf, partialSuccessResponseProtobuf, type DecodedTraces, type RejectedSpan,
} from './decode';
import type { OtlpSpan } from './types';
import { ENGINE_PROFILES } from '../../engines/registry';

export interface OtlpReceiverOptions {
  host?: string;
  port?: number;
  maxBodyBytes?: number;
  /**
   * Keeps the spans of one export request. Return (or resolve) once they are kept; throw (or
   * reject) when they cannot be: the exporter is then answered 503 with Retry-After, keeps the
   * spans and sends them again, so the sink must keep all of a call's spans or none.
   */
  onSpans(spans: OtlpSpan[]): void | Promise<void>;
  onError?(message: string): void;
  /** The sink started failing (its error), or keeps spans again (null). */
  onSinkState?(failure: string | null): void;
  /** After each export request was answered (counters changed). */
  onExport?(): void;
  /** Retry-After of a 503 (seconds). */
  retryAfterSeconds?: number;
}

export interface OtlpReceiverStats {
  /** POST /v1/traces requests that were read (whatever the answer). */
  requests: number;
  /** Spans kept. */
  spans: number;
  /** Requests refused as unreadable (4xx). */
  rejected: number;
  /** Spans refused because they could not be read (in partial_success answers and 400s). */
  rejectedSpans: number;
  /** Requests answered 503 because the sink could not keep their spans (the exporter retries). */
  refused: number;
  /** Senders that went away before their body was complete. */
  aborted: number;
  /** The sink's error while it is failing; null when the last batch was kept. */
  sinkFailure: string | null;
}

export interface OtlpReceiver {
  /** The endpoint to give the engine: http://host:port/v1/traces */
  url: string;
  host: string;
  port: number;
  /** Set when bound to a non-loopback address: anyone who can reach it can send spans. */
  warning?: string;
  /** What a 503 tells exporters to wait before they send again. */
  retryAfterSeconds: number;
  close(): Promise<void>;
  stats(): OtlpReceiverStats;
}

export const DEFAULT_OTLP_PORT = 4318;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

/** How one engine is launched to export its spans to this endpoint: its label, a whole line, the same as words. */
export interface LaunchHint { label: string; line: string; with: string }

/** The launch hints for this endpoint, one per registered engine whose profile says how it exports spans (`otlp`). */
export function launchHints(url: string): LaunchHint[] {
  return ENGINE_PROFILES.flatMap((p) => (p.otlp !== undefined ? [{ label: p.label, line: p.otlp.launchLine(url), with: p.otlp.launchWith(url) }] : []));
}

/** The flag each engine that exports spans takes the endpoint in (its profile's `otlp.endpointFlag`), by label. */
export function endpointFlags(): { label: string; flag: string }[] {
  return ENGINE_PROFILES.flatMap((p) => (p.otlp !== undefined ? [{ label: p.label, flag: p.otlp.endpointFlag }] : []));
}

/** Those flags as a sentence names them: `vLLM's --otlp-traces-endpoint` (`… or ToyLLM's --x`); none: the engine's endpoint setting. */
export function endpointFlagWords(): string {
  const flags = endpointFlags();
  return flags.length ? flags.map((f) => `${f.label}'s ${f.flag}`).join(' or ') : 'the engine\'s OTLP traces endpoint';
}

// google.rpc.Status { int32 code = 1; string message = 2; } — the collector's error body. Written
// out by hand because the generated definitions do not include it; it is two fields.
function statusProtobuf(code: number, message: string): Buffer {
  const msg = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from([0x08]), varint(code), Buffer.from([0x12]), varint(msg.length), msg]);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) { bytes.push((v & 0x7f) | 0x80); v >>>= 7; }
  bytes.push(v);
  return Buffer.from(bytes);
}

// gRPC codes in Status.code (the spec lets clients ignore them; they help in a packet capture).
const GRPC_CODE: Record<number, number> = { 400: 3, 404: 5, 405: 12, 413: 8, 415: 3, 503: 14 };

type BodyFormat = 'protobuf' | 'json';

function formatOf(contentType: string | undefined): BodyFormat | null {
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (ct === 'application/x-protobuf' || ct === 'application/protobuf') return 'protobuf';
  if (ct === 'application/json') return 'json';
  return null;
}

const MAX_LISTED_REJECTIONS = 3;

/** The partial_success error_message: how many, and the first few reasons. */
export function rejectionMessage(rejected: RejectedSpan[], total: number): string {
  const listed = rejected.slice(0, MAX_LISTED_REJECTIONS).map((r) => r.message).join('; ');
  const more = rejected.length > MAX_LISTED_REJECTIONS ? `; and ${rejected.length - MAX_LISTED_REJECTIONS} more` : '';
  return `${rejected.length} of ${total} span(s) rejected: ${listed}${more}`;
}

/** Writes an answer once (not after the sender went away). */
function send(res: http.ServerResponse, status: number, format: BodyFormat, body: Buffer, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    ...headers,
    'Content-Type': format === 'json' ? 'application/json' : 'application/x-protobuf',
    'Content-Length': String(body.length),
  });
  res.end(body);
}

/** The export's answer: success, or partial success with how many spans were rejected and why. */
function ok(res: http.ServerResponse, format: BodyFormat, partial?: { rejectedSpans: number; errorMessage: string }): void {
  let body: Buffer;
  if (!partial) body = format === 'json' ? Buffer.from('{}') : Buffer.from(emptyExportResponseProtobuf());
  else if (format === 'json') {
    // int64 in OTLP/JSON is a decimal string (proto3 JSON mapping).
    body = Buffer.from(JSON.stringify({ partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } }));
  } else body = Buffer.from(partialSuccessResponseProtobuf(partial.rejectedSpans, partial.errorMessage));
  send(res, 200, format, body);
}

/** An error answer in the request's format: a google.rpc.Status with the gRPC code of the HTTP status. */
function fail(res: http.ServerResponse, status: number, format: BodyFormat, message: string, headers?: Record<string, string>): void {
  const code = GRPC_CODE[status] ?? 2;
  const body = format === 'json' ? Buffer.from(JSON.stringify({ code, message })) : statusProtobuf(code, message);
  send(res, status, format, body, headers);
}

/** Why listening on host:port failed, in the user's terms. */
function listenFailure(e: NodeJS.ErrnoException, host: string, port: number): Error {
  if (e.code === 'EADDRINUSE') {
    return new Error(`port ${port} on ${host} is already in use (another collector, Jaeger or HopLens receiver?). ` +
      `Stop it, or pick another port, e.g. ${host}:${port === 65535 ? 4319 : port + 1}, and point ${endpointFlagWords()} there.`);
  }
  if (e.code === 'EACCES') return new Error(`not allowed to listen on ${host}:${port} (${e.code}); choose a port above 1024`);
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') return new Error(`cannot listen on ${host}: no such local address (${e.code})`);
  return new Error(`cannot listen on ${host}:${port}: ${e.message}`);
}

/** Starts the server listening; the receiver once it is (its real port when 0 was asked for). */
function listen(server: http.Server, host: string, port: number, retryAfterSeconds: number, stats: OtlpReceiverStats,
  report: (m: string) => void): Promise<OtlpReceiver> {
  return new Promise((resolve, rejectPromise) => {
    const onListenError = (e: NodeJS.ErrnoException): void => rejectPromise(listenFailure(e, host, port));
    server.once('error', onListenError);
    server.listen(port, host, () => {
      server.off('error', onListenError);
      server.on('error', (e) => report(`receiver error: ${e.message}`));
      const actual = (server.address() as AddressInfo).port;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      const receiver: OtlpReceiver = {
        url: `http://${urlHost}:${actual}/v1/traces`,
        host,
        port: actual,
        retryAfterSeconds,
        close: () => new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
        stats: () => ({ ...stats }),
      };
      if (!isLoopbackHost(host)) {
        receiver.warning = `listening on ${host}, not loopback: anyone who can reach ${host}:${actual} can send spans to HopLens`;
      }
      resolve(receiver);
    });
  });
}

export function startOtlpReceiver(opts: OtlpReceiverOptions): Promise<OtlpReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? DEFAULT_OTLP_PORT;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const retryAfter = String(Math.max(0, Math.round(opts.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS)));
  const stats: OtlpReceiverStats = { requests: 0, spans: 0, rejected: 0, rejectedSpans: 0, refused: 0, aborted: 0, sinkFailure: null };
  // Listeners run inside request handling; a faulty one must not stop the server.
  const report = (m: string): void => { try { opts.onError?.(m); } catch { /* ignored */ } };
  const exported = (): void => { try { opts.onExport?.(); } catch { /* ignored */ } };
  const sinkState = (failure: string | null): void => {
    const changed = (failure === null) !== (stats.sinkFailure === null);
    stats.sinkFailure = failure;
    if (changed) try { opts.onSinkState?.(failure); } catch { /* ignored */ }
  };

  const reject = (res: http.ServerResponse, status: number, format: BodyFormat, message: string): void => {
    stats.rejected++;
    report(message);
    fail(res, status, format, message);
    exported();
  };

  const keep = async (res: http.ServerResponse, format: BodyFormat, decoded: DecodedTraces): Promise<void> => {
    const { spans, rejected } = decoded;
    const total = spans.length + rejected.length;
    if (spans.length === 0 && rejected.length > 0) {
      // Nothing usable: a plain 400 makes the exporter report it as a failed export.
      stats.rejectedSpans += rejected.length;
      return reject(res, 400, format, `malformed OTLP ${format}: ${rejectionMessage(rejected, total)}`);
    }
    try {
      if (spans.length > 0) await opts.onSpans(spans);
    } catch (e) {
      const why = (e as Error)?.message ?? String(e);
      stats.refused++;
      const failure = `could not keep ${spans.length} span(s): ${why}`;
      sinkState(failure);
      fail(res, 503, format, `${failure}; retry later`, { 'Retry-After': retryAfter });
      exported();
      return;
    }
    stats.spans += spans.length;
    if (spans.length > 0) sinkState(null);
    if (rejected.length > 0) {
      stats.rejectedSpans += rejected.length;
      const message = rejectionMessage(rejected, total);
      report(`kept ${spans.length} span(s); ${message}`);
      ok(res, format, { rejectedSpans: rejected.length, errorMessage: message });
    } else ok(res, format);
    exported();
  };

  const server = http.createServer((req, res) => {
    // Taken now: once the sender is gone its socket no longer knows its address.
    const from = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? '?'}`;
    const path = (req.url ?? '').split('?')[0];
    const format = formatOf(req.headers['content-type']);
    if (path !== '/v1/traces') {
      req.resume();
      return reject(res, 404, format ?? 'json', `no such endpoint ${path}; OTLP traces go to POST /v1/traces`);
    }
    if (req.method !== 'POST') {
      req.resume();
      res.setHeader('Allow', 'POST');
      return reject(res, 405, format ?? 'json', `${req.method} not allowed on /v1/traces; use POST`);
    }
    if (format === null) {
      req.resume();
      return reject(res, 415, 'json', `unsupported Content-Type "${req.headers['content-type'] ?? ''}"; send application/x-protobuf or application/json`);
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').toString().toLowerCase();
    if (encoding !== 'identity' && encoding !== 'gzip') {
      req.resume();
      return reject(res, 415, format, `unsupported Content-Encoding "${encoding}"; send gzip or none`);
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > maxBody) {
      res.setHeader('Connection', 'close');
      reject(res, 413, format, `request of ${declared} bytes is larger than the ${maxBody}-byte limit`);
      req.resume();
      return;
    }
    stats.requests++;
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      if (tooBig) return;
      size += c.length;
      if (size > maxBody) {
        tooBig = true;
        chunks.length = 0;
        res.setHeader('Connection', 'close');
        reject(res, 413, format, `request body is larger than the ${maxBody}-byte limit`);
        return;
      }
      chunks.push(c);
    });
    req.on('error', (e) => {
      if (tooBig) return;
      stats.aborted++;
      const of = Number.isFinite(declared) ? ` of ${declared}` : '';
      report(`export request from ${from} ended after ${size}${of} bytes (${e.message}): the sender went away; nothing from it was kept`);
      exported();
    });
    req.on('end', () => {
      if (tooBig) return;
      let body = Buffer.concat(chunks);
      if (encoding === 'gzip') {
        try {
          body = zlib.gunzipSync(body, { maxOutputLength: maxBody });
        } catch (e) {
          const m = (e as Error).message;
          if (/maxOutputLength|Cannot create a Buffer larger/.test(m)) return reject(res, 413, format, `gzip body expands past the ${maxBody}-byte limit`);
          return reject(res, 400, format, `body is not valid gzip: ${m}`);
        }
      }
      let decoded: DecodedTraces;
      try {
        decoded = format === 'protobuf' ? decodeOtlpProtobuf(body) : decodeOtlpJson(body.toString('utf8'));
      } catch (e) {
        return reject(res, 400, format, `malformed OTLP ${format}: ${(e as Error).message}`);
      }
      void keep(res, format, decoded);
    });
  });
  // Bound the damage of a slow or stuck sender.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;

  return listen(server, host, port, Number(retryAfter), stats, report);
}
