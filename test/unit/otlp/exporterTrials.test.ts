// The receiver against the official OpenTelemetry JS exporters (protobuf and JSON over HTTP): no
// span is lost silently. Every span is either kept — equal to what the SDK sent, field by field —
// or refused with an answer that makes the exporter keep it (503 + Retry-After) or report it
// (partial_success, 400).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startOtlpReceiver, type OtlpReceiver } from '../../../src/core/otlp/receiver';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import type { OtlpSpan } from '../../../src/core/otlp/types';
import {
  EXPORT_SUCCESS, ENGINE_CORE_RESOURCE, VLLM_RESOURCE, assertSameSpans, assertStepTrial, exportBatched, exportOnce, idsWithBadSpans,
  llmRequestSpan, loadSpan, makeExporter, recordingTracer, stepTracingSpan, wireInteger, withSdkWarnings, type Protocol,
} from './trials';

const BASE_MS = Date.UTC(2026, 10, 29, 9, 0, 0);

async function withReceiver(fn: (rx: OtlpReceiver, kept: OtlpSpan[], errors: string[]) => Promise<void>,
  onSpans?: (spans: OtlpSpan[]) => void | Promise<void>): Promise<void> {
  const kept: OtlpSpan[] = [];
  const errors: string[] = [];
  const rx = await startOtlpReceiver({ port: 0, onSpans: onSpans ?? ((s) => { kept.push(...s); }), onError: (m) => errors.push(m) });
  try {
    await fn(rx, kept, errors);
  } finally {
    await rx.close();
  }
}

for (const protocol of ['protobuf', 'json'] as Protocol[]) {
  test(`${protocol}: every field survives — nanosecond times, status, links, trace state, dropped counts, int64 beyond 2^53, 100 KB and unicode attributes`, async () => {
    await withReceiver(async (rx, kept, errors) => {
      // attributeCountLimit 12 drops the 13th and later attributes and counts them.
      const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine', undefined, 12);
      for (let i = 0; i < 4; i++) llmRequestSpan(tracer, `chatcmpl-f${i}`, BASE_MS, i, { big: i === 0 });
      const sent = finished();
      assert.ok(sent.some((s) => s.droppedAttributesCount > 0), 'the trial drops attributes');
      const r = await exportOnce(makeExporter(rx.url, { protocol }), sent);
      assert.equal(r.code, EXPORT_SUCCESS, r.error?.message);
      assert.deepEqual(errors, []);
      assertSameSpans(sent, kept, protocol, protocol);
      // …123456789 ns is not truncated to whole µs: the ms value is the exact nanoseconds' nearest double.
      const first = kept.find((s) => s.attributes['gen_ai.request.id'] === 'chatcmpl-f0')!;
      assert.equal(first.startTimeUnixNano, String(BigInt(BASE_MS) * 1_000_000n + 456_789n));
      assert.equal(first.startMs.toFixed(6), (BASE_MS + 0.456789).toFixed(6));
      // An int64 beyond 2^53 is a bigint over both protocols, holding exactly the digits that came.
      assert.equal(first.attributes['hoplens.trial.int64_beyond_2_53'], protocol === 'protobuf' ? 2n ** 60n : 1152921504606847000n);
      assert.deepEqual(first.status, { code: 'OK', message: '' });
      assert.deepEqual(kept.find((s) => s.attributes['gen_ai.request.id'] === 'chatcmpl-f1')!.status, { code: 'ERROR', message: 'aborted by the client' });
    });
  });

  test(`${protocol}: a batch with one bad span keeps the good ones and answers partial_success with rejected_spans`, async () => {
    await withReceiver(async (rx, kept, errors) => {
      // The second span id the SDK asks for is "xyz": the JSON exporter sends it as is, the
      // protobuf exporter as a 1-byte id. Neither can be a span id.
      const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine', idsWithBadSpans(new Map([[1, 'xyz']])));
      llmRequestSpan(tracer, 'chatcmpl-good0', BASE_MS, 0);
      llmRequestSpan(tracer, 'chatcmpl-bad1', BASE_MS, 1);
      llmRequestSpan(tracer, 'chatcmpl-good2', BASE_MS, 2);
      const sent = finished();
      const { value: r, warnings } = await withSdkWarnings(() => exportOnce(makeExporter(rx.url, { protocol }), sent));
      // Partial success is a success: the exporter does not retry, it logs the server's message.
      assert.equal(r.code, EXPORT_SUCCESS);
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0], /Received Partial Success response/);
      assert.match(warnings[0], /1 of 3 span\(s\) rejected: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]\.spanId is (not a 8-byte id: \\"xyz\\"|1 byte\(s\), not 8)/);
      assertSameSpans(sent.filter((s) => s.spanContext().spanId !== 'xyz'), kept, protocol, protocol);
      const st = rx.stats();
      assert.equal(st.spans, 2);
      assert.equal(st.rejectedSpans, 1);
      assert.equal(st.rejected, 0, 'the request itself was accepted');
      assert.match(errors.join('\n'), /kept 2 span\(s\); 1 of 3 span\(s\) rejected/);
    });
  });

  test(`${protocol}: a batch of bad spans only is a 400 the exporter reports as failed, not a silent loss`, async () => {
    await withReceiver(async (rx, kept) => {
      const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine', idsWithBadSpans(new Map([[0, 'xyz']])));
      llmRequestSpan(tracer, 'chatcmpl-bad0', BASE_MS, 0);
      const r = await exportOnce(makeExporter(rx.url, { protocol }), finished());
      assert.notEqual(r.code, EXPORT_SUCCESS);
      assert.match(String((r.error as { data?: string })?.data ?? r.error?.message), /1 of 1 span\(s\) rejected/);
      assert.equal(kept.length, 0);
      assert.equal(rx.stats().rejected, 1);
    });
  });

  test(`${protocol}: a sink that fails is answered 503 with Retry-After; the exporter retries and each span is kept once`, async () => {
    let calls = 0;
    const kept: OtlpSpan[] = [];
    const states: Array<string | null> = [];
    const rx = await startOtlpReceiver({
      port: 0,
      onSpans: async (spans) => {
        // The first attempt fails (a full disk, a failing handler); the retry succeeds.
        if (calls++ === 0) throw new Error('ENOSPC: no space left on device, write');
        kept.push(...spans);
      },
      onSinkState: (f) => states.push(f),
    });
    try {
      const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine');
      for (let i = 0; i < 3; i++) llmRequestSpan(tracer, `chatcmpl-retry${i}`, BASE_MS, i);
      const sent = finished();
      const r = await exportOnce(makeExporter(rx.url, { protocol }), sent);
      assert.equal(r.code, EXPORT_SUCCESS, r.error?.message);
      assert.equal(calls, 2, 'the exporter sent the batch again after the 503');
      assertSameSpans(sent, kept, protocol, protocol);
      const st = rx.stats();
      assert.equal(st.refused, 1);
      assert.equal(st.spans, 3);
      assert.equal(st.sinkFailure, null);
      assert.deepEqual(states, ['could not keep 3 span(s): ENOSPC: no space left on device, write', null]);
    } finally {
      await rx.close();
    }
  });
}

test('503 carries Retry-After and a Status message; a sink that never recovers makes the exporter report failure', async () => {
  const rx = await startOtlpReceiver({ port: 0, onSpans: () => { throw new Error('EIO: i/o error, write'); } });
  try {
    const { tracer, finished } = recordingTracer(VLLM_RESOURCE, 'vllm.llm_engine');
    llmRequestSpan(tracer, 'chatcmpl-lost', BASE_MS, 0);
    const sent = finished();
    const raw = await fetch(rx.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'x' }] }] }] }) });
    assert.equal(raw.status, 503);
    assert.equal(raw.headers.get('retry-after'), '1');
    assert.match((await raw.json() as { message: string }).message, /could not keep 1 span\(s\): EIO: i\/o error, write; retry later/);
    // Timeout 2.5 s: the first answer and two retries a second apart, then the exporter gives up.
    const r = await exportOnce(makeExporter(rx.url, { protocol: 'protobuf', timeoutMillis: 2500 }), sent);
    assert.notEqual(r.code, EXPORT_SUCCESS);
    assert.match(r.error?.message ?? '', /retryable/);
    assert.ok(rx.stats().refused >= 3, `refused ${rx.stats().refused}`);
    assert.equal(rx.stats().spans, 0);
    assert.match(rx.stats().sinkFailure ?? '', /EIO/);
  } finally {
    await rx.close();
  }
});

test('gzip, a 5,000-span batch and six concurrent exporters: every span once, every value exact', async () => {
  await withReceiver(async (rx, kept, errors) => {
    // One 5,000-span export request, gzip, through a BatchSpanProcessor like vLLM's.
    const big = await exportBatched(rx.url, { protocol: 'protobuf', gzip: true }, ENGINE_CORE_RESOURCE, 'vllm.model_loader', (tracer) => {
      for (let n = 0; n < 5000; n++) loadSpan(tracer, BASE_MS, n);
    }, 5000);
    assert.equal(rx.stats().requests, 1, 'one export request');
    assertSameSpans(big, kept, 'protobuf', '5000 gzip');
    kept.length = 0;

    // Six exporters at once: both protocols, with and without gzip, 300 spans each in batches of 100.
    const protocolOf = (e: number): Protocol => (e % 2 ? 'json' : 'protobuf');
    const runs = await Promise.all(Array.from({ length: 6 }, (_, e) => exportBatched(
      rx.url, { protocol: protocolOf(e), gzip: e >= 3 }, { ...VLLM_RESOURCE, 'vllm.process_id': 5000 + e }, 'vllm.llm_engine',
      (tracer) => { for (let i = 0; i < 300; i++) llmRequestSpan(tracer, `chatcmpl-c${e}-${i}`, BASE_MS, i); }, 100)));
    assertSameSpans(runs.flat(), kept, (r) => protocolOf(Number(r.resource.attributes['vllm.process_id']) - 5000), 'six concurrent exporters');
    assert.deepEqual(errors, []);
    assert.equal(rx.stats().spans, 5000 + 1800);
  });
});

for (const protocol of ['protobuf', 'json'] as Protocol[]) {
  test(`${protocol}: the step-tracing events of the inference-sim fork (seed 004) arrive as snapshots and batch summaries, value for value`, async () => {
    const store = new SpanStore();
    await withReceiver(async (rx) => {
      let exp: ReturnType<typeof stepTracingSpan> | undefined;
      const sent = await exportBatched(rx.url, { protocol }, ENGINE_CORE_RESOURCE, 'vllm.scheduler.step', (tracer) => {
        exp = stepTracingSpan(tracer, BASE_MS, 7, 12, 4, protocol);
      });
      assertSameSpans(sent, store.spans(), protocol, protocol);
      assertStepTrial(exp!, (rid) => store.snapshots(rid), store.batches(), protocol);
      // step.ts_start_ns (> 2^53) is the exact integer the exporter sent, and the step time comes from it.
      const ev = store.spans()[0].events[0];
      assert.equal(ev.attributes['step.ts_start_ns'], wireInteger((BASE_MS + 9) * 1e6, protocol));
      assert.ok(Math.abs(store.batches()[0].timeMs - (BASE_MS + 9)) < 0.001);
    }, (s) => store.add(s));
  });
}
