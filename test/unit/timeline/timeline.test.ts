// The request timeline from the constructed multi-file runs (test/fixtures/timeline/README.md):
// lanes per source, honest extents, clocks lined up with bounds that hold the true offsets,
// the calls of the engine core's traced threads inside the request's window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTimeline } from '../../../src/core/timeline/load';
import { clientFromSendJson, type ClientRequest } from '../../../src/core/timeline/clientRequest';
import type { RequestTimeline, TimelineLane } from '../../../src/core/timeline/model';
import { engineRun, pdTruth, stage } from './fixtures';

function client(dir: string): ClientRequest {
  return clientFromSendJson(JSON.parse(readFileSync(join(dir, 'client.json'), 'utf8'))) as ClientRequest;
}

async function engineTimeline(extra: Partial<Parameters<typeof loadTimeline>[0]> = {}) {
  const dir = stage('engine-run');
  const loaded = await loadTimeline({
    query: 'tl-0001', logs: [join(dir, 'api-server.log'), join(dir, 'engine-core.log')],
    otlpFiles: [join(dir, 'otlp.jsonl')], traceDirs: [join(dir, 'trace')], client: client(dir), indexMode: 'in-process', ...extra,
  });
  return { dir, run: engineRun(dir), ...loaded };
}

const lane = (t: RequestTimeline, kind: TimelineLane['kind'], title?: RegExp): TimelineLane => {
  const l = t.lanes.find((x) => x.kind === kind && (!title || title.test(x.title)));
  assert.ok(l, `a ${kind} lane${title ? ` ${title}` : ''}: ${t.lanes.map((x) => x.title).join(' | ')}`);
  return l;
};

test('one lane per source: client, each process of each log, engine spans and steps, traced threads', async () => {
  const { timeline: t, run } = await engineTimeline();
  assert.equal(t.key, 'tl-0001');
  assert.deepEqual(t.ids.sort(), ['chatcmpl-tl-0001', 'tl-0001']);
  assert.equal(t.reference, 'client');
  const api = lane(t, 'process', /^api-server\.log · APIServer pid \d+$/);
  assert.equal(api.pid, run.apiServerPid);
  assert.deepEqual(api.items.map((i) => i.hop), ['V1b', 'V1', 'V2', 'V6', 'V6', 'V6', 'V6']);
  const core = lane(t, 'process', /^engine-core\.log · EngineCore pid/);
  assert.deepEqual(core.items.map((i) => [i.kind, i.hop]), [['context', 'V4'], ['context', 'V3']], 'EngineCore loop active / waiting for work in the window');
  assert.deepEqual(lane(t, 'engine-spans').items.filter((i) => i.kind === 'phase').map((i) => i.label), ['queue', 'prefill', 'decode']);
  assert.deepEqual(lane(t, 'engine-steps').items.map((i) => i.detail.phase), ['PREFILL', 'DECODE', 'DECODE']);
  assert.equal(lane(t, 'engine-batches').items.length, 3);
  const frames = lane(t, 'client').items.filter((i) => i.kind === 'client-frame');
  assert.deepEqual(frames.map((f) => f.label), ['role-only', 'content', 'content', 'content', 'finish', 'done']);
  assert.equal(t.lanes.filter((l) => l.kind === 'calls').length, 2, 'both traced threads of the engine-core pid');
});

test('each item keeps the extent its stamp can claim: a vLLM second is a band of 1 s, a frame a point', async () => {
  const { timeline: t } = await engineTimeline();
  for (const it of lane(t, 'process', /api-server/).items) {
    assert.equal(it.shape, 'band');
    assert.equal(it.resolution, 's');
    assert.equal(it.end - it.start, 1000);
  }
  for (const it of lane(t, 'client').items.filter((i) => i.kind === 'client-frame')) {
    assert.equal(it.shape, 'instant');
    assert.equal(it.end, it.start);
  }
  const span = lane(t, 'engine-spans').items.find((i) => i.kind === 'span')!;
  assert.equal(span.shape, 'span');
  // The client sent first; every band of the request holds the span's arrival.
  assert.ok(span.start > 0);
  for (const it of lane(t, 'process', /api-server/).items.slice(0, 3)) assert.ok(it.start <= span.start && span.start < it.end);
});

test('the calls inside the request\'s window: the traced steps, in the prefill and decode phases', async () => {
  const { timeline: t, run } = await engineTimeline();
  const calls = t.lanes.find((l) => l.kind === 'calls' && l.items.some((c) => c.label === 'run_busy_loop'))!;
  assert.match(calls.title, new RegExp(`^calls · EngineCore pid ${run.enginePid} · thread \\d+$`));
  const loop = calls.items.filter((c) => c.label === 'run_busy_loop');
  assert.equal(loop.length, 1);
  assert.equal(loop[0].depth, 0);
  const steps = calls.items.filter((c) => c.label === 'step');
  assert.equal(steps.length, 3);
  const origin = t.origin;
  for (const [i, s] of steps.entries()) {
    // Same clock (one host): a call sits where the trace put it.
    assert.ok(Math.abs(s.start + origin - run.steps[i][0]) < 0.01, `step ${i} at ${s.start + origin} vs ${run.steps[i][0]}`);
    assert.ok(Math.abs(s.end + origin - run.steps[i][1]) < 0.01);
    assert.equal(s.depth, 1);
    assert.equal(s.ref.type, 'call');
  }
  assert.deepEqual(steps.map((s) => s.detail.phase), ['prefill', 'decode', 'decode']);
  assert.ok(calls.items.every((c) => c.end >= t.window!.start && c.start <= t.window!.end));
});

test('only calls inside the window are loaded, outer levels first when capped', async () => {
  const { timeline: t } = await engineTimeline({ maxCalls: 4 });
  const calls = t.lanes.find((l) => l.kind === 'calls' && l.items.some((c) => c.label === 'run_busy_loop'))!;
  assert.deepEqual(calls.items.map((c) => c.label), ['run_busy_loop', 'step', 'step', 'step']);
  assert.match(calls.notes.join(' '), /^13 calls in the request's window; the 4 outermost are drawn$/);
});

test('one host: every clock the orderings reach is bracketed around 0; the engine core is in step by assumption', async () => {
  const { timeline: t } = await engineTimeline();
  const c = new Map(t.clocks.map((x) => [x.label, x.offset]));
  const api = c.get('api-server.log')!;
  assert.equal(api.source, 'estimated');
  assert.ok(api.min! <= 0 && 0 <= api.max!, `${api.min} … ${api.max}`);
  // A second-stamped log against the client: a second, plus the client's time from send to headers.
  assert.ok(api.max! - api.min! <= 1010, `${api.max! - api.min!}`);
  const otlp = c.get('OTLP spans')!;
  assert.ok(otlp.min! <= 0 && 0 <= otlp.max! && otlp.max! - otlp.min! < 10, `${otlp.min} … ${otlp.max}`);
  assert.equal(c.get('engine-core.log')!.source, 'assumed');
  assert.ok(t.warnings.some((w) => /^engine-core\.log: no ordering ties its clock/.test(w)));
});

test('a slow connection set-up: the client\'s times count from the connection up, so the clocks still bracket 0', async () => {
  // `hoplens send` reads its wall clock before name resolution and connect; frames count from the
  // connection up. The same request with 80 ms more set-up (as through a slow resolver or TLS):
  // the record starts 80 ms earlier, every frame time is unchanged.
  const dir = stage('engine-run');
  const raw = JSON.parse(readFileSync(join(dir, 'client.json'), 'utf8'));
  const slow = clientFromSendJson({ ...raw, startedAtEpochMs: raw.startedAtEpochMs - 80, connectMs: raw.connectMs + 80 }) as ClientRequest;
  const { timeline: t } = await loadTimeline({
    query: 'tl-0001', logs: [join(dir, 'api-server.log'), join(dir, 'engine-core.log')],
    otlpFiles: [join(dir, 'otlp.jsonl')], client: slow, indexMode: 'in-process',
  });
  const otlp = t.clocks.find((x) => x.label === 'OTLP spans')!.offset;
  assert.ok(otlp.min! <= 0 && 0 <= otlp.max!, `span clock ${otlp.min} … ${otlp.max}`);
  const api = t.clocks.find((x) => x.label === 'api-server.log')!.offset;
  assert.ok(api.min! <= 0 && 0 <= api.max!, `api-server.log ${api.min} … ${api.max}`);
  const items = lane(t, 'client').items;
  const connect = items.find((i) => i.kind === 'client-connect')!;
  const sent = items.find((i) => i.kind === 'client-send')!;
  assert.equal(Math.round((sent.start - connect.start) * 1000) / 1000, Math.round((raw.connectMs + 80) * 1000) / 1000, 'the set-up ends when the request goes out');
});

test('prefill / decode behind a router: each estimated offset brackets the deliberate one', async () => {
  const dir = stage('pd-run');
  const truth = pdTruth(dir);
  const logs = ['router.log', 'prefill.log', 'decode.log'].map((f) => join(dir, f));
  for (const rid of ['pd-0000', 'pd-0017', 'chatcmpl-pd-0039']) {
    const { timeline: t } = await loadTimeline({ query: rid, logs });
    assert.equal(t.reference, 'log:0', 'the router, first to have the request');
    for (const name of ['prefill.log', 'decode.log'] as const) {
      const o = t.clocks.find((c) => c.label === name)!.offset;
      const real = truth.trueOffsetsMs[name];
      assert.equal(o.source, 'estimated');
      assert.ok(o.min !== null && o.max !== null && o.min <= real && real <= o.max, `${name}: ${o.min} … ${o.max} holds ${real}`);
      assert.ok(o.max - o.min <= 1000, `${name}: no wider than the stamps' second`);
      assert.ok(o.min <= o.ms && o.ms <= o.max);
      assert.ok(Math.abs(o.ms - real) <= 500);
      assert.ok(o.orderings >= 40, 'every shared request adds its orderings');
    }
    // On the router's axis, the decode instance's receipt (a band) holds its true time.
    const real = truth.requests[rid.replace('chatcmpl-', '')];
    const d = lane(t, 'process', /^decode\.log/).items.find((i) => i.hop === 'V1')!;
    const trueOnAxis = real.decodeReceived - t.origin;
    const o = t.clocks.find((c) => c.label === 'decode.log')!.offset;
    assert.ok(d.start - (o.max! - o.ms) <= trueOnAxis && trueOnAxis <= d.end + (o.ms - o.min!), 'within the band widened by the offset bounds');
  }
});

test('a user offset replaces the estimate; one the orderings forbid is said', async () => {
  const dir = stage('pd-run');
  const logs = ['router.log', 'prefill.log', 'decode.log'].map((f) => join(dir, f));
  const { timeline: t } = await loadTimeline({ query: 'pd-0017', logs, userOffsets: new Map([['decode.log', 2700]]) });
  const d = t.clocks.find((c) => c.label === 'decode.log')!.offset;
  assert.deepEqual([d.ms, d.source, d.conflict], [2700, 'user', undefined]);
  const { timeline: bad } = await loadTimeline({ query: 'pd-0017', logs, userOffsets: new Map([[join(dir, 'decode.log'), 0]]) });
  assert.equal(bad.clocks.find((c) => c.label === 'decode.log')!.offset.ms, 0);
  assert.ok(bad.warnings.some((w) => /^decode\.log: the orderings allow \+2000 ms … \+3000 ms/.test(w)), bad.warnings.join('\n'));
});

test('SGLang with its request log in its own file: Receive ≤ ReqTimeStats ≤ Finish brackets the clocks', async () => {
  const dir = stage('sglang-run');
  const { timeline: t } = await loadTimeline({ query: 'sg002571242425051c1cc', logs: [join(dir, 'sgl.log'), join(dir, 'requests', 'gpu-node-3_0.log')] });
  const o = t.clocks.find((c) => c.label === 'gpu-node-3_0.log')!.offset;
  assert.ok(o.min! <= 0 && 0 <= o.max!, `${o.min} … ${o.max}`);
  assert.ok(o.max! - o.min! < 1000, 'the millisecond stamps narrow what whole seconds alone cannot');
  const sched = lane(t, 'process', /^sgl\.log · TP0$/);
  assert.equal(sched.items.filter((i) => i.kind === 'hop').map((i) => i.hop).join(), 'S5');
  assert.ok(sched.items.some((i) => i.kind === 'context' && /Prefill batch/.test(i.label)));
  assert.deepEqual(lane(t, 'process', /gpu-node-3_0\.log · TokenizerManager/).items.map((i) => [i.hop, i.shape]), [['S2', 'band'], ['S6', 'band']]);
});

test('prompts are redacted unless asked for', async () => {
  const { timeline: t } = await engineTimeline();
  const details = lane(t, 'process', /api-server/).items.find((i) => i.hop === 'V1b')!;
  assert.match(details.text!, /prompt: ‹redacted›/);
  assert.doesNotMatch(JSON.stringify(t), /Say hello/);
  const { timeline: open } = await engineTimeline({ includeText: true });
  assert.match(JSON.stringify(open), /Say hello/);
});

test('spans the editor already holds (its receiver\'s store) give the engine lanes without a file', async () => {
  const { SpanStore } = await import('../../../src/core/otlp/engineTiming');
  const { readCollectorFile } = await import('../../../src/core/otlp/collectorFile');
  const dir = stage('engine-run');
  const store = new SpanStore();
  await readCollectorFile(join(dir, 'otlp.jsonl'), { onSpans: (s) => store.add(s) });
  const logs = [join(dir, 'api-server.log'), join(dir, 'engine-core.log')];
  const withSpans = (await loadTimeline({ query: 'tl-0001', logs, spans: store })).timeline;
  assert.deepEqual(lane(withSpans, 'engine-spans').items.filter((i) => i.kind === 'phase').map((i) => i.label), ['queue', 'prefill', 'decode']);
  const without = (await loadTimeline({ query: 'tl-0001', logs })).timeline;
  assert.equal(without.lanes.some((l) => l.kind === 'engine-spans'), false);
  // A file given as well joins a copy: the editor's store is left as it was.
  const before = store.stats().spans;
  await loadTimeline({ query: 'tl-0001', logs, spans: store, otlpFiles: [join(dir, 'otlp.jsonl')] });
  assert.equal(store.stats().spans, before);
});
