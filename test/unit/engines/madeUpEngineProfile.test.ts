// The rest of ToyLLM's profile, registered from its folder like the hop table: a pinned package
// folder, a release spec, a native request API and its start command. What a user sees moves with
// the registration alone — the source's short path, the CLI's usage and checks, the request Send
// Traced Request sends (to a real HTTP server on 127.0.0.1), the folder names a checkout is looked
// for in — and nothing outside test/unit/engines/toyllm/ changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineProfile } from '../../../src/engines/registry';
import { displaySource } from '../../../src/features/logs/hopPresentation';
import { validateOptions } from '../../../src/core/request/build';
import { sendTracedRequest } from '../../../src/core/request/client';
import type { Api } from '../../../src/core/request/types';
import { discoverCheckouts } from '../../../src/core/source/checkout';
import { bufferIO } from '../../../src/cli/io';
import { runSource } from '../../../src/cli/source';
import { main } from '../../../src/cli';
import { TOYLLM_PROFILE } from './toyllm/profile';
import { whileRegistered } from './toyllmTesting';

/** ToyLLM with the parts of a profile an engine with source, releases and a server of its own has. */
const TOYLLM_FULL: EngineProfile = {
  ...TOYLLM_PROFILE,
  pin: {
    engine: TOYLLM_PROFILE.id, sha: TOYLLM_PROFILE.hops.pinnedSha, citationsReadAt: TOYLLM_PROFILE.hops.shaRead,
    repo: 'example/toyllm', packageDir: 'src/toyllm', rustDirs: [],
  },
  checkout: {
    shapes: [{ packageDir: 'src/toyllm', marks: [{ path: 'src/toyllm/serve.py', kind: 'file' }], layout: 'repo' }],
    packageMarks: [{ path: 'serve.py', kind: 'file' }],
    notFound: 'a ToyLLM checkout (no src/toyllm/ folder)',
    releasePrefix: 'src',
    exampleRelease: '2.1',
    releaseStated: (version) => [new RegExp(`^ToyLLM version (${version})$`)],
  },
  request: {
    answersOnly: ['/toy/info'], idBodyField: 'req_id', startCommand: 'toyllm serve …',
    ownApis: [{
      id: 'toyllm-native', path: '/toy/generate', kind: 'generate', needsModel: false,
      body: ({ prompt, maxTokens }) => ({ input: prompt, budget: maxTokens, stream: true }),
    }],
  },
};

const withFull = (fn: () => Promise<void> | void) => whileRegistered(TOYLLM_FULL, fn);

test('a registered engine\'s source reads as its engineers say it: under its package folder', withFull(() => {
  assert.equal(displaySource({ path: 'src/toyllm/serve.py', line: 88, verified: true, drift: 0, method: 'hop' }), 'serve.py:88');
  // The built-in engines' as before.
  assert.equal(displaySource({ path: 'vllm/v1/engine/async_llm.py', line: 439, verified: true, drift: 0, method: 'hop' }), 'v1/engine/async_llm.py:439');
  assert.equal(displaySource({ path: 'python/sglang/srt/managers/scheduler.py', line: 7, verified: true, drift: 0, method: 'hop' }),
    'srt/managers/scheduler.py:7');
  assert.equal(displaySource({ path: 'tools/other.py', line: 3, verified: true, drift: 0, method: 'hop' }), 'tools/other.py:3');
}));

test('hoplens source and hoplens --help name the registered engine\'s release spec; its spec is taken', withFull(async () => {
  const io = bufferIO();
  assert.equal(await runSource(['--help'], io), 0);
  assert.match(io.stdout, /^usage: hoplens source fetch vllm==VERSION\|sglang==VERSION\|toyllm==VERSION \[--python PY\]/);
  const bad = bufferIO();
  assert.equal(await runSource(['fetch', 'nosuch==1.0'], bad), 2);
  assert.equal(bad.stderr, 'hoplens source: \'nosuch==1.0\' is not vllm==VERSION, sglang==VERSION or toyllm==VERSION\n');
  const help = bufferIO();
  assert.equal(await main(['--help'], help), 0);
  assert.match(help.stdout, /map --engine vllm\|sglang\|toyllm \[--json\]/);
  assert.match(help.stdout, /source fetch vllm==VER\|sglang==VER\|toyllm==VER \| list \| clean/);
}));

test('without the registration the usage is the built-in engines\' only', async () => {
  const io = bufferIO();
  assert.equal(await runSource(['--help'], io), 0);
  assert.match(io.stdout, /^usage: hoplens source fetch vllm==VERSION\|sglang==VERSION \[--python PY\]/);
  const help = bufferIO();
  assert.equal(await main(['--help'], help), 0);
  assert.match(help.stdout, /\n {2}map --engine vllm\|sglang \[--json\] {10}print the hop table/);
});

test('an unknown command is named without the control characters it carried', async () => {
  const io = bufferIO();
  assert.equal(await main(['bad\x1b[31mred'], io), 2);
  assert.doesNotMatch(io.stderr, /\x1b/);
  assert.match(io.stderr, /^hoplens: unknown command 'bad.*red'\n/);
});

/** A server on 127.0.0.1 that answers every request with one SSE frame and [DONE], and keeps what it was sent. */
async function recordingServer(): Promise<{ url: string; seen: { method: string; path: string; body: string }[]; close: () => Promise<void> }> {
  const seen: { method: string; path: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', body });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end('data: {"text":"hi","meta_info":{"id":"r","completion_tokens":1}}\n\ndata: [DONE]\n\n');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

test('Send Traced Request takes a registered engine\'s own API: its path and body, the id where its profile puts it, no model asked', withFull(async () => {
  const api = 'toyllm-native' as Api;
  assert.deepEqual(validateOptions({ url: 'http://127.0.0.1:1', api, engine: TOYLLM_FULL.id }), []);
  assert.match(validateOptions({ url: 'http://127.0.0.1:1', api, engine: 'vllm' }).join('\n'), /^api toyllm-native needs an? ToyLLM server \(engine is vllm\)$/);
  assert.deepEqual(validateOptions({ url: 'http://127.0.0.1:1', api: 'nope' as Api }),
    ['api must be chat, completions, sglang-generate or toyllm-native (got \'nope\')']);
  const s = await recordingServer();
  try {
    await sendTracedRequest({ url: s.url, api, engine: TOYLLM_FULL.id, prompt: 'Hello', maxTokens: 3, requestId: 'toy-1' });
    assert.deepEqual(s.seen.map((r) => `${r.method} ${r.path}`), ['POST /toy/generate'], 'one request, to its path: no /v1/models first');
    assert.deepEqual(JSON.parse(s.seen[0].body), { input: 'Hello', budget: 3, stream: true, req_id: 'toy-1' });
  } finally {
    await s.close();
  }
}));

test('a refused connection\'s hint names how each engine starts, the registered one\'s too', withFull(async () => {
  const s = await recordingServer();
  const url = s.url;
  await s.close();
  const { record } = await sendTracedRequest({ url, api: 'chat', engine: 'vllm', model: 'm' });
  assert.equal(record.error?.kind, 'connection-refused');
  assert.equal(record.error?.hint, 'Start the server (vllm serve … / python -m sglang.launch_server … / toyllm serve …) or fix the server URL and port.');
}));

test('a checkout two levels down in a folder named after a registered engine is found', withFull(async () => {
  const ws = mkdtempSync(join(tmpdir(), 'hoplens-toyllm-ws-'));
  try {
    mkdirSync(join(ws, 'third_party', 'ToyLLM-src', 'src', 'toyllm'), { recursive: true });
    writeFileSync(join(ws, 'third_party', 'ToyLLM-src', 'src', 'toyllm', 'serve.py'), 'print("x")\n');
    const found = await discoverCheckouts([ws], { engine: TOYLLM_FULL.id });
    assert.equal(found[TOYLLM_FULL.id]?.root, join(ws, 'third_party', 'ToyLLM-src'));
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}));
