#!/usr/bin/env node
// What the unit tests no longer time (they assert the ordering; the figures live here):
// how far TTFT stays from the schedule when the connection set-up is slow, when the server is
// behind a TLS proxy, and how frame stamps hold while the calling thread is blocked. Every
// figure has its peer from the same run: the plain request to the same server, the same
// client on the calling thread.
//
//   node bench/timingIsolation.mjs [--runs 10]
//
// Generated files go to bench/data/isolation/ (git-ignored) and are deleted at the end.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const data = join(repo, 'bench', 'data', 'isolation');
const arg = (name, def) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : def; };
const RUNS = arg('runs', 10);
const FIRST_MS = 100;

rmSync(data, { recursive: true, force: true });
mkdirSync(data, { recursive: true });
const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' };
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/testing/fakeEngine/main.ts')], outfile: join(data, 'fakeEngine.cjs') });
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/core/request/index.ts')], outfile: join(data, 'request.cjs') });
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/workers/tracedRequest.ts')], outfile: join(data, 'tracedRequest.js') });
await esbuild.build({ ...common, entryPoints: [join(repo, 'src/cli.ts')], outfile: join(data, 'cli.cjs') });
const req = createRequire(import.meta.url)(join(data, 'request.cjs'));

function startEngine(schedule) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(data, 'fakeEngine.cjs'), '--engine', 'vllm', '--port', '0', '--schedule', schedule], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c) => { out += c; const m = /listening on (\S+)/.exec(out); if (m) resolve({ url: m[1], port: Number(new URL(m[1]).port), proc: p }); });
    p.on('exit', (code) => reject(new Error(`fake engine exited ${code}`)));
  });
}
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.round((p / 100) * (s.length - 1)))]; };
const f = (v) => v.toFixed(2).padStart(8);
const row = (label, xs, peer) => console.log(`${label.padEnd(56)} p50 ${f(pct(xs, 50))}  p99 ${f(pct(xs, 99))}${peer ? `   TTFT p50 ÷ plain TTFT p50: ${((pct(xs, 50) + FIRST_MS) / (pct(peer, 50) + FIRST_MS)).toFixed(3)}` : ''}`);
const load0 = loadavg();

// ------------------------------------------------------------------ 1. slow set-up, TLS
const engine = await startEngine(`first=${FIRST_MS},frames=5,every=10`);
const slowLookup = (ms) => (_host, opts, cb) => setTimeout(() => (opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)), ms);
execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(data, 'key.pem'), '-out', join(data, 'cert.pem'),
  '-days', '1', '-subj', '/CN=hoplens-bench', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
const proxy = tls.createServer({ key: readFileSync(join(data, 'key.pem')), cert: readFileSync(join(data, 'cert.pem')) }, (client) => {
  const upstream = net.connect(engine.port, '127.0.0.1');
  client.pipe(upstream).pipe(client);
  const close = () => { client.destroy(); upstream.destroy(); };
  client.on('error', close); upstream.on('error', close);
});
await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
const httpsUrl = `https://127.0.0.1:${proxy.address().port}`;

/** `hoplens send --json` in its own process (as from a terminal), with the CA trusted. */
function cliSend(url) {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [join(data, 'cli.cjs'), 'send', '--url', url, '--engine', 'vllm', '--model', 'Qwen/Qwen3-0.6B', '--max-tokens', '5', '--json'],
      { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(data, 'cert.pem') }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    c.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`hoplens send exited ${code}`))));
  });
}

const inProc = { plain: [], slow: [], slowConnect: [] };
const cli = { plain: [], tls: [], tlsConnect: [] };
await req.warmUpRequestPath();
for (let r = 0; r < RUNS; r++) {
  // Interleaved, so each figure and its peer see the same machine.
  const plain = await req.sendTracedRequest({ url: engine.url, engine: 'vllm', model: 'Qwen/Qwen3-0.6B', maxTokens: 5 });
  const transport = new req.NodeHttpTransport({ now: () => performance.now() }, { lookup: slowLookup(120) });
  const slow = await req.sendTracedRequest({ url: `http://engine.hoplens.test:${engine.port}`, engine: 'vllm', model: 'Qwen/Qwen3-0.6B', maxTokens: 5 }, { transport });
  for (const x of [plain, slow]) if (x.record.error) throw new Error(x.record.error.message);
  inProc.plain.push(plain.metrics.ttftContentMs - FIRST_MS);
  inProc.slow.push(slow.metrics.ttftContentMs - FIRST_MS);
  inProc.slowConnect.push(slow.record.timeline.connectMs);
  const [p, t] = [await cliSend(engine.url), await cliSend(httpsUrl)];
  cli.plain.push(p.ttftContentMs - FIRST_MS);
  cli.tls.push(t.ttftContentMs - FIRST_MS);
  cli.tlsConnect.push(t.connectMs);
}
proxy.close();
engine.proc.kill('SIGTERM');
console.log(`load average ${load0.map((x) => x.toFixed(2)).join(' ')} → ${loadavg().map((x) => x.toFixed(2)).join(' ')}; server holds the first content frame ${FIRST_MS} ms; ${RUNS} runs each (ms)`);
console.log('(a set-up counted in TTFT would put the slow-resolution ratio near 2.2: (100 + 120) / 100)');
row('in process, plain: TTFT − schedule', inProc.plain);
row('in process, 120 ms name resolution: TTFT − schedule', inProc.slow, inProc.plain);
row('   … its connection set-up (connectMs)', inProc.slowConnect);
row('hoplens send, plain http: TTFT − schedule', cli.plain);
row('hoplens send, through a TLS proxy: TTFT − schedule', cli.tls, cli.plain);
row('   … its connection set-up incl. handshake', cli.tlsConnect);

// ------------------------------------------------------------------ 2. a blocked calling thread
// 12 frames 100 ms apart; the calling thread blocks 1.3 s from the first frame on. Frames stamped
// where they arrive keep their 100 ms gaps; stamped on the blocked thread they collapse to ~0.
const spaced = await startEngine('first=60,frames=12,every=100');
const worker = new req.TracedRequestWorker(join(data, 'tracedRequest.js'));
const together = (frames) => { const c = frames.filter((x) => x.kind === 'content'); return c.slice(1).filter((x, i) => x.t - c[i].t < 2).length; };
const block = (ms) => { const end = performance.now() + ms; while (performance.now() < end) { /* busy */ } };
const blocked = { worker: [], callingThread: [] };
for (let r = 0; r < Math.min(RUNS, 5); r++) {
  let done = false;
  const once = () => { if (!done) { done = true; block(1300); } };
  const [w] = await worker.send({ options: { url: spaced.url, engine: 'vllm', api: 'chat', maxTokens: 12 } }, { onFrames: once });
  blocked.worker.push(together(w.record.frames));
  done = false;
  const here = await req.sendTracedRequest({ url: spaced.url, engine: 'vllm', api: 'chat', maxTokens: 12 }, { onFrame: once });
  blocked.callingThread.push(together(here.record.frames));
}
worker.dispose();
spaced.proc.kill('SIGTERM');
console.log(`\ncalling thread blocked for 1.3 s of a 1.2 s stream: gaps of ~0 ms out of 11 (frames stamped together), ${blocked.worker.length} runs`);
row('request thread (the product): gaps stamped together', blocked.worker);
row('same client on the calling thread (the peer)', blocked.callingThread);
rmSync(data, { recursive: true, force: true });
