// The body of a request the fake servers take (the engine's routes and the P/D router's), read
// whole: null when it is over the limit or the connection fails, so the caller answers 400.
import type * as http from 'node:http';

export function readBody(req: http.IncomingMessage, limit = 1 << 20): Promise<string | null> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => { size += c.length; if (size <= limit) parts.push(c); });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(parts).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}
