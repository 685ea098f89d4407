// The request timeline as a webview page: one lane per source (the client, each log's
// processes, the engine's spans and steps, each traced thread's calls) on one time axis, the
// clocks with their offsets (each settable), and every item in time order as a table.
//
// Pure: the same read-only view model feeds the HTML, the page's script (as data) and the
// panel's tests, and nothing here imports VS Code. Every string from a log, a server, a trace or
// a file name goes through `text()` (control characters made visible, then HTML-escaped); the
// page's script writes into the page with textContent only. Positions are SVG attributes in
// percent of the axis: the CSP allows no inline style.
import type { RequestTimeline, TimelineItem, TimelineLane } from '../../core/timeline/model';
import { mergedItems } from '../../core/timeline/build';
import { fmtMs, fmtSigned, fmtWhen } from '../../core/timeline/export';
import { forTerminal } from '../../core/text/terminal';
import { clockStamp } from '../../core/logs/clockStamp';
import { escapeHtml } from '../shared/webviewHtml';

/** What a click on an item opens. */
export type ItemTarget = 'log-line' | 'call-definition' | null;

export interface TimelineViewItem {
  /** `<lane index>:<item index>`, what the page sends back. */
  id: string;
  kind: TimelineItem['kind'];
  label: string;
  hop: string | null;
  /** Axis ms (from the timeline's origin). */
  start: number;
  end: number;
  shape: TimelineItem['shape'];
  /** Row inside its lane: items that overlap are stacked; calls sit at their depth. */
  row: number;
  /** The time as the item's resolution allows ([a, b) for a band). */
  when: string;
  /** The stamp as its own clock reads it (a log line: as the log printed it). */
  stamp: string | null;
  opens: ItemTarget;
  /** The log file:line or the call's definition file:line. */
  where: string | null;
  /** Where the engine's source prints the line (hops), or where the call was made from (calls). */
  source: string | null;
  /** Facts in words, in order. */
  facts: [string, string][];
  /** A line naming only the request's transfer id, joined by it: that id (`bootstrap_room N`). */
  joinedBy?: string;
}

export interface TimelineViewLane {
  id: string;
  kind: TimelineLane['kind'];
  title: string;
  clock: string;
  file: string | null;
  pid: number | null;
  rows: number;
  notes: string[];
  /** How many items the lane has (also on the page, where a calls lane's items come later). */
  count: number;
  /** On the page: the items are not here yet; the page asks for them when the lane is in view. */
  lazy: boolean;
  items: TimelineViewItem[];
}

export interface TimelineViewClock {
  id: string;
  label: string;
  path: string | null;
  offsetMs: number;
  /** '+2.70 s', or 'reference'. */
  offsetText: string;
  source: string;
  /** What the orderings allow, in words. */
  allowed: string;
  conflict: string | null;
  /** The user may set this clock's offset (every clock but the reference). */
  settable: boolean;
}

export interface TimelineViewModel {
  key: string;
  ids: string[];
  reference: string;
  referenceLabel: string;
  fromClient: boolean;
  /** Axis ms shown, left to right edge. */
  axis: { from: number; to: number };
  window: { start: number; end: number } | null;
  clocks: TimelineViewClock[];
  lanes: TimelineViewLane[];
  warnings: string[];
  includesText: boolean;
}

/** The page's data: the view model with each calls lane's items left out, and the page's number. */
export interface TimelinePageModel extends TimelineViewModel {
  /** Which rendering of the panel this page is (a reply for another one is dropped). */
  page: number;
}

/** The panel's answer to a page asking for a lazy lane's items. */
export interface TimelineLaneReply {
  type: 'laneItems';
  page: number;
  lane: string;
  items: TimelineViewItem[];
  /** The lane's item markup, exactly what an eager page draws in the lane's track after the window. */
  markup: string;
}

/** Lanes whose items the page loads when they come into view (a traced thread can hold thousands of calls). */
export function isLazyLane(lane: Pick<TimelineViewLane, 'kind'>): boolean {
  return lane.kind === 'calls';
}

/** The page's data for a view model: calls lanes carry their title, notes and count, not their items. */
export function timelinePageModel(m: TimelineViewModel, page: number): TimelinePageModel {
  return { ...m, page, lanes: m.lanes.map((l) => isLazyLane(l) ? { ...l, lazy: true, items: [] } : l) };
}

/** Items that overlap are stacked at most this deep (deeper ones share the last row). */
const MAX_ROWS = 6;
/** Call depths drawn (deeper calls share the last row). */
const MAX_CALL_ROWS = 16;
/** An item narrower than this share of the axis is drawn this wide (and packed as such). */
const MIN_WIDTH_SHARE = 0.004;
const ROW_PX = 18;
/**
 * Lanes top to bottom: the client, the router, the processes' lines, the engine's own view, and
 * the calls under it (the core adds a process lane when it first meets one, so a process that
 * prints only batch lines would otherwise come after the spans).
 */
const LANE_ORDER: readonly TimelineLane['kind'][] = ['client', 'router', 'process', 'engine-spans', 'engine-steps', 'engine-batches', 'calls'];


/** An epoch stamp as a clock's own digits (a log line: the digits it printed). */
export { clockStamp };

function itemTarget(it: TimelineItem): ItemTarget {
  if (it.ref.type === 'log' && it.ref.line > 0) return 'log-line';
  if (it.ref.type === 'call' && it.ref.file) return 'call-definition';
  return null;
}

function factsOf(it: TimelineItem, lane: TimelineLane): [string, string][] {
  const out: [string, string][] = [['source', lane.title]];
  if (it.hop) out.push(['hop', it.hop]);
  out.push(['resolution', it.resolution === 's' ? 'whole seconds (a band)' : it.resolution]);
  if (it.shape !== 'instant') out.push(['lasted', fmtMs(it.end - it.start)]);
  if (it.text !== undefined && it.text !== it.label) out.push(['text', it.text]);
  const r = it.ref;
  if (r.type === 'client' && r.frame !== null) out.push(['frame', `#${r.frame} · ${r.bytes ?? 0} bytes`]);
  if (r.type === 'span' && r.spanId) out.push(['span', `${r.traceId}/${r.spanId}`]);
  if (r.type === 'call' && r.callSite) out.push(['called from', `${r.callSite.fn} ${r.callSite.file}:${r.callSite.line}`]);
  for (const [k, v] of Object.entries(it.detail)) {
    if (v === null || k === 'line' || k === 'source' || k === 'frame' || k === 'bytes') continue;
    if (k === 'joinedBy') { out.push(['joined by', `${String(v)} (this line names only that; a line of the request names it beside its id)`]); continue; }
    out.push([k, String(v)]);
  }
  return out;
}

/** Rows for a lane's items: calls at their depth, others stacked greedily where they overlap. */
function rowsOf(lane: TimelineLane, minWidth: number): { rows: number[]; count: number } {
  if (lane.kind === 'calls') {
    const rows = lane.items.map((it) => Math.min(it.depth ?? 0, MAX_CALL_ROWS - 1));
    return { rows, count: rows.length ? Math.max(...rows) + 1 : 1 };
  }
  const ends: number[] = [];
  const rows = lane.items.map((it) => {
    const end = Math.max(it.end, it.start + minWidth);
    let r = ends.findIndex((e) => e <= it.start);
    if (r < 0) r = ends.length < MAX_ROWS ? ends.length : MAX_ROWS - 1;
    ends[r] = Math.max(ends[r] ?? -Infinity, end);
    return r;
  });
  return { rows, count: Math.max(1, ends.length) };
}

export function timelineViewModel(t: RequestTimeline): TimelineViewModel {
  let from = 0, to = 0;
  for (const l of t.lanes) for (const it of l.items) { from = Math.min(from, it.start); to = Math.max(to, it.end); }
  if (to - from < 1) to = from + 1;
  const spanMs = to - from;
  from -= spanMs * 0.01;
  to += spanMs * 0.01;
  const minWidth = (to - from) * MIN_WIDTH_SHARE;
  const offsetOf = new Map(t.clocks.map((c) => [c.id, c.offset.ms]));
  const label = (id: string): string => t.clocks.find((c) => c.id === id)?.label ?? id;
  const order = t.lanes.map((lane, li) => ({ lane, li })).sort((a, b) => LANE_ORDER.indexOf(a.lane.kind) - LANE_ORDER.indexOf(b.lane.kind) || a.li - b.li);
  const lanes = order.map(({ lane, li }): TimelineViewLane => {
    const { rows, count } = rowsOf(lane, minWidth);
    const realUtc = lane.clock === 'client' || lane.clock === 'otlp';
    return {
      id: lane.id, kind: lane.kind, title: lane.title, clock: lane.clock, file: lane.file, pid: lane.pid, rows: count, notes: [...lane.notes],
      count: lane.items.length, lazy: false,
      items: lane.items.map((it, ii): TimelineViewItem => {
        const r = it.ref;
        const own = it.start + t.origin + (offsetOf.get(lane.clock) ?? 0);
        return {
          id: `${li}:${ii}`, kind: it.kind, label: it.label, hop: it.hop ?? null, start: it.start, end: it.end, shape: it.shape, row: rows[ii],
          when: fmtWhen(it),
          stamp: clockStamp(own, it.resolution, realUtc),
          opens: itemTarget(it),
          where: r.type === 'log' ? `${r.path}:${r.line}` : r.type === 'call' ? `${r.file}:${r.line}` : null,
          source: r.type === 'log' && r.source ? `${r.source.path}:${r.source.line}`
            : r.type === 'call' && r.callSite ? `${r.callSite.file}:${r.callSite.line}` : null,
          facts: factsOf(it, lane),
          ...(typeof it.detail.joinedBy === 'string' ? { joinedBy: it.detail.joinedBy } : {}),
        };
      }),
    };
  });
  const clocks = t.clocks.map((c): TimelineViewClock => {
    const o = c.offset;
    const allowed = o.source === 'reference' ? '—' : o.min === null && o.max === null ? 'no ordering ties it to the reference'
      : `${o.min !== null ? fmtSigned(o.min) : '−∞'} … ${o.max !== null ? fmtSigned(o.max) : '+∞'} `
        + `(${o.orderings} ordering${o.orderings === 1 ? '' : 's'})`;
    return {
      id: c.id, label: c.label, path: c.path, offsetMs: o.ms, offsetText: o.source === 'reference' ? 'reference' : o.ms === 0 ? '0 ms' : fmtSigned(o.ms),
      source: o.source, allowed, conflict: o.conflict ?? null, settable: c.id !== t.reference,
    };
  });
  return {
    key: t.key, ids: [...t.ids], reference: t.reference, referenceLabel: label(t.reference), fromClient: t.reference === 'client',
    axis: { from, to }, window: t.window ? { ...t.window } : null, clocks, lanes, warnings: [...t.warnings], includesText: t.includesText,
  };
}

/** Data as page text: control characters visible, then escaped for HTML. */
function text(s: string): string {
  return escapeHtml(forTerminal(s));
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** A tick step of 1, 2 or 5 × 10^k ms giving about `n` ticks. */
function tickStep(spanMs: number, n = 6): number {
  const raw = spanMs / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

function axisHtml(m: TimelineViewModel, pct: (ms: number) => number): string {
  const step = tickStep(m.axis.to - m.axis.from);
  // Labels are bare numbers (the lane title gives the unit), centred on their tick, the last
  // ones kept inside the track; every other label is "minor", hidden on a narrow panel so that
  // labels never run into each other.
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  const ticks: string[] = [];
  let i = 0;
  for (let v = Math.ceil(m.axis.from / step) * step; v <= m.axis.to + step * 1e-9; v += step, i++) {
    const at = pct(v);
    const x = at.toFixed(3);
    const label = Math.abs(v) < step / 2 ? '0' : `${v > 0 ? '+' : '−'}${Math.abs(v).toFixed(digits)}`;
    const anchor = at < 4 ? 'start' : at > 92 ? 'end' : 'middle';
    ticks.push(`<line class="tick" x1="${x}%" x2="${x}%" y1="12" y2="18"/>`
      + `<text class="axis${i % 2 ? ' minor' : ''}" x="${x}%" y="10" text-anchor="${anchor}">${escapeHtml(label)}</text>`);
  }
  return `<svg class="axis-track" width="100%" height="18" aria-hidden="true">${ticks.join('')}</svg>`;
}

function itemAria(it: TimelineViewItem): string {
  return `${it.hop ? `${it.hop} ` : ''}${it.label}, ${it.when}${it.joinedBy !== undefined ? `, by ${it.joinedBy}` : ''}`;
}

/** Axis ms to percent of the track. */
function pctOf(m: TimelineViewModel): (ms: number) => number {
  return (ms: number): number => ((ms - m.axis.from) / (m.axis.to - m.axis.from)) * 100;
}

/** A lane's items as SVG markup: what its track holds after the window band. */
export function laneItemsHtml(lane: TimelineViewLane, m: TimelineViewModel): string {
  const pct = pctOf(m);
  const minShare = MIN_WIDTH_SHARE * 100;
  return lane.items.map((it, i) => {
    const x = pct(it.start);
    const w = Math.max(minShare, pct(it.end) - x);
    const cls = `item k-${it.kind} s-${it.shape}${it.opens ? ' opens' : ''}`;
    // A label only where it can be read; the nested <svg> clips it to the item.
    const labelText = w >= 4 ? `<text x="3" y="${ROW_PX - 6}">${text(clip(it.hop ? `${it.hop} ${it.label}` : it.label, 80))}</text>` : '';
    return `<svg class="${cls}" x="${x.toFixed(3)}%" y="${it.row * ROW_PX}" width="${w.toFixed(3)}%" height="${ROW_PX - 2}" `
      + `role="button" tabindex="${i === 0 ? 0 : -1}" data-item="${escapeHtml(it.id)}" aria-label="${text(clip(itemAria(it), 200))}">`
      + `<rect width="100%" height="100%" rx="2"/>${labelText}<title>${text(clip(itemAria(it), 300))}</title></svg>`;
  }).join('');
}

/** The reply to a page asking for a lane's items (undefined: no such lane). */
export function laneReply(m: TimelineViewModel, laneId: string, page: number): TimelineLaneReply | undefined {
  const lane = m.lanes.find((l) => l.id === laneId);
  return lane ? { type: 'laneItems', page, lane: lane.id, items: lane.items, markup: laneItemsHtml(lane, m) } : undefined;
}

function laneHtml(lane: TimelineViewLane, m: TimelineViewModel, lazy: boolean): string {
  const pct = pctOf(m);
  const windowRect = m.window && lane.kind !== 'client'
    ? `<rect class="window" x="${pct(m.window.start).toFixed(3)}%" width="${Math.max(0, pct(m.window.end) - pct(m.window.start)).toFixed(3)}%" `
      + 'y="0" height="100%"/>'
    : '';
  const notes = lane.notes.length ? `<div class="lane-notes muted">${lane.notes.map(text).join(' · ')}</div>` : '';
  // A lazy lane: its height and count now, its items when the page asks (in view, or focused).
  const later = lazy && isLazyLane(lane);
  const count = later ? `<div class="lane-count muted">${lane.count} call${lane.count === 1 ? '' : 's'}</div>` : '';
  const trackSvg = `<svg class="track" width="100%" height="${lane.rows * ROW_PX}" role="group"`;
  const track = later
    ? `${trackSvg} aria-label="${text(lane.title)}, ${lane.count} items" data-lazy="1" tabindex="0">${windowRect}</svg>`
    : `${trackSvg} aria-label="${text(lane.title)}">${windowRect}${laneItemsHtml(lane, m)}</svg>`;
  return `<div class="lane" data-lane="${escapeHtml(lane.id)}" data-kind="${escapeHtml(lane.kind)}">
<div class="lane-title"><span class="lane-name">${text(lane.title)}</span>${notes}${count}</div>
${track}
</div>`;
}

function clocksHtml(m: TimelineViewModel): string {
  const rows = m.clocks.map((c) => {
    const id = escapeHtml(c.id);
    const reset = c.source === 'user' ? ` <button data-reset-offset="${id}">Use the estimate</button>` : '';
    const input = c.settable
      ? `<input type="number" step="1" id="offset-${id}" data-clock="${id}" value="${Math.round(c.offsetMs)}" aria-label="offset of ${text(c.label)} in ms">`
        + ` ms <button data-set-offset="${id}">Set</button>${reset}`
      : '';
    const conflict = c.conflict ? `<div class="warn">${text(c.conflict)}</div>` : '';
    return `<tr data-clock-row="${id}"><th>${text(c.label)}</th><td>${escapeHtml(c.offsetText)}</td><td>${escapeHtml(c.source)}</td>`
      + `<td>${escapeHtml(c.allowed)}</td><td>${input}${conflict}</td></tr>`;
  }).join('');
  const head = '<thead><tr><th>clock</th><th>offset</th><th>from</th><th>the orderings allow</th><th>set it</th></tr></thead>';
  return `<table class="clocks" id="clocks">${head}<tbody>${rows}</tbody></table>
<p class="muted">Offset: how far a clock runs ahead of ${text(m.referenceLabel)}; its stamps are moved back by it. `
    + 'Estimated from what must happen in order (a request is received before it is added, prefill answers before decode starts).</p>';
}

function orderHtml(t: RequestTimeline, m: TimelineViewModel): string {
  const laneIndex = new Map(t.lanes.map((l, i) => [l, i]));
  const byId = new Map(m.lanes.flatMap((l) => l.items.map((it) => [it.id, it] as const)));
  const rows = mergedItems(t).map(({ lane, item }) => {
    const v = byId.get(`${laneIndex.get(lane)!}:${lane.items.indexOf(item)}`)!;
    const open = v.opens
      ? `<button data-item="${escapeHtml(v.id)}" data-open="1" aria-label="open ${text(clip(itemAria(v), 120))}">`
        + `${v.opens === 'log-line' ? 'line' : 'open'}</button>`
      : '';
    return `<tr><td>${escapeHtml(v.when)}</td><td>${text(lane.title)}</td><td>${text(v.hop ?? (v.joinedBy !== undefined ? `by ${v.joinedBy}` : v.kind))}</td>`
      + `<td><code>${text(clip(item.text ?? v.label, 200))}</code></td><td>${open}</td></tr>`;
  }).join('');
  const head = '<thead><tr><th>time</th><th>source</th><th>hop</th><th>line</th><th></th></tr></thead>';
  return `<table class="order" id="in-order">${head}<tbody>${rows}</tbody></table>`;
}

const SECOND_STAMPS = 'A line stamped to the second is drawn as that second (a band), not a point.';
const KEYBOARD_HELP = 'Click an item, or Tab to a lane and move with the arrow keys (Home, End) and press Enter: '
  + 'a log line opens in its log, a call at its definition.';

/**
 * The page body for a built timeline (its view model is the same `timelineViewModel(t)`).
 * `lazyCalls`: the calls lanes are drawn empty (title, notes, count), their items sent later.
 */
export function timelineBodyHtml(t: RequestTimeline, m: TimelineViewModel = timelineViewModel(t), opts: { lazyCalls?: boolean } = {}): string {
  const pct = pctOf(m);
  const seen = m.ids.length ? `seen as ${m.ids.map((i) => `<code>${text(i)}</code>`).join(', ')} · ` : '';
  const zero = m.fromClient ? 'the client sending the request' : 'the request\'s first line';
  const warnings = m.warnings.length ? `<ul class="warnings">${m.warnings.map((w) => `<li class="warn">${text(w)}</li>`).join('')}</ul>` : '';
  const lanes = m.lanes.length
    ? m.lanes.map((l) => laneHtml(l, m, opts.lazyCalls ?? false)).join('\n')
    : '<p class="muted">No source has a line of this request.</p>';
  const redacted = m.includesText ? ''
    : '<p class="muted">Prompts and outputs redacted (setting <code>hoplens.export.includePromptsAndOutputs</code>).</p>';
  return `<header>
<h1>Request timeline <code>${text(m.key)}</code></h1>
<p class="muted">${seen}0 is ${zero}, on the clock of <code>${text(m.referenceLabel)}</code>. ${SECOND_STAMPS}</p>
<nav>
<button data-action="copyMarkdown">Copy as Markdown</button>
<button data-action="exportPerfetto">Export Perfetto Trace…</button>
<button data-action="reload">Read the Logs Again</button>
</nav>
</header>
${warnings}
<section aria-label="lanes"><h2>Lanes</h2>
<div class="timeline" id="lanes">
<div class="lane axis-lane"><div class="lane-title muted">ms from 0</div>${axisHtml(m, pct)}</div>
${lanes}
</div>
<p class="muted">${KEYBOARD_HELP}</p>
</section>
<section id="detail" aria-live="polite"><h2>Selected</h2><p class="muted">Nothing selected.</p></section>
<section><h2>Clocks</h2>${clocksHtml(m)}</section>
<section><h2>In time order</h2>${orderHtml(t, m)}${redacted}</section>`;
}
