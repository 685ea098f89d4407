// A vLLM server log of a given size, written at test time in the shape a busy server with
// `--enable-log-requests --enable-log-outputs` prints: one request every ~8 lines, most lines hops
// (received, added, streaming deltas, complete), the uvicorn access line, and the periodic stats
// line. Lines come from the fake engine's VllmLog, so
// their format is the one the rest of the tests hold to the engine's.
import { createWriteStream } from 'node:fs';
import { VllmLog, vllmTime } from '../../src/testing/fakeEngine/logLines';

export interface GeneratedLog {
  bytes: number;
  lines: number;
  /** Requests written (each has its own id, so the Requests view lists exactly this many). */
  requests: number;
}

const WORDS = ['Hello', ' world', ',', ' the', ' answer', ' is', ' 42', '.', ' How', ' can', ' I', ' help', '?'];

/** Writes at least `targetBytes` bytes of whole requests to `path`. Deterministic. */
export async function writeVllmLog(path: string, targetBytes: number): Promise<GeneratedLog> {
  const out = createWriteStream(path);
  let chunk: string[] = [];
  let bytes = 0;
  let lines = 0;
  const write = (line: string) => { chunk.push(line); bytes += Buffer.byteLength(line) + 1; lines++; };
  const log = new VllmLog(2101, write);
  let seed = 16;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  let requests = 0;
  while (bytes < targetBytes) {
    const n = requests++;
    const ext = `chatcmpl-run-${String(n).padStart(7, '0')}`;
    log.received(ext, 16 + (n % 240), 0.7);
    log.added(`${ext}-${(n * 2654435761 >>> 0).toString(16).padStart(8, '0')}`);
    log.access(`127.0.0.1:${40000 + (n % 20000)}`, '/v1/chat/completions', 200, 'OK');
    let text = '';
    for (let i = 3 + (n % 5); i > 0; i--) {
      const w = WORDS[Math.floor(rnd() * WORDS.length)];
      text += w;
      log.delta(ext, w);
    }
    log.complete(ext, text);
    if (n % 20 === 19) write(`(APIServer pid=2101) INFO ${vllmTime(new Date())} [loggers.py:310] Engine 000: Avg prompt throughput: 1.8 tokens/s, Avg generation throughput: 0.7 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%`);
    if (chunk.length > 5000) {
      if (!out.write(chunk.join('\n') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
      chunk = [];
    }
  }
  out.write(chunk.length ? chunk.join('\n') + '\n' : '');
  await new Promise<void>((r) => out.end(() => r()));
  return { bytes, lines, requests };
}
