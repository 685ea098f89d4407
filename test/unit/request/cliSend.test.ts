// `hoplens send` end to end against the fake engine: the --json shape of §7, the readable
// table with --frames, and the exit codes 0 / 1 / 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSend } from '../../../src/cli/send';
import { bufferIO } from '../../../src/cli/io';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { makeTempDir } from '../../harness/tempDirs';

test('--json prints one object with the documented fields; exit 0 on a complete stream', async () => {
  const h = await startFakeEngine({ engine: 'vllm', schedule: 'first=30,every=5' });
  try {
    const io = bufferIO();
    const code = await runSend(['--url', h.url, '--max-tokens', '5', '--rid', 'hoplens-cli-1', '--json'], io);
    assert.equal(code, 0, io.stderr);
    const lines = io.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const j = JSON.parse(lines[0]) as Record<string, unknown>;
    for (const k of ['url', 'status', 'requestId', 'serverIds', 'ttftContentMs', 'ttftFirstFrameMs', 'headersMs', 'e2eMs', 'outputTokens', 'itlMs', 'frames', 'signatures', 'error']) {
      assert.ok(k in j, `missing ${k}`);
    }
    assert.equal(j.url, `${h.url}/v1/chat/completions`);
    assert.equal(j.status, 200);
    assert.equal(j.requestId, 'hoplens-cli-1');
    assert.deepEqual(j.serverIds, ['chatcmpl-hoplens-cli-1']);
    assert.equal(j.outputTokens, 5);
    assert.equal(j.error, null);
    assert.ok((j.ttftContentMs as number) >= 29);
    assert.deepEqual(Object.keys(j.itlMs as object), ['mean', 'p50', 'p90', 'p99', 'max']);
    const frames = j.frames as { t: number; bytes: number; kind: string; chars: number }[];
    assert.deepEqual(Object.keys(frames[0]), ['t', 'bytes', 'kind', 'chars']);
    assert.deepEqual(frames.map((f) => f.kind), ['role-only', 'content', 'content', 'content', 'content', 'content', 'finish', 'usage', 'done']);
  } finally { await h.close(); }
});

test('the readable report has the lab\'s rows and, with --frames, the frames table', async () => {
  const h = await startFakeEngine({ engine: 'sglang', schedule: 'first=10,every=3' });
  try {
    const io = bufferIO();
    const code = await runSend(['--url', h.url, '--max-tokens', '4', '--frames', '--api', 'sglang-generate'], io);
    assert.equal(code, 0, io.stderr);
    assert.match(io.stdout, /TTFT, first frame WITH content +\d+\.\d ms/);
    assert.match(io.stdout, /TTFT, first frame at all +\d+\.\d ms/);
    assert.match(io.stdout, /p99 ITL +\d+\.\d\d ms/);
    assert.match(io.stdout, / {3}# {5}t\(ms\) {3}dt\(ms\) {2}chars {2}kind/);
    assert.match(io.stdout, /content +" How"/);
  } finally { await h.close(); }
});

test('exit 1 when the server fails, with the error in the JSON', async () => {
  const h = await startFakeEngine({ engine: 'vllm', schedule: 'first=5,every=2,error@1' });
  try {
    const io = bufferIO();
    const code = await runSend(['--url', h.url, '--json', '--max-tokens', '3'], io);
    assert.equal(code, 1);
    const j = JSON.parse(io.stdout) as { error: { kind: string; hint: string } };
    assert.equal(j.error.kind, 'error-frame');
    assert.ok(j.error.hint.length > 0);
  } finally { await h.close(); }
});

test('exit 2 on bad input, with a message that says what is wrong', async () => {
  for (const [args, pattern] of [
    [['--max-tokens', 'lots'], /--max-tokens needs a number/],
    [['--engine', 'tgi'], /engine must be auto, vllm or sglang/],
    [['--extra', '[1,2]'], /--extra needs a JSON object/],
    [['--bogus'], /unknown option '--bogus'/],
    [['--url', 'ftp://x'], /http:\/\/ or https:\/\//],
  ] as [string[], RegExp][]) {
    const io = bufferIO();
    const code = await runSend(args, io);
    assert.equal(code, 2, args.join(' '));
    assert.match(io.stderr, pattern);
  }
});

test('--repeat N reports the distribution across runs', async () => {
  const h = await startFakeEngine({ engine: 'vllm', schedule: 'first=10,every=2' });
  try {
    const io = bufferIO();
    const code = await runSend(['--url', h.url, '--max-tokens', '4', '--repeat', '3', '--json'], io);
    assert.equal(code, 0, io.stderr);
    const lines = io.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 4);
    assert.deepEqual(lines.slice(0, 3).map((l) => (l.requestId as string).split('.').at(-1)), ['1', '2', '3']);
    const summary = lines[3].summary as { runs: number; completed: number; ttftContentMs: { count: number } };
    assert.equal(summary.runs, 3);
    assert.equal(summary.completed, 3);
    assert.equal(summary.ttftContentMs.count, 3);
  } finally { await h.close(); }
});

test('--log FILE lists this request\'s server lines (and only its lines) beside the client times', async () => {
  const { writeFileSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const log = join(makeTempDir('hoplens-cli-').path, 'vllm.log');
  writeFileSync(log, readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'request', 'vllm_info_chat_and_abort.log')));
  const h = await startFakeEngine({ engine: 'vllm', schedule: 'first=5,every=2', logFile: log });
  try {
    const io = bufferIO();
    const code = await runSend(['--url', h.url, '--max-tokens', '3', '--rid', 'hoplens-cli-log', '--log', log, '--json'], io);
    assert.equal(code, 0, io.stderr);
    const j = JSON.parse(io.stdout) as { serverLogLines: { line: number; text: string; resolution: string; sinceRequestStartMs: number }[] };
    const texts = j.serverLogLines.map((l) => l.text);
    assert.ok(texts.some((t) => /Received request chatcmpl-hoplens-cli-log: /.test(t)));
    assert.ok(texts.some((t) => /Added request chatcmpl-hoplens-cli-log-[0-9a-f]{8}\./.test(t)));
    assert.ok(texts.every((t) => t.includes('hoplens-cli-log')));
    assert.ok(j.serverLogLines[0].line > 17, 'line numbers count the lines already in the file');
    assert.equal(j.serverLogLines[0].resolution, 's');
    assert.ok(Math.abs(j.serverLogLines[0].sinceRequestStartMs) <= 1500, 'server stamp within a second of the client start');
  } finally { await h.close(); }
});
