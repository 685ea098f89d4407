// `hoplens otlp --listen --out` against the official OpenTelemetry JS exporters: what the file
// holds afterwards, read back with --file's reader, equals what the SDK sent, field by field; a
// file that cannot be written makes the receiver answer 503 (the exporter keeps the spans and
// sends them again) and says so; received text reaches the terminal with its control characters
// made visible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, rmSync, symlinkSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { bufferIO } from '../../../src/cli/io';
import { runOtlp } from '../../../src/cli/otlp';
import { readCollectorFile } from '../../../src/core/otlp/collectorFile';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import { tempDir } from './helpers';
import {
  EXPORT_SUCCESS, ENGINE_CORE_RESOURCE, VLLM_RESOURCE, assertSameSpans, assertStepTrial, exportBatched, exportOnce, idsWithBadSpans,
  llmRequestSpan, loadSpan, makeExporter, recordingTracer, stepTracingSpan, withSdkWarnings, type Protocol,
} from './trials';

const BASE_MS = Date.UTC(2026, 10, 29, 9, 0, 0);

interface Listening {
  url: string;
  io: ReturnType<typeof bufferIO>;
  /** Stops the receiver (like Ctrl-C) and resolves with the exit code. */
  stop(): Promise<number>;
}

async function listen(extra: string[]): Promise<Listening> {
  const io = bufferIO();
  const ac = new AbortController();
  const run = runOtlp(['--listen', '127.0.0.1:0', ...extra], io, ac.signal);
  let url = '';
  for (let i = 0; i < 200 && !url; i++) {
    const code = await Promise.race([run, new Promise<null>((r) => setTimeout(() => r(null), 10))]);
    if (code !== null) throw new Error(`otlp --listen ended with ${code}: ${io.stderr}`);
    url = /listening on (\S+)/.exec(io.stdout)?.[1] ?? '';
  }
  return { url, io, stop: () => { ac.abort(); return run; } };
}

test('--listen --out: mixed, gzip, 5,000-span, concurrent and step-tracing exports are in the file exactly as sent; --file reads it', async () => {
  const dir = tempDir();
  const out = join(dir, 'spans.jsonl');
  const rx = await listen(['--out', out]);
  const sent: Array<{ spans: Awaited<ReturnType<typeof exportBatched>>; protocol: Protocol }> = [];
  let step: ReturnType<typeof stepTracingSpan> | undefined;
  try {
    // A batch with a bad span (the SDK's id generator made "xyz"): the others are kept.
    for (const protocol of ['protobuf', 'json'] as Protocol[]) {
      const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine', idsWithBadSpans(new Map([[1, 'xyz']])));
      for (let i = 0; i < 3; i++) llmRequestSpan(tracer, `chatcmpl-${protocol}-m${i}`, BASE_MS, i, { big: i === 2 });
      const spans = finished();
      const { value: r, warnings } = await withSdkWarnings(() => exportOnce(makeExporter(rx.url, { protocol }), spans));
      assert.equal(r.code, EXPORT_SUCCESS);
      assert.match(warnings.join('\n'), /Partial Success.*1 of 3 span\(s\) rejected/);
      sent.push({ spans: spans.filter((s) => s.spanContext().spanId !== 'xyz'), protocol });
    }
    // 5,000 spans in one gzip request.
    sent.push({ protocol: 'protobuf', spans: await exportBatched(rx.url, { protocol: 'protobuf', gzip: true }, ENGINE_CORE_RESOURCE, 'vllm.model_loader', (t) => {
      for (let n = 0; n < 5000; n++) loadSpan(t, BASE_MS, n);
    }, 5000) });
    // Six exporters at once.
    const runs = await Promise.all(Array.from({ length: 6 }, async (_, e) => {
      const protocol: Protocol = e % 2 ? 'json' : 'protobuf';
      const spans = await exportBatched(rx.url, { protocol, gzip: e >= 3 }, { ...VLLM_RESOURCE, 'vllm.process_id': 6000 + e }, 'vllm.llm_engine',
        (t) => { for (let i = 0; i < 200; i++) llmRequestSpan(t, `chatcmpl-c${e}-${i}`, BASE_MS, i); }, 50);
      return { spans, protocol };
    }));
    sent.push(...runs);
    // The fork's step tracing (seed 004).
    sent.push({ protocol: 'json', spans: await exportBatched(rx.url, { protocol: 'json' }, ENGINE_CORE_RESOURCE, 'vllm.scheduler.step', (t) => {
      step = stepTracingSpan(t, BASE_MS, 3, 10, 4, 'json');
    }) });
  } finally {
    assert.equal(await rx.stop(), 0, rx.io.stderr);
  }
  const protocolOf = new Map(sent.flatMap((r) => r.spans.map((s) => [s.spanContext().spanId, r.protocol] as const)));
  const back = await readCollectorFile(out);
  assert.equal(back.badLineCount, 0);
  assertSameSpans(sent.flatMap((r) => r.spans), back.spans, (s) => protocolOf.get(s.spanContext().spanId)!, 'the --out file');
  const store = new SpanStore();
  store.add(back.spans);
  assertStepTrial(step!, (rid) => store.snapshots(rid), store.batches(), 'the --out file');
  assert.match(rx.io.stdout, /stopped: 6205 span\(s\) in \d+ export request\(s\), 1204 llm_request, 0 rejected, 2 bad span\(s\) refused\n$/);
  // One line per llm_request as it arrived.
  assert.equal(rx.io.stdout.split('\n').filter((l) => /chatcmpl-c\d-\d+\s+queue/.test(l)).length, 1200);

  const listing = bufferIO();
  assert.equal(await runOtlp(['--file', out, '--json'], listing), 0);
  const summary = JSON.parse(listing.stdout.trim().split('\n').pop()!);
  assert.deepEqual(summary, { kind: 'summary', spans: 6205, requests: 1204, batches: 10, snapshots: 40, lines: summary.lines, badLines: 0 });
  assert.equal(listing.stderr, '');
});

test('--out that cannot be written: 503 with Retry-After while it fails, said on stderr; once it can, the retried spans are written once', async () => {
  const dir = tempDir();
  const link = join(dir, 'spans.jsonl');
  symlinkSync('/dev/full', link); // every write: ENOSPC
  const rx = await listen(['--out', link]);
  try {
    const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine');
    for (let i = 0; i < 3; i++) llmRequestSpan(tracer, `chatcmpl-full${i}`, BASE_MS, i);
    const spans = finished();
    const exporting = exportOnce(makeExporter(rx.url, { protocol: 'protobuf' }), spans);
    for (let i = 0; i < 300 && !/answering 503/.test(rx.io.stderr); i++) await new Promise((r) => setTimeout(r, 10));
    assert.match(rx.io.stderr, /hoplens otlp: could not keep 3 span\(s\): cannot write .*spans\.jsonl: ENOSPC: no space left on device/);
    assert.match(rx.io.stderr, /answering 503 with Retry-After: 1 s until spans can be written again; the exporters keep them and send them again/);
    assert.doesNotMatch(rx.io.stdout, /chatcmpl-full/, 'nothing is printed as received while it is not kept');
    // The disk has room again: the link now points at a regular file.
    const real = join(dir, 'real.jsonl');
    writeFileSync(real, '');
    symlinkSync(real, join(dir, 'next'));
    renameSync(join(dir, 'next'), link);
    const r = await exporting;
    assert.equal(r.code, EXPORT_SUCCESS, r.error?.message);
    assert.match(rx.io.stderr, /writing spans again \(\d+ export request\(s\) were answered 503 meanwhile\)/);
    assertSameSpans(spans, (await readCollectorFile(real)).spans, 'protobuf', 'after the retry');
    assert.equal(rx.io.stdout.split('\n').filter((l) => /chatcmpl-full\d/.test(l)).length, 3, 'each request printed once');
  } finally {
    assert.equal(await rx.stop(), 0);
  }
  assert.match(rx.io.stdout, /stopped: 3 span\(s\) in \d+ export request\(s\), 3 llm_request, 0 rejected, \d+ answered 503 \(not kept\)/);
});

test('--out that never works: the exporter reports failure, and the run exits 1', async () => {
  const rx = await listen(['--out', '/dev/full']);
  let code: number;
  try {
    const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine');
    llmRequestSpan(tracer, 'chatcmpl-never', BASE_MS, 0);
    const r = await exportOnce(makeExporter(rx.url, { protocol: 'json', timeoutMillis: 1500 }), finished());
    assert.notEqual(r.code, EXPORT_SUCCESS);
  } finally {
    code = await rx.stop();
  }
  assert.equal(code, 1);
  assert.match(rx.io.stderr, /cannot write \/dev\/full: ENOSPC/);
  assert.doesNotMatch(rx.io.stderr, /writing spans again/);
});

test('--out into a missing directory, under a file, or onto a directory fails at start, before listening', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'afile'), 'x');
  mkdirSync(join(dir, 'adir'));
  const cases: Array<[string, RegExp]> = [
    [join(dir, 'missing', 'spans.jsonl'), /cannot write spans to .*missing\/spans\.jsonl: no such directory .*missing$/m],
    [join(dir, 'afile', 'spans.jsonl'), /cannot write spans to .*afile\/spans\.jsonl: ENOTDIR/],
    [join(dir, 'adir'), /cannot write spans to .*adir: it is a directory/],
  ];
  for (const [out, message] of cases) {
    const io = bufferIO();
    assert.equal(await runOtlp(['--listen', '127.0.0.1:0', '--out', out, '--max-seconds', '5'], io), 2, out);
    assert.match(io.stderr, message);
    assert.doesNotMatch(io.stdout, /listening/);
  }
  assert.equal(existsSync(join(dir, 'missing')), false);
});

test('--out into a directory without write permission fails at start', { skip: process.getuid?.() === 0 ? 'root may write anywhere' : false }, async () => {
  const dir = tempDir();
  const locked = join(dir, 'locked');
  mkdirSync(locked, { mode: 0o555 });
  const io = bufferIO();
  assert.equal(await runOtlp(['--listen', '127.0.0.1:0', '--out', join(locked, 'x.jsonl')], io), 2);
  assert.match(io.stderr, /permission denied \(EACCES\)/);
  rmSync(dir, { recursive: true, force: true });
});

test('control characters in received text are shown, not acted on: --listen lines, --file table, stderr', async () => {
  const evil = 'chatcmpl-\x1b[31mred\x1b[0m\nFORGED 2026-01-01 line\x07\u202e';
  const body = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'llm_request', kind: 2,
    startTimeUnixNano: '1764406800000000000', endTimeUnixNano: '1764406801000000000',
    attributes: [{ key: 'gen_ai.request.id', value: { stringValue: evil } }, { key: 'gen_ai.latency.e2e', value: { doubleValue: 1 } }],
  }, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '\x1b]0;pwned\x07', name: 'x' }] }] }] });
  const dir = tempDir();
  const out = join(dir, 'spans.jsonl');
  const rx = await listen(['--out', out]);
  try {
    const res = await fetch(rx.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    assert.equal(res.status, 200);
  } finally {
    await rx.stop();
  }
  const shown = 'chatcmpl-\\x1b[31mred\\x1b[0m\\nFORGED 2026-01-01 line\\x07\\u202e';
  for (const text of [rx.io.stdout, rx.io.stderr]) {
    assert.doesNotMatch(text, /[\x00-\x08\x0b-\x1f\x7f\u202e]/, 'no raw control character reaches the terminal');
  }
  assert.ok(rx.io.stdout.split('\n').some((l) => l.includes(`  ${shown}  queue`)), rx.io.stdout);
  assert.doesNotMatch(rx.io.stdout, /^FORGED/m);
  assert.match(rx.io.stderr, /spanId is not a 8-byte id: "\\u001b\]0;pwned\\u0007"/);

  const table = bufferIO();
  assert.equal(await runOtlp(['--file', out], table), 0);
  assert.ok(table.stdout.includes(shown));
  assert.doesNotMatch(table.stdout, /[\x00-\x08\x0b-\x1f\x7f\u202e]/);
  const one = bufferIO();
  assert.equal(await runOtlp(['--file', out, '--rid', evil], one), 0);
  assert.ok(one.stdout.includes(`### Engine timing for \`${shown}\``));
  assert.doesNotMatch(one.stdout, /[\x00-\x08\x0b-\x1f\x7f\u202e]/);
});

