// Reading logs from disk: streaming, byte offsets, bad input, growing and rotated files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, appendFileSync, rmSync, renameSync, readFileSync, openSync, ftruncateSync, closeSync, writeSync, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogInputError, LINE_PARSE_CAP } from '../../../src/core/logs/scanner';
import { LogFileFeed, scanLogFile } from '../../../src/core/session/logStream';
import { LogSession } from '../../../src/core/session/logSession';
import type { LogRecord } from '../../../src/core/logs/model';

const ADDED = '(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-myrun-0001-9e1f0c2d.';
const RECEIVED = '(APIServer pid=2101) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-myrun-0001: params: SamplingParams(n=1), lora_request: None.';

function tmp(): string { return mkdtempSync(join(tmpdir(), 'hoplens-scan-')); }

async function scan(path: string): Promise<LogRecord[]> {
  const recs: LogRecord[] = [];
  await scanLogFile(path, (r) => recs.push(r));
  return recs;
}

test('byte offsets and line numbers survive CRLF, multi-byte UTF-8 and a missing final newline', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'vllm.log');
    const lines = ['héllo wörld', `${RECEIVED}\r`, ADDED];
    writeFileSync(p, lines.join('\n'));
    const recs = await scan(p);
    assert.equal(recs.length, 3);
    const buf = readFileSync(p);
    for (const r of recs) {
      const end = buf.indexOf(10, r.offset);
      const raw = buf.toString('utf8', r.offset, end === -1 ? buf.length : end).replace(/\r$/, '');
      assert.equal(raw, lines[r.line - 1].replace(/\r$/, ''));
    }
    assert.equal(recs[2].hop, 'V2');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('a 1 MB line is parsed from its start, counted, and the next line still parses', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'big.log');
    const huge = RECEIVED.replace('SamplingParams(n=1)', 'SamplingParams(' + 'x'.repeat(1024 * 1024) + ')');
    writeFileSync(p, `${huge}\n${ADDED}\n`);
    const recs = await scan(p);
    assert.equal(recs.length, 2);
    assert.equal(recs[0].truncated, true);
    assert.ok(recs[0].message.length <= LINE_PARSE_CAP);
    assert.equal(recs[0].process, 'APIServer');
    assert.equal(recs[1].line, 2);
    assert.equal(recs[1].offset, Buffer.byteLength(huge) + 1);
    assert.equal(recs[1].hop, 'V2');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('invalid UTF-8 becomes U+FFFD and the line still parses', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'bad-utf8.log');
    writeFileSync(p, Buffer.concat([Buffer.from(ADDED.replace('.', ' ')), Buffer.from([0xff, 0xfe, 0x2e, 0x0a])]));
    const [r] = await scan(p);
    assert.ok(r.message.includes('\uFFFD'));
    assert.equal(r.process, 'APIServer');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('binary, missing and empty inputs', async () => {
  const dir = tmp();
  try {
    const bin = join(dir, 'model.bin');
    writeFileSync(bin, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]));
    await assert.rejects(scan(bin), (e: unknown) => e instanceof LogInputError && e.code === 'binary' && /binary/.test(e.message));
    await assert.rejects(scan(join(dir, 'nope.log')), (e: unknown) => e instanceof LogInputError && e.code === 'missing');
    await assert.rejects(scan(dir), (e: unknown) => e instanceof LogInputError && e.code === 'not-a-file');
    const empty = join(dir, 'empty.log');
    writeFileSync(empty, '');
    assert.deepEqual(await scan(empty), []);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('following a growing log: appends, a half-written line, truncation and rotation', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'vllm.log');
    writeFileSync(p, RECEIVED + '\n');
    const f = new LogFileFeed(p, new LogSession());
    let r = await f.poll();
    assert.equal(r.added.length, 1);
    appendFileSync(p, ADDED.slice(0, 30));
    r = await f.poll();
    assert.equal(r.added.length, 0, 'half a line waits for its newline');
    appendFileSync(p, ADDED.slice(30) + '\n');
    r = await f.poll();
    assert.equal(r.added.length, 1);
    assert.equal(r.added[0].hop, 'V2');
    assert.equal(r.added[0].line, 2);
    assert.equal(r.added[0].offset, Buffer.byteLength(RECEIVED) + 1);
    assert.equal(f.session.tracker.get('chatcmpl-myrun-0001')!.hops.length, 2);

    writeFileSync(p, ADDED + '\n'); // truncated and rewritten (copytruncate)
    r = await f.poll();
    assert.equal(r.reset, true);
    assert.equal(r.added[0].line, 1);

    renameSync(p, p + '.1'); // rotated: a new file at the same path
    writeFileSync(p, RECEIVED + '\n' + ADDED + '\n' + ADDED + '\n');
    r = await f.poll();
    assert.equal(r.reset, true);
    assert.equal(r.added.length, 3);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('a big log followed in small slices (as the editor reads one) is read from disk in a few large reads, with the same lines', async () => {
  const dir = tmp();
  const realOpen = fsp.open;
  let opens = 0;
  try {
    const p = join(dir, 'vllm.log');
    const lines: string[] = [];
    for (let i = 0; lines.length < 120_000; i++) lines.push(RECEIVED.replace('myrun-0001', `run-${i}`), ADDED.replace('myrun-0001', `run-${i}`));
    writeFileSync(p, lines.join('\n') + '\n'); // ~30 MB
    const whole = new LogFileFeed(p, new LogSession());
    const all = (await whole.poll()).added;
    fsp.open = (async (...args: Parameters<typeof realOpen>) => { opens++; return realOpen(...args); }) as typeof realOpen;
    const sliced = new LogFileFeed(p, new LogSession());
    const got: LogRecord[] = [];
    for (;;) {
      const { added } = await sliced.poll(256 * 1024);
      if (added.length === 0) break;
      got.push(...added);
    }
    assert.equal(got.length, lines.length);
    assert.deepEqual(got.map((r) => [r.line, r.offset, r.hop, r.rid]), all.map((r) => [r.line, r.offset, r.hop, r.rid]));
    assert.equal(sliced.session.tracker.requestCount, whole.session.tracker.requestCount);
    assert.ok(opens <= 10, `the file was opened ${opens} times for ${Math.ceil(readFileSync(p).length / 262144)} slices`);
    // Rewritten while slices read ahead were still being parsed: the next read from disk starts over.
    writeFileSync(p, ADDED + '\n');
    let reset = false;
    for (let i = 0; i < 200 && !reset; i++) reset = (await sliced.poll(256 * 1024)).reset;
    assert.ok(reset, 'the truncation was seen');
    assert.equal(sliced.session.linesParsed, 1);
  } finally { fsp.open = realOpen; rmSync(dir, { recursive: true, force: true }); }
});

test('a 2 GB file with NUL bytes after its first line is refused as binary', async () => {
  const dir = tmp();
  try {
    const p = join(dir, 'huge.bin');
    const fd = openSync(p, 'w');
    writeSync(fd, 'INFO 08-21 22:30:05 [x.py:1] looks like a log at first\n');
    ftruncateSync(fd, 2 * 1024 * 1024 * 1024); // sparse: NUL bytes from here on
    closeSync(fd);
    await assert.rejects(scan(p), (e: unknown) => e instanceof LogInputError && e.code === 'binary' && /NUL bytes in its first 64 KB/.test(e.message));
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
