// A small OTLP/HTTP trace receiver (POST /v1/traces, protobuf or JSON, optionally gzip), answering
// like an OpenTelemetry Collector so vLLM's exporter is content. Bad requests are answered and
// counted; the server and what it already received are unaffected.
import * as http from 'node:http';
import * as zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { decodeOtlpJson, decodeOtlpProtobuf, emptyExportResponseProtobuf } from './decode';
import type { OtlpSpan } from './types';

export interface OtlpReceiverOptions {
  host?: string;
  port?: number;
  maxBodyBytes?: number;
  onSpans(spans: OtlpSpan[]): void;
  onError?(message: string): void;
}

export interface OtlpReceiverStats {
  requests: number;
  spans: number;
  rejected: number;
}

export interface OtlpReceiver {
  /** The endpoint to give vLLM: http://host:port/v1/traces */
  url: string;
  host: string;
  port: number;
  /** Set when bound to a non-loopback address: anyone who can reach it can send spans. */
  warning?: string;
  close(): Promise<void>;
  stats(): OtlpReceiverStats;
}

export const DEFAULT_OTLP_PORT = 4318;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h) || h === '::ffff:127.0.0.1';
}

/** The vLLM launch line for this endpoint. */
export function vllmLaunchHint(url: string): string {
  return `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf vllm serve <model> --otlp-traces-endpoint ${url}`;
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

type BodyFormat = 'protobuf' | 'json';

function formatOf(contentType: string | undefined): BodyFormat | null {
  const ct = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (ct === 'application/x-protobuf' || ct === 'application/protobuf') return 'protobuf';
  if (ct === 'application/json') return 'json';
  return null;
}

export function startOtlpReceiver(opts: OtlpReceiverOptions): Promise<OtlpReceiver> {
  const host = opts.host ?? '127.0.0.1';
  const port = opts.port ?? DEFAULT_OTLP_PORT;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const stats: OtlpReceiverStats = { requests: 0, spans: 0, rejected: 0 };
  const report = (m: string): void => { try { opts.onError?.(m); } catch { /* a faulty listener must not stop the server */ } };

  const reply = (res: http.ServerResponse, status: number, format: BodyFormat, message?: string): void => {
    if (res.headersSent) return;
    let body: Buffer;
    if (status === 200) body = format === 'json' ? Buffer.from('{}') : Buffer.from(emptyExportResponseProtobuf());
    else {
      // gRPC codes: 3 INVALID_ARGUMENT, 8 RESOURCE_EXHAUSTED, 5 NOT_FOUND, 12 UNIMPLEMENTED.
      const code = status === 400 ? 3 : status === 413 ? 8 : status === 404 ? 5 : 12;
      body = format === 'json' ? Buffer.from(JSON.stringify({ code, message })) : statusProtobuf(code, message ?? '');
    }
    res.writeHead(status, {
      'Content-Type': format === 'json' ? 'application/json' : 'application/x-protobuf',
      'Content-Length': body.length,
    });
    res.end(body);
  };

  const reject = (res: http.ServerResponse, status: number, format: BodyFormat, message: string): void => {
    stats.rejected++;
    report(message);
    reply(res, status, format, message);
  };

  const server = http.createServer((req, res) => {
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
    req.on('error', (e) => { report(`request from ${req.socket.remoteAddress} failed: ${e.message}`); });
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
      let spans: OtlpSpan[];
      try {
        spans = format === 'protobuf' ? decodeOtlpProtobuf(body) : decodeOtlpJson(body.toString('utf8'));
      } catch (e) {
        return reject(res, 400, format, `malformed OTLP ${format}: ${(e as Error).message}`);
      }
      stats.spans += spans.length;
      try {
        if (spans.length > 0) opts.onSpans(spans);
      } catch (e) {
        report(`handling ${spans.length} span(s) failed: ${(e as Error).message}`);
      }
      reply(res, 200, format);
    });
  });
  // Bound the damage of a slow or stuck sender.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;

  return new Promise((resolve, rejectPromise) => {
    const onListenError = (e: NodeJS.ErrnoException): void => {
      if (e.code === 'EADDRINUSE') {
        rejectPromise(new Error(`port ${port} on ${host} is already in use (another collector, Jaeger or HopLens receiver?). ` +
          `Stop it, or pick another port, e.g. ${host}:${port === 65535 ? 4319 : port + 1}, and point --otlp-traces-endpoint there.`));
      } else if (e.code === 'EACCES') {
        rejectPromise(new Error(`not allowed to listen on ${host}:${port} (${e.code}); choose a port above 1024`));
      } else if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND') {
        rejectPromise(new Error(`cannot listen on ${host}: no such local address (${e.code})`));
      } else {
        rejectPromise(new Error(`cannot listen on ${host}:${port}: ${e.message}`));
      }
    };
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
