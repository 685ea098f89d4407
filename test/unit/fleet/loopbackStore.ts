// A store on 127.0.0.1 for the fleet's contract tests: it records what each request asked (path,
// query, headers) and answers as the test says — the documented response shapes of Loki and Tempo,
// whose servers are AGPL and are not run here, or an error page, a 401, a half body. Or a proxy in
// front of a real store (Jaeger) that passes each request on unless the test answers it itself.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen { path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders }

export interface LoopbackStore { base: string; seen: Seen[]; close(): Promise<void> }

export async function store(answer: (s: Seen, res: http.ServerResponse, req: http.IncomingMessage) => void): Promise<LoopbackStore> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const s = { path: u.pathname, query: u.searchParams, headers: req.headers };
    seen.push(s);
    answer(s, res, req);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen,
    close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }),
  };
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Tempo's answer to `/api/v2/traces/{id}` as its API documents it: `{trace: {resourceSpans}}` in
 * OTLP's protobuf JSON (ids base64, the kind by name), one engine span carrying the request id.
 */
export function tempoTraceAnswer(trace: string, span: {
  spanId: string; startNs: bigint; endNs: bigint; rid: string; service?: string;
}): unknown {
  return {
    trace: {
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: span.service ?? 'vllm-decode' } }] },
        scopeSpans: [{
          scope: { name: 'vllm.llm_engine' },
          spans: [{
            traceId: Buffer.from(trace, 'hex').toString('base64'), spanId: Buffer.from(span.spanId, 'hex').toString('base64'),
            name: 'llm_request', kind: 'SPAN_KIND_SERVER',
            startTimeUnixNano: String(span.startNs), endTimeUnixNano: String(span.endNs),
            attributes: [{ key: 'gen_ai.request.id', value: { stringValue: span.rid } }], status: {},
          }],
        }],
      }],
    },
  };
}

export interface ProxyHooks {
  /** Answers a request itself (an error, a stall, half a body) instead of passing it on: true when it did. */
  answer?: (s: Seen, res: http.ServerResponse) => boolean;
  /** Holds a request this long before passing it on. */
  delayMs?: (s: Seen) => number;
  /** A request passed on has begun (after its delay) and ended (its answer sent or failed). */
  begun?: (s: Seen) => void;
  ended?: (s: Seen) => void;
}

/** A proxy on 127.0.0.1 in front of `target` (a real store's base URL). */
export function proxy(target: string, hooks: ProxyHooks = {}): Promise<LoopbackStore> {
  const to = new URL(target);
  return store((s, res, req) => {
    if (hooks.answer?.(s, res)) return;
    setTimeout(() => {
      hooks.begun?.(s);
      const up = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        ur.pipe(res);
        ur.on('end', () => hooks.ended?.(s));
      });
      up.on('error', () => { hooks.ended?.(s); res.destroy(); });
      req.pipe(up);
    }, hooks.delayMs?.(s) ?? 0);
  });
}
