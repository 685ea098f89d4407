// The request timeline page from timelines the core built out of the constructed multi-file
// runs (test/fixtures/timeline), and from a timeline whose every string is hostile. Parsed as a
// browser parses it: one lane per source in the core's order, every item where a click can open
// it, times as each clock printed them, and nothing from the data acts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTimeline } from '../../../src/core/timeline/load';
import { clientFromSendJson, type ClientRequest } from '../../../src/core/timeline/clientRequest';
import type { RequestTimeline, TimelineItem, TimelineLane } from '../../../src/core/timeline/model';
import { timelineBodyHtml, timelineViewModel, timelinePageModel, laneReply, clockStamp } from '../../../src/features/timeline/timelineHtml';
import { renderWebview } from '../../../src/features/shared/webviewHtml';
import { forTerminal } from '../../../src/core/text/terminal';
import { HOSTILE, HOSTILE_RID } from '../text/hostile';
import { activeMarkup, parseBody, parsePage, type ParsedHtml } from './parsedHtml';
import { engineRun, stage } from '../timeline/fixtures';

type El = ParsedHtml['elements'][number];
const attr = (e: El, name: string): string | undefined => e.attrs.find((a) => a.name === name)?.value;
const textOf = (e: El): string => {
  let s = '';
  const walk = (n: El['childNodes'][number]) => { if ('value' in n && n.nodeName === '#text') s += n.value; if ('childNodes' in n) n.childNodes.forEach(walk); };
  e.childNodes.forEach(walk);
  return s;
};

async function engineTimeline(): Promise<{ t: RequestTimeline; dir: string }> {
  const dir = stage('engine-run');
  const client = clientFromSendJson(JSON.parse(readFileSync(join(dir, 'client.json'), 'utf8'))) as ClientRequest;
  const { timeline } = await loadTimeline({
    query: 'tl-0001', logs: [join(dir, 'api-server.log'), join(dir, 'engine-core.log')],
    otlpFiles: [join(dir, 'otlp.jsonl')], traceDirs: [join(dir, 'trace')], client, indexMode: 'in-process',
  });
  return { t: timeline, dir };
}

test('one lane per source (client, processes, engine, calls), each drawing every item of its lane', async () => {
  const { t, dir } = await engineTimeline();
  const run = engineRun(dir);
  const m = timelineViewModel(t);
  assert.deepEqual(m.lanes.map((l) => l.kind), ['client', 'process', 'process', 'engine-spans', 'engine-steps', 'engine-batches', 'calls', 'calls']);
  assert.deepEqual(m.lanes.slice(0, 3).map((l) => l.title.replace(/\d+/g, 'N')), ['client (socket)', 'api-server.log · APIServer pid N', 'engine-core.log · EngineCore pid N']);
  const page = parseBody(timelineBodyHtml(t, m));
  const lanes = page.elements.filter((e) => e.tagName === 'div' && attr(e, 'data-lane') !== undefined);
  assert.deepEqual(lanes.map((e) => attr(e, 'data-lane')), m.lanes.map((l) => l.id));
  // The core's lanes, each once: the engine core's (batch lines only) moved up to the other process.
  assert.deepEqual([...m.lanes.map((l) => l.id)].sort(), t.lanes.map((l) => l.id).sort());
  for (const [i, laneEl] of lanes.entries()) {
    const track = laneEl.childNodes.find((c) => 'tagName' in c && c.tagName === 'svg') as El;
    const drawn = track.childNodes.filter((c) => 'tagName' in c && c.tagName === 'svg') as El[];
    assert.deepEqual(drawn.map((d) => attr(d, 'data-item')), m.lanes[i].items.map((it) => it.id), m.lanes[i].title);
    // One item per lane in the tab order; the arrow keys move from there.
    assert.equal(drawn.filter((d) => attr(d, 'tabindex') === '0').length, drawn.length ? 1 : 0);
  }
  // The API server's hops in the order it printed them, each opening its log line.
  const api = m.lanes[1];
  assert.deepEqual(api.items.map((i) => i.hop), ['V1b', 'V1', 'V2', 'V6', 'V6', 'V6', 'V6']);
  const apiLines = readFileSync(join(dir, 'api-server.log'), 'utf8').split('\n');
  for (const it of api.items) {
    assert.equal(it.opens, 'log-line');
    const [, line] = /:(\d+)$/.exec(it.where!)!;
    assert.ok(it.where!.startsWith(join(dir, 'api-server.log')), it.where!);
    assert.match(apiLines[Number(line) - 1], new RegExp(`Request|Received|Added|Generated|chatcmpl-tl-0001`), `line ${line} is one of the request's`);
    assert.match(it.when, /^\[/, 'a band: [a, b)');
  }
  // Calls open their definition; the outermost is the engine core's busy loop, at depth 0.
  const calls = m.lanes.find((l) => l.kind === 'calls' && l.items.some((c) => c.label === 'run_busy_loop'))!;
  assert.equal(calls.pid, run.enginePid);
  const loop = calls.items.find((c) => c.label === 'run_busy_loop')!;
  assert.equal(loop.row, 0);
  assert.equal(loop.opens, 'call-definition');
  assert.match(loop.where!, /vllm\/.*\.py:\d+$/);
  assert.ok(calls.items.filter((c) => c.label === 'step').every((c) => c.row > 0), 'steps under the loop');
  // Frames of the client are points; the clocks table lists the three clocks and the two logs can be set.
  assert.deepEqual(m.clocks.map((c) => [c.id, c.settable]), [['client', false], ['log:0', true], ['log:1', true], ['otlp', true]]);
  // One host: the engine core's clock is taken to be in step (nothing orders it against the others).
  const core = m.clocks.find((c) => c.id === 'log:1')!;
  assert.deepEqual([core.offsetText, core.source, core.allowed], ['0 ms', 'assumed', 'no ordering ties it to the reference']);
  const inputs = page.elements.filter((e) => e.tagName === 'input');
  assert.deepEqual(inputs.map((e) => attr(e, 'data-clock')), ['log:0', 'log:1', 'otlp']);
  // The time-ordered table: every hop and frame once, calls and batches only in their lanes.
  const orderRows = page.elements.filter((e) => e.tagName === 'tr' && e.parentNode && 'tagName' in e.parentNode && e.parentNode.tagName === 'tbody'
    && (e.parentNode.parentNode as El | undefined) && attr(e.parentNode.parentNode as El, 'id') === 'in-order');
  const notInOrder = new Set(['calls', 'engine-batches']);
  assert.equal(orderRows.length, t.lanes.filter((l) => !notInOrder.has(l.kind)).reduce((n, l) => n + l.items.length, 0));
});

test('a log line\'s time reads as the log printed it, on a machine in another time zone', async () => {
  const before = process.env.TZ;
  process.env.TZ = 'Asia/Kolkata';
  try {
    assert.equal(new Date(Date.UTC(2026, 11, 1)).getTimezoneOffset(), -330, 'the zone took effect');
    const { t, dir } = await engineTimeline();
    const m = timelineViewModel(t);
    const apiLines = readFileSync(join(dir, 'api-server.log'), 'utf8').split('\n');
    for (const it of m.lanes[1].items) {
      const line = apiLines[Number(/:(\d+)$/.exec(it.where!)![1]) - 1];
      const printed = / (\d\d-\d\d \d\d:\d\d:\d\d) /.exec(line)![1];
      assert.equal(it.stamp!.slice(5), printed, `${it.stamp} for ${line.slice(0, 60)}`);
    }
    // The client's clock is real UTC and says so.
    const client = JSON.parse(readFileSync(join(dir, 'client.json'), 'utf8')) as { startedAtEpochMs: number };
    const send = m.lanes[0].items.find((i) => i.kind === 'client-send')!;
    assert.equal(send.stamp, `${new Date(client.startedAtEpochMs).toISOString().slice(0, 23).replace('T', ' ')} UTC`);
  } finally {
    if (before === undefined) delete process.env.TZ; else process.env.TZ = before;
  }
  assert.equal(clockStamp(Date.UTC(2026, 7, 21, 22, 30, 1, 250), 's', false), '2026-08-21 22:30:01');
  assert.equal(clockStamp(Date.UTC(2026, 7, 21, 22, 30, 1, 250), 'ms', true), '2026-08-21 22:30:01.250 UTC');
});

/** A timeline whose every id, title, label, text, path, note and warning is the same string. */
function hostileTimeline(h: string): RequestTimeline {
  const ref = (line: number): TimelineItem['ref'] => ({ type: 'log', path: `/logs/${h}.log`, line, offset: 0, source: { path: `vllm/${h}.py`, line: 3, verified: false, drift: 0, method: 'hop-table' } });
  const hop: TimelineItem = { kind: 'hop', label: h, start: 0, end: 1000, shape: 'band', resolution: 's', hop: 'V1', text: h, ref: ref(2), detail: { line: 2, [h]: h } };
  const call: TimelineItem = {
    kind: 'call', label: h, start: 100, end: 400, shape: 'span', resolution: 'us', depth: 0,
    ref: { type: 'call', traceFile: `/t/${h}`, nodeId: 1, file: `/x/${h}.py`, line: 9, callSite: { fn: h, file: `/x/${h}.py`, line: 4 } }, detail: { phase: h },
  };
  const frame: TimelineItem = { kind: 'client-frame', label: h, start: 50, end: 50, shape: 'instant', resolution: 'us', ref: { type: 'client', frame: 0, bytes: 10 }, detail: { chars: 3 } };
  const lane = (id: string, kind: TimelineLane['kind'], items: TimelineItem[], clock: string): TimelineLane =>
    ({ id: `${id}${h}`, kind, title: h, clock, file: `/logs/${h}.log`, process: h, pid: 1, role: h, items, notes: [h] });
  const offset = (domain: string, source: 'reference' | 'estimated') => ({ domain, ms: 0, min: -1000, max: 1000, source, orderings: 1, upper: [], lower: [], conflict: h });
  return {
    key: h, ids: [h, `chatcmpl-${h}`], origin: Date.UTC(2026, 7, 21), reference: 'client', window: { start: 0, end: 1000 },
    clocks: [{ id: 'client', label: h, path: null, offset: offset('client', 'reference') }, { id: 'log:0', label: h, path: `/logs/${h}.log`, offset: offset('log:0', 'estimated') }],
    lanes: [lane('client', 'client', [frame], 'client'), lane('log', 'process', [hop], 'log:0'), lane('calls', 'calls', [call], 'log:0')],
    includesText: true, warnings: [h],
  };
}

test('hostile ids, lines, titles, paths and warnings read as text and nothing acts', () => {
  const plain = parseBody(timelineBodyHtml(hostileTimeline('plain')));
  assert.deepEqual(activeMarkup(plain), []);
  for (const h of [HOSTILE_RID, '<img src=x onerror=alert(1)>', ...HOSTILE]) {
    const t = hostileTimeline(h);
    const html = timelineBodyHtml(t);
    const p = parseBody(html);
    assert.deepEqual(activeMarkup(p), [], JSON.stringify(h));
    assert.deepEqual(p.shape, plain.shape, `${JSON.stringify(h)}: the page gained or lost an element or attribute`);
    const shown = forTerminal(h);
    const h1 = p.elements.find((e) => e.tagName === 'h1')!;
    assert.equal(textOf(h1), `Request timeline ${shown}`);
    const laneNames = p.elements.filter((e) => attr(e, 'class') === 'lane-name').map(textOf);
    assert.deepEqual(laneNames, [shown, shown, shown]);
    assert.ok(p.elements.filter((e) => e.tagName === 'li').every((li) => textOf(li) === shown), 'the warning');
    // Attributes carry the data as data: the lane ids, the aria labels.
    const asParsed = h.replace(/\r\n?/g, '\n');
    assert.deepEqual(p.elements.filter((e) => attr(e, 'data-lane') !== undefined).map((e) => attr(e, 'data-lane')), [`client${asParsed}`, `log${asParsed}`, `calls${asParsed}`]);
  }
});

test('the page: the timeline script with the nonce only, the view model as data, unchanged by hostile text', () => {
  const NONCE = 'dGltZWxpbmUtbm9uY2U=';
  class FakeUri {
    constructor(readonly scheme: string, readonly path: string) {}
    with(c: { path?: string }): FakeUri { return new FakeUri(this.scheme, c.path ?? this.path); }
    toString(): string { return `${this.scheme}://host${this.path}`; }
  }
  const webview = { cspSource: 'https://webview.test', asWebviewUri: (u: unknown) => new FakeUri('https', (u as FakeUri).path) as never };
  for (const h of [HOSTILE_RID, ...HOSTILE]) {
    const t = hostileTimeline(h);
    const m = timelineViewModel(t);
    const page = parsePage(renderWebview(webview, new FakeUri('file', '/ext') as never, {
      title: `Timeline ${h}`, bodyHtml: timelineBodyHtml(t, m), data: m, scripts: ['timeline.js'], styles: ['report.css', 'timeline.css'],
    }, NONCE));
    assert.deepEqual(activeMarkup(page, NONCE), [], JSON.stringify(h));
    const body = page.elements.find((e) => e.tagName === 'body')!;
    assert.deepEqual(JSON.parse(attr(body, 'data-hoplens')!), JSON.parse(JSON.stringify(m)));
    assert.equal(page.elements.filter((e) => e.tagName === 'script').length, 1);
  }
});

test('the axis: bare numbers in the lane title\'s unit, one per tick, every other one hidden on a narrow panel, none past the track\'s ends', async () => {
  const { t } = await engineTimeline();
  const m = timelineViewModel(t);
  const page = parseBody(timelineBodyHtml(t, m));
  const axis = page.elements.find((e) => e.tagName === 'svg' && attr(e, 'class') === 'axis-track')!;
  const labels = axis.childNodes.filter((c) => 'tagName' in c && c.tagName === 'text') as El[];
  const ticks = axis.childNodes.filter((c) => 'tagName' in c && c.tagName === 'line') as El[];
  assert.ok(labels.length >= 3, `ticks drawn: ${labels.length}`);
  assert.equal(labels.length, ticks.length);
  const values = labels.map((l) => textOf(l));
  for (const v of values) assert.match(v, /^(0|[+−]\d+(\.\d+)?)$/, `a bare number: ${v}`);
  // Evenly stepped, and where each number says on the axis.
  const nums = values.map((v) => Number(v.replace('−', '-')));
  const step = nums[1] - nums[0];
  assert.ok(step > 0 && nums.every((n, i) => Math.abs(n - nums[0] - i * step) < step * 1e-6), values.join(' '));
  for (const [i, l] of labels.entries()) {
    const x = Number(attr(l, 'x')!.replace('%', ''));
    assert.ok(Math.abs(x - ((nums[i] - m.axis.from) / (m.axis.to - m.axis.from)) * 100) < 0.01);
    assert.equal(attr(l, 'class'), i % 2 ? 'axis minor' : 'axis');
    assert.equal(attr(l, 'text-anchor'), x < 4 ? 'start' : x > 92 ? 'end' : 'middle');
  }
  const css = readFileSync(join(__dirname, '..', '..', '..', '..', 'media', 'timeline.css'), 'utf8');
  assert.match(css, /@media \(max-width: \d+px\) \{ \.axis\.minor \{ display: none; \} \}/);
});

test('calls lanes load lazily: the page carries their title, notes and count, not their items; a lane\'s reply draws what the eager page drew', async () => {
  const { t } = await engineTimeline();
  const m = timelineViewModel(t);
  const eager = parseBody(timelineBodyHtml(t, m));
  const lazyHtml = timelineBodyHtml(t, m, { lazyCalls: true });
  const lazy = parseBody(lazyHtml);
  const data = timelinePageModel(m, 3);
  assert.equal(data.page, 3);
  const callLanes = m.lanes.filter((l) => l.kind === 'calls');
  assert.equal(callLanes.length, 2);
  assert.ok(callLanes.every((l) => l.items.length > 0 && l.count === l.items.length && !l.lazy), 'the extension keeps every call');
  const trackOf = (page: ParsedHtml, laneId: string): El => {
    const laneEl = page.elements.find((e) => e.tagName === 'div' && attr(e, 'data-lane') === laneId)!;
    return laneEl.childNodes.find((c) => 'tagName' in c && c.tagName === 'svg') as El;
  };
  const itemsIn = (track: El) => track.childNodes.filter((c) => 'tagName' in c && c.tagName === 'svg') as El[];
  for (const [i, lane] of m.lanes.entries()) {
    const sent = data.lanes[i];
    const lazyTrack = trackOf(lazy, lane.id);
    if (lane.kind === 'calls') {
      // The page's data and HTML: title, notes, count and height; no call.
      assert.deepEqual([sent.title, sent.notes, sent.count, sent.rows, sent.lazy, sent.items], [lane.title, lane.notes, lane.items.length, lane.rows,
        true, []]);
      assert.deepEqual(itemsIn(lazyTrack), [], 'no call drawn');
      assert.equal(attr(lazyTrack, 'data-lazy'), '1');
      assert.equal(attr(lazyTrack, 'tabindex'), '0', 'reachable with Tab, which loads it');
      assert.equal(attr(lazyTrack, 'height'), attr(trackOf(eager, lane.id), 'height'));
      const laneEl = lazy.elements.find((e) => e.tagName === 'div' && attr(e, 'data-lane') === lane.id)!;
      assert.ok(lazy.elements.some((e) => attr(e, 'class') === 'lane-count muted' && e.parentNode && (e.parentNode as El).parentNode === laneEl
        && textOf(e) === `${lane.items.length} calls`), 'the count shown');
      // The reply: this lane's items only, its markup what the eager page drew after the window band.
      const reply = laneReply(m, lane.id, 3)!;
      assert.deepEqual([reply.type, reply.page, reply.lane], ['laneItems', 3, lane.id]);
      assert.deepEqual(reply.items, lane.items);
      const windowRect = /<svg class="track"[^>]*>(<rect class="window"[^>]*\/>)?/.exec(lazyHtml.slice(lazyHtml.indexOf(`data-lane="${lane.id}"`)))!;
      const eagerHtml = timelineBodyHtml(t, m);
      const eagerTrack = eagerHtml.slice(eagerHtml.indexOf(`data-lane="${lane.id}"`));
      const inner = /<svg class="track"[^>]*>([\s\S]*?)<\/svg>\n<\/div>/.exec(eagerTrack)![1];
      assert.equal((windowRect[1] ?? '') + reply.markup, inner);
      assert.deepEqual(itemsIn(parseBody(`<svg>${reply.markup}</svg>`).elements[0] as El).map((d) => attr(d, 'data-item')), lane.items.map((it) => it.id));
    } else {
      assert.deepEqual(sent, lane, 'other lanes come whole');
      assert.deepEqual(itemsIn(lazyTrack).map((d) => attr(d, 'data-item')), lane.items.map((it) => it.id));
    }
  }
  assert.equal(lazy.elements.filter((e) => attr(e, 'class')?.includes('k-call')).length, 0);
  assert.ok(eager.elements.filter((e) => attr(e, 'class')?.includes('k-call')).length > 0);
  assert.equal(laneReply(m, 'no-such-lane', 3), undefined);
});

test('a lazy calls lane of hostile text: the page and the reply read as text and nothing acts', () => {
  for (const h of [HOSTILE_RID, '<img src=x onerror=alert(1)>', ...HOSTILE]) {
    const t = hostileTimeline(h);
    const m = timelineViewModel(t);
    assert.deepEqual(activeMarkup(parseBody(timelineBodyHtml(t, m, { lazyCalls: true }))), [], JSON.stringify(h));
    const reply = laneReply(m, `calls${h}`, 1)!;
    const parsed = parseBody(`<svg>${reply.markup}</svg>`);
    assert.deepEqual(activeMarkup(parsed), [], JSON.stringify(h));
    assert.equal(textOf(parsed.elements.find((e) => e.tagName === 'title')!), forTerminal(`${h}, ${m.lanes[2].items[0].when}`).replace(/\r\n?/g, '\n'));
  }
});
