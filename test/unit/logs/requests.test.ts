// Grouping, deltas with honest resolution and missing-hop reasons on the spec's example logs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { annotateText, LogSession } from '../../../src/core/session/logSession';
import { citedSource } from '../../../src/core/source/locate';
import { formatDelta } from '../../../src/core/logs/requests';

const FIX = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs');
const read = (f: string) => readFileSync(join(FIX, f), 'utf8');
const REF = Date.UTC(2026, 7, 22);

test('vLLM chat + aborted completion: two requests, internal and external ids grouped', () => {
  const a = annotateText(read('vllm_info_chat_and_abort.log'), 'auto', { referenceTime: REF });
  assert.equal(a.engine, 'vllm');
  const groups = a.tracker.all();
  assert.deepEqual(groups.map((g) => g.rid), ['chatcmpl-myrun-0001', 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0']);
  const chat = groups[0];
  assert.deepEqual(chat.hops.map((h) => h.hop), ['V1', 'V2', 'V6', 'V6', 'V6', 'V6']);
  assert.deepEqual(chat.hops.map((h) => h.line), [10, 11, 13, 14, 15, 16]);
  assert.equal(chat.hops[1].sincePrevious?.text, '≤1 s', 'same whole second is not "0 ms"');
  assert.equal(chat.hops[1].sincePrevious?.resolution, 's');
  const cmpl = groups[1];
  // On a disconnect V8 (internal id) comes before V7 (external id): both are this request.
  assert.deepEqual(cmpl.hops.map((h) => h.hop), ['V1', 'V2', 'V8', 'V7']);
  assert.equal(cmpl.hops[2].sincePrevious?.text, '~1 s');
  assert.equal(cmpl.hops[2].sinceFirst?.ms, 1000);
  const v6 = cmpl.missing.find((m) => m.hop === 'V6')!;
  assert.equal(v6.kind, 'path');
  assert.match(v6.reason, /\/v1\/completions never logs outputs/);
  const v1b = chat.missing.find((m) => m.hop === 'V1b')!;
  assert.equal(v1b.kind, 'level');
  assert.ok(chat.missing.some((m) => m.hop === 'V7' && m.kind === 'path'));
  // Stats lines (V5) in the request's window are context, not its hops.
  assert.ok(!chat.hops.some((h) => h.hop === 'V5'));
  assert.ok(chat.context.some((c) => c.hop === 'V10' && c.line === 12));
});

test('SGLang TP2 example: one rid across the request logger and the scheduler, batch lines as context', () => {
  const a = annotateText(read('sglang_tp2_request.log'), 'auto', { referenceTime: REF });
  assert.equal(a.engine, 'sglang');
  const [g] = a.tracker.all();
  assert.equal(g.rid, 'my-req-1');
  // S1 names the rid only because the client put it in the body.
  assert.deepEqual(g.hops.map((h) => h.hop), ['S1', 'S2', 'S5', 'S6', 'S8']);
  assert.deepEqual(g.hops.map((h) => h.role), ['tokenizer', 'tokenizer', 'scheduler', 'tokenizer', 'tokenizer']);
  // Receive (whole seconds) -> ReqTimeStats (ms): the delta is only as good as the coarser stamp.
  assert.equal(g.hops[2].sincePrevious?.resolution, 's');
  assert.equal(g.hops[2].sincePrevious?.text, '≤1 s');
  assert.deepEqual(g.context.map((c) => c.hop), ['S3', 'S4']);
  assert.ok(!g.missing.some((m) => m.hop === 'S4'), 'a Decode batch line is in its window');
  assert.ok(g.missing.some((m) => m.hop === 'S7' && m.kind === 'path'));
});

test('deltas at millisecond resolution', () => {
  const text = [
    "[2026-08-21 22:50:10.100 TP0] ReqTimeStats(rid=a, input_len=9, cached_input_len=0, output_len=52, attempts=1, type=unified): queue_duration=0.41ms",
    '[2026-08-21 22:50:10.145] Streaming backlog: rid=a, coalescing 25 queued chunks into one. This may inflate P99 ITL for affected requests.',
  ].join('\n');
  const [g] = annotateText(text).tracker.all();
  assert.equal(g.hops[1].sincePrevious?.text, '45 ms');
  assert.equal(formatDelta(0.2, 'ms'), '<1 ms');
  assert.equal(formatDelta(0.25, 'us'), '250 µs');
  assert.equal(formatDelta(400, 's'), '≤1 s');
});

test('growing log: only appended lines are parsed; a partial line waits; truncation restarts', () => {
  const lines = read('vllm_info_chat_and_abort.log').split('\n');
  const a = new LogSession({ referenceTime: REF });
  const head = lines.slice(0, 11).join('\n') + '\n';
  a.syncTextNow(head);
  assert.equal(a.records.length, 11);
  assert.equal(a.tracker.get('chatcmpl-myrun-0001')!.hops.length, 2);
  const more = head + lines[11] + '\n' + lines[12].slice(0, 40);
  const r = a.syncTextNow(more);
  assert.equal(r.reset, false);
  assert.equal(r.added.length, 1, 'the half-written line is not parsed yet');
  const full = more + lines[12].slice(40) + '\n';
  assert.equal(a.syncTextNow(full).added[0].hop, 'V6');
  const truncated = lines.slice(0, 3).join('\n') + '\n';
  const t = a.syncTextNow(truncated);
  assert.equal(t.reset, true);
  assert.equal(a.records.length, 3);
  assert.equal(a.tracker.requestCount, 0);
});

test('sources without a checkout come from the hop table or an unambiguous fileinfo', () => {
  const a = annotateText(read('vllm_debug_tp2_multiline.log'), 'auto', { referenceTime: REF });
  const byLine = new Map(a.records.map((r) => [r.line, r]));
  assert.deepEqual(citedSource(byLine.get(9)!), { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: false, drift: 0, method: 'fileinfo' });
  const tb = citedSource(byLine.get(12)!)!; // a continuation line of the traceback: its header's file:line
  assert.equal(tb.path, 'vllm/v1/executor/multiproc_executor.py');
  assert.equal(tb.line, 1050);
  assert.equal(citedSource(byLine.get(1)!), null, 'a comment line has no source');
  const info = annotateText('(APIServer pid=1) INFO 08-21 22:30:05 [utils.py:12] something', 'auto');
  assert.equal(citedSource(info.records[0]), null, 'a bare basename is ambiguous without a checkout');
});

test('annotating in slices gives the same records as in one go, across slice boundaries', async () => {
  // Long enough to cross several 256 KB slices, with lines cut at slice edges.
  const one = read('vllm_info_chat_and_abort.log');
  const big = Array.from({ length: 200 }, () => one).join('');
  const whole = annotateText(big, 'auto', { referenceTime: REF });
  const sliced = new LogSession({ referenceTime: REF });
  let turns = 0;
  await sliced.syncText({ version: 1, getText: () => big }, { budgetMs: 1, sliceChars: 256 * 1024, yieldTurn: async () => { turns++; } });
  sliced.end();
  assert.ok(turns > 0, 'the caller\'s event loop got turns between slices');
  assert.equal(sliced.records.length, whole.records.length);
  assert.deepEqual(sliced.records.map((r) => r.hop), whole.records.map((r) => r.hop));
  assert.deepEqual(sliced.records.map((r) => r.offset), whole.records.map((r) => r.offset));
  assert.equal(sliced.tracker.requestCount, 2);
  assert.equal(sliced.tracker.get('chatcmpl-myrun-0001')!.hops.length, 6 * 200);
});

test('the per-log summary counts a batch line printed during a request as seen by it (SGLang Decode batch)', () => {
  const ann = annotateText(read('sglang_tp2_request.log'), 'auto', { referenceTime: REF });
  const summary = ann.tracker.missingSummary().map((m) => m.hop);
  assert.ok(!summary.includes('S4'), `S4 (Decode batch) was printed at 22:50:10.645, inside my-req-1: ${summary.join(', ')}`);
  assert.ok(summary.includes('S7'), 'S7 (streaming backlog) really is missing');
});
