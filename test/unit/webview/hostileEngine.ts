// A server on 127.0.0.1 that answers like vLLM (its exact chunk and error bodies) but whose
// every piece of text is hostile: the model name, the ids, each content frame, the mid-stream
// error, the HTTP error. A traced request to it is what a compromised or prankish server hands
// HopLens; the report, its exports and the notifications must show all of it as text.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendTracedRequest } from '../../../src/core/request/client';
import type { TracedRequest } from '../../../src/core/request/index';
import { DONE, sse, VllmChunks } from '../../../src/testing/fakeEngine/frames';
import { HOSTILE } from '../text/hostile';

export const HOSTILE_MODEL = '[m](command:workbench.action.terminal.new) <img src=x onerror=alert(1)>';

/** One streamed request (every hostile string as a content frame, then a hostile error frame), or an HTTP 500. */
export async function hostileTracedRequest(kind: 'stream' | 'http-error'): Promise<TracedRequest> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (kind === 'http-error') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(VllmChunks.httpError(`${HOSTILE[1]} ${HOSTILE[4]}`, 'InternalServerError', 500));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      const chunks = new VllmChunks(`chatcmpl-${HOSTILE[0]}`, HOSTILE_MODEL, 1764406800, 'chat');
      res.write(sse(chunks.role(null)));
      for (const h of HOSTILE) res.write(sse(chunks.content(h, null)));
      res.write(sse(VllmChunks.error(`${HOSTILE[0]} ${HOSTILE[5]}`, 'BadRequestError', 400)));
      res.end(DONE);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const { port } = server.address() as AddressInfo;
    return await sendTracedRequest({ url: `http://127.0.0.1:${port}`, engine: 'vllm', api: 'chat', model: HOSTILE_MODEL, maxTokens: 32, timeoutMs: 10_000 });
  } finally {
    await new Promise((r) => server.close(r));
  }
}
