// `hoplens otlp` shapes and exit codes: --file on the collector fixture, --listen fed by the SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { bufferIO } from '../../../src/cli/io';
import { runOtlp } from '../../../src/cli/otlp';
import { FIXTURES, exportFixtureWithSdk, tempDir } from './helpers';
import { readCollectorFile } from '../../../src/core/otlp/collectorFile';

const EXPORT = join(FIXTURES, 'collector_export.jsonl');

test('--file --json: one request object per llm_request, then a summary; bad lines go to stderr', async () => {
  const io = bufferIO();
  assert.equal(await runOtlp(['--file', EXPORT, '--json'], io), 0);
  const objs = io.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(objs.map((o) => o.kind), ['request', 'request', 'summary']);
  assert.equal(objs[0].rid, 'chatcmpl-c0ffee01');
  assert.equal(objs[0].queueMs, 30.1);
  assert.equal(objs[0].promptTokens, 1024);
  assert.equal(objs[0].traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  assert.equal(objs[1].rid, 'cmpl-c0ffee02-0');
  assert.deepEqual(objs[2], { kind: 'summary', spans: 4, requests: 2, batches: 1, snapshots: 2, lines: 3, badLines: 1 });
  assert.match(io.stderr, /collector_export\.jsonl:2: skipped: not valid JSON/);
});

test('--file readable: a table of requests and a count line; --rid shows the breakdown and the snapshots', async () => {
  const io = bufferIO();
  assert.equal(await runOtlp([EXPORT], io), 0);
  const lines = io.stdout.split('\n');
  assert.match(lines[0], /^request\s+prompt\s+output\s+queue\s+prefill\s+decode\s+inference\s+TTFT\s+E2E$/);
  assert.match(lines[2], /^chatcmpl-c0ffee01\s+1024\s+256\s+30\.1\s+177\.9\s+2181\.1\s+2359\.0\s+210\.5\s+2401\.2$/);
  assert.match(io.stdout, /2 request\(s\), 4 span\(s\), 1 step batch summary, 2 request snapshot\(s\), 1 bad line\(s\) skipped/);

  const one = bufferIO();
  assert.equal(await runOtlp(['--file', EXPORT, '--rid', 'chatcmpl-c0ffee01'], one), 0);
  assert.match(one.stdout, /### Engine timing for `chatcmpl-c0ffee01`/);
  assert.match(one.stdout, /\| 701 \| DECODE \| 1 \| 1024 \| 1 \| 0 \| 65 \| 0 \|/);
  const oneJson = bufferIO();
  assert.equal(await runOtlp(['--file', EXPORT, '--rid', 'chatcmpl-c0ffee01', '--json'], oneJson), 0);
  assert.deepEqual(oneJson.stdout.trim().split('\n').map((l) => JSON.parse(l).kind), ['request', 'snapshot', 'snapshot', 'summary']);
  const missing = bufferIO();
  assert.equal(await runOtlp(['--file', EXPORT, '--rid', 'chatcmpl-nope'], missing), 1);
  assert.match(missing.stderr, /no llm_request span for 'chatcmpl-nope'/);
});

test('exit codes: 2 for usage and missing files, 1 for a file without spans', async () => {
  const dir = tempDir();
  const cases: Array<[string[], number, RegExp]> = [
    [[], 2, /missing --listen HOST:PORT or --file/],
    [['--file'], 2, /--file needs a value/],
    [['--listen', 'nowhere'], 2, /--listen wants HOST:PORT or PORT/],
    [['--listen', '127.0.0.1:0', '--file', EXPORT], 2, /either --listen or --file/],
    [['--listen', '127.0.0.1:0', '--max-seconds', 'soon'], 2, /--max-seconds must be a number/],
    [['--bogus'], 2, /unknown option '--bogus'/],
    [['--file', join(dir, 'none.json')], 2, /no such file/],
  ];
  for (const [argv, code, msg] of cases) {
    const io = bufferIO();
    assert.equal(await runOtlp(argv, io), code, argv.join(' '));
    assert.match(io.stderr, msg);
  }
  const { writeFileSync } = await import('node:fs');
  const junk = join(dir, 'junk.jsonl');
  writeFileSync(junk, 'hello\nworld\n');
  const io = bufferIO();
  assert.equal(await runOtlp(['--file', junk, '--json'], io), 1);
  assert.match(io.stderr, /junk\.jsonl:1: skipped/);
  assert.equal(JSON.parse(io.stdout.trim()).spans, 0);
});

test('--listen prints the launch line, one line per llm_request, writes --out and stops after --max-seconds', async () => {
  const dir = tempDir();
  const outFile = join(dir, 'spans.jsonl');
  const io = bufferIO();
  const run = runOtlp(['--listen', '127.0.0.1:0', '--out', outFile, '--max-seconds', '1.5'], io);
  let url = '';
  for (let i = 0; i < 100 && !url; i++) {
    await new Promise((r) => setTimeout(r, 10));
    url = /listening on (\S+)/.exec(io.stdout)?.[1] ?? '';
  }
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
  assert.match(io.stdout, new RegExp(`OTEL_SERVICE_NAME=vllm OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf vllm serve <model> --otlp-traces-endpoint ${url.replace(/[.]/g, '\\.')}`));
  await exportFixtureWithSdk(url, 'protobuf', Date.UTC(2026, 10, 29, 9, 0, 0));
  assert.equal(await run, 0);
  assert.match(io.stdout, /chatcmpl-hl0001\s+queue 12\.5\s+prefill 168\.0\s+decode 1050\.0\s+TTFT 182\.5\s+E2E 1240\.5 ms\s+tokens 812→128/);
  assert.match(io.stdout, /cmpl-hl0002-0\s+queue 4\.0/);
  assert.match(io.stdout, /stopped: 4 span\(s\) in \d+ export request\(s\), 2 llm_request, 0 rejected/);
  // --out writes OTLP JSON Lines (one TracesData per export request): --file reads it back.
  const lines = readFileSync(outFile, 'utf8').trim().split('\n');
  assert.ok(lines.every((l) => Array.isArray(JSON.parse(l).resourceSpans)));
  const back = await readCollectorFile(outFile);
  assert.equal(back.badLineCount, 0);
  assert.deepEqual(back.spans.map((s) => s.name).sort(), ['llm_core', 'llm_request', 'llm_request', 'scheduler_steps_1']);
  const again = bufferIO();
  assert.equal(await runOtlp(['--file', outFile], again), 0);
  assert.equal(again.stderr, '');
  assert.match(again.stdout, /2 request\(s\), 4 span\(s\), 3 step batch summaries, 4 request snapshot\(s\)$/m);
});

test('--listen on a port in use exits 1 and says so; a non-loopback host warns', async () => {
  const blocker = net.createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const io = bufferIO();
    assert.equal(await runOtlp(['--listen', `127.0.0.1:${port}`, '--max-seconds', '0'], io), 1);
    assert.match(io.stderr, /already in use/);
  } finally {
    blocker.close();
  }
  const io = bufferIO();
  assert.equal(await runOtlp(['--listen', '0.0.0.0:0', '--max-seconds', '0'], io), 0);
  assert.match(io.stderr, /warning: listening on 0\.0\.0\.0, not loopback/);
});
