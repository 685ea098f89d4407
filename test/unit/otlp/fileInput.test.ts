// `hoplens otlp --file` (and Open OpenTelemetry Trace File) on what users actually point it at:
// devices, FIFOs, compressed files, standard input, and big files that are not OTLP at all. Each
// ends with an answer — spans, or a message that names the problem — and reads no more than it
// needs to tell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { bufferIO } from '../../../src/cli/io';
import { runOtlp } from '../../../src/cli/otlp';
import { NotOtlpError, readCollectorFile, readCollectorStream } from '../../../src/core/otlp/collectorFile';
import { FIXTURES, tempDir } from './helpers';

const EXPORT = join(FIXTURES, 'collector_export.jsonl');
const CLI = join(__dirname, '..', '..', '..', '..', 'dist', 'cli.js');

const vllmLogLine = (i: number) => `INFO 11-29 09:00:${String(i % 60).padStart(2, '0')} [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 12.3 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%\n`;

test('--file /dev/zero stops at once: binary data, not OTLP JSON (exit 2)', async () => {
  const io = bufferIO();
  assert.equal(await runOtlp(['--file', '/dev/zero'], io), 2);
  assert.match(io.stderr, /^hoplens otlp: \/dev\/zero is not OTLP JSON: it holds binary data \(a NUL byte at offset 0\)\n$/);
});

test('a large file that is not OTLP (a server log) stops after its first lines, not at its end (exit 2)', async () => {
  const dir = tempDir();
  const log = join(dir, 'vllm.log');
  const fd = openSync(log, 'w');
  const block = Buffer.from(Array.from({ length: 1000 }, (_, i) => vllmLogLine(i)).join(''));
  for (let written = 0; written < 40 * 1024 * 1024; written += block.length) writeSync(fd, block);
  closeSync(fd);
  const io = bufferIO();
  assert.equal(await runOtlp(['--file', log], io), 2);
  assert.match(io.stderr, /vllm\.log is not OTLP JSON: its first 100 line\(s\) \(\d+ MiB\) hold no OTLP trace data \(line 1: not valid JSON: /);
});

test('an endless stream that is not OTLP is given up on after a bounded read: lines, one endless line, JSON that is not OTLP', async () => {
  const endless = (piece: (i: number) => string, counter: { bytes: number }) => (async function* () {
    for (let i = 0; ; i++) { const b = Buffer.from(piece(i)); counter.bytes += b.length; yield b; }
  })();
  for (const [name, piece] of [
    ['log lines', vllmLogLine],
    ['one line without end', () => 'a'.repeat(64 * 1024)],
    ['JSON Lines of another kind', (i: number) => `{"level":"info","msg":"request ${i} done","ts":${i}}\n`],
  ] as Array<[string, (i: number) => string]>) {
    const counter = { bytes: 0 };
    await assert.rejects(readCollectorStream(endless(piece, counter), name), (e: Error) => e instanceof NotOtlpError && /is not OTLP JSON/.test(e.message), name);
    assert.ok(counter.bytes <= 17 * 1024 * 1024, `${name}: read ${counter.bytes} bytes`);
  }
});

test('--file on a FIFO: a pretty-printed document written into it is read (no second open that waits forever)', async () => {
  const dir = tempDir();
  const fifo = join(dir, 'spans.fifo');
  execFileSync('mkfifo', [fifo]);
  const doc = JSON.stringify(JSON.parse(readFileSync(EXPORT, 'utf8').split('\n')[0]), null, 2);
  const writer = createWriteStream(fifo);
  writer.end(doc);
  const io = bufferIO();
  assert.equal(await runOtlp(['--file', fifo, '--json'], io), 0);
  assert.equal(JSON.parse(io.stdout.trim().split('\n').pop()!).spans, 2);

  // JSON Lines through a FIFO, as from <(zcat …).
  const lines = createWriteStream(fifo);
  lines.end(readFileSync(EXPORT));
  const io2 = bufferIO();
  assert.equal(await runOtlp(['--file', fifo, '--json'], io2), 0);
  assert.equal(JSON.parse(io2.stdout.trim().split('\n').pop()!).spans, 4);
});

test('a FIFO nobody writes into: the reader says it is waiting, and cancelling ends the wait', async () => {
  const dir = tempDir();
  const fifo = join(dir, 'idle.fifo');
  execFileSync('mkfifo', [fifo]);
  const ac = new AbortController();
  const waiting: string[] = [];
  const r = await readCollectorFile(fifo, { signal: ac.signal, onWaiting: (m) => { waiting.push(m); ac.abort(); } });
  assert.deepEqual(waiting, [`waiting for a program to write into the FIFO ${fifo}`]);
  assert.equal(r.spanCount, 0);

  // The command line says so too, and goes on once a writer comes.
  const io = bufferIO();
  const run = runOtlp(['--file', fifo, '--json'], io);
  for (let i = 0; i < 300 && !/waiting/.test(io.stderr); i++) await new Promise((res) => setTimeout(res, 10));
  assert.match(io.stderr, /hoplens otlp: waiting for a program to write into the FIFO .*idle\.fifo \(Ctrl-C to stop\)/);
  createWriteStream(fifo).end(readFileSync(EXPORT));
  assert.equal(await run, 0);
});

test('gzip is read as is; other compressions are named with the command that reads them', async () => {
  const dir = tempDir();
  const gz = join(dir, 'export.jsonl.gz');
  writeFileSync(gz, gzipSync(readFileSync(EXPORT)));
  const r = await readCollectorFile(gz);
  assert.equal(r.spanCount, 4);
  assert.equal(r.badLineCount, 1);
  const zst = join(dir, 'export.jsonl.zst');
  writeFileSync(zst, Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x00]));
  const io = bufferIO();
  assert.equal(await runOtlp(['--file', zst], io), 2);
  assert.match(io.stderr, /export\.jsonl\.zst is zstd-compressed; read it with: zstdcat .*export\.jsonl\.zst \| hoplens otlp --file -/);
});

test('a line longer than 64 MiB is skipped and said so; the lines after it are read', async () => {
  const dir = tempDir();
  const f = join(dir, 'long.jsonl');
  const good = readFileSync(EXPORT, 'utf8').split('\n')[0];
  writeFileSync(f, `${good}\n{"resourceSpans":[{"pad":"${'x'.repeat(65 * 1024 * 1024)}"}]}\n${good}\n`);
  const r = await readCollectorFile(f);
  assert.equal(r.spanCount, 4);
  assert.deepEqual(r.badLines, [{ line: 2, message: 'line is longer than 64 MiB; skipped' }]);
});

test('--file - reads standard input (the built command line)', async () => {
  const child = spawn(process.execPath, [CLI, 'otlp', '--file', '-', '--json'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stdin.end(gzipSync(readFileSync(EXPORT)));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0);
  assert.equal(JSON.parse(out.trim().split('\n').pop()!).spans, 4);
});
