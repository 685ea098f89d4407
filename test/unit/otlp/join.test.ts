// Joining received spans to the rid the log annotation and the traced request use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startOtlpReceiver } from '../../../src/core/otlp/receiver';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import { requestEngineView, resolveRid } from '../../../src/core/otlp/join';
import { serverIdsFor } from '../../../src/core/logs/requestIds';
import { exportFixtureWithSdk } from './helpers';

test('a traced request id (base, external or engine-internal) finds its engine timing, snapshots and journey', async () => {
  const store = new SpanStore();
  const rx = await startOtlpReceiver({ port: 0, onSpans: (s) => store.add(s) });
  try {
    await exportFixtureWithSdk(rx.url, 'protobuf', Date.UTC(2026, 10, 29, 9, 0, 0));
  } finally {
    await rx.close();
  }
  // The Requests view groups a chat request sent with X-Request-Id hl0001 under chatcmpl-hl0001.
  const viewRid = serverIdsFor('hl0001', 'vllm', 'chat').normalised;
  assert.equal(resolveRid(store, viewRid), 'chatcmpl-hl0001');
  assert.equal(resolveRid(store, 'hl0001'), 'chatcmpl-hl0001');
  assert.equal(resolveRid(store, 'chatcmpl-hl0001-9f3a1c2e'), 'chatcmpl-hl0001');
  assert.equal(resolveRid(store, serverIdsFor('hl0002', 'vllm', 'completions').normalised), 'cmpl-hl0002-0');
  assert.equal(resolveRid(store, 'chatcmpl-never-sent'), null);

  const v = requestEngineView(store, 'hl0001', { ttftContentMs: 190, e2eMs: 1262.5 })!;
  assert.equal(v.timing!.completionTokens, 128);
  assert.ok(Math.abs(v.breakdown!.residualMs! - 22) < 1e-6);
  assert.deepEqual(v.snapshots.map((s) => s.stepId), [1, 2, 3]);
  assert.deepEqual(v.events.map((e) => e.name), [
    'api.ARRIVED', 'api.HANDOFF_TO_CORE', 'journey.QUEUED', 'journey.SCHEDULED', 'journey.FIRST_TOKEN',
    'api.FIRST_RESPONSE_FROM_CORE', 'journey.FINISHED', 'api.FINISHED',
  ]);
  assert.match(v.markdown, /\| E2E not measured by the engine \| — \| 22\.0 \|/);
  assert.match(v.markdown, /#### Scheduler steps[\s\S]*\| 1 \| PREFILL \| 812 \|/);
  assert.equal(requestEngineView(store, 'nobody'), null);
});
