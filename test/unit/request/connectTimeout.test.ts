// A server whose accept queue is full never completes the TCP handshake: the client must give
// up at its connect timeout with a clear message, not hang. The listener is real (python3, on
// 127.0.0.1, listen backlog 0, never accepting) and filled by its own connections first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { sendTracedRequest } from '../../../src/core/request/index';

const FULL_BACKLOG = `
import socket, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(0)
port = s.getsockname()[1]
held = []
for _ in range(4):
    c = socket.socket(); c.settimeout(0.3)
    try: c.connect(('127.0.0.1', port))
    except OSError: pass
    held.append(c)
print(port, flush=True)
time.sleep(30)
`;

test('a server that never completes the handshake ends at the connect timeout', async () => {
  const py = spawn('python3', ['-c', FULL_BACKLOG], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      py.stdout.once('data', (d) => resolve(Number(String(d).trim())));
      py.once('exit', (code) => reject(new Error(`python3 exited ${code}`)));
    });
    const started = performance.now();
    const { record } = await sendTracedRequest({ url: `http://127.0.0.1:${port}`, engine: 'vllm', api: 'chat', model: 'm', connectTimeoutMs: 800, timeoutMs: 10_000 });
    const took = performance.now() - started;
    assert.equal(record.error?.kind, 'connect-timeout', JSON.stringify(record.error));
    assert.match(record.error!.message, /connect timed out after 800 ms/);
    assert.ok(record.error!.hint.length > 0);
    // Not before the 800 ms it was given; and the 10 s request budget did not end it first (its
    // kind would be 'timeout'), so the connect timeout is what fired.
    assert.ok(took >= 750, `gave up after ${took.toFixed(0)} ms`);
  } finally {
    py.kill('SIGKILL');
  }
});
