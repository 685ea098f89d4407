// Builds the request timeline from its sources: the request's lines in each log (requestLogs.ts),
// the client's measurement, the engine's spans, and the traced threads' call indexes. Clocks
// are lined up first (clockRules.ts → clockOffsets.ts), then every item is placed on the
// reference clock's axis with the extent its stamp can honestly claim (model.ts).
import { basename } from 'node:path';
import type { SpanStore } from '../otlp/engineTiming';
import { requestEngineView } from '../otlp/join';
import type { ThreadTrace } from '../calltrace/threadTrace';
import type { TraceFileInfo } from '../calltrace/types';
import type { TimeResolution } from '../logs/model';
import type { RequestTimeline, TimelineClock, TimelineItem, TimelineLane } from './model';
import { resolutionSpanMs } from './model';
import { solveOffsets, type OrderingSet } from './clockOffsets';
import { collectOrderings, collectOrderingsPaced, inferRoles, type LogRole, type RuleSources } from './clockRules';
import { SHARED_THREAD, Turns, type Pace } from '../session/pace';
import type { ClientRequest } from './clientRequest';
import { clientKey } from './clientRequest';
import { queryKeys } from './requestKey';
import { redactLogMessage, type ProcessSeen, type RequestLogsResult } from './requestLogs';
import { callsInWindow } from './windowCalls';
import { findHop } from '../../engines/index';
import { shortFormat } from '../../engines/shortName';

export interface TracedThread {
  file: TraceFileInfo;
  /** Index into the logs of the log whose process has the file's pid (its clock is the trace's). */
  logIndex: number;
  process: ProcessSeen;
  /** The thread's call index; null when it could not be read. */
  trace: ThreadTrace | null;
  error?: string | null;
}

export interface TimelineSources {
  /** What the user asked for (any of the request's ids). */
  query: string;
  logs: RequestLogsResult;
  client?: ClientRequest | null;
  spans?: SpanStore | null;
  threads?: readonly TracedThread[];
  /** Offsets the user set (ms ahead of the reference), by clock id ('client', 'otlp', 'log:<i>'). */
  userOffsets?: ReadonlyMap<string, number>;
  /** Said in the timeline's warnings (files that were not read, traces with no process…). */
  warnings?: string[];
}

export interface BuildOptions {
  /** Keep prompts and outputs in log texts (default: redacted). */
  includeText?: boolean;
  /** Calls per traced thread at most (outer levels first). */
  maxCalls?: number;
  /** Batch lines per log at most. */
  maxContext?: number;
}

export const DEFAULT_MAX_CALLS = 5000;

export function logClockId(i: number): string { return `log:${i}`; }

/** A log's lane label: its source's own label (a pod), else its file name; the path where two share a name. */
function labelsOf(logs: readonly { path: string; label?: string }[]): string[] {
  const paths = logs.map((l) => l.path);
  const names = logs.map((l) => l.label ?? basename(l.path));
  return names.map((n, i) => (names.indexOf(n) !== names.lastIndexOf(n) ? paths[i] : n));
}

/** An item with its times on the reference clock (epoch ms); moved onto the axis at the end. */
type Placed = TimelineItem;

function shapeOf(res: TimeResolution): 'band' | 'instant' {
  return res === 's' ? 'band' : 'instant';
}

function short(text: string, n = 80): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** Epoch ms on a clock → the reference clock. */
type Place = (clock: string, epochMs: number) => number;
type Window = { start: number; end: number };
type Phase = { name: string; start: number; end: number };
type EngineView = NonNullable<ReturnType<typeof requestEngineView>>;

/** The client's lane: the socket's connect, send, headers, frames and end. */
function clientLane(client: ClientRequest, place: Place, warnings: string[]): TimelineLane {
  if (client.startedAtEpochMs === null) {
    warnings.push('the client record does not say when it started (an older `hoplens send --json`): its clock is placed by the orderings alone');
  }
  const t0 = place('client', client.startedAtEpochMs ?? 0);
  const items: Placed[] = [];
  const at = (ms: number): number => t0 + ms;
  const mark = (
    kind: TimelineItem['kind'], label: string, ms: number, frame: number | null = null, bytes: number | null = null, detail: TimelineItem['detail'] = {},
  ): void => {
    items.push({ kind, label, start: at(ms), end: at(ms), shape: 'instant', resolution: 'us', ref: { type: 'client', frame, bytes }, detail });
  };
  if (client.connectMs !== null) {
    items.push({
      kind: 'client-connect', label: 'connection set-up', start: at(-client.connectMs), end: at(0), shape: 'span', resolution: 'us',
      ref: { type: 'client', frame: null, bytes: null }, detail: { ms: client.connectMs },
    });
  }
  mark('client-send', 'request sent', 0);
  if (client.headersMs !== null) mark('client-headers', `response headers${client.status !== null ? ` (HTTP ${client.status})` : ''}`, client.headersMs);
  for (const f of client.frames) mark('client-frame', f.kind, f.t, f.index, f.bytes, { frame: f.index, bytes: f.bytes, chars: f.chars });
  if (client.endMs !== null) mark('client-end', client.error ? `ended: ${short(client.error, 60)}` : 'end of stream', client.endMs);
  const notDrawn = client.framesReceived - client.frames.length;
  const notes = notDrawn > 0 ? [`${notDrawn} frames past the detail cap are not drawn`] : [];
  return { id: 'client', kind: 'client', title: 'client (socket)', clock: 'client', file: null, process: null, pid: null, role: 'client', items, notes };
}

/** The engine's lanes from its spans: the request's span and phases, its events, its scheduler steps; the span's window and the phases. */
function engineSpanLanes(view: EngineView, place: Place, lanes: TimelineLane[]): { spanWindow: Window | null; phases: Phase[] } {
  let spanWindow: Window | null = null;
  const phases: Phase[] = [];
  const items: Placed[] = [];
  const t = view.timing;
  if (t) {
    const s = place('otlp', t.span.startMs), e = place('otlp', t.span.endMs);
    spanWindow = { start: s, end: e };
    items.push({
      kind: 'span', label: `${t.span.name} ${t.requestId}`, start: s, end: e, shape: 'span', resolution: 'ns',
      ref: { type: 'span', traceId: t.span.traceId, spanId: t.span.spanId, event: null },
      detail: {
        promptTokens: t.promptTokens, completionTokens: t.completionTokens, ttftMs: t.ttftMs, e2eMs: t.e2eMs,
        queueMs: t.queueMs, prefillMs: t.prefillMs, decodeMs: t.decodeMs,
        service: typeof t.span.resource['service.name'] === 'string' ? t.span.resource['service.name'] as string : null,
      },
    });
    // vLLM times the phases in the engine core and sends durations: placed back from the first
    // token (arrival + TTFT), which both processes agree on to within an IPC hop.
    if (t.ttftMs !== null) {
      const first = s + t.ttftMs;
      const prefillStart = t.prefillMs !== null ? first - t.prefillMs : null;
      if (prefillStart !== null && t.queueMs !== null) phases.push({ name: 'queue', start: prefillStart - t.queueMs, end: prefillStart });
      if (prefillStart !== null) phases.push({ name: 'prefill', start: prefillStart, end: first });
      if (t.decodeMs !== null) phases.push({ name: 'decode', start: first, end: first + t.decodeMs });
      for (const p of phases) {
        items.push({
          kind: 'phase', label: p.name, start: p.start, end: p.end, shape: 'span', resolution: 'us',
          ref: { type: 'span', traceId: t.span.traceId, spanId: t.span.spanId, event: null },
          detail: { ms: p.end - p.start, placed: 'from the span durations, anchored at the first token' },
        });
      }
    }
  }
  for (const ev of view.events) {
    const at = place('otlp', ev.timeMs);
    items.push({
      kind: 'event', label: ev.name, start: at, end: at, shape: 'instant', resolution: 'ns',
      ref: { type: 'span', traceId: '', spanId: '', event: ev.name }, detail: { span: ev.span },
    });
  }
  if (items.length) {
    lanes.push({
      id: 'otlp:spans', kind: 'engine-spans', title: 'engine spans (OTLP)', clock: 'otlp', file: null, process: null, pid: null, role: 'engine',
      items, notes: [],
    });
  }
  if (view.snapshots.length) {
    lanes.push({
      id: 'otlp:steps', kind: 'engine-steps', title: 'scheduler steps of the request', clock: 'otlp', file: null, process: null, pid: null,
      role: 'engine', notes: [],
      items: view.snapshots.map((sn) => {
        const at = place('otlp', sn.timeMs);
        const label = `step ${sn.stepId}${sn.phase ? ` ${sn.phase}` : ''}${sn.scheduledTokens !== null ? ` · ${sn.scheduledTokens} tok` : ''}`;
        return { kind: 'step', label, start: at, end: at, shape: 'instant', resolution: 'ns',
          ref: { type: 'span', traceId: '', spanId: '', event: 'step.REQUEST_SNAPSHOT' },
          detail: {
            step: sn.stepId, phase: sn.phase, scheduledTokens: sn.scheduledTokens, computedTokens: sn.computedTokens,
            outputTokens: sn.outputTokens, preemptions: sn.preemptions, kvBlocksAllocated: sn.kvBlocksAllocated,
          } } satisfies Placed;
      }),
    });
  }
  return { spanWindow, phases };
}

/** The scheduler steps of all requests inside the request's window (null: none there). */
function batchesLane(spans: SpanStore, window: Window, place: Place): TimelineLane | null {
  const maxBatches = 500;
  const batches = spans.batches().filter((b) => {
    const at = place('otlp', b.timeMs);
    return at <= window.end && at + (b.durationUs ?? 0) / 1000 >= window.start;
  });
  if (batches.length) {
    return {
      id: 'otlp:batches', kind: 'engine-batches', title: 'scheduler steps (all requests)', clock: 'otlp', file: null, process: null, pid: null, role: 'engine',
      notes: batches.length > maxBatches ? [`${batches.length - maxBatches} more steps in the window are not drawn`] : [],
      items: batches.slice(0, maxBatches).map((b) => {
        const at = place('otlp', b.timeMs);
        const label = `step ${b.stepId}: ${b.running ?? '?'} running, ${b.waiting ?? '?'} waiting, ${b.scheduledTokens ?? '?'} tok`;
        return { kind: 'batch', label, start: at, end: at + (b.durationUs ?? 0) / 1000,
          shape: 'span', resolution: 'us', ref: { type: 'span', traceId: '', spanId: '', event: 'step.BATCH_SUMMARY' },
          detail: {
            step: b.stepId, running: b.running, waiting: b.waiting, prefillReqs: b.prefillReqs, decodeReqs: b.decodeReqs,
            scheduledTokens: b.scheduledTokens, kvUsage: b.kvUsage,
          } } satisfies Placed;
      }),
    };
  }
  return null;
}

/** One lane per traced thread: its calls inside the request's window, outermost first up to the cap. */
function callLanes(threads: readonly TracedThread[], window: Window | null, phases: readonly Phase[], offsetOf: (clock: string) => number, place: Place,
  maxCalls: number, lanes: TimelineLane[]): void {
  for (const th of threads) {
    const clock = logClockId(th.logIndex);
    const who = `${th.process.name ?? 'pid'} pid ${th.file.pid}`;
    const lane: TimelineLane = { id: `calls:${th.file.path}`, kind: 'calls', title: `calls · ${who} · thread ${th.file.tidText}`, clock, file: th.file.path,
      process: th.process.name, pid: th.file.pid, role: th.process.role, items: [], notes: [] };
    lanes.push(lane);
    if (!th.trace) { lane.notes.push(`not read: ${th.error ?? 'no index'}`); continue; }
    if (!window) { lane.notes.push('the request has no server-side time to look in'); continue; }
    const o = offsetOf(clock);
    const w = window;
    const found = callsInWindow(th.trace, (w.start + o) * 1000, (w.end + o) * 1000, maxCalls);
    const minDepth = found.depths.length ? Math.min(...found.depths) : 0;
    const tr = th.trace;
    for (const [n, id] of found.nodes.entries()) {
      const startMs = place(clock, tr.startOf(id) / 1000);
      const endUs = tr.isOpen(id) ? tr.stats.lastTs : tr.endOf(id);
      const endMs = place(clock, endUs / 1000);
      // The phases are placed from the API server's first token, an IPC hop after the engine
      // core's: a call belongs to the phase that holds its middle.
      const mid = (startMs + Math.max(startMs, endMs)) / 2;
      const phase = phases.find((p) => mid >= p.start && mid < p.end)?.name ?? null;
      lane.items.push({
        kind: 'call', label: tr.fnOf(id), start: startMs, end: Math.max(startMs, endMs), shape: 'span', resolution: 'us', depth: found.depths[n] - minDepth,
        ref: { type: 'call', traceFile: th.file.path, nodeId: id, file: tr.fileOf(id), line: tr.lineOf(id), callSite: tr.callSiteOf(id) },
        detail: { durationUs: tr.durationOf(id), open: tr.isOpen(id), depth: found.depths[n], phase },
      });
    }
    lane.notes.push(found.total > found.nodes.length
      ? `${found.total} calls in the request's window; the ${found.nodes.length} outermost are drawn`
      : `${found.total} call(s) in the request's window`);
  }
}

/** Without a span: the request's window is what its log lines cover (its process and router lanes). */
function logLinesWindow(lanes: readonly TimelineLane[]): Window | null {
  let lo = Infinity, hi = -Infinity;
  for (const l of lanes) {
    if (l.kind !== 'process' && l.kind !== 'router') continue;
    for (const it of l.items) { lo = Math.min(lo, it.start); hi = Math.max(hi, it.end); }
  }
  return lo <= hi ? { start: lo, end: hi } : null;
}

/** What the drawn timeline leaves open: clocks placed by assumption, logs with no line of the request. */
function drawnWarnings(clocks: readonly TimelineClock[], reference: string, logs: RequestLogsResult['logs'], labels: readonly string[],
  filled: readonly TimelineLane[]): string[] {
  const out: string[] = [];
  for (const c of clocks) {
    if (c.offset.source === 'assumed' && c.id !== reference && filled.some((l) => l.clock === c.id && l.items.length > 0)) {
      const referenceLabel = clocks.find((x) => x.id === reference)?.label ?? reference;
      out.push(`${c.label}: no ordering ties its clock to ${referenceLabel}; taken to be in step (set its offset if its host's clock differs)`);
    }
  }
  for (const [i, log] of logs.entries()) {
    if (log.records.length === 0 && log.mentions.length === 0 && !filled.some((l) => l.file === log.path)) {
      out.push(`${labels[i]}: no line of this request (${log.lines} lines read)`);
    }
  }
  return out;
}

/** The request's join key, each log's role for it, and what the clock rules read: a build's first step. */
function clockSources(src: TimelineSources): { key: string; roles: LogRole[]; rules: RuleSources } {
  const logs = src.logs.logs;
  const client = src.client ?? null;
  const spans = src.spans ?? null;
  const key = src.logs.key || (client ? clientKey(client) : queryKeys(src.query)[0] ?? '');
  const roles = inferRoles(logs);
  const rules: RuleSources = {
    key, logs: logs.map((log, i) => ({ domain: logClockId(i), log, role: roles[i] })),
    client: client ? { domain: 'client', request: client } : null,
    spans: spans ? { domain: 'otlp', store: spans } : null,
  };
  return { key, roles, rules };
}

export function buildTimeline(src: TimelineSources, opts: BuildOptions = {}): RequestTimeline {
  const clocks = clockSources(src);
  return placeTimeline(src, opts, clocks, collectOrderings(clocks.rules));
}

/**
 * buildTimeline on a thread that must stay responsive (the editor's extension host): the
 * orderings over every request the logs share, most of a build's work, are worked out in slices
 * with turns of the event loop between them. The same timeline.
 */
export async function buildTimelinePaced(src: TimelineSources, opts: BuildOptions = {}, pace: Pace = SHARED_THREAD): Promise<RequestTimeline> {
  const clocks = clockSources(src);
  return placeTimeline(src, opts, clocks, await collectOrderingsPaced(clocks.rules, new Turns(pace)));
}

function placeTimeline(src: TimelineSources, opts: BuildOptions, { key, roles }: ReturnType<typeof clockSources>, orderings: OrderingSet): RequestTimeline {
  const logs = src.logs.logs;
  const client = src.client ?? null;
  const spans = src.spans ?? null;
  const warnings = [...(src.warnings ?? [])];
  const includeText = opts.includeText === true;
  const labels = labelsOf(logs);

  // ---- clocks
  const view = spans ? requestEngineView(spans, key) : null;
  const firstWithLines = logs.findIndex((l) => l.records.length > 0 || l.mentions.length > 0);
  const routerIndex = logs.findIndex((l, i) => roles[i] === 'router' && l.mentions.length > 0);
  const reference = client ? 'client' : routerIndex >= 0 ? logClockId(routerIndex) : firstWithLines >= 0 ? logClockId(firstWithLines)
    : logs.length ? logClockId(0) : 'otlp';
  const clockIds = [...(client ? ['client'] : []), ...logs.map((_, i) => logClockId(i)), ...(spans ? ['otlp'] : [])];
  const solution = solveOffsets(clockIds, reference, orderings, src.userOffsets ?? new Map());
  if (solution.inconsistent) warnings.push(solution.inconsistent);
  const offsetOf = (clock: string): number => solution.offsets.get(clock)?.ms ?? 0;
  const clocks: TimelineClock[] = clockIds.map((id) => {
    const i = id.startsWith('log:') ? Number(id.slice(4)) : -1;
    return { id, label: i >= 0 ? labels[i] : id === 'client' ? 'client' : 'OTLP spans', path: i >= 0 ? logs[i].path : null, offset: solution.offsets.get(id)! };
  });
  for (const c of clocks) if (c.offset.conflict) warnings.push(`${c.label}: ${c.offset.conflict}`);
  const place = (clock: string, epochMs: number): number => epochMs - offsetOf(clock);

  const lanes: TimelineLane[] = [];
  const ids = new Set<string>();

  // ---- client
  if (client) {
    ids.add(client.requestId);
    lanes.push(clientLane(client, place, warnings));
  }

  // ---- log lines: one lane per process of each file (router lines: one lane per file)
  const laneOf = new Map<string, TimelineLane>();
  const processLane = (i: number, process: string | null, pid: number | null, role: string | null): TimelineLane => {
    const k = `${i}\u0000${process ?? ''}\u0000${pid ?? ''}`;
    let lane = laneOf.get(k);
    if (!lane) {
      const who = process ?? role ?? 'log';
      lane = { id: `log:${i}:${process ?? ''}:${pid ?? ''}`, kind: 'process', title: `${labels[i]} · ${who}${pid !== null ? ` pid ${pid}` : ''}`,
        clock: logClockId(i), file: logs[i].path, process, pid, role, items: [], notes: [] };
      laneOf.set(k, lane);
      lanes.push(lane);
    }
    return lane;
  };
  for (const [i, log] of logs.entries()) {
    const clock = logClockId(i);
    if (log.mentions.length) {
      const items: Placed[] = log.mentions.map((m) => {
        ids.add(m.router.requestId);
        const start = place(clock, m.router.time);
        return {
          kind: 'router', label: m.router.message, start, end: start + resolutionSpanMs(m.router.resolution), shape: shapeOf(m.router.resolution),
          resolution: m.router.resolution, text: m.text, ref: { type: 'log', path: log.path, line: m.line, offset: m.offset, source: null },
          detail: { line: m.line, event: m.router.event, requestId: m.router.requestId },
        } satisfies Placed;
      });
      lanes.push({
        id: `log:${i}:router`, kind: 'router', title: `${labels[i]} · router`, clock, file: log.path, process: null, pid: null, role: 'router',
        items, notes: [],
      });
    }
    const deltas = new Map((log.group?.hops ?? []).map((h) => [h.line, h]));
    let untimed = 0;
    for (const { record, source, joinedBy } of log.records) {
      if (record.continuation) continue;
      if (record.rid !== null) ids.add(record.rid);
      const lane = processLane(i, record.process, record.pid, record.role);
      if (record.time === null || record.timeResolution === null) { untimed++; continue; }
      const start = place(clock, record.time);
      const text = includeText ? record.message : redactLogMessage(record.message);
      const d = deltas.get(record.line);
      lane.items.push({
        kind: 'hop', label: short(text), start, end: start + resolutionSpanMs(record.timeResolution), shape: shapeOf(record.timeResolution),
        resolution: record.timeResolution, hop: record.hop ?? undefined, text,
        ref: { type: 'log', path: log.path, line: record.line, offset: record.offset, source },
        detail: {
          line: record.line, source: source ? `${source.path}:${source.line}` : null, sincePrevious: d?.sincePrevious?.text ?? null,
          // A line naming only the request's bootstrap_room (its pairing line is another): what joined it.
          ...(joinedBy !== undefined ? { joinedBy } : {}),
        },
      });
    }
    if (untimed) processLane(i, null, null, null).notes.push(`${untimed} line(s) of the request carry no time and are not drawn`);
  }

  // ---- the engine's spans, steps and batches
  let spanWindow: Window | null = null;
  let phases: Phase[] = [];
  if (view) {
    ids.add(view.rid);
    ({ spanWindow, phases } = engineSpanLanes(view, place, lanes));
  }

  // ---- the request's window on the reference clock (server side)
  const window = spanWindow ?? logLinesWindow(lanes);

  if (window && spans) {
    const lane = batchesLane(spans, window, place);
    if (lane) lanes.push(lane);
  }

  // ---- batch lines of every log inside the window (engine-core idle/active, stats, SGLang batches)
  if (window) {
    for (const [i, log] of logs.entries()) {
      const o = offsetOf(logClockId(i));
      const pidOf = new Map(log.processes.filter((p) => p.name !== null).map((p) => [p.name!, p.pid]));
      for (const c of log.contextBetween(window.start + o, window.end + o, opts.maxContext ?? 200)) {
        const lane = processLane(i, c.process, c.process !== null ? pidOf.get(c.process) ?? null : null, c.role);
        const start = place(logClockId(i), c.time);
        const def = log.engine ? findHop(log.engine, c.hop) : undefined;
        // Batch lines are not kept as records: their source is the hop table's citation.
        const source = def && def.line !== null ? { path: def.file, line: def.line, verified: false, drift: 0, method: 'hop-table' } : null;
        lane.items.push({
          kind: 'context', label: (def && shortFormat(def.format)) || c.hop, start, end: start + resolutionSpanMs(c.resolution),
          shape: shapeOf(c.resolution), resolution: c.resolution, hop: c.hop,
          ref: { type: 'log', path: log.path, line: c.line, offset: -1, source }, detail: { line: c.line },
        });
      }
    }
  }

  // ---- calls of the traced threads inside the window
  callLanes(src.threads ?? [], window, phases, offsetOf, place, opts.maxCalls ?? DEFAULT_MAX_CALLS, lanes);

  // ---- onto the axis
  const origin = axisOrigin(client, place, lanes);
  for (const l of lanes) {
    for (const it of l.items) { it.start -= origin; it.end -= origin; }
    l.items.sort((a, b) => a.start - b.start || (a.depth ?? 0) - (b.depth ?? 0));
  }
  const filled = lanes.filter((l) => l.items.length > 0 || l.notes.length > 0);
  warnings.push(...drawnWarnings(clocks, reference, logs, labels, filled));
  return {
    key, ids: [...ids],
    origin, reference, window: window ? { start: window.start - origin, end: window.end - origin } : null,
    clocks, lanes: filled, includesText: includeText, warnings,
  };
}

/** Where 0 is: the client sending the request, else the earliest line or span drawn (calls, batches and context lines left out). */
function axisOrigin(client: ClientRequest | null, place: Place, lanes: readonly TimelineLane[]): number {
  let origin = client ? place('client', client.startedAtEpochMs ?? 0) : Infinity;
  if (Number.isFinite(origin)) return origin;
  for (const l of lanes) {
    if (l.kind === 'calls' || l.kind === 'engine-batches') continue;
    for (const it of l.items) if (it.kind !== 'context') origin = Math.min(origin, it.start);
  }
  return Number.isFinite(origin) ? origin : 0;
}

/** Items of every lane in time order (calls and batches left out: they have lanes of their own). */
export function mergedItems(t: RequestTimeline): { lane: TimelineLane; item: TimelineItem }[] {
  const out: { lane: TimelineLane; item: TimelineItem }[] = [];
  for (const lane of t.lanes) if (lane.kind !== 'calls' && lane.kind !== 'engine-batches') for (const item of lane.items) out.push({ lane, item });
  return out.sort((a, b) => a.item.start - b.item.start);
}
