// A cold V8 isolate compiles the HTTP client and SSE parsing path during the first request it
// makes, which adds milliseconds to the first TTFT it measures. Running a few requests against
// a loopback server of our own first makes the measured request take the warm path (as the first
// engine's chat request: every engine's chat API streams the same OpenAI frames).
import * as http from 'node:http';
import { sendTracedRequest } from './client';
import { engineIds } from '../../engines/registry';

export async function warmUpRequestPath(rounds = 5): Promise<void> {
  const chunk = (content: string) => 'data: {"id":"chatcmpl-warmup","object":"chat.completion.chunk","created":0,"model":"warmup",'
    + `"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]}\n\n`;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (let i = 0; i < 8; i++) res.write(chunk(` t${i}`));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    for (let i = 0; i < rounds; i++) await sendTracedRequest({ url, engine: engineIds()[0], api: 'chat', model: 'warmup', maxTokens: 8 });
  } finally {
    server.close();
  }
}
