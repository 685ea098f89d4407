// The HTTP seam. The Node implementation stamps every socket chunk with the monotonic
// clock the moment the socket hands it over — before the HTTP parser, the SSE parser or
// anything else runs — and reports response body chunks with that stamp.
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import type { Clock } from './types';

export interface HttpRequestInit {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  connectTimeoutMs: number;
}

/** Receives the life of one response. All times are the injected clock's readings. */
export interface ResponseSink {
  /** The connection is up (TCP connected; for https, the TLS handshake done): the request goes out now. */
  connected?(t: number): void;
  requestWritten(t: number): void;
  headers(status: number, headers: Record<string, string>, t: number): void;
  chunk(bytes: Uint8Array, t: number): void;
  end(t: number): void;
  error(err: Error & { code?: string }, t: number): void;
}

export interface HttpExchange {
  /** Stops the exchange and destroys the socket; the sink then sees error(reason). */
  abort(reason: Error & { code?: string }): void;
}

export interface HttpTransport {
  start(init: HttpRequestInit, sink: ResponseSink): HttpExchange;
}

function flattenHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export interface NodeTransportOptions {
  /** Name resolution (default: the OS resolver via dns.lookup). */
  lookup?: LookupFunction;
}

export class NodeHttpTransport implements HttpTransport {
  constructor(private readonly clock: Clock, private readonly options: NodeTransportOptions = {}) {}

  start(init: HttpRequestInit, sink: ResponseSink): HttpExchange {
    const clock = this.clock;
    const url = new URL(init.url);
    const lib = url.protocol === 'https:' ? https : http;
    let lastArrival: number | null = null;
    let finished = false;
    let connectTimer: NodeJS.Timeout | null = null;
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));

    const fail = (err: Error & { code?: string }) => {
      if (finished) return;
      finished = true;
      if (connectTimer) clearTimeout(connectTimer);
      sink.error(err, clock.now());
    };

    // A fresh connection per request (agent: false): every run pays the same connect cost
    // and no pooled socket from an earlier run can carry stale bytes.
    const req = lib.request(url, { method: init.method, headers, agent: false, ...(this.options.lookup ? { lookup: this.options.lookup } : {}) });
    req.on('socket', (socket: Socket) => {
      // Runs before the HTTP client's own 'data' listener: the arrival stamp.
      socket.prependListener('data', () => { lastArrival = clock.now(); });
      if (socket.connecting) {
        connectTimer = setTimeout(() => {
          const e: Error & { code?: string } = new Error(`connect timed out after ${init.connectTimeoutMs} ms`);
          e.code = 'HOPLENS_CONNECT_TIMEOUT';
          req.destroy(e);
        }, init.connectTimeoutMs);
        const clear = () => { if (connectTimer) { clearTimeout(connectTimer); connectTimer = null; } };
        socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => { clear(); sink.connected?.(clock.now()); });
      } else sink.connected?.(clock.now());
    });
    req.on('finish', () => sink.requestWritten(clock.now()));
    req.on('error', (err) => fail(err));
    req.on('response', (res) => {
      if (connectTimer) { clearTimeout(connectTimer); connectTimer = null; }
      sink.headers(res.statusCode ?? 0, flattenHeaders(res.headers), lastArrival ?? clock.now());
      res.on('data', (chunk: Buffer) => {
        if (!finished) sink.chunk(chunk, lastArrival ?? clock.now());
      });
      res.on('end', () => {
        if (finished) return;
        finished = true;
        sink.end(clock.now());
      });
      res.on('aborted', () => {
        const e: Error & { code?: string } = new Error('the server closed the connection before the response was complete');
        e.code = 'ECONNRESET';
        fail(e);
      });
      res.on('error', (err) => fail(err));
    });
    if (init.body !== undefined) req.end(init.body); else req.end();
    return {
      abort(reason) {
        req.destroy(reason);
        fail(reason);
      },
    };
  }
}
