// The request timeline panel without a VS Code host: what the page's buttons and clicks do. A
// hop opens its log line (or the source that printed it), a call its definition (or its call
// site), a clock's offset set on the page builds the timeline again through the core with it,
// and Copy as Markdown / Export Perfetto Trace write what the core exports. The timeline is the
// core's own, from the engine-run fixture (an API server log, an engine-core log, OTLP spans and
// the engine core's call traces, as vLLM and its tracer write them).
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { env, messages, panels, replies, Uri } from '../fakes/vscode';
import { loadTimeline } from '../../../src/core/timeline/load';
import { clientFromSendJson, type ClientRequest } from '../../../src/core/timeline/clientRequest';
import type { RequestTimeline } from '../../../src/core/timeline/model';
import { RequestTimelinePanel, type TimelineOpeners } from '../../../src/features/timeline/timelinePanel';
import { laneReply, type TimelinePageModel } from '../../../src/features/timeline/timelineHtml';
import { makeTempDir } from '../../harness/tempDirs';
import { stage } from '../timeline/fixtures';

async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
}

async function setUp() {
  const dir = stage('engine-run');
  const client = clientFromSendJson(JSON.parse(readFileSync(join(dir, 'client.json'), 'utf8'))) as ClientRequest;
  const api = join(dir, 'api-server.log');
  const loads: Map<string, number>[] = [];
  const load = async (userOffsets: ReadonlyMap<string, number>): Promise<RequestTimeline> => {
    loads.push(new Map(userOffsets));
    return (await loadTimeline({
      query: 'tl-0001', logs: [api, join(dir, 'engine-core.log')], otlpFiles: [join(dir, 'otlp.jsonl')],
      traceDirs: [join(dir, 'trace')], client, userOffsets, indexMode: 'in-process',
    })).timeline;
  };
  const opened: [string, string, number][] = [];
  const open: TimelineOpeners = {
    logLine: async (p, line) => { opened.push(['logLine', p, line]); },
    logSource: async (p, line0) => { opened.push(['logSource', p, line0]); },
    code: async (file, line) => { opened.push(['code', file, line]); },
  };
  panels.length = 0;
  messages.length = 0;
  replies.length = 0;
  const panel = new RequestTimelinePanel(Uri.file('/ext') as unknown as vscode.Uri, await load(new Map()), load, open);
  loads.length = 0;
  const page = panels[0];
  /** The page id of the first item of a lane kind that matches. */
  const itemId = (pred: (kind: string, it: RequestTimeline['lanes'][number]['items'][number]) => boolean): string => {
    for (const [li, lane] of panel.timeline.lanes.entries()) {
      const ii = lane.items.findIndex((it) => pred(lane.kind, it));
      if (ii >= 0) return `${li}:${ii}`;
    }
    assert.fail('no such item');
  };
  return { dir, api, panel, page, loads, opened, itemId };
}

test('the page shows the core\'s timeline: one lane per source, each title as text', async () => {
  const s = await setUp();
  try {
    assert.equal(s.page.title, 'Timeline tl-0001');
    assert.deepEqual(s.panel.view.lanes.map((l) => l.title).sort(), s.panel.timeline.lanes.map((l) => l.title).sort());
    assert.equal(s.panel.view.lanes[0].title, 'client (socket)', 'the client on top');
    assert.ok(s.panel.view.lanes.length >= 6, s.panel.view.lanes.map((l) => l.title).join(' | '));
    const html = s.page.webview.html;
    assert.match(html, /Content-Security-Policy/);
    assert.match(html, /api-server\.log · APIServer pid \d+/);
  } finally { s.panel.dispose(); }
});

test('a hop opens its log line, or with Open Source the statement; a call its definition, or its call site', async () => {
  const s = await setUp();
  try {
    const hop = s.itemId((kind, it) => kind === 'process' && it.ref.type === 'log' && it.hop === 'V1');
    const ref = s.panel.item(hop)!.ref as { path: string; line: number };
    const lineText = readFileSync(ref.path, 'utf8').split('\n')[ref.line - 1];
    assert.match(lineText, /Received request chatcmpl-tl-0001/, 'the item names the line that printed the hop');
    await s.page.receive({ type: 'open', item: hop });
    await s.page.receive({ type: 'openSource', item: hop });
    const call = s.itemId((kind, it) => kind === 'calls' && it.ref.type === 'call' && (it.ref as { callSite: unknown }).callSite !== null);
    const c = s.panel.item(call)!.ref as { file: string; line: number; callSite: { file: string; line: number } };
    await s.page.receive({ type: 'open', item: call });
    await s.page.receive({ type: 'openCallSite', item: call });
    await s.page.receive({ type: 'open', item: '99:99' });
    assert.deepEqual(s.opened, [
      ['logLine', ref.path, ref.line], ['logSource', ref.path, ref.line - 1],
      ['code', c.file, c.line], ['code', c.callSite.file, c.callSite.line],
    ]);
  } finally { s.panel.dispose(); }
});

test('an offset set on the page rebuilds the timeline with it; reset takes it away; the reference clock is not settable', async () => {
  const s = await setUp();
  try {
    const apiClock = s.panel.timeline.clocks.find((c) => c.path === s.api)!;
    const before = s.panel.renderCount;
    await s.page.receive({ type: 'setOffset', clock: apiClock.id, ms: 2500 });
    await until(() => s.panel.renderCount === before + 1, 'the page drawn again');
    assert.deepEqual([...s.loads[0]], [[s.api, 2500]]);
    const now = s.panel.timeline.clocks.find((c) => c.path === s.api)!;
    assert.equal(now.offset.ms, 2500);
    assert.equal(now.offset.source, 'user');
    assert.equal(s.panel.view.clocks.find((c) => c.id === apiClock.id)!.offsetMs, 2500);
    await s.page.receive({ type: 'resetOffset', clock: apiClock.id });
    await until(() => s.panel.renderCount === before + 2, 'the page drawn again');
    assert.deepEqual([...s.loads[1]], []);
    assert.notEqual(s.panel.timeline.clocks.find((c) => c.path === s.api)!.offset.source, 'user');
    assert.equal(await s.panel.setOffset(s.panel.timeline.reference, 10), false);
    assert.equal(await s.panel.setOffset(apiClock.id, Number.NaN), false);
    assert.equal(s.loads.length, 2, 'neither rebuilt the timeline');
  } finally { s.panel.dispose(); }
});

test('Copy as Markdown and Export Perfetto Trace write what the core exports', async () => {
  const s = await setUp();
  try {
    await s.page.receive({ type: 'copyMarkdown' });
    const md = await env.clipboard.readText();
    assert.match(md, /tl-0001/);
    assert.match(md, /Received request/);
    assert.match(messages.at(-1)!.text, /timeline of tl-0001 copied as Markdown/);
    const out = join(makeTempDir('hoplens-timeline-export-').path, 'tl.json');
    replies.push(Uri.file(out));
    await s.page.receive({ type: 'exportPerfetto' });
    await until(() => messages.at(-1)!.text.includes('wrote '), 'the export said');
    const trace = JSON.parse(readFileSync(out, 'utf8')) as { traceEvents: { name: string }[] };
    assert.ok(trace.traceEvents.length > 10, 'client frames, hops, spans and calls');
    // Dismissing the save dialog writes nothing and says nothing.
    const said = messages.length;
    await s.page.receive({ type: 'exportPerfetto' });
    assert.equal(messages.length, said);
  } finally { s.panel.dispose(); }
});

test('once the page is closed, a late rebuild draws nothing', async () => {
  const s = await setUp();
  const renders = s.panel.renderCount;
  s.page.dispose();
  await s.panel.reload();
  assert.equal(s.panel.renderCount, renders);
});

test('the page gets the calls lanes without their items and asks for one lane at a time; the panel answers that lane only', async () => {
  const s = await setUp();
  try {
    const posted: unknown[] = [];
    (s.page.webview as { postMessage: (m: unknown) => Promise<boolean> }).postMessage = async (m) => { posted.push(m); return true; };
    const html = s.page.webview.html;
    const data = JSON.parse(/data-hoplens="([^"]*)"/.exec(html)![1].replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))) as TimelinePageModel;
    const calls = s.panel.view.lanes.filter((l) => l.kind === 'calls');
    assert.equal(calls.length, 2);
    assert.ok(calls.every((l) => l.items.length > 0), 'the panel keeps every call (tests and exports read it)');
    assert.doesNotMatch(html, /k-call/, 'no call drawn on the page');
    for (const l of calls) {
      const sent = data.lanes.find((x) => x.id === l.id)!;
      assert.deepEqual([sent.title, sent.notes, sent.count, sent.lazy, sent.items], [l.title, l.notes, l.items.length, true, []]);
    }
    const [a, b] = calls;
    await s.page.receive({ type: 'laneItems', lane: a.id, page: data.page });
    assert.equal(posted.length, 1);
    assert.deepEqual(posted[0], laneReply(s.panel.view, a.id, data.page));
    const reply = posted[0] as { items: { id: string }[]; markup: string };
    assert.deepEqual(reply.items.map((i) => i.id), a.items.map((i) => i.id), 'that lane\'s items, none of the other\'s');
    assert.equal((reply.markup.match(/data-item="/g) ?? []).length, a.items.length);
    // A call the page now has opens its definition, as before.
    const call = a.items.find((i) => i.opens === 'call-definition')!;
    await s.page.receive({ type: 'open', item: call.id });
    const ref = s.panel.item(call.id)!.ref as { file: string; line: number };
    assert.deepEqual(s.opened.at(-1), ['code', ref.file, ref.line]);
    // A page drawn before (its number is not the page shown), or a lane that is not there: no answer.
    await s.page.receive({ type: 'laneItems', lane: b.id, page: data.page - 1 });
    await s.page.receive({ type: 'laneItems', lane: 'no-such-lane', page: data.page });
    assert.equal(posted.length, 1);
    await s.page.receive({ type: 'laneItems', lane: b.id, page: data.page });
    assert.deepEqual((posted[1] as { lane: string }).lane, b.id);
    // Drawn again (an offset set): the new page carries a new number; the old one's asks go unanswered.
    const apiClock = s.panel.timeline.clocks.find((c) => c.path === s.api)!;
    await s.page.receive({ type: 'setOffset', clock: apiClock.id, ms: 100 });
    await until(() => s.panel.renderCount === data.page + 1, 'the page drawn again');
    await s.page.receive({ type: 'laneItems', lane: a.id, page: data.page });
    assert.equal(posted.length, 2);
    await s.page.receive({ type: 'laneItems', lane: a.id, page: data.page + 1 });
    assert.equal(posted.length, 3);
  } finally { s.panel.dispose(); }
});
