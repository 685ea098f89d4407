// Which engine a server is, asked over a real socket: the paths only SGLang answers come first
// (a vLLM server has no /get_server_info), then /version, else vLLM is assumed with a warning that
// names what was asked. The paths and the id fields come from the engines' profiles now.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { detectEngine } from '../../../src/core/request/client';
import { buildRequest } from '../../../src/core/request/build';
import { NodeHttpTransport } from '../../../src/core/request/transport';
import { monotonicClock } from '../../../src/core/request/types';

/** A server answering the given paths with JSON bodies, 404 elsewhere; records the paths asked. */
async function serverAnswering(answers: Record<string, unknown>): Promise<{ url: string; asked: string[]; server: Server }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const body = answers[req.url ?? ''];
    if (body === undefined) { res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}'); return; }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

async function detect(answers: Record<string, unknown>) {
  const s = await serverAnswering(answers);
  try {
    const d = await detectEngine(s.url, {}, { transport: new NodeHttpTransport(monotonicClock), clock: monotonicClock }, 3000);
    return { d, asked: s.asked };
  } finally {
    s.server.close();
  }
}

test('a server answering /get_server_info is SGLang with its version, even when it answers /version too', async () => {
  const { d, asked } = await detect({ '/get_server_info': { version: '0.5.1', tp_size: 2 }, '/version': { version: '0.5.1' } });
  assert.deepEqual(d, { engine: 'sglang', version: '0.5.1' });
  assert.deepEqual(asked, ['/get_server_info']);
});

test('an SGLang build with only /server_info is SGLang', async () => {
  const { d, asked } = await detect({ '/server_info': { version: '0.4.10.post2' } });
  assert.deepEqual(d, { engine: 'sglang', version: '0.4.10.post2' });
  assert.deepEqual(asked, ['/get_server_info', '/server_info']);
});

test('a server answering only /version is vLLM', async () => {
  const { d, asked } = await detect({ '/version': { version: '0.10.2' } });
  assert.deepEqual(d, { engine: 'vllm', version: '0.10.2' });
  assert.deepEqual(asked, ['/get_server_info', '/server_info', '/version']);
});

test('a server answering none is assumed vLLM, with a warning that names the paths asked', async () => {
  const { d } = await detect({});
  assert.deepEqual(d, {
    engine: 'vllm', version: null,
    warning: 'The server answered neither /version (vLLM) nor /get_server_info (SGLang); assuming vLLM. Set the engine to silence this.',
  });
});

test('the request id goes where each engine reads it: vLLM header and request_id, SGLang rid', () => {
  const v = buildRequest('vllm', 'chat', 'm', 'run-1', { url: 'http://127.0.0.1:8000' });
  assert.equal(v.headers['X-Request-Id'], 'run-1');
  assert.equal(v.body.request_id, 'run-1');
  assert.equal(v.body.rid, undefined);
  const s = buildRequest('sglang', 'chat', 'm', 'run-1', { url: 'http://127.0.0.1:30000' });
  assert.equal(s.headers['X-Request-Id'], undefined);
  assert.equal(s.body.rid, 'run-1');
  assert.equal(s.body.request_id, undefined);
});
