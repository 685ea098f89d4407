// A store on 127.0.0.1 for the fleet's contract tests: it records what each request asked (path,
// query, headers) and answers as the test says — the documented response shapes of Loki and Tempo,
// whose servers are AGPL and are not run here, or an error page, a 401, a half body.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen { path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders }

export interface LoopbackStore { base: string; seen: Seen[]; close(): Promise<void> }

export async function store(answer: (s: Seen, res: http.ServerResponse) => void): Promise<LoopbackStore> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    const s = { path: u.pathname, query: u.searchParams, headers: req.headers };
    seen.push(s);
    answer(s, res);
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
