// A request index past a hundred thousand hop lines: its columns grow in pages (no copy of what
// they hold), and every request's hops, first line, context and copy across threads stay exact
// where entries and links cross the pages' edges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogSession } from '../../../src/core/session/logSession';
import { RequestTracker } from '../../../src/core/logs/requests';
import { Int32Column, PAGE } from '../../../src/core/logs/pagedColumn';
import { RequestStamps, STAMP } from '../../../src/core/timeline/requestStamps';

const REF = Date.UTC(2026, 7, 22);
const REQUESTS = 40_000;
/** A request's last line comes this many requests after its first: its links jump over pages. */
const LAG = 15_000;

/** vLLM 0.10-style INFO lines (the spec's shapes): request i's three hops, a stats line every 500 lines. */
function fleetDay(): { text: string; lines: Map<string, number[]>; statsLines: number[] } {
  const out: string[] = [];
  const lines = new Map<string, number[]>();
  const statsLines: number[] = [];
  const stamp = (n: number) => `08-21 ${String(10 + Math.floor(n / 3600) % 12).padStart(2, '0')}:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`;
  const put = (id: string | null, text: string) => {
    out.push(text);
    if (id !== null) lines.get(id)!.push(out.length);
    if (out.length % 500 === 0) {
      out.push(`(APIServer pid=2101) INFO ${stamp(Math.floor(out.length / 40))} [loggers.py:310] Engine 000: Avg prompt throughput: 1.8 tokens/s, Avg generation throughput: 0.7 tokens/s, Running: 3 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.4%, Prefix cache hit rate: 0.0%`);
      statsLines.push(out.length);
    }
  };
  const id = (i: number) => `chatcmpl-pg${String(i).padStart(6, '0')}`;
  const done = (i: number) => put(id(i), `(APIServer pid=2101) INFO ${stamp(Math.floor(out.length / 40))} [request_logger.py:98] Generated response ${id(i)} (streaming complete): output: 'ok', finish_reason: streaming_complete`);
  for (let i = 0; i < REQUESTS; i++) {
    lines.set(id(i), []);
    const t = stamp(Math.floor(out.length / 40));
    put(id(i), `(APIServer pid=2101) INFO ${t} [request_logger.py:63] Received request ${id(i)}: params: SamplingParams(n=1, temperature=0.7, max_tokens=16), prompt_token_ids: None, prompt_embeds shape: None, lora_request: None.`);
    put(id(i), `(APIServer pid=2101) INFO ${t} [async_llm.py:439] Added request ${id(i)}-9e1f0c2d.`);
    if (i >= LAG) done(i - LAG);
  }
  for (let i = REQUESTS - LAG; i < REQUESTS; i++) done(i);
  return { text: out.join('\n') + '\n', lines, statsLines };
}

const day = fleetDay();

test('a column grown past several pages reads back what was written, sliced and copied across page edges', () => {
  const col = new Int32Column();
  const n = PAGE * 3 + 123;
  for (let i = 0; i < n; i++) col.set(i, i * 7 - 5);
  for (const i of [0, 255, 256, PAGE - 1, PAGE, PAGE + 1, 2 * PAGE - 1, 2 * PAGE, n - 1]) assert.equal(col.get(i), i * 7 - 5, `entry ${i}`);
  assert.deepEqual([...col.slice(PAGE - 2, PAGE + 2)], [PAGE - 2, PAGE - 1, PAGE, PAGE + 1].map((i) => i * 7 - 5));
  const copy = new Int32Column();
  copy.setFrom(col.slice(0, 10), 0);
  copy.setFrom(col.slice(10, n), 10);
  assert.deepEqual([...copy.slice(0, n)], [...col.slice(0, n)]);
  copy.fill(-1, PAGE - 3, PAGE + 3);
  assert.deepEqual([...copy.slice(PAGE - 4, PAGE + 4)], [PAGE - 4, -1, -1, -1, -1, -1, -1, PAGE + 3].map((i) => (i === -1 ? -1 : i * 7 - 5)));
});

test(`a log of ${REQUESTS.toLocaleString('en')} requests: every request's hops at its own lines, the last ones' context in place`, () => {
  const session = new LogSession({ engine: 'auto', keepRecords: false, referenceTime: REF });
  session.appendBytes(Buffer.from(day.text), false);
  session.end();
  const t = session.tracker;
  assert.equal(t.requestCount, REQUESTS);
  assert.ok(REQUESTS * 3 > 3 * PAGE, 'the index spans more than three pages');
  let checked = 0;
  for (const [rid, want] of day.lines) {
    const i = Number(rid.slice(-6));
    if (i % 997 !== 0 && i !== REQUESTS - 1 && i !== LAG) continue;
    const g = t.get(rid)!;
    assert.deepEqual(g.hops.map((h) => h.line), want, rid);
    assert.deepEqual(g.hops.map((h) => h.hop), ['V1', 'V2', 'V6'], rid);
    assert.equal(t.firstLine(rid), want[0]);
    checked++;
  }
  assert.ok(checked > 40);
  // A request near the end: the stats lines printed during it are its context.
  const last = t.get(`chatcmpl-pg${String(REQUESTS - 1).padStart(6, '0')}`)!;
  const during = day.statsLines.filter((l) => l > last.firstLine && l < last.lastLine);
  assert.ok(during.length > 0);
  for (const l of during.slice(0, 3)) assert.ok(last.context.some((c) => c.line === l && c.hop === 'V5'), `stats line ${l} in its context`);
});

test('a copy fed the news in uneven slices answers as the tracker that read the whole log', () => {
  const bytes = Buffer.from(day.text);
  const session = new LogSession({ engine: 'auto', keepRecords: false, referenceTime: REF,
    newTracker: (forced, opts) => new RequestTracker(forced, { ...opts, journal: true }) });
  const copy = new RequestTracker(null, { journal: true });
  let mark = RequestTracker.START;
  const give = () => { const out = session.tracker.exportSince(mark); mark = out.mark; copy.applyDelta(out.delta); };
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const n = 300_000 + (k % 7) * 123_457;
    session.appendBytes(bytes.subarray(at, at + n), false);
    at += n;
    give();
  }
  session.end();
  give();
  for (const i of [0, 1, LAG - 1, LAG, 23_456, REQUESTS - 1]) {
    const rid = `chatcmpl-pg${String(i).padStart(6, '0')}`;
    assert.deepEqual(copy.get(rid), session.tracker.get(rid), rid);
    assert.deepEqual(copy.brief(rid), session.tracker.brief(rid), rid);
  }
  assert.deepEqual(copy.missingSummary(), session.tracker.missingSummary());
});

test("the clock rules' stamps of 5,000 requests (rows across pages) read back, and a clone adds to them without changing the original", () => {
  const s = new RequestStamps();
  const N = 5000;
  for (let k = 0; k < N; k++) {
    const r = s.row(`req-${k}`);
    s.note(r, STAMP.arrive, 1_000 + k, 1, 10 * k + 1);
    s.note(r, STAMP.arrive, 2_000 + k, 1, 10 * k + 2); // later: the first stamp stays
    s.note(r, STAMP.beforeHeaders, 3_000 + k, 1000, 10 * k + 3);
  }
  const copy = s.clone();
  const extra = copy.row('req-extra');
  copy.note(extra, STAMP.routerReceived, 9, 1, 99);
  copy.note(copy.row('req-4999'), STAMP.apiFinish, 7_777, 1, 77);
  for (const k of [0, 1364, 1365, 1366, 2730, 4999]) {
    const r = s.find(`req-${k}`);
    assert.deepEqual(s.get(r, STAMP.arrive), { time: 1_000 + k, resMs: 1, line: 10 * k + 1 }, `req-${k}`);
    assert.deepEqual(s.get(r, STAMP.beforeHeaders), { time: 3_000 + k, resMs: 1000, line: 10 * k + 3 });
    assert.equal(s.has(r, STAMP.admit), false);
    assert.deepEqual(copy.get(copy.find(`req-${k}`), STAMP.arrive), s.get(r, STAMP.arrive));
  }
  assert.equal(s.find('req-extra'), -1);
  assert.equal(s.has(s.find('req-4999'), STAMP.apiFinish), false, 'the original is unchanged');
  assert.deepEqual(copy.get(copy.find('req-4999'), STAMP.apiFinish), { time: 7_777, resMs: 1, line: 77 });
  assert.deepEqual(copy.get(extra, STAMP.routerReceived), { time: 9, resMs: 1, line: 99 });
  assert.equal(copy.size, N + 1);
});
