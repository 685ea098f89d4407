// End to end on 127.0.0.1: the fake vLLM server writes its log and exports its llm_request span
// over OTLP/HTTP to a real receiver, `hoplens send --json` times one request on the socket, and
// `hoplens timeline` puts the three on one axis with the clocks lined up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { startOtlpReceiver } from '../../../src/core/otlp/receiver';
import { tracesDataJsonLine } from '../../../src/core/otlp/otlpJson';
import type { OtlpSpan } from '../../../src/core/otlp/types';
import { runCli } from '../cli/cliProcess';
import { makeTempDir } from '../../harness/tempDirs';

test('client, server log and engine span of one live request, on one axis', async () => {
  const dir = makeTempDir('hoplens-tl-live-').path;
  const log = join(dir, 'vllm.log');
  const spans: OtlpSpan[] = [];
  const receiver = await startOtlpReceiver({ port: 0, onSpans: (s) => { spans.push(...s); } });
  const engine = await startFakeEngine({ engine: 'vllm', logFile: log, schedule: 'first=120,every=15', otlpEndpoint: receiver.url });
  try {
    const sent = await runCli(['send', '--url', engine.url, '--max-tokens', '6', '--rid', 'live-tl-1', '--json']);
    assert.equal(sent.code, 0, sent.stderr);
    const record = JSON.parse(sent.stdout.toString().trim());
    assert.equal(typeof record.startedAtEpochMs, 'number', 'send --json says when the request started');
    for (let i = 0; i < 100 && spans.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(spans.length, 1, 'the span arrived over OTLP/HTTP');
    writeFileSync(join(dir, 'client.json'), JSON.stringify(record) + '\n');
    writeFileSync(join(dir, 'spans.jsonl'), tracesDataJsonLine(spans) + '\n');

    const r = await runCli(['timeline', '--rid', 'live-tl-1', log, '--otlp', join(dir, 'spans.jsonl'), '--client', join(dir, 'client.json'), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const objs = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
    const clocks = new Map(objs.filter((o) => o.kind === 'clock').map((o) => [o.label, o]));
    assert.equal(clocks.get('client').source, 'reference');
    // The server writes local time with no zone; the client and the span are UTC epochs: the
    // log's true offset is this machine's zone offset, the span's 0.
    const zone = -new Date(record.startedAtEpochMs).getTimezoneOffset() * 60_000;
    const logClock = clocks.get('vllm.log');
    assert.ok(logClock.minMs <= zone && zone <= logClock.maxMs, `vllm.log ${logClock.minMs} … ${logClock.maxMs} holds ${zone}`);
    const otlp = clocks.get('OTLP spans');
    assert.ok(otlp.minMs <= 0 && 0 <= otlp.maxMs && otlp.maxMs - otlp.minMs < 200, `span clock ${otlp.minMs} … ${otlp.maxMs}`);
    const items = objs.filter((o) => o.kind === 'item');
    const first = items.find((o) => o.item === 'client-frame' && o.label === 'content');
    const span = items.find((o) => o.item === 'span');
    const prefill = items.find((o) => o.item === 'phase' && o.label === 'prefill');
    assert.ok(span.start >= 0 && span.start < first.start, 'the engine had the request before the first content frame arrived');
    assert.ok(prefill && prefill.end <= first.start + 1);
    assert.ok(items.some((o) => o.item === 'hop' && o.hop === 'V1' && o.shape === 'band'));
  } finally {
    await engine.close();
    await receiver.close();
  }
});
