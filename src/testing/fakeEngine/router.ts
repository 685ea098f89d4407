// A prefill/decode router for the fleet demo, in front of two fake vLLM instances: it takes a
// client's OpenAI request, sends it to the prefill instance with max_tokens 1 and
// `kv_transfer_params` asking for a remote decode, then to the decode instance with the remote
// prefill's parameters, and streams the decode instance's answer back (the flow of vLLM's
// disaggregated-serving proxy and of sgl-router's vLLM P/D mode). It logs each request as
// sgl-router's middleware does (src/middleware.rs: "started processing request" when it has the
// request, "finished processing request" when the decode instance's response headers are back;
// the layout src/core/timeline/routerLog.ts reads). The client's `X-Request-Id` and
// `traceparent` go on to both instances, so one request carries the same ids on every pod.
import * as http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { readBody } from './readBody';

export interface FakeRouterOptions {
  prefillUrl: string;
  decodeUrl: string;
  port?: number;
  /** Where the router's log lines go (a pod's stdout in the demo). */
  writeLine: (line: string) => void;
  /** Bound on each call to an instance (default 60 s). */
  upstreamTimeoutMs?: number;
}

export interface FakeRouterHandle { url: string; port: number; close(): Promise<void> }

const p2 = (n: number) => String(n).padStart(2, '0');

/** sgl-router's file and stdout layer: ChronoUtc `%Y-%m-%d %H:%M:%S`, level padded to 5. */
function routerStamp(d: Date): string {
  return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
}

/** A Rust `Debug` string as tracing prints a field's value: quotes and backslashes escaped. */
function debugStr(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`)}"`;
}

/** The headers that travel with the request to each instance. */
function forwardedHeaders(req: http.IncomingMessage, requestId: string, bodyLength: number): http.OutgoingHttpHeaders {
  const h: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': bodyLength, 'x-request-id': requestId };
  for (const name of ['traceparent', 'tracestate', 'authorization']) {
    const v = req.headers[name];
    if (typeof v === 'string') h[name] = v;
  }
  return h;
}

function send(url: string, path: string, headers: http.OutgoingHttpHeaders, body: string, timeoutMs: number,
  signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method: 'POST', headers, timeout: timeoutMs, signal }, resolve);
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

function drain(res: http.IncomingMessage): Promise<void> {
  return new Promise((resolve, reject) => { res.on('data', () => undefined); res.on('end', resolve); res.on('error', reject); });
}

export async function startFakeRouter(opts: FakeRouterOptions): Promise<FakeRouterHandle> {
  const timeoutMs = opts.upstreamTimeoutMs ?? 60_000;
  const sockets = new Set<Socket>();
  const log = (level: string, fields: string, target: string, line: number, message: string) =>
    opts.writeLine(`${routerStamp(new Date())} ${level.padStart(5)} http_request{${fields}}: ${target}: src/middleware.rs:${line}: ${message}`);

  async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/health') { res.writeHead(200); res.end(); return; }
    const requestId = typeof req.headers['x-request-id'] === 'string' && req.headers['x-request-id']
      ? req.headers['x-request-id'] : `chatcmpl-${randomBytes(12).toString('hex')}`;
    const started = performance.now();
    const fields = `method=${req.method ?? 'GET'} uri=${url.pathname} version=HTTP/${req.httpVersion} request_id=${debugStr(requestId)}`;
    log('INFO', fields, 'sglang_router_rs::request', 230, 'started processing request');
    // sgl-router's ResponseLogger: when the response headers are known, before the body follows.
    const responded = (status: number) => {
      const latency = `${(performance.now() - started).toFixed(6)}ms`;
      const message = status >= 500 ? 'request failed with server error' : status >= 400 ? 'request failed with client error' : 'finished processing request';
      log(status >= 500 ? 'ERROR' : status >= 400 ? 'WARN' : 'INFO', `${fields} status_code=${status} latency=${debugStr(latency)}`,
        'sglang_router_rs::response', 272, message);
    };
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
      responded(status);
    };
    if (req.method !== 'POST' || (url.pathname !== '/v1/chat/completions' && url.pathname !== '/v1/completions')) {
      return answer(404, '{"error":"Not Found"}');
    }
    const text = await readBody(req);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text ?? '') as Record<string, unknown>;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('not an object');
    } catch {
      return answer(400, '{"error":"Invalid JSON body"}');
    }
    const gone = new AbortController();
    res.on('close', () => { if (!res.writableFinished) gone.abort(); });
    try {
      // Prefill: one token, no stream options, the KV cache kept for a remote decode.
      const { stream_options: _drop, ...rest } = body;
      void _drop;
      const prefillBody = JSON.stringify({ ...rest, max_tokens: 1, max_completion_tokens: 1, kv_transfer_params: {
        do_remote_decode: true, do_remote_prefill: false, remote_engine_id: null, remote_block_ids: null, remote_host: null, remote_port: null,
      } });
      const headersFor = (b: string) => forwardedHeaders(req, requestId, Buffer.byteLength(b));
      const prefill = await send(opts.prefillUrl, url.pathname, headersFor(prefillBody), prefillBody, timeoutMs, gone.signal);
      await drain(prefill);
      if ((prefill.statusCode ?? 500) >= 400) return answer(prefill.statusCode ?? 502, `{"error":"prefill instance answered ${prefill.statusCode}"}`);
      // Decode: the whole request, reading the prefill instance's KV blocks.
      const prefillHost = new URL(opts.prefillUrl);
      const decodeBody = JSON.stringify({ ...body, kv_transfer_params: {
        do_remote_decode: false, do_remote_prefill: true, remote_engine_id: 'prefill-0', remote_block_ids: [1, 2],
        remote_host: prefillHost.hostname, remote_port: Number(prefillHost.port),
      } });
      const decode = await send(opts.decodeUrl, url.pathname, headersFor(decodeBody), decodeBody, timeoutMs, gone.signal);
      const status = decode.statusCode ?? 502;
      res.writeHead(status, { 'content-type': decode.headers['content-type'] ?? 'application/json', 'x-request-id': requestId });
      res.flushHeaders();
      responded(status);
      decode.pipe(res);
      decode.on('error', () => res.destroy());
    } catch (e) {
      if (gone.signal.aborted) return;
      if (!res.headersSent) answer(502, JSON.stringify({ error: `router: ${(e as Error).message}` }));
      else res.destroy();
    }
  }

  const server = http.createServer({ noDelay: true }, (req, res) => {
    void route(req, res).catch(() => { if (!res.headersSent) { res.writeHead(500); res.end(); } else res.destroy(); });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`, port,
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}
