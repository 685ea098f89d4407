// `hoplens send` against servers that misbehave, through the built CLI in a child process and a
// real HTTP server on 127.0.0.1: an endless line, a flood of frames, a base URL with /v1,
// credentials in the URL, a 429 with Retry-After, hostile text, and --log on what is not a log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, runCli, startCli } from '../cli/cliProcess';
import type { TraceJson } from '../../../src/core/request/index';

interface Seen { method: string; url: string; headers: IncomingMessage['headers']; at: number }

async function serve(handler: (req: IncomingMessage, res: ServerResponse,
  seen: Seen[]) => void): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: performance.now() });
    req.resume();
    req.on('end', () => handler(req, res, seen));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`, seen,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** One vLLM chat chunk, as vLLM's OpenAI server frames it. */
function chunk(rid: string, content: string): string {
  return `data: {"id":"chatcmpl-${rid}","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]}\n\n`;
}

/** A short complete stream. */
function shortStream(res: ServerResponse, rid = 'x', text = ['Hello', ' world']): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  for (const t of text) res.write(chunk(rid, t));
  res.end('data: [DONE]\n\n');
}

const SEND = ['send', '--engine', 'vllm', '--model', 'm', '--max-tokens', '4'];

/** `hoplens send --json`: the report's JSON, and the server log's lines when --log was given. */
type SendJson = TraceJson & { serverLogLines?: { line: number; text: string }[] };

function parseOne(stdout: Buffer): SendJson {
  const lines = stdout.toString().trim().split('\n');
  assert.equal(lines.length, 1, stdout.toString().slice(0, 500));
  return JSON.parse(lines[0]) as SendJson;
}

test('a server streaming more than 64 MB without a newline: the --json error object, exit 1, no crash', async () => {
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const piece = 'x'.repeat(1 << 20);
    res.write('data: ');
    let sent = 0;
    const pump = (): void => {
      while (sent < 80) {
        sent++;
        if (!res.write(piece)) { res.once('drain', pump); return; }
      }
      res.end();
    };
    res.on('close', () => { sent = 1e9; });
    pump();
  });
  try {
    const r = await runCli([...SEND, '--url', s.url, '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    const j = parseOne(r.stdout);
    assert.equal(j.error?.kind, 'frame-too-large');
    assert.match(j.error.message, /more than 64 MB without ending an SSE event/);
  } finally { await s.close(); }
});

test('a flood of 300,000 valid frames: per-frame detail for the first 100,000, counts and ITL over all of them, said in the report', async () => {
  const N = 300_000;
  const s = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = chunk('flood', 'a');
    let i = 0;
    const pump = (): void => {
      while (i < N) {
        // Several frames per write, as a busy server's socket delivers them.
        let batch = '';
        for (let k = 0; k < 200 && i < N; k++, i++) batch += frame;
        if (!res.write(batch)) { res.once('drain', pump); return; }
      }
      res.end('data: [DONE]\n\n');
    };
    pump();
  });
  try {
    const r = await runCli([...SEND, '--url', s.url, '--json', '--timeout-ms', '600000']);
    assert.equal(r.code, 0, r.stderr);
    const j = parseOne(r.stdout);
    assert.equal(j.error, null);
    assert.equal(j.frames.length, 100_000, 'per-frame detail up to the cap');
    assert.equal(j.framesReceived, N + 1, 'every frame counted ([DONE] included)');
    assert.equal(j.outputTokens, N);
    const itl = j.itlMs!;
    assert.ok(itl.max! >= itl.p99! && itl.p99! >= itl.p50!);
    assert.ok(j.warnings.some((w: string) => /sent 300,001 frames: per-frame detail .* first 100,000/.test(w)), j.warnings.join('\n'));
    const text = await runCli([...SEND, '--url', s.url, '--timeout-ms', '600000']);
    assert.match(text.stdout.toString(), /frames received +300001/);
    assert.match(text.stdout.toString(), /warning: The stream sent 300,001 frames/);
  } finally { await s.close(); }
});

test('--url http://host:port/v1 (the OpenAI SDK\'s base URL) posts to /v1/chat/completions', async () => {
  const s = await serve((_req, res) => shortStream(res));
  try {
    const r = await runCli([...SEND, '--url', `${s.url}/v1`, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.seen.map((x) => `${x.method} ${x.url}`), ['POST /v1/chat/completions']);
    assert.equal(parseOne(r.stdout).url, `${s.url}/v1/chat/completions`);
    const auto = await runCli(['send', '--url', `${s.url}/v1/`, '--model', 'm', '--json']);
    assert.equal(auto.code, 0, auto.stderr);
    assert.ok(s.seen.some((x) => x.url === '/version'), 'engine detection at the root, not under /v1');
  } finally { await s.close(); }
});

test('--timeout-ms beyond what a timer holds is refused with a message, not turned into 1 ms', async () => {
  const s = await serve((_req, res) => shortStream(res));
  try {
    const r = await runCli([...SEND, '--url', s.url, '--timeout-ms', '9999999999']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^hoplens send: timeout must be at most 2147483647 ms .*\(got 9999999999\)\n$/);
    assert.doesNotMatch(r.stderr, /TimeoutOverflowWarning/);
    assert.equal(s.seen.length, 0, 'nothing sent');
  } finally { await s.close(); }
});

test('--log on a FIFO or /dev/zero is refused at once instead of read forever', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-send-log-'));
  const s = await serve((_req, res) => shortStream(res));
  try {
    const fifo = join(dir, 'log.fifo');
    execFileSync('mkfifo', [fifo]);
    for (const log of [fifo, '/dev/zero']) {
      const child = startCli([...SEND, '--url', s.url, '--log', log]);
      const kill = setTimeout(() => child.kill(), 20_000);
      const r = await finished(child);
      clearTimeout(kill);
      assert.equal(r.signal, null, `--log ${log} hung`);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`--log ${log.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not a regular file \\((a FIFO|a character device)\\)`));
    }
  } finally { await s.close(); rmSync(dir, { recursive: true, force: true }); }
});

test('--log searches only what the server wrote after the request started, with the file\'s own line numbers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-send-log-'));
  const log = join(dir, 'vllm.log');
  const rid = 'hoplens-log-1';
  // An earlier run with the same id, long before: must not be reported.
  const old = `(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-${rid}-0a1b2c3d.\n`;
  writeFileSync(log, 'INFO 08-21 22:00:00 [api_server.py:1] filler\n'.repeat(50_000) + old);
  const s = await serve((_req, res) => {
    appendFileSync(log, `(APIServer pid=2101) INFO 08-21 22:31:00 [async_llm.py:439] Added request chatcmpl-${rid}-9f8e7d6c.\n`);
    shortStream(res, rid);
  });
  try {
    const r = await runCli([...SEND, '--url', s.url, '--rid', rid, '--log', log, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const lines = parseOne(r.stdout).serverLogLines!;
    assert.deepEqual(lines.map((l) => l.line), [50_002]);
    assert.match(lines[0].text, /9f8e7d6c/);
  } finally { await s.close(); rmSync(dir, { recursive: true, force: true }); }
});

test('--repeat honours 429 Retry-After: the next run waits as long as the server asked, and the report says so', async () => {
  let posts = 0;
  const s = await serve((_req, res) => {
    posts++;
    if (posts === 1) {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"error":{"message":"Too many requests","type":"TooManyRequests","code":429}}');
    } else shortStream(res);
  });
  try {
    const r = await runCli([...SEND, '--url', s.url, '--repeat', '2', '--json']);
    assert.equal(r.code, 1, 'one run failed');
    const gap = s.seen[1].at - s.seen[0].at;
    assert.ok(gap >= 950, `the second request came ${gap.toFixed(0)} ms after the 429 (Retry-After: 1)`);
    const [first, second] = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as SendJson);
    assert.equal(first.status, 429);
    assert.ok(first.warnings.some((w: string) => /429 with Retry-After: 1; the next run waited 1\.0 s/.test(w)));
    assert.equal(second.error, null);
  } finally { await s.close(); }
});

test('credentials in --url are sent as Basic auth and never printed', async () => {
  const s = await serve((_req, res) => shortStream(res));
  try {
    const withCreds = s.url.replace('http://', 'http://alice:s3cr3t-pw@');
    const j = await runCli([...SEND, '--url', withCreds, '--json']);
    assert.equal(j.code, 0, j.stderr);
    assert.equal(s.seen[0].headers.authorization, `Basic ${Buffer.from('alice:s3cr3t-pw').toString('base64')}`);
    const text = await runCli([...SEND, '--url', withCreds]);
    // A server that is gone: the error names the URL, without the password.
    const gone = await runCli([...SEND, '--url', 'http://alice:s3cr3t-pw@127.0.0.1:9/', '--json']);
    for (const r of [j, text, gone]) {
      const all = r.stdout.toString() + r.stderr;
      assert.doesNotMatch(all, /s3cr3t-pw/);
    }
    assert.match(parseOne(j.stdout).url, /^http:\/\/\*\*\*@127\.0\.0\.1:\d+\/v1\/chat\/completions$/);
  } finally { await s.close(); }
});

test('escape sequences in server text never reach the terminal raw', async () => {
  const evil = 'ok\x1b]0;owned\x07\x1b[2J\x9b31m';
  const s = await serve((req, res) => {
    if (s.seen.length === 1) shortStream(res, 'e', [evil, 'more']);
    else {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `boom ${evil}`, type: 'InternalServerError', code: 500 } }));
    }
    void req;
  });
  try {
    const ok = await runCli([...SEND, '--url', s.url, '--frames']);
    const failed = await runCli([...SEND, '--url', s.url]);
    assert.equal(failed.code, 1);
    for (const r of [ok, failed]) {
      const all = r.stdout.toString('latin1') + r.stderr;
      assert.doesNotMatch(all, /[\x1b\x07\x9b]/, 'raw control characters');
    }
    assert.match(failed.stdout.toString(), /boom ok\\x1b\]0;owned\\x07/);
  } finally { await s.close(); }
});
