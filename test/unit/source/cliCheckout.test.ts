// `hoplens annotate LOG --checkout DIR`: every line the engine printed is tied to a statement of
// a real git checkout made here, verified by its text, SGLang lines included (no file:line).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { bufferIO } from '../../../src/cli/io';
import { initRepo, SGLANG_FILES, TempDirs, VLLM_FILES } from './fixtureCheckout';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source');
const tmp = new TempDirs();
let sglang = '';
let vllm = '';
let dir = '';

before(() => {
  sglang = tmp.make();
  initRepo(sglang, SGLANG_FILES);
  vllm = tmp.make();
  initRepo(vllm, VLLM_FILES);
  dir = tmp.make();
});
after(() => tmp.cleanup());

async function annotate(...argv: string[]) {
  const io = bufferIO();
  const code = await main(['annotate', ...argv, '--json'], io);
  assert.equal(code, 0, io.stderr);
  const objs = io.stdout.trim().split('\n').map((l) => JSON.parse(l));
  return { lines: objs.filter((o) => o.kind === 'line'), summary: objs.find((o) => o.kind === 'summary') };
}

test('SGLang: hop lines and start-up lines that are no hop both resolve into the checkout', async () => {
  // The constructed log, with start-up lines of one statement printed by two ranks (same text
  // shape, other numbers) and a line no statement prints.
  const log = join(dir, 'sgl.log');
  const lines = readFileSync(join(FIXTURES, 'sglang_tp2_request.log'), 'utf8').split('\n').filter((l) => l.startsWith('['));
  writeFileSync(log, [
    '[2026-08-21 22:49:40.101 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.61 GB, mem usage=15.38 GB.',
    '[2026-08-21 22:49:40.117 TP1] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.58 GB, mem usage=15.41 GB.',
    '[2026-08-21 22:49:41 TP0] something this checkout never logs 12345',
    ...lines,
  ].join('\n') + '\n');
  const { lines: out } = await annotate(log, '--checkout', sglang);
  assert.equal(out.length, 3 + lines.length);
  const load = out.slice(0, 2);
  for (const o of load) {
    assert.equal(o.hop, null);
    // Found by its text, named by the call's first line (what Python's %(lineno)d prints), not 881 where the text starts.
    assert.deepEqual(o.source, { path: 'python/sglang/srt/model_executor/model_runner.py', line: 880, verified: true, drift: 0 });
  }
  assert.equal(out[2].source, null, 'a line no statement prints stays unattributed');
  for (const o of out.slice(3)) {
    assert.ok(o.hop, `hop line ${o.line}`);
    assert.equal(o.source?.verified, true, `line ${o.line}: ${JSON.stringify(o.source)}`);
  }
  assert.deepEqual(out.slice(3).map((o) => `${o.source.path.split('/').pop()}:${o.source.line}`), [
    'scheduler.py:1095', 'request_logger.py:155', 'request_logger.py:109', 'metrics_reporter.py:653',
    'metrics_reporter.py:916', 'schedule_batch.py:1812', 'request_logger.py:190', 'tokenizer_manager.py:3128',
  ]);
});

test('vLLM: each [file:line] is verified against the checkout statement that prints it', async () => {
  const { lines: out, summary } = await annotate(join(FIXTURES, 'vllm_info_chat_and_abort.log'), '--checkout', vllm);
  const added = out.find((o) => o.hop === 'V2');
  assert.deepEqual(added.source, { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: true, drift: 0 });
  const printed = out.filter((o) => o.fileinfo !== null);
  assert.ok(printed.length > 10);
  for (const o of printed) assert.equal(o.source?.verified, true, `line ${o.line} ${o.fileinfo}:${o.lineno} → ${JSON.stringify(o.source)}`);
  assert.equal(summary.checkout, vllm);
});

test('an SGLang log that opens with vLLM\'s own lines still resolves into the SGLang checkout it is given', async () => {
  // SGLang 0.3/0.4 loaded weights through vLLM, whose logger printed its own header first
  // (an SGLang bench_latency log of October 2024 opens with `WARNING 10-10 … rocm.py:13]`,
  // index id 43425326930); 2 100 lines of pip output push the first
  // SGLang line past what the log's head shows.
  const log = join(dir, 'sgl-opens-with-vllm.log');
  writeFileSync(log, [
    ...Array.from({ length: 2100 }, (_, i) => `Requirement already satisfied: package-${i} in /usr/lib/python3/dist-packages (1.0.${i})`),
    "INFO 08-21 22:49:39 weight_utils.py:243] Using model weights format ['*.safetensors']",
    '[2026-08-21 22:49:40.101 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.61 GB, mem usage=15.38 GB.',
    '[2026-08-21 22:50:10.645 TP0] Decode batch, #running-req: 1, #token: 49, token usage: 0.00, cuda graph: True, gen throughput (token/s): 93.24, #queue-req: 0',
  ].join('\n') + '\n');
  const { lines: out } = await annotate(log, '--checkout', sglang);
  const [vllmLine, sglLine, hop] = out.slice(-3);
  assert.equal(vllmLine.engine, 'vllm');
  assert.equal(vllmLine.source, null, 'vLLM\'s own file is not in an SGLang checkout');
  assert.deepEqual(sglLine.source, { path: 'python/sglang/srt/model_executor/model_runner.py', line: 880, verified: true, drift: 0 });
  assert.equal(hop.hop, 'S4');
  assert.equal(hop.source?.verified, true);
});
