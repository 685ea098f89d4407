// Every failure a user can meet, against real sockets on 127.0.0.1: the fake engine with
// a scripted schedule, a refused port, a server that never answers. Each must end with a
// clear error (never a hang) and keep the frames that did arrive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendTracedRequest } from '../../../src/core/request/client';
import { toJson, toCurlCommand } from '../../../src/core/request/export';
import { NodeHttpTransport } from '../../../src/core/request/transport';
import { monotonicClock, type Frame } from '../../../src/core/request/types';
import { startFakeEngine, type FakeEngineOptions } from '../../../src/testing/fakeEngine/server';
import { makeTempDir } from '../../harness/tempDirs';

async function withEngine<T>(opts: Omit<FakeEngineOptions, 'engine'> & { engine?: 'vllm' | 'sglang' }, fn: (url: string, log: string) => Promise<T>): Promise<T> {
  const log = join(makeTempDir('hoplens-fake-').path, 'server.log');
  const h = await startFakeEngine({ engine: 'vllm', logFile: log, ...opts });
  try { return await fn(h.url, log); } finally { await h.close(); }
}

const quick = { maxTokens: 8, timeoutMs: 5000, idleTimeoutMs: 2000 };

test('a complete stream has no error and frames in the right order', async () => {
  await withEngine({ schedule: 'first=20,every=5' }, async (url) => {
    const { record, metrics } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.error, null);
    assert.equal(record.engine, 'vllm'); // auto-detected from /version
    assert.equal(record.model, 'Qwen/Qwen3-0.6B'); // first of /v1/models
    assert.equal(metrics.outputFrames, 8);
    assert.equal(record.frames.at(-1)?.kind, 'done');
    assert.ok(metrics.ttftContentMs !== null && metrics.ttftContentMs >= 19, `TTFT ${metrics.ttftContentMs}`);
  });
});

test('connection refused names the host and says to start the server', async () => {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  const { record } = await sendTracedRequest({ url: `http://127.0.0.1:${port}`, engine: 'vllm', model: 'm' });
  assert.equal(record.error?.kind, 'connection-refused');
  assert.match(record.error!.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.match(record.error!.hint, /Start the server/);
});

test('a DNS failure says the host name could not be resolved', async () => {
  // The resolver is the only piece replaced: no packet may leave 127.0.0.1 in tests.
  const lookup: net.LookupFunction = (hostname, _opts, cb) => {
    const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
    e.code = 'ENOTFOUND';
    (cb as (err: NodeJS.ErrnoException | null, address: string, family: number) => void)(e, '', 0);
  };
  const transport = new NodeHttpTransport(monotonicClock, { lookup });
  const { record } = await sendTracedRequest({ url: 'http://inference-box.invalid:8000', engine: 'vllm', model: 'm' }, { transport });
  assert.equal(record.error?.kind, 'dns');
  assert.match(record.error!.message, /could not be resolved/);
});

test('https to a plain-HTTP server is a TLS error that suggests http://', async () => {
  await withEngine({}, async (url) => {
    const { record } = await sendTracedRequest({ url: url.replace('http:', 'https:'), engine: 'vllm', model: 'm', ...quick });
    assert.equal(record.error?.kind, 'tls');
    assert.match(record.error!.hint, /http:\/\//);
  });
});

test('a server that accepts and never answers ends with an idle timeout, not a hang', async () => {
  const sockets: net.Socket[] = [];
  const srv = net.createServer((s) => { sockets.push(s); s.on('data', () => { /* read, never answer */ }); });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  try {
    // The idle timeout ended it, not the 5 s request budget (that would be kind 'timeout').
    const { record } = await sendTracedRequest({ url: `http://127.0.0.1:${port}`, engine: 'vllm', model: 'm', idleTimeoutMs: 300, timeoutMs: 5000 });
    assert.equal(record.error?.kind, 'idle-timeout');
    assert.match(record.error!.message, /accepted the connection but sent no response for 300 ms/);
    // The whole-request budget wins when it is shorter.
    const r2 = await sendTracedRequest({ url: `http://127.0.0.1:${port}`, engine: 'vllm', model: 'm', idleTimeoutMs: 10_000, timeoutMs: 300 });
    assert.equal(r2.record.error?.kind, 'timeout');
  } finally {
    sockets.forEach((s) => s.destroy());
    await new Promise<void>((r) => srv.close(() => r()));
  }
});

test('a stream that stalls mid-way ends with an idle timeout and keeps the frames so far', async () => {
  await withEngine({ schedule: 'first=10,every=5,hang@3' }, async (url) => {
    const { record, metrics } = await sendTracedRequest({ url, ...quick, idleTimeoutMs: 300 });
    assert.equal(record.error?.kind, 'idle-timeout');
    assert.match(record.error!.message, /no bytes for 300 ms after 5 frame\(s\)/);
    assert.equal(metrics.outputFrames, 4);
  });
});

test('HTTP 500 shows the server\'s JSON error message', async () => {
  await withEngine({ schedule: 'http=500' }, async (url) => {
    const { record } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.error?.kind, 'http-status');
    assert.equal(record.error?.status, 500);
    assert.equal(record.error?.serverMessage, 'fake engine: scripted HTTP 500');
    assert.match(record.error!.hint, /server log/);
  });
});

test('a model the server does not know: 404 with the models it does serve', async () => {
  await withEngine({}, async (url) => {
    const { record } = await sendTracedRequest({ url, model: 'meta-llama/Llama-3-8B', ...quick });
    assert.equal(record.error?.kind, 'unknown-model');
    assert.equal(record.error?.status, 404);
    assert.match(record.error!.serverMessage ?? '', /does not exist/);
    assert.match(record.error!.hint, /Qwen\/Qwen3-0\.6B/);
  });
});

for (const kind of ['json', 'html'] as const) {
  test(`a non-SSE response (${kind}) is reported as such`, async () => {
    await withEngine({ schedule: `nonsse=${kind}` }, async (url) => {
      const { record } = await sendTracedRequest({ url, ...quick });
      assert.equal(record.error?.kind, 'not-sse');
      assert.match(record.error!.message, kind === 'html' ? /text\/html.*HTML page/ : /application\/json, not an event stream/);
    });
  });
}

test('vLLM error frame mid-stream: frames before it are kept, the server message is shown', async () => {
  await withEngine({ schedule: 'first=10,every=5,error@3' }, async (url) => {
    const { record, metrics } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.error?.kind, 'error-frame');
    assert.match(record.error!.message, /after 3 output frame\(s\).*InternalServerError \(500\): Internal server error/);
    assert.equal(metrics.outputFrames, 3);
    assert.deepEqual(record.frames.slice(-2).map((f: Frame) => f.kind), ['error', 'done']);
  });
});

test('SGLang error frame mid-stream ({"object": "error", …} shape)', async () => {
  await withEngine({ engine: 'sglang', schedule: 'first=10,every=5,bad-request@2' }, async (url) => {
    const { record } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.engine, 'sglang');
    assert.equal(record.error?.kind, 'error-frame');
    assert.match(record.error!.serverMessage ?? '', /BadRequestError \(400\): fake engine: scripted bad request/);
  });
});

test('unparseable frames are counted and shown, the stream still completes', async () => {
  await withEngine({ schedule: 'first=10,every=5,unparseable@2' }, async (url) => {
    const { record, metrics } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.error, null);
    assert.equal(metrics.unparseableFrames, 1);
    assert.match(record.warnings.join('\n'), /1 frame\(s\) were not JSON/);
  });
});

test('a stream that ends without [DONE] says so', async () => {
  await withEngine({ schedule: 'first=10,every=5,nodone' }, async (url) => {
    const { record, metrics } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.error?.kind, 'no-done');
    assert.equal(metrics.outputFrames, 8);
  });
});

test('a connection dropped mid-stream is a reset with the frame count', async () => {
  await withEngine({ schedule: 'first=10,every=5,drop@2' }, async (url) => {
    const { record, metrics } = await sendTracedRequest({ url, ...quick });
    assert.equal(record.error?.kind, 'connection-reset');
    assert.match(record.error!.message, /mid-stream after 4 frame\(s\)/);
    assert.equal(metrics.outputFrames, 3);
  });
});

test('cancelling aborts the socket, and the server logs the abort for this request', async () => {
  await withEngine({ schedule: 'first=10,every=20,frames=50' }, async (url, log) => {
    const ac = new AbortController();
    const { record } = await sendTracedRequest({ url, ...quick, signal: ac.signal, requestId: 'hoplens-20260101T000000-c0ffee' },
      { onFrame: (f) => { if (f.kind === 'content' && f.chars > 0) ac.abort(); } });
    assert.equal(record.error?.kind, 'cancelled');
    assert.equal(record.frames.filter((f) => f.kind === 'content').length, 1);
    // The server notices the disconnect on its side; wait for its log line.
    const deadline = Date.now() + 3000;
    let text = '';
    while (Date.now() < deadline && !/aborted\./.test(text)) { await new Promise((r) => setTimeout(r, 20)); text = readFileSync(log, 'utf8'); }
    const lines = text.trim().split('\n');
    const aborted = lines.findIndex((l) => /\[async_llm\.py:761\] Aborted request\(s\) chatcmpl-hoplens-20260101T000000-c0ffee-[0-9a-f]{8}\.$/.test(l));
    const request = lines.findIndex((l) => /\[async_llm\.py:623\] Request chatcmpl-hoplens-20260101T000000-c0ffee aborted\.$/.test(l));
    assert.ok(aborted >= 0 && request > aborted, `abort lines missing or out of order:\n${text}`);
  });
});

test('API key: sent as Bearer, never stored in the result or its exports', async () => {
  const key = 'sk-test-5f2a9c';
  await withEngine({ apiKey: key, schedule: 'first=5,every=2' }, async (url) => {
    const without = await sendTracedRequest({ url, engine: 'vllm', model: 'Qwen/Qwen3-0.6B', ...quick });
    assert.equal(without.record.error?.status, 401);
    assert.match(without.record.error!.hint, /API key/);
    const withKey = await sendTracedRequest({ url, apiKey: key, ...quick });
    assert.equal(withKey.record.error, null);
    const everything = JSON.stringify(withKey.record) + JSON.stringify(toJson(withKey.record, withKey.metrics)) + toCurlCommand(withKey.record,
      { usedApiKey: true });
    assert.ok(!everything.includes(key), 'the API key leaked into the result');
    assert.match(toCurlCommand(withKey.record, { usedApiKey: true }), /Authorization: Bearer \$HOPLENS_API_KEY/);
  });
});

test('bad input is rejected before any socket is opened', async () => {
  const { record } = await sendTracedRequest({ url: 'localhost:8000', maxTokens: 0 });
  assert.equal(record.error?.kind, 'bad-input');
  assert.match(record.error!.message, /not a URL|http:\/\//);
  assert.match(record.error!.message, /max tokens/);
});
