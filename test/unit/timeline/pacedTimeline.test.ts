// The timeline of one request over a big log set, as the editor builds it: the same timeline as
// reading each file in one pass per chunk and lining the clocks up in one go, while the
// extension host's event loop keeps getting turns (a setImmediate probe ticks) all the while.
// The set: the router + prefill + decode fixture (test/fixtures/timeline/pd-run) copied many
// times over with the requests renamed, so every copy's lines are the engines' own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTimeline } from '../../../src/core/timeline/load';
import { buildTimeline, buildTimelinePaced } from '../../../src/core/timeline/build';
import { readRequestLogs } from '../../../src/core/timeline/requestLogs';
import { LogSession } from '../../../src/core/session/logSession';
import { SHARED_THREAD, type Pace } from '../../../src/core/session/pace';
import type { LogSource } from '../../../src/core/logs/logSource';
import { stage } from './fixtures';

const FILES = ['router.log', 'prefill.log', 'decode.log'] as const;
/** 40 requests a copy: 200 copies are 8,000 requests, 123,000 lines, 28 MB. */
const COPIES = 200;
/** When the fixture's vLLM logs were written (their stamps carry no year). */
const WRITTEN = Date.UTC(2026, 7, 22, 1, 0, 0);

/** The fixture's three logs, each `copies` times over, request pd-NNNN of copy c renamed pdc-NNNN. */
function bigSet(copies: number): { dir: string; texts: string[] } {
  const dir = stage('pd-run');
  const texts = FILES.map((f) => {
    const one = readFileSync(join(dir, f), 'utf8');
    return Array.from({ length: copies }, (_, c) => one.replace(/\bpd-(\d{4})\b/g, `pd${c}-$1`)).join('');
  });
  FILES.forEach((f, i) => writeFileSync(join(dir, f), texts[i]));
  return { dir, texts };
}

let shared: { dir: string; texts: string[] } | null = null;
const set = (): { dir: string; texts: string[] } => (shared ??= bigSet(COPIES));
const paths = (): string[] => FILES.map((f) => join(set().dir, f));
/** A request in the middle of the set, with lines in all three logs. */
const QUERY = `chatcmpl-pd${COPIES >> 1}-0017`;

/** Counts the turns a setImmediate probe gets until stopped. */
function probe(): { ticks(): number; stop(): void } {
  let ticks = 0;
  let on = true;
  const tick = (): void => { if (on) { ticks++; setImmediate(tick); } };
  setImmediate(tick);
  return { ticks: () => ticks, stop: () => { on = false; } };
}

/** A log given as a LogSource whose bytes come in one chunk; `parsed` is called once the reader asked for more (it parsed the chunk). */
function oneChunkSource(key: string, text: string, handed: () => void, parsed: () => void): LogSource {
  return {
    stream: { key, label: key },
    open: () => Promise.resolve({
      kind: 'bytes' as const, referenceTime: WRITTEN, close: () => undefined,
      async *chunks() { handed(); yield Buffer.from(text, 'utf8'); parsed(); },
    }),
  };
}

test('the timeline of a request over a big set is the one a reading in one pass per chunk gives, slices and turns or not', async () => {
  const files = paths();
  // Reference: every chunk parsed in one pass, the clocks lined up in one go (as before the reading was paced).
  const whole = buildTimeline({ query: QUERY, logs: await readRequestLogs(files, QUERY, { pace: null }), threads: [], userOffsets: new Map(), warnings: [] });
  // A turn after every slice: as many slice boundaries as the reading can have.
  const everySlice: Pace = { ...SHARED_THREAD, budgetMs: 0 };
  const paced = (await loadTimeline({ query: QUERY, logs: files, pace: everySlice })).timeline;
  assert.equal(paced.key, `pd${COPIES >> 1}-0017`);
  const items = (t: typeof paced) => t.lanes.flatMap((l) => l.items.map((i) => `${l.title} ${i.kind} ${i.label} ${i.start.toFixed(3)}`));
  assert.ok(items(whole).length >= 10, `the request's lines in all three logs (${items(whole).length} items)`);
  assert.deepEqual(items(paced), items(whole), 'the same events at the same times');
  assert.deepEqual(paced.clocks, whole.clocks, 'the same clock offsets, bounds and orderings');
  assert.deepEqual(paced, whole);
  // The offsets are estimated from every request the logs share (the summary says "by N orderings"): a copy's own, COPIES times.
  const once = (await loadTimeline({ query: 'pd-0017', logs: FILES.map((f) => join(stage('pd-run'), f)) })).timeline;
  assert.ok(once.clocks.every((c) => c.offset.orderings > 0));
  assert.deepEqual(paced.clocks.map((c) => c.offset.orderings), once.clocks.map((c) => c.offset.orderings * COPIES));
});

test('a big chunk of log is parsed with turns of the event loop in between, in the editor\'s pace', async () => {
  const { texts } = set();
  let atHand = 0;
  const during: number[] = [];
  const p = probe();
  try {
    const sources = FILES.map((f, i) => oneChunkSource(f, texts[i], () => { atHand = p.ticks(); }, () => { during.push(p.ticks() - atHand); }));
    const t = await loadTimeline({ query: QUERY, logs: sources });
    assert.ok(t.timeline.lanes.some((l) => l.items.length > 0));
  } finally { p.stop(); }
  // Each file's 1.6–14 MB came as one chunk: read in one pass, the probe would get no turn while it is parsed.
  assert.equal(during.length, 3);
  assert.ok(during.every((n) => n >= 2), `turns of the event loop while each file's chunk was parsed: ${during.join(', ')}`);
});

test('lining up the clocks over every shared request gives the event loop turns, and the same timeline', async () => {
  const logs = await readRequestLogs(paths(), QUERY, { pace: null });
  const src = { query: QUERY, logs, threads: [], userOffsets: new Map<string, number>(), warnings: [] };
  const p = probe();
  let turns: number;
  let paced;
  try {
    // A short budget so that the count does not hang on how fast this machine is: 8,000 requests are tens of ms of work anywhere.
    paced = await buildTimelinePaced(src, {}, { ...SHARED_THREAD, budgetMs: 2 });
    turns = p.ticks();
  } finally { p.stop(); }
  assert.ok(turns >= 3, `the probe's turns while the timeline was built: ${turns}`);
  assert.deepEqual(paced, buildTimeline(src));
});

test('logs open in the editor: their sessions are searched with turns of the event loop between slices, and give the disk\'s timeline', async () => {
  // A smaller set (60 copies, 37,000 lines, 8 MB): the editor keeps every record of an open log.
  const { dir, texts } = bigSet(60);
  const files = FILES.map((f) => join(dir, f));
  const sessions = new Map(files.map((f, i) => {
    const s = new LogSession({ engine: 'auto', referenceTime: WRITTEN });
    s.syncTextNow(texts[i]);
    return [f, s];
  }));
  const query = 'chatcmpl-pd30-0017';
  const p = probe();
  let turns: number;
  let logs;
  try {
    // No file is read (no I/O to wait for): every turn the probe gets is one the search gave.
    logs = await readRequestLogs(files, query, { openLog: (f) => sessions.get(f), pace: { ...SHARED_THREAD, budgetMs: 1 } });
    turns = p.ticks();
  } finally { p.stop(); }
  assert.ok(turns >= 3, `the probe's turns while the open logs were searched: ${turns}`);
  assert.ok(logs.logs.every((l) => l.records.length + l.mentions.length > 0));
  const fromSessions = buildTimeline({ query, logs, threads: [], userOffsets: new Map(), warnings: [] });
  const fromDisk = (await loadTimeline({ query, logs: files })).timeline;
  assert.deepEqual(fromSessions, fromDisk);
});
