// `hoplens annotate` and `hoplens map`: JSON Lines shape, tables, exit codes; once through a
// real bundle in a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync, readFileSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { main } from '../../../src/cli';
import { bufferIO } from '../../../src/cli/io';

const REPO = join(__dirname, '..', '..', '..', '..');
const FIX = join(REPO, 'test', 'fixtures', 'logs');

async function run(...argv: string[]) {
  const io = bufferIO();
  const code = await main(argv, io);
  return { code, out: io.stdout, err: io.stderr };
}

test('annotate --json: one line object per input line, then the summary', async () => {
  const log = join(FIX, 'vllm_info_chat_and_abort.log');
  const { code, out } = await run('annotate', log, '--json');
  assert.equal(code, 0);
  const objs = out.trim().split('\n').map((l) => JSON.parse(l));
  const inputLines = readFileSync(log, 'utf8').replace(/\n$/, '').split('\n').length;
  const lines = objs.filter((o) => o.kind === 'line');
  assert.equal(lines.length, inputLines);
  assert.deepEqual(lines.map((o) => o.line), Array.from({ length: inputLines }, (_, i) => i + 1));
  const added = lines.find((o) => o.line === 11);
  for (const k of ['kind', 'line', 'engine', 'process', 'pid', 'level', 'time', 'fileinfo', 'lineno', 'hop', 'rid', 'source']) assert.ok(k in added, k);
  assert.equal(added.engine, 'vllm');
  assert.equal(added.process, 'APIServer');
  assert.equal(added.pid, 2101);
  assert.equal(added.hop, 'V2');
  assert.equal(added.rid, 'chatcmpl-myrun-0001');
  assert.equal(added.lineno, 439);
  assert.match(added.time, /^\d{4}-08-21T22:30:05$/);
  assert.deepEqual(added.source, { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: false, drift: 0 });
  assert.equal(lines[0].engine, 'other');
  assert.equal(lines[0].source, null);
  const summary = objs[objs.length - 1];
  assert.equal(summary.kind, 'summary');
  assert.equal(summary.engine, 'vllm');
  assert.equal(summary.counts.V6, 4);
  assert.equal(summary.requests.count, 2);
  assert.ok(summary.missing.some((m: { hop: string; kind: string }) => m.hop === 'V6' && m.kind === 'path'));
  assert.equal(objs.length, inputLines + 1);
});

test('annotate --rid keeps only that request, in any of its id forms', async () => {
  const log = join(FIX, 'vllm_info_chat_and_abort.log');
  const { code, out } = await run('annotate', log, '--json', '--rid', '5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10');
  assert.equal(code, 0);
  const objs = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(objs.filter((o) => o.kind === 'line').map((o) => o.hop), ['V1', 'V2', 'V8', 'V7']);
  const s = objs[objs.length - 1];
  assert.equal(s.request.rid, 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0');
  const none = await run('annotate', log, '--rid', 'no-such-request');
  assert.equal(none.code, 1);
  assert.match(none.out, /No lines for request no-such-request/);
});

test('annotate --rid: the summary still counts every hop and request of the log', async () => {
  const log = join(FIX, 'vllm_debug_tp2_multiline.log');
  const all = await run('annotate', log);
  const one = await run('annotate', log, '--rid', 'chatcmpl-4e2b9a1c7d3f4b8e9a6c5d4e3f2a1b0c');
  assert.equal(one.code, 0);
  const hops = (out: string) => /^hops: .*$/m.exec(out)?.[0];
  const requests = (out: string) => /(\d+) request\(s\)/.exec(out)?.[1];
  assert.ok(hops(all.out));
  assert.equal(hops(one.out), hops(all.out));
  assert.equal(requests(one.out), requests(all.out));
  assert.match(one.out, /^Request chatcmpl-4e2b9a1c7d3f4b8e9a6c5d4e3f2a1b0c$/m);
  const json = await run('annotate', log, '--json', '--rid', 'chatcmpl-4e2b9a1c7d3f4b8e9a6c5d4e3f2a1b0c');
  const summary = JSON.parse(json.out.trim().split('\n').pop()!);
  const plain = JSON.parse((await run('annotate', log, '--json')).out.trim().split('\n').pop()!);
  assert.deepEqual(summary.counts, plain.counts);
  assert.equal(summary.requests.count, plain.requests.count);
});

test('annotate table: hop rows, requests and the reasons for missing lines', async () => {
  const { code, out } = await run('annotate', join(FIX, 'sglang_tp2_request.log'));
  assert.equal(code, 0);
  assert.match(out, /S5\s+TP0\s+python\/sglang\/srt\/managers\/schedule_batch\.py:1812/);
  assert.match(out, /my-req-1/);
  assert.match(out, /S7 .*path: Path not taken/);
  const unmatched = await run('annotate', join(FIX, 'sglang_tp2_request.log'), '--unmatched');
  assert.match(unmatched.out, /Lines with no known emitter\n\s+1\s+# CONSTRUCTED EXAMPLE/);
});

test('annotate --json keeps non-ASCII text intact next to fast-path lines', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-cli-'));
  try {
    const log = join(dir, 'vllm.log');
    writeFileSync(log, [
      '(APIServer pid=7) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-plain-0a1b2c3d.',
      '(Prozeß pid=8) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-ünï-0a1b2c3d.',
    ].join('\n') + '\n');
    const { code, out } = await run('annotate', log, '--json');
    assert.equal(code, 0);
    const [a, b] = out.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(a.rid, 'chatcmpl-plain');
    assert.equal(b.process, 'Prozeß');
    assert.equal(b.rid, 'chatcmpl-ünï');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('exit codes: another program\'s log is 1, bad input and usage are 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-cli-'));
  try {
    const nginx = join(dir, 'access.log');
    writeFileSync(nginx, '127.0.0.1 - - [21/Aug/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 612 "-" "curl/8.0"\n');
    const other = await run('annotate', nginx);
    assert.equal(other.code, 1);
    assert.match(other.out, /No hops found/);
    const otherJson = await run('annotate', nginx, '--json');
    assert.equal(otherJson.code, 1);
    assert.equal(JSON.parse(otherJson.out.trim().split('\n').pop()!).message, 'no hops found');
    const empty = join(dir, 'empty.log');
    writeFileSync(empty, '');
    assert.equal((await run('annotate', empty)).code, 1);
    const bin = join(dir, 'core.bin');
    writeFileSync(bin, Buffer.from([1, 0, 2, 0]));
    const b = await run('annotate', bin);
    assert.equal(b.code, 2);
    assert.match(b.err, /binary/);
    const missing = await run('annotate', join(dir, 'missing.log'));
    assert.equal(missing.code, 2);
    assert.match(missing.err, /no such file/);
    assert.equal((await run('annotate')).code, 2);
    assert.equal((await run('annotate', nginx, '--engine', 'tgi')).code, 2);
    assert.equal((await run('annotate', nginx, '--bogus')).code, 2);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('map: table with citations and launch flags; --json one object per hop', async () => {
  const t = await run('map', '--engine', 'vllm');
  assert.equal(t.code, 0);
  assert.match(t.out, /V2\s+api-server\s+vllm\/v1\/engine\/async_llm\.py:439/);
  assert.match(t.out, /V7\s+api-server\s+vllm\/v1\/engine\/async_llm\.py:623/);
  assert.match(t.out, /--enable-log-outputs/);
  const j = await run('map', '--engine', 'sglang', '--json');
  const objs = j.out.trim().split('\n').map((l) => JSON.parse(l));
  const hops = objs.filter((o) => o.kind === 'hop');
  assert.deepEqual(hops.map((h) => h.id), ['S1', 'S2', 'S3', 'S4', 'S5', 'S6', 'S7', 'S8', 'S9']);
  assert.equal(hops[4].url, 'https://github.com/sgl-project/sglang/blob/7d893255c359bb8ab74d2870c8ac865fb57230d6/python/sglang/srt/managers/schedule_batch.py#L1812');
  assert.equal(objs[objs.length - 1].kind, 'summary');
  assert.equal((await run('map')).code, 2);
  assert.equal((await run('map', '--engine', 'tgi')).code, 2);
});

test('the bundled CLI in a child process', async () => {
  const esbuild = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-bundle-'));
  try {
    const cli = join(dir, 'cli.js');
    await esbuild.build({ entryPoints: [join(REPO, 'src', 'cli.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: cli, logLevel: 'error' });
    const r = spawnSync(process.execPath, [cli, 'annotate', join(FIX, 'vllm_debug_tp2_multiline.log'), '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const objs = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const cont = objs.filter((o) => o.continuation);
    assert.equal(cont.length, 5, 'five traceback continuation lines');
    assert.ok(cont.every((o) => o.process === 'Worker_TP1' && o.source.path === 'vllm/v1/executor/multiproc_executor.py'));
    // A log whose JSON needs several output buffers: the bytes written straight into a file and
    // the bytes sent down a pipe are the same, and the same as the in-process output.
    const big = join(dir, 'big.log');
    writeFileSync(big, readFileSync(join(FIX, 'vllm_info_chat_and_abort.log'), 'utf8').repeat(2000));
    const inFile = join(dir, 'out.jsonl');
    const fd = openSync(inFile, 'w');
    const toFile = spawnSync(process.execPath, [cli, 'annotate', big, '--json'], { stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    assert.equal(toFile.status, 0, String(toFile.stderr));
    const toPipe = spawnSync(process.execPath, [cli, 'annotate', big, '--json'], { maxBuffer: 1 << 30 });
    assert.equal(toPipe.status, 0, String(toPipe.stderr));
    const fileBytes = readFileSync(inFile);
    assert.ok(fileBytes.length > 12 << 20, `output of ${fileBytes.length} bytes spans several 4 MB buffers`);
    assert.ok(fileBytes.equals(toPipe.stdout), 'file and pipe output differ');
    assert.equal(fileBytes.toString('utf8'), (await run('annotate', big, '--json')).out);
    const bad = spawnSync(process.execPath, [cli, 'annotate', join(dir, 'nope.log')], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /no such file/);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
