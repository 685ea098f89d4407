#!/usr/bin/env node
// Benchmark: `hoplens otlp` on vLLM-shaped spans.
//  1. --file: a generated OpenTelemetry Collector file-exporter output (JSON Lines of TracesData,
//     llm_request spans + scheduler_steps spans with step.* events), `hoplens otlp --file --json`
//     vs a stdlib Python reader doing the same extraction (json.loads per line, llm_request
//     attributes). lab12_run.py has no OTLP mode, so there is no lab figure to compare with.
//  2. --listen: protobuf ExportTraceServiceRequests posted to `hoplens otlp --listen` over
//     keep-alive from 2 concurrent senders; spans/s and the receiver's peak RSS.
//
//   node --expose-gc bench/otlp.mjs [--spans 200000] [--posts 400] [--per-post 512] [--keep] [--skip-python]
//
// Needs `node esbuild.mjs` first (dist/cli.js). Inputs go to bench/data/ (git-ignored).
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as http from 'node:http';
import { randomBytes } from 'node:crypto';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, 'bench', 'data');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const SPANS = Number(opt('--spans', '200000'));
const POSTS = Number(opt('--posts', '400'));
const PER_POST = Number(opt('--per-post', '512'));
const KEEP = argv.includes('--keep');
const SKIP_PY = argv.includes('--skip-python');
const cli = join(root, 'dist', 'cli.js');
if (!existsSync(cli)) { console.error('run `node esbuild.mjs` first'); process.exit(2); }
mkdirSync(dataDir, { recursive: true });

let seed = 4318;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
// Ids must be unique like the engine's uuid4s; the LCG above repeats too soon for that.
const hex = (n) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);
const T0 = 1764406800000000000n;
const sv = (k, v) => ({ key: k, value: { stringValue: v } });
const iv = (k, v) => ({ key: k, value: { intValue: String(v) } });
const dv = (k, v) => ({ key: k, value: { doubleValue: v } });

function llmRequest(i) {
  const q = rnd() * 0.05, pf = 0.02 + rnd() * 0.3, dc = 0.2 + rnd() * 3;
  const start = T0 + BigInt(i) * 1_000_000n;
  return {
    traceId: hex(32), spanId: hex(16), parentSpanId: '', flags: 256, name: 'llm_request', kind: 2,
    startTimeUnixNano: String(start), endTimeUnixNano: String(start + BigInt(Math.round((q + pf + dc + 0.004) * 1e9))),
    attributes: [dv('gen_ai.latency.time_to_first_token', q + pf + 0.002), dv('gen_ai.latency.e2e', q + pf + dc + 0.003),
      dv('gen_ai.latency.time_in_queue', q), iv('gen_ai.usage.prompt_tokens', 10 + Math.floor(rnd() * 4000)),
      iv('gen_ai.usage.completion_tokens', 1 + Math.floor(rnd() * 512)), dv('gen_ai.latency.time_in_model_prefill', pf),
      dv('gen_ai.latency.time_in_model_decode', dc), dv('gen_ai.latency.time_in_model_inference', pf + dc),
      sv('gen_ai.request.id', `chatcmpl-${hex(32)}`), dv('gen_ai.request.temperature', 0.7), iv('gen_ai.request.max_tokens', 512)],
    status: {},
  };
}

function stepSpan(step0) {
  const events = [];
  for (let s = step0; s < step0 + 100; s++) {
    const t = String(T0 + BigInt(s) * 10_000_000n);
    events.push({ timeUnixNano: t, name: 'step.BATCH_SUMMARY', attributes: [iv('step.id', s), iv('step.duration_us', 8000 + Math.floor(rnd() * 4000)),
      iv('queue.running_depth', 32), iv('queue.waiting_depth', 3), iv('batch.num_prefill_reqs', 1), iv('batch.num_decode_reqs', 31),
      iv('batch.scheduled_tokens', 543), dv('kv.usage_gpu_ratio', 0.41)] });
    if (s % 10 === 0) events.push({ timeUnixNano: t, name: 'step.REQUEST_SNAPSHOT', attributes: [iv('step.id', s), sv('request.id', `chatcmpl-${hex(32)}-${hex(8)}`),
      sv('request.phase', 'DECODE'), iv('request.num_prompt_tokens', 812), iv('request.num_computed_tokens', 900), iv('request.num_output_tokens', 88),
      iv('request.num_preemptions', 0), iv('request.scheduled_tokens_this_step', 1), iv('kv.blocks_allocated_gpu', 57), iv('kv.blocks_cached_gpu', 16)] });
  }
  return { traceId: hex(32), spanId: hex(16), name: `scheduler_steps_${step0}`, kind: 1, startTimeUnixNano: String(T0), endTimeUnixNano: String(T0 + 1_000_000_000n), events, status: {} };
}

function tracesData(spans, scope) {
  return { resourceSpans: [{ resource: { attributes: [sv('service.name', 'vllm'), iv('vllm.process_id', 4242)] }, scopeSpans: [{ scope: { name: scope }, spans }], schemaUrl: '' }] };
}

function timed(cmd, args, outFile) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', outFile ? 'pipe' : 'ignore', 'pipe'] });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const rssKb = Number(r.stderr.trim().split('\n').pop());
  if (r.status !== 0) console.error(r.stderr);
  return { secs, rssMb: rssKb / 1024, status: r.status, stdout: r.stdout };
}

// ---- 1. collector file ----
const file = join(dataDir, 'otlp_export.jsonl');
{
  const ws = createWriteStream(file);
  const perLine = 50;
  let written = 0, step = 0;
  while (written < SPANS) {
    const spans = [];
    for (let k = 0; k < perLine && written < SPANS; k++, written++) spans.push(llmRequest(written));
    if (!ws.write(JSON.stringify(tracesData(spans, 'vllm.llm_engine')) + '\n')) await new Promise((r) => ws.once('drain', r));
    if (written % 5000 === 0) { ws.write(JSON.stringify(tracesData([stepSpan(step)], 'vllm.scheduler.step')) + '\n'); step += 100; }
  }
  await new Promise((r) => ws.end(r));
}
const sizeMb = statSync(file).size / 1024 / 1024;
console.log(`collector file: ${SPANS} llm_request spans (+ step spans), ${sizeMb.toFixed(1)} MB`);
const ours = timed(process.execPath, [cli, 'otlp', '--file', file, '--json'], true);
const oursSummary = JSON.parse(ours.stdout.trim().split('\n').pop());
console.log(`  hoplens otlp --file --json : ${ours.secs.toFixed(2)} s, ${(sizeMb / ours.secs).toFixed(1)} MB/s, peak RSS ${ours.rssMb.toFixed(0)} MB, requests ${oursSummary.requests}, batches ${oursSummary.batches}, snapshots ${oursSummary.snapshots}`);
if (!SKIP_PY) {
  const py = join(dataDir, 'otlp_reference.py');
  writeFileSync(py, `import json, sys
n = 0
out = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    for rs in d.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []):
                if sp.get("name") != "llm_request":
                    continue
                a = {kv["key"]: next(iter(kv["value"].values())) for kv in sp.get("attributes", [])}
                out.append(json.dumps({"rid": a.get("gen_ai.request.id"), "e2eMs": float(a.get("gen_ai.latency.e2e", 0)) * 1000,
                    "ttftMs": float(a.get("gen_ai.latency.time_to_first_token", 0)) * 1000, "queueMs": float(a.get("gen_ai.latency.time_in_queue", 0)) * 1000}))
                n += 1
sys.stdout.write("\\n".join(out) + "\\n")
print(json.dumps({"requests": n}))
`);
  const ref = timed('python3', [py, file], true);
  const refN = JSON.parse(ref.stdout.trim().split('\n').pop()).requests;
  console.log(`  python3 stdlib reference  : ${ref.secs.toFixed(2)} s, ${(sizeMb / ref.secs).toFixed(1)} MB/s, peak RSS ${ref.rssMb.toFixed(0)} MB, requests ${refN}`);
  console.log(`  ratio (python / hoplens)  : ${(ref.secs / ours.secs).toFixed(2)}x time, ${(ref.rssMb / ours.rssMb).toFixed(2)}x memory`);
  unlinkSync(py);
}
console.log('  lab12_run.py: no OTLP mode (its modes are map, send, annotate, calltrace) — nothing to compare');
if (!KEEP) unlinkSync(file);

// ---- 2. receiver ----
const require = createRequire(import.meta.url);
const root2 = require('@opentelemetry/otlp-transformer/build/src/generated/root');
const Req = root2.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const hexBytes = (h) => Buffer.from(h, 'hex');
function protoBody(n) {
  const spans = [];
  for (let i = 0; i < n; i++) {
    const s = llmRequest(i);
    s.traceId = hexBytes(s.traceId); s.spanId = hexBytes(s.spanId); delete s.parentSpanId;
    spans.push(s);
  }
  return Buffer.from(Req.encode(Req.fromObject(tracesData(spans, 'vllm.llm_engine'))).finish());
}
const bodies = Array.from({ length: 8 }, () => protoBody(PER_POST));
const rx = spawn('/usr/bin/time', ['-f', '%M', process.execPath, cli, 'otlp', '--listen', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
let rxOut = '', rxErr = '';
rx.stdout.on('data', (d) => { rxOut += d; });
rx.stderr.on('data', (d) => { rxErr += d; });
let url = '';
for (let i = 0; i < 500 && !url; i++) { await new Promise((r) => setTimeout(r, 10)); url = /listening on (\S+)/.exec(rxOut)?.[1] ?? ''; }
if (!url) { console.error('receiver did not start:', rxErr); process.exit(1); }
const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
const post = (body) => new Promise((resolve, reject) => {
  const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/x-protobuf', 'Content-Length': body.length } }, (res) => {
    res.resume(); res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
  });
  req.on('error', reject);
  req.end(body);
});
const t0 = process.hrtime.bigint();
let next = 0;
await Promise.all([0, 1].map(async () => { while (next < POSTS) { const i = next++; await post(bodies[i % bodies.length]); } }));
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
agent.destroy();
// Ask it to stop (our own child, by pid): the CLI stops on SIGTERM and prints its totals.
const exited = new Promise((r) => rx.on('exit', r));
const childPid = Number(spawnSync('pgrep', ['-P', String(rx.pid)], { encoding: 'utf8' }).stdout.trim().split('\n')[0]);
if (childPid > 0) process.kill(childPid, 'SIGTERM'); else rx.kill('SIGTERM');
await exited;
const totalSpans = POSTS * PER_POST;
const rxRssMb = Number(rxErr.trim().split('\n').pop()) / 1024;
const stopped = /stopped: .*/.exec(rxOut)?.[0] ?? '(no summary)';
console.log(`receiver: ${POSTS} protobuf posts × ${PER_POST} llm_request spans (${(bodies[0].length / 1024).toFixed(0)} KB each), 2 senders`);
console.log(`  ${totalSpans} spans in ${secs.toFixed(2)} s = ${Math.round(totalSpans / secs)} spans/s, receiver peak RSS ${rxRssMb.toFixed(0)} MB`);
console.log(`  ${stopped}`);

// ---- 3. in-process: decode + SpanStore, the extension's path (bounded at 200k spans) ----
const esbuild = await import('esbuild');
const lib = join(dataDir, 'otlp-lib.cjs');
writeFileSync(join(dataDir, 'otlp-lib-entry.ts'), `export { decodeOtlpProtobuf } from '../../src/core/otlp/decode';\nexport { SpanStore } from '../../src/core/otlp/engineTiming';\n`);
await esbuild.build({ entryPoints: [join(dataDir, 'otlp-lib-entry.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
const { decodeOtlpProtobuf, SpanStore } = createRequire(import.meta.url)(lib);
const gc = globalThis.gc ?? (() => {});
gc();
const heap0 = process.memoryUsage().heapUsed;
const store = new SpanStore();
const d0 = process.hrtime.bigint();
for (let i = 0; i < POSTS; i++) store.add(decodeOtlpProtobuf(bodies[i % bodies.length]));
const dsecs = Number(process.hrtime.bigint() - d0) / 1e9;
gc();
const st = store.stats();
console.log(`in-process decode + SpanStore: ${POSTS * PER_POST} spans in ${dsecs.toFixed(2)} s = ${Math.round((POSTS * PER_POST) / dsecs)} spans/s; ` +
  `kept ${st.spans} (dropped ${st.droppedSpans}), heap +${((process.memoryUsage().heapUsed - heap0) / 1048576).toFixed(0)} MB${globalThis.gc ? '' : ' (run with --expose-gc for an exact figure)'}`);
for (const f of ['otlp-lib.cjs', 'otlp-lib.cjs.map', 'otlp-lib-entry.ts']) if (existsSync(join(dataDir, f))) unlinkSync(join(dataDir, f));
