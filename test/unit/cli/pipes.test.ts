// The command line as a Unix citizen, through the built CLI in a child process: it waits for a
// slow reader instead of buffering, ends quietly when the reader goes away (`| head -1`), says
// "no space left" in one line, and reads logs from standard input, FIFOs and gzip files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CLI, LOG_FIXTURES, finished, headOne, runCli, startCli } from './cliProcess';

const LOG = join(LOG_FIXTURES, 'vllm_info_chat_and_abort.log');
const ENCODED = join(LOG_FIXTURES, 'encoded');
let dir = '';
let bigLog = '';
let bigText = '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hoplens-pipes-'));
  bigLog = join(dir, 'vllm.log');
  // ~12 MB: its JSON is far more than a pipe holds.
  bigText = readFileSync(LOG, 'utf8').repeat(1000);
  writeFileSync(bigLog, bigText);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function jsonLines(b: Buffer | string): Array<Record<string, unknown>> {
  return b.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A trace folder whose full listing is many megabytes. */
function bigTraceFolder(): string {
  const inst = join(dir, 'traces', 'vllm-instance-1');
  if (existsSync(inst)) return join(dir, 'traces');
  mkdirSync(inst, { recursive: true });
  const V = '/usr/lib/python3/site-packages/vllm/v1/engine/core.py';
  const lines: string[] = [];
  for (let i = 0; i < 60_000; i++) {
    const us = String(i % 1_000_000).padStart(6, '0');
    lines.push(`2026-08-21 22:30:01.${us} Call to step in ${V}:380 from run_busy_loop in ${V}:870`);
    lines.push(`2026-08-21 22:30:01.${us} Return from step in ${V}:380 to run_busy_loop in ${V}:870`);
  }
  writeFileSync(join(inst, 'VLLM_TRACE_FUNCTION_for_process_2150_thread_140_at_2026-08-21_22:30:01.000001.log'), lines.join('\n') + '\n');
  return join(dir, 'traces');
}

for (const [name, args] of [
  ['annotate --json', () => ['annotate', bigLog, '--json']],
  ['annotate (table)', () => ['annotate', bigLog]],
  ['calltrace --json', () => ['calltrace', bigTraceFolder(), '--filter', '', '--limit', '0', '--json']],
  ['calltrace (table)', () => ['calltrace', bigTraceFolder(), '--filter', '', '--limit', '0']],
] as const) {
  test(`${name} | head -1: exits 0 without a word on stderr`, async () => {
    const child = startCli(args());
    const done = finished(child, { collectStdout: false });
    const first = await headOne(child);
    assert.ok(first.length > 0);
    const r = await done;
    assert.equal(r.stderr, '', 'nothing on stderr (no EPIPE stack)');
    assert.equal(r.code, 0, `exit code ${r.code}`);
  });
}

for (const args of [['map', '--engine', 'vllm'], ['map', '--engine', 'sglang', '--json'], ['annotate', LOG, '--json'], ['annotate', LOG]]) {
  const shown = args.map((a) => (a === LOG ? 'LOG' : a)).join(' ');
  test(`${shown} > /dev/full: one line saying the disk is full, exit 2`, { skip: !existsSync('/dev/full') && 'no /dev/full' }, async () => {
    const fd = openSync('/dev/full', 'w');
    const out = await finished(startCli(args, { stdio: ['ignore', fd, 'pipe'] }), { collectStdout: false }).finally(() => closeSync(fd));
    assert.equal(out.code, 2);
    assert.equal(out.stderr, 'hoplens: cannot write the output: no space left on the device (ENOSPC)\n');
  });
}

test('annotate --json into a reader that stops: the CLI stops reading its input, and finishes the output intact once the reader resumes', async () => {
  const child = startCli(['annotate', '-', '--json'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const done = finished(child, { collectStdout: false });
  child.stdin!.on('error', () => { /* a CLI that refused its input closed the pipe: the exit code below says so */ });
  child.stdout!.pause();
  const input = Buffer.from(bigText.repeat(10)); // ~42 MB of log, ~130 MB of JSON
  let accepted = 0;
  let stalled = false;
  const CHUNK = 256 * 1024;
  // Feed the log until the child stops taking it (no progress for a second), without reading its output.
  await new Promise<void>((resolve) => {
    let idle: NodeJS.Timeout | null = null;
    const arm = (): void => { if (idle) clearTimeout(idle); idle = setTimeout(() => { stalled = true; resolve(); }, 1000); };
    const pump = (): void => {
      if (stalled) return;
      arm();
      while (accepted < input.length) {
        const piece = input.subarray(accepted, accepted + CHUNK);
        accepted += piece.length;
        if (!child.stdin!.write(piece)) { child.stdin!.once('drain', pump); return; }
      }
      resolve();
    };
    pump();
  });
  assert.ok(accepted < input.length / 4, `with nobody reading, the CLI took ${(accepted / 1e6).toFixed(1)} of ${(input.length / 1e6).toFixed(1)} MB of input (it should wait for the reader)`);
  // Resume: read everything, feed the rest.
  const chunks: Buffer[] = [];
  child.stdout!.on('data', (b: Buffer) => chunks.push(b));
  child.stdout!.resume();
  child.stdin!.end(input.subarray(accepted));
  const r = await done;
  assert.equal(r.code, 0, r.stderr);
  const out = Buffer.concat(chunks).toString('utf8');
  const objs = out.trim().split('\n');
  const summary = JSON.parse(objs[objs.length - 1]) as { kind: string; lines: number };
  assert.equal(summary.kind, 'summary');
  assert.equal(summary.lines, input.toString('utf8').split('\n').length - 1);
  assert.equal(objs.length, summary.lines + 1);
});

/** Bytes a process has read so far (Linux /proc/PID/io). */
function bytesRead(pid: number): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

test('annotate LOG --json into a reader that stops: the CLI stops reading the log until the reader catches up', { skip: !existsSync('/proc/self/io') && 'needs /proc/PID/io' }, async () => {
  const log = join(dir, 'vllm-42mb.log');
  writeFileSync(log, bigText.repeat(10));
  const size = Buffer.byteLength(bigText) * 10;
  const child = startCli(['annotate', log, '--json']);
  const done = finished(child, { collectStdout: false });
  child.stdout!.pause();
  // Wait until the child's reading stops growing for a second (or it read everything).
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = bytesRead(child.pid!);
    if (now === last || now >= size) break;
    last = now;
  }
  const readWhileStopped = bytesRead(child.pid!);
  let lines = 0;
  child.stdout!.on('data', (b: Buffer) => { for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++; });
  child.stdout!.resume();
  const r = await done;
  assert.equal(r.code, 0, r.stderr);
  assert.ok(readWhileStopped < size / 4, `with nobody reading its output, the CLI read ${(readWhileStopped / 1e6).toFixed(1)} of ${(size / 1e6).toFixed(1)} MB of the log`);
  assert.equal(lines, bigText.split('\n').length * 10 - 10 + 1, 'every line, then the summary');
});

test('annotate - reads standard input (kubectl logs … | hoplens annotate -), same records as the file', async () => {
  const fromFile = await runCli(['annotate', LOG, '--json']);
  const fromStdin = await runCli(['annotate', '-', '--json'], { input: readFileSync(LOG) });
  assert.equal(fromStdin.code, 0, fromStdin.stderr);
  const a = jsonLines(fromFile.stdout);
  const b = jsonLines(fromStdin.stdout);
  assert.deepEqual(b.slice(0, -1), a.slice(0, -1));
  const summary = b[b.length - 1] as { file: string; counts: Record<string, number>; requests: { count: number } };
  assert.equal(summary.file, '-');
  assert.deepEqual(summary.counts, (a[a.length - 1] as { counts: unknown }).counts);
  const table = await runCli(['annotate', '-'], { input: readFileSync(LOG) });
  assert.equal(table.code, 0);
  assert.match(table.stdout.toString(), /^standard input: vllm, \d+ line/m);
});

test('annotate FIFO (a named pipe, as <(zcat …) or mkfifo give) streams it', { skip: process.platform === 'win32' }, async () => {
  const fifo = join(dir, 'log.fifo');
  execFileSync('mkfifo', [fifo]);
  const child = startCli(['annotate', fifo, '--json']);
  const done = finished(child);
  // The writer opens the FIFO after the reader: write from a shell so the open blocks there, not here.
  const writer = spawn('sh', ['-c', `cat "$1" > "$2"`, 'sh', LOG, fifo], { stdio: 'ignore' });
  const written = new Promise((res) => writer.on('close', res));
  const r = await done;
  if (writer.exitCode === null) writer.kill(); // a CLI that refused the FIFO leaves the writer waiting for a reader
  await written;
  assert.equal(r.code, 0, r.stderr);
  const objs = jsonLines(r.stdout);
  const summary = objs[objs.length - 1] as { kind: string; lines: number; counts: Record<string, number> };
  assert.equal(summary.lines, readFileSync(LOG, 'utf8').split('\n').length - 1);
  assert.equal(summary.counts.V2, 2);
});

test('annotate vllm.log.gz decompresses as it reads (and gzip bytes on standard input too)', async () => {
  const plain = jsonLines((await runCli(['annotate', LOG, '--json'])).stdout);
  const gz = await runCli(['annotate', join(ENCODED, 'vllm.log.gz'), '--json']);
  assert.equal(gz.code, 0, gz.stderr);
  const g = jsonLines(gz.stdout);
  assert.deepEqual(g.slice(0, -1), plain.slice(0, -1));
  assert.equal((g[g.length - 1] as { compression: string }).compression, 'gzip');
  const piped = await runCli(['annotate', '-', '--json'], { input: readFileSync(join(ENCODED, 'vllm.log.gz')) });
  assert.equal(piped.code, 0, piped.stderr);
  assert.deepEqual(jsonLines(piped.stdout).slice(0, -1), plain.slice(0, -1));
  // A gzip file cut short (still being compressed) says so instead of crashing.
  const whole = gzipSync(Buffer.from(bigText));
  const cut = join(dir, 'cut.log.gz');
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  const r = await runCli(['annotate', cut, '--json']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^hoplens annotate: .*cut\.log\.gz: the gzip data ends early/);
  assert.equal(r.stderr.split('\n').length, 2, 'one line');
});

for (const [file, cause, fix] of [
  ['vllm.log.zst', /is zstd-compressed/, /zstd -dc \S+vllm\.log\.zst \| hoplens annotate -/],
  ['vllm.log.xz', /is xz-compressed/, /xz -dc \S+vllm\.log\.xz \| hoplens annotate -/],
  ['vllm.log.bz2', /is bzip2-compressed/, /bzip2 -dc \S+vllm\.log\.bz2 \| hoplens annotate -/],
  ['vllm.utf16.log', /is UTF-16 text/, /iconv -f UTF-16 -t UTF-8 \S+vllm\.utf16\.log \| hoplens annotate -/],
  ['vllm.utf16le.log', /is UTF-16LE text/, /iconv -f UTF-16LE -t UTF-8 \S+vllm\.utf16le\.log \| hoplens annotate -/],
] as const) {
  test(`annotate ${file}: names the cause and the command that fixes it`, async () => {
    const r = await runCli(['annotate', join(ENCODED, file)]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, cause);
    assert.match(r.stderr, fix);
    assert.doesNotMatch(r.stderr, /binary file/);
  });
}

test('annotate of a log truncated by logrotate copytruncate (a leading NUL run): says so and how to strip it', async () => {
  const p = join(dir, 'copytruncated.log');
  writeFileSync(p, Buffer.concat([Buffer.alloc(200_000), readFileSync(LOG)]));
  const r = await runCli(['annotate', p]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /starts with 200,000 NUL bytes/);
  assert.match(r.stderr, /copytruncate/);
  assert.match(r.stderr, /tr -d '\\000' < \S+copytruncated\.log \| hoplens annotate -/);
  // And the suggested command works.
  const fixed = execFileSync('sh', ['-c', `tr -d '\\000' < "$1" | node "$2" annotate - --json | tail -1`, 'sh', p, CLI], { encoding: 'utf8' });
  assert.equal((JSON.parse(fixed) as { counts: Record<string, number> }).counts.V2, 2);
});

test('annotate /dev/zero is refused at once, not read forever', async () => {
  const r = await runCli(['annotate', '/dev/zero']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /NUL bytes/);
});

// A shell's `|` is a kernel pipe (the tests above get a socket pair from Node): output into it goes
// through the CLI's writer thread, which must keep the order, the backpressure and the quiet end.
test('annotate --json | cat (a kernel pipe): the same bytes as into a file', { skip: process.platform === 'win32' }, () => {
  const viaFile = join(dir, 'out-file.jsonl');
  const viaPipe = join(dir, 'out-pipe.jsonl');
  const log = join(dir, 'vllm-3x.log');
  writeFileSync(log, bigText.repeat(3));
  execFileSync(process.execPath, [CLI, 'annotate', log, '--json'], { stdio: ['ignore', openSync(viaFile, 'w'), 'inherit'] });
  execFileSync('sh', ['-c', '"$0" "$1" annotate "$2" --json | cat > "$3"', process.execPath, CLI, log, viaPipe], { stdio: 'inherit' });
  const [a, b] = [readFileSync(viaFile), readFileSync(viaPipe)];
  assert.ok(a.length > 8 << 20, 'several of the writer\'s buffers');
  assert.ok(a.equals(b), `pipe output differs from file output (${b.length} vs ${a.length} bytes)`);
});

test('annotate --json | head -1 (a kernel pipe): exits 0 without a word on stderr', { skip: process.platform === 'win32' }, () => {
  const out = execFileSync('bash', ['-c', '"$0" "$1" annotate "$2" --json 2>"$3" | head -1 > /dev/null; echo "${PIPESTATUS[0]}"', process.execPath, CLI, bigLog, join(dir, 'head.err')], { encoding: 'utf8' });
  assert.equal(out.trim(), '0');
  assert.equal(readFileSync(join(dir, 'head.err'), 'utf8'), '');
});

test('annotate LOG --json into a kernel pipe nobody reads: the CLI stops reading the log until the reader catches up', { skip: (!existsSync('/proc/self/io') || process.platform === 'win32') && 'needs Linux' }, async () => {
  const log = join(dir, 'vllm-42mb-fifo.log');
  writeFileSync(log, bigText.repeat(10));
  const size = Buffer.byteLength(bigText) * 10;
  const fifo = join(dir, 'out.fifo');
  execFileSync('mkfifo', [fifo]);
  const writeEnd = openSync(fifo, 'r+'); // read-write: opening does not wait for a reader
  const child = startCli(['annotate', log, '--json'], { stdio: ['ignore', writeEnd, 'pipe'] });
  closeSync(writeEnd);
  const done = finished(child, { collectStdout: false });
  let last = -1;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = bytesRead(child.pid!);
    if (now === last || now >= size) break;
    last = now;
  }
  const readWhileStopped = bytesRead(child.pid!);
  let lines = 0;
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
  reader.stdout.on('data', (b: Buffer) => { for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++; });
  // Listen before awaiting the CLI: cat may see the end of the pipe and close first.
  const readerClosed = new Promise((resolve) => reader.on('close', resolve));
  const r = await done;
  await readerClosed;
  assert.equal(r.code, 0, r.stderr);
  assert.ok(readWhileStopped < size / 4, `with nobody reading its output, the CLI read ${(readWhileStopped / 1e6).toFixed(1)} of ${(size / 1e6).toFixed(1)} MB of the log`);
  assert.equal(lines, bigText.split('\n').length * 10 - 10 + 1, 'every line, then the summary');
});
