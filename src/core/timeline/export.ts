// The whole request out of HopLens: one Chrome/Perfetto trace (each clock a process, each lane
// a thread; bands and calls as complete events, instants as instant events) and Markdown (the
// clocks with their bounds, the hop table across files, the engine's phases, the calls). Log
// texts are what the timeline holds: redacted unless it was built with them.
import type { RequestTimeline, TimelineItem, TimelineLane } from './model';
import type { OffsetEstimate } from './clockOffsets';
import { mergedItems } from './build';
import { markdownCell, markdownCode } from '../text/markdown';

type TraceEvent = Record<string, unknown>;

/** µs with at most 3 decimals (Perfetto reads fractional µs). */
const us = (ms: number): number => Math.round(ms * 1_000_000) / 1000;

function args(item: TimelineItem, lane: TimelineLane): Record<string, unknown> {
  const a: Record<string, unknown> = { resolution: item.resolution, shape: item.shape };
  if (item.hop) a.hop = item.hop;
  if (item.text !== undefined) a.text = item.text;
  const r = item.ref;
  if (r.type === 'log') { a.file = r.path; a.line = r.line; if (r.source) a.source = `${r.source.path}:${r.source.line}`; }
  else if (r.type === 'call') { a.source = `${r.file}:${r.line}`; if (r.callSite) a.calledFrom = `${r.callSite.fn} ${r.callSite.file}:${r.callSite.line}`; }
  else if (r.type === 'client' && r.frame !== null) { a.frame = r.frame; a.bytes = r.bytes; }
  for (const [k, v] of Object.entries(item.detail)) if (v !== null && a[k] === undefined) a[k] = v;
  if (lane.pid !== null) a.pid = lane.pid;
  return a;
}

/** `{"traceEvents": …}` of the whole request; times in µs from the earliest item. */
export function timelinePerfetto(t: RequestTimeline): { traceEvents: TraceEvent[]; displayTimeUnit: string; otherData: Record<string, unknown> } {
  const events: TraceEvent[] = [];
  let min = 0;
  for (const l of t.lanes) for (const it of l.items) if (it.start < min) min = it.start;
  const pidOf = new Map<string, number>();
  t.clocks.forEach((c, i) => pidOf.set(c.id, i + 1));
  for (const c of t.clocks) {
    const pid = pidOf.get(c.id)!;
    const clockNote = c.offset.source === 'reference' ? ' (reference clock)' : ` (clock ${fmtOffset(c.offset)})`;
    events.push({ ph: 'M', name: 'process_name', pid, tid: 0, args: { name: `${c.label}${clockNote}` } });
    events.push({ ph: 'M', name: 'process_sort_index', pid, tid: 0, args: { sort_index: pid } });
  }
  t.lanes.forEach((lane, i) => {
    const pid = pidOf.get(lane.clock) ?? 0;
    const tid = i + 1;
    events.push({ ph: 'M', name: 'thread_name', pid, tid, args: { name: lane.title } });
    events.push({ ph: 'M', name: 'thread_sort_index', pid, tid, args: { sort_index: tid } });
    for (const it of lane.items) {
      const ts = us(it.start - min);
      const base = { name: it.kind === 'call' ? it.label : it.hop ? `${it.hop} ${it.label}` : it.label, cat: it.kind, pid, tid, ts, args: args(it, lane) };
      if (it.shape === 'instant' && it.end - it.start < 0.01) events.push({ ...base, ph: 'i', s: 't' });
      else events.push({ ...base, ph: 'X', dur: Math.max(0, us(it.end - it.start)) });
    }
  });
  return {
    traceEvents: events,
    displayTimeUnit: 'ms',
    otherData: {
      request: t.key, ids: t.ids, origin: new Date(t.origin).toISOString(), zeroAtMs: min,
      note: 'a whole-second log stamp is drawn as the second it names; clocks other than the reference are moved by their offset',
    },
  };
}

/** A signed duration: +2.70 s, −520 ms. */
export function fmtSigned(ms: number): string {
  return `${ms >= 0 ? '+' : '−'}${fmtMs(Math.abs(ms))}`;
}

export function fmtOffset(o: OffsetEstimate): string {
  const v = fmtSigned;
  if (o.source === 'reference') return 'reference';
  const bounds = o.min !== null || o.max !== null ? ` [${o.min !== null ? v(o.min) : '−∞'} … ${o.max !== null ? v(o.max) : '+∞'}]` : '';
  return `${v(o.ms)} ${o.source}${bounds}`;
}

export function fmtMs(ms: number): string {
  const a = Math.abs(ms);
  if (a >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (a >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (a >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(a >= 1 ? 1 : 3)} ms`;
}

/** An item's time as its resolution allows: a band as its interval, an instant as a point. */
export function fmtWhen(item: TimelineItem): string {
  const sign = (ms: number): string => (ms < 0 ? '−' : '+');
  // A band is what its stamp says: the event happened somewhere in [start, end).
  if (item.shape === 'band') {
    const s = (ms: number): string => (item.end - item.start >= 1000
      ? `${sign(ms)}${(Math.abs(ms) / 1000).toFixed(3)} s`
      : `${sign(ms)}${fmtMs(Math.abs(ms))}`);
    return `[${s(item.start)}, ${s(item.end)})`;
  }
  if (item.shape === 'span') return `${sign(item.start)}${fmtMs(Math.abs(item.start))} for ${fmtMs(item.end - item.start)}`;
  return `${sign(item.start)}${fmtMs(Math.abs(item.start))}`;
}

export function timelineMarkdown(t: RequestTimeline): string {
  const out: string[] = [];
  out.push(`### Request ${markdownCode(t.key)} across ${t.clocks.filter((c) => c.path).length} log(s)`);
  out.push('');
  if (t.ids.length) {
    const from = t.reference === 'client' ? 'the client sending the request' : 'the request\'s first line';
    const referenceLabel = t.clocks.find((c) => c.id === t.reference)?.label ?? t.reference;
    out.push(`Seen as ${t.ids.map((i) => markdownCode(i)).join(', ')}. Times count from ${from} on the clock of ${markdownCode(referenceLabel)}; ` +
      '[a, b) is a stamp that only says the line was printed in that interval (a vLLM line stamped to the second).', '');
  }
  out.push('| clock | offset (ahead of the reference) | the orderings allow | from |', '|---|---:|---|---|');
  for (const c of t.clocks) {
    const o = c.offset;
    const allow = o.source === 'reference' ? '—'
      : o.min === null && o.max === null ? 'no ordering ties it'
        : `${o.min !== null ? fmtSigned(o.min) : '−∞'} … ${o.max !== null ? fmtSigned(o.max) : '+∞'}`;
    const offset = o.source === 'reference' ? 'reference' : fmtSigned(o.ms);
    out.push(`| ${markdownCell(c.label)} | ${offset} | ${allow} | ${o.source}${o.orderings ? `, ${o.orderings} ordering(s)` : ''} |`);
  }
  out.push('', '| time | source | process | hop | observed line | file:line |', '|---|---|---|---|---|---|');
  for (const { lane, item } of mergedItems(t)) {
    if (item.kind === 'client-frame') continue;
    const r = item.ref;
    const where = r.type === 'log' && r.source ? markdownCell(`${r.source.path}:${r.source.line}`) : '—';
    const file = lane.file ? lane.title.split(' · ')[0] : lane.title;
    const line = r.type === 'log' ? `L${r.line}: ` : '';
    const observed = markdownCell(item.text ?? item.label, { maxChars: 160 });
    const processCell = markdownCell(lane.process ?? lane.role ?? '');
    out.push(`| ${fmtWhen(item)} | ${markdownCell(file)} | ${processCell} | ${item.hop ?? item.kind} | ${line}${observed} | ${where} |`);
  }
  const client = t.lanes.find((l) => l.kind === 'client');
  const frames = client?.items.filter((i) => i.kind === 'client-frame') ?? [];
  if (frames.length) out.push('', `Client: ${frames.length} frame(s), the first at ${fmtWhen(frames[0])}, the last at ${fmtWhen(frames[frames.length - 1])}.`);
  for (const lane of t.lanes.filter((l) => l.kind === 'calls')) {
    const top = [...lane.items].filter((i) => i.depth === 0).sort((a, b) => (b.end - b.start) - (a.end - a.start)).slice(0, 10);
    out.push('', `#### ${markdownCode(lane.title)}`, '', ...lane.notes.map((n) => `_${n}_`));
    if (top.length) {
      out.push('', '| call | started | took | defined at |', '|---|---|---:|---|');
      for (const c of top) {
        const r = c.ref as Extract<TimelineItem['ref'], { type: 'call' }>;
        out.push(`| ${markdownCell(c.label)} | ${fmtWhen({ ...c, shape: 'instant' })} | ${fmtMs(c.end - c.start)} | ${markdownCell(`${r.file}:${r.line}`)} |`);
      }
    }
  }
  if (t.warnings.length) { out.push(''); for (const w of t.warnings) out.push(`- ${markdownCode(w)}`); }
  if (!t.includesText) {
    out.push('', '_Prompts and outputs redacted ' +
      '(setting `hoplens.export.includePromptsAndOutputs`; `--include-prompts` on the command line)._');
  }
  return out.join('\n') + '\n';
}
