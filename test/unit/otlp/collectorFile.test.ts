// Collector file-exporter output (JSON Lines of TracesData) and the engine/client breakdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { readCollectorFile, parseCollectorText } from '../../../src/core/otlp/collectorFile';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import { engineBreakdown, renderBreakdownMarkdown, renderSnapshotsMarkdown } from '../../../src/core/otlp/breakdown';
import { decodeOtlpJson, OtlpDecodeError } from '../../../src/core/otlp/decode';
import { FIXTURES, tempDir } from './helpers';

const EXPORT = join(FIXTURES, 'collector_export.jsonl');

test('a collector file with a bad line: good lines decode, the bad one is counted with its line number', async () => {
  const r = await readCollectorFile(EXPORT);
  assert.equal(r.lines, 3);
  assert.equal(r.badLineCount, 1);
  assert.equal(r.badLines[0].line, 2);
  assert.match(r.badLines[0].message, /not valid JSON/);
  assert.equal(r.spanCount, 4);
  assert.deepEqual(r.spans.map((s) => s.name), ['llm_request', 'llm_request', 'scheduler_steps_7', 'Load weights']);
  const load = r.spans[3];
  assert.equal(load.attributes['code.lineno'], 269, 'intValue strings become numbers');
  assert.equal(load.startTimeUnixNano, '1764406740000000000');
  assert.equal(load.endMs - load.startMs, 30_000);
  assert.equal(load.resource['vllm.process_name'], 'EngineCore_DP0');

  const store = new SpanStore();
  store.add(r.spans);
  const t = store.timing('chatcmpl-c0ffee01')!;
  assert.equal(t.span.startMs, Date.UTC(2025, 10, 29, 9, 0, 0));
  assert.ok(Math.abs(t.e2eMs! - 2401.2) < 1e-9);
  assert.equal(t.promptTokens, 1024);
  assert.equal(t.attributes['gen_ai.request.temperature'], 0);
  assert.deepEqual(store.snapshots('chatcmpl-c0ffee01').map((s) => [s.stepId, s.phase, s.kvBlocksAllocated]), [[700, 'PREFILL', 64], [701, 'DECODE', 65]]);
  const b = store.batches()[0];
  assert.equal(b.stepId, 700);
  assert.equal(b.timeMs, Date.UTC(2025, 10, 29, 9, 0, 0) + 1, 'step.ts_start_ns is the step time');
  assert.equal(b.durationUs, 177000);
});

test('streaming with onSpans hands spans over per line; the in-memory parser agrees', async () => {
  const batches: number[] = [];
  const r = await readCollectorFile(EXPORT, { onSpans: (s) => batches.push(s.length) });
  assert.deepEqual(batches, [2, 2]);
  assert.equal(r.spans.length, 0);
  const text = parseCollectorText(readFileSync(EXPORT, 'utf8'));
  assert.equal(text.spanCount, 4);
  assert.equal(text.badLineCount, 1);
});

test('a pretty-printed single OTLP JSON document is read as one; a missing file is a clear error', async () => {
  const dir = tempDir();
  const line = readFileSync(EXPORT, 'utf8').split('\n')[0];
  const pretty = join(dir, 'export.json');
  writeFileSync(pretty, JSON.stringify(JSON.parse(line), null, 2));
  const r = await readCollectorFile(pretty);
  assert.equal(r.spanCount, 2);
  assert.equal(r.badLineCount, 0);
  await assert.rejects(readCollectorFile(join(dir, 'nope.json')), /no such file: .*nope\.json/);
  await assert.rejects(readCollectorFile(dir), /is a directory/);
});

test('JSON that cannot be OTLP is an OtlpDecodeError; a bad span is rejected alone; unknown fields are ignored', () => {
  assert.throws(() => decodeOtlpJson('[1,2]'), (e: Error) => e instanceof OtlpDecodeError && /must be an object/.test(e.message));
  assert.throws(() => decodeOtlpJson({ resourceSpans: {} }), /resourceSpans must be an array/);
  const bad = decodeOtlpJson({ resourceSpans: [{ scopeSpans: [{ spans: [
    { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', startTimeUnixNano: 'soon' },
    { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203332', name: 'fine' },
    { spanId: 'b7ad6b7169203333' },
  ] }] }] });
  assert.deepEqual(bad.spans.map((s) => s.name), ['fine']);
  assert.deepEqual(bad.rejected, [
    { where: 'resourceSpans[0].scopeSpans[0].spans[0]', message: 'resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano is not a number of nanoseconds: "soon"' },
    { where: 'resourceSpans[0].scopeSpans[0].spans[2]', message: 'resourceSpans[0].scopeSpans[0].spans[2].traceId is missing' },
  ]);
  // OTLP/JSON receivers must ignore unknown fields: an object without resourceSpans is an empty request.
  assert.deepEqual(decodeOtlpJson('{"hello": 1}'), { spans: [], rejected: [], hasResourceSpans: false });
  assert.deepEqual(decodeOtlpJson({}), { spans: [], rejected: [], hasResourceSpans: false });
});

test('breakdown: engine stages next to the client, and the unmeasured residual', async () => {
  const store = new SpanStore();
  store.add((await readCollectorFile(EXPORT)).spans);
  const t = store.timing('chatcmpl-c0ffee01')!;
  const b = engineBreakdown(t, { ttftContentMs: 231.0, e2eMs: 2450.7 });
  assert.ok(Math.abs(b.residualMs! - 49.5) < 1e-9);
  assert.ok(Math.abs(b.ttftResidualMs! - 20.5) < 1e-9);
  const byKey = Object.fromEntries(b.rows.map((r) => [r.key, r]));
  assert.ok(Math.abs(byKey.queue.engineMs! - 30.1) < 1e-9);
  assert.ok(Math.abs(byKey.prefill.engineMs! - 177.9) < 1e-9);
  assert.ok(Math.abs(byKey.decode.engineMs! - 2181.1) < 1e-9);
  assert.ok(Math.abs(byKey.inference.engineMs! - 2359) < 1e-9);
  assert.equal(byKey.e2e.clientMs, 2450.7);
  assert.equal(byKey.ttft.clientMs, 231.0);
  assert.match(byKey.residual.explanation, /HTTP parsing.*ZMQ.*detokenisation.*HTTP write/);
  assert.equal(b.note, undefined);
  const md = renderBreakdownMarkdown(b);
  assert.match(md, /\| E2E not measured by the engine \| — \| 49\.5 \|/);
  assert.match(md, /\| E2E \| 2401\.2 \| 2450\.7 \|/);

  const noClient = engineBreakdown(t);
  assert.equal(noClient.residualMs, null);
  assert.match(renderBreakdownMarkdown(noClient), /\| E2E not measured by the engine \| — \| — \|/);
  const fromOtherRun = engineBreakdown(t, { ttftContentMs: 100, e2eMs: 1000 });
  assert.match(fromOtherRun.note ?? '', /negative residual/);

  const snapsMd = renderSnapshotsMarkdown(store.snapshots('chatcmpl-c0ffee01'));
  assert.match(snapsMd, /\| 700 \| PREFILL \| 1024 \| 0 \| 0 \| 0 \| 64 \| 0 \|/);
  assert.match(renderSnapshotsMarkdown([]), /No step snapshots/);
});
