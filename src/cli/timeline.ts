// `hoplens timeline --rid ID LOG… [--otlp FILE] [--trace-dir DIR] [--client SEND.json]
//   [--offset FILE=MS] [--perfetto OUT] [--markdown OUT] [--json]`
// One request across every log (API server and engine core, prefill and decode instances, a
// router), the client's measurement, the engine's spans and the calls its threads made, on
// one time axis with the clocks lined up.
import { readFile, writeFile } from 'node:fs/promises';
import { loadTimeline, TimelineInputError } from '../core/timeline/load';
import { LogInputError } from '../core/timeline/requestLogs';
import { mergedItems } from '../core/timeline/build';
import { fmtMs, fmtSigned, fmtWhen, timelineMarkdown, timelinePerfetto } from '../core/timeline/export';
import type { RequestTimeline, TimelineItem, TimelineLane } from '../core/timeline/model';
import type { OrderingNote } from '../core/timeline/clockOffsets';
import { clientFromSendJson, type ClientRequest } from '../core/timeline/clientRequest';
import { requestKey, queryKeys } from '../core/timeline/requestKey';
import { forTerminal } from '../core/text/terminal';
import { batchedOut, outputFailureMessage, type CliIO } from './io';
import type { Engine } from '../engines/types';
import { ENGINE_IDS, engineChoiceWords, isEngine } from '../engines/registry';
import { SpanStore } from '../core/otlp/engineTiming';
import { FleetError } from '../core/fleet/http';
import { emptyFleetArgs, FLEET_HELP, fleetMessages, hasStores, queryFleet, takeFleetOption, type FleetArgs, type FleetLogs } from './fleet';

const HELP = `usage: hoplens timeline --rid ID [LOG...] [--logs URL [--tenant T]]... [--traces URL [--tenant T]]...
                        [--since T] [--until T] [--selector SEL]
                        [--otlp FILE]... [--trace-dir DIR]... [--client SEND.json]
                        [--offset FILE=MS]... [--perfetto OUT.json] [--markdown OUT.md] [--include-prompts]
                        [--engine auto|${ENGINE_IDS.join('|')}] [--max-calls N] [--calls] [--json]

One request across several server logs — an API server and its engine cores, a prefill and a
decode instance, a router in front — joined by its id (the id the client sent, chatcmpl-…,
cmpl-…-0, an engine's …-<8 hex>, an SGLang rid, a router's request_id), every line tagged with
its file and process and put on one time axis. Each log's clock offset is estimated from what
must happen in order (a router has a request before an instance does, an instance receives it
before it is added, prefill answers before decode starts) over every request the logs share,
and printed with its bounds.

  --rid ID          the request (any of its ids)
  --otlp FILE       OTLP JSON spans (hoplens otlp --out, the Collector's file exporter): the
                    engine's llm_request phases, step snapshots and batch summaries
  --trace-dir DIR   VLLM_TRACE_FUNCTION files: the calls of the traced engine threads (matched
                    to the logs' processes by pid) inside the request's window
  --client FILE     the client's measurement, as \`hoplens send --json\` writes it
  --offset FILE=MS  FILE's clock runs MS ms ahead of the reference (negative: behind); overrides
                    the estimate. FILE is a log as given (or its name), client, or otlp
  --perfetto OUT    write the whole request as Chrome/Perfetto trace JSON (ui.perfetto.dev)
  --markdown OUT    write the hop table across files as Markdown
  --include-prompts keep prompts and outputs in log texts (redacted by default)
  --max-calls N     calls drawn per traced thread, outer levels first (default 5000)
  --calls           list the calls in the readable output too
${FLEET_HELP}  --json            JSON Lines: one "clock" object per clock, one "lane" object per lane followed
                    by its "item" objects, then one "summary" object

A vLLM line is stamped to the second: its time is the second it names (a band), not a point.
exit codes: 0 the request was found, 1 no source has it, 2 bad input or usage (or an output
that cannot be written)
`;

interface Args {
  rid: string;
  logs: string[];
  otlp: string[];
  traceDirs: string[];
  client: string | null;
  offsets: Map<string, number>;
  perfetto: string | null;
  markdown: string | null;
  includePrompts: boolean;
  engine: 'auto' | Engine;
  maxCalls: number;
  calls: boolean;
  json: boolean;
  fleet: FleetArgs;
}

function parseArgs(argv: string[]): Args | string {
  const a: Args = {
    rid: '', logs: [], otlp: [], traceDirs: [], client: null, offsets: new Map(), perfetto: null, markdown: null,
    includePrompts: false, engine: 'auto', maxCalls: 5000, calls: false, json: false, fleet: emptyFleetArgs(),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, null];
    const take = (): string | null => (inline !== null ? inline : i + 1 < argv.length ? argv[++i] : null);
    const need = (what: string): string => { const v = take(); if (v === null || v === '') throw new Error(`${name} needs ${what}`); return v; };
    try {
      switch (name) {
        case '--rid': a.rid = need('a request id'); break;
        case '--otlp': a.otlp.push(need('an OTLP JSON file')); break;
        case '--trace-dir': a.traceDirs.push(need('a folder of VLLM_TRACE_FUNCTION files')); break;
        case '--client': a.client = need('a file written by `hoplens send --json`'); break;
        case '--perfetto': a.perfetto = need('an output file'); break;
        case '--markdown': a.markdown = need('an output file'); break;
        case '--include-prompts': a.includePrompts = true; break;
        case '--calls': a.calls = true; break;
        case '--json': a.json = true; break;
        case '--engine': {
          const v = need(engineChoiceWords(true));
          if (v !== 'auto' && !isEngine(v)) return `--engine must be ${engineChoiceWords(true)} (got ${v})`;
          a.engine = v; break;
        }
        case '--max-calls': {
          const v = need('a number');
          if (!/^\d+$/.test(v) || Number(v) > 1_000_000) return `--max-calls must be a whole number up to 1000000, got '${v}'`;
          a.maxCalls = Number(v); break;
        }
        case '--offset': {
          const v = need('FILE=MS');
          const at = v.lastIndexOf('=');
          const ms = at > 0 ? Number(v.slice(at + 1)) : NaN;
          const badOffset = at <= 0 || v.slice(at + 1).trim() === '' || !Number.isFinite(ms) || Math.abs(ms) > 1e12;
          if (badOffset) return `--offset wants FILE=MS (milliseconds, may be negative), got '${v}'`;
          a.offsets.set(v.slice(0, at), ms); break;
        }
        default: {
          const fleet = takeFleetOption(a.fleet, name, () => need('a value'));
          if (fleet.file !== undefined) a.logs.push(fleet.file);
          if (fleet.taken) break;
          if (arg.startsWith('-') && arg !== '-') return `unknown option '${arg}'`;
          a.logs.push(arg);
        }
      }
    } catch (e) { return (e as Error).message; }
  }
  if (!a.rid) return 'which request? give --rid ID (chatcmpl-…, cmpl-…, an SGLang rid, or the id you sent)';
  if (a.logs.length === 0 && !hasStores(a.fleet)) {
    return 'which logs? give the server logs of the request (an API server, engine cores, prefill/decode instances, a router)';
  }
  if (a.logs.includes('-')) return 'the timeline reads each log by its path; standard input (-) is not one';
  return a;
}

async function readClient(path: string, rid: string): Promise<ClientRequest | string> {
  let text: string;
  try { text = await readFile(path, 'utf8'); } catch (e) {
    return `cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`;
  }
  const found: ClientRequest[] = [];
  let firstProblem: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    let obj: unknown;
    try { obj = JSON.parse(line); } catch { firstProblem ??= 'not JSON Lines'; continue; }
    if (typeof obj === 'object' && obj !== null && 'summary' in obj) continue;
    const c = clientFromSendJson(obj);
    if (typeof c === 'string') { firstProblem ??= c; continue; }
    found.push(c);
  }
  const keys = queryKeys(rid);
  const mine = found.filter((c) => keys.includes(requestKey(c.requestId)));
  if (mine.length) return mine[mine.length - 1];
  if (found.length) return `none of its ${found.length} request(s) is ${rid} (it has ${found.slice(0, 3).map((c) => c.requestId).join(', ')})`;
  return firstProblem ?? 'empty';
}

function padEnd(s: string, n: number): string { return s.length >= n ? s : s + ' '.repeat(n - s.length); }

function noteText(n: OrderingNote, labelOf: (clock: string) => string): string {
  const at = (s: OrderingNote['before']): string => `${s.what} (${labelOf(s.domain)}${s.line !== null ? `:${s.line}` : ''})`;
  return `${at(n.before)} before ${at(n.after)}: ${n.rule}`;
}

function clockJson(t: RequestTimeline, labelOf: (c: string) => string): object[] {
  const note = (n: OrderingNote) => ({
    rule: n.rule, request: n.key,
    before: { ...n.before, clock: labelOf(n.before.domain) }, after: { ...n.after, clock: labelOf(n.after.domain) },
  });
  return t.clocks.map((c) => ({
    kind: 'clock', id: c.id, label: c.label, path: c.path, offsetMs: c.offset.ms, minMs: c.offset.min, maxMs: c.offset.max,
    source: c.offset.source, orderings: c.offset.orderings, upper: c.offset.upper.map(note), lower: c.offset.lower.map(note),
    ...(c.offset.conflict ? { conflict: c.offset.conflict } : {}),
  }));
}

function itemJson(lane: TimelineLane, it: TimelineItem): object {
  return {
    kind: 'item', lane: lane.id, item: it.kind, label: it.label, start: round3(it.start), end: round3(it.end), shape: it.shape, resolution: it.resolution,
    ...(it.hop ? { hop: it.hop } : {}), ...(it.depth !== undefined ? { depth: it.depth } : {}), ...(it.text !== undefined ? { text: it.text } : {}),
    ref: it.ref, detail: it.detail,
  };
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

async function writeOut(path: string, text: string, io: CliIO, what: string): Promise<boolean> {
  try { await writeFile(path, text); return true; } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const diskTrouble = err.code === 'ENOSPC' || err.code === 'EIO' || err.code === 'EDQUOT';
    io.err(diskTrouble ? outputFailureMessage(err) : `hoplens timeline: cannot write the ${what} to ${forTerminal(path)}: ${forTerminal(err.message)}\n`);
    return false;
  }
}

export async function runTimeline(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) { io.out(HELP); return 0; }
  const a = parseArgs(argv);
  if (typeof a === 'string') { io.err(`hoplens timeline: ${forTerminal(a)}\n\n${HELP}`); return 2; }
  let client: ClientRequest | null = null;
  if (a.client) {
    const c = await readClient(a.client, a.rid);
    if (typeof c === 'string') { io.err(`hoplens timeline: --client ${forTerminal(a.client)}: ${forTerminal(c)}\n`); return 2; }
    client = c;
  }
  let fleet: FleetLogs | null = null;
  if (hasStores(a.fleet)) {
    try {
      fleet = await queryFleet(a.fleet, a.rid, process.env);
    } catch (e) {
      if (e instanceof FleetError) { io.err(`hoplens timeline: ${forTerminal(e.message)}\n`); return 2; }
      throw e;
    }
  }
  const allLogs = [...a.logs, ...(fleet?.names ?? [])];
  let spans: SpanStore | null = null;
  if (fleet && fleet.result.spans.length) { spans = new SpanStore(); spans.add(fleet.result.spans); }
  let loaded;
  try {
    loaded = await loadTimeline({
      query: a.rid, logs: allLogs, otlpFiles: a.otlp, traceDirs: a.traceDirs, client, userOffsets: a.offsets,
      engine: a.engine, includeText: a.includePrompts, maxCalls: a.maxCalls, spans, sources: fleet?.sources,
    });
  } catch (e) {
    if (e instanceof LogInputError || e instanceof TimelineInputError) { io.err(`hoplens timeline: ${forTerminal(e.message)}\n`); return 2; }
    throw e;
  }
  const t = loaded.timeline;
  const found = t.lanes.some((l) => l.items.some((i) => i.kind === 'hop' || i.kind === 'router' || i.kind === 'span' || i.kind === 'step'));
  let outputsOk = true;
  if (a.perfetto) outputsOk = await writeOut(a.perfetto, JSON.stringify(timelinePerfetto(t)), io, 'Perfetto trace') && outputsOk;
  if (a.markdown) outputsOk = await writeOut(a.markdown, timelineMarkdown(t), io, 'Markdown') && outputsOk;
  const labels = new Map(t.clocks.map((c) => [c.id, c.label]));
  const labelOf = (c: string): string => labels.get(c) ?? c;
  const out = batchedOut(io);
  const linesRead = loaded.linesRead.reduce((x, y) => x + y, 0);
  const message = found ? null
    : `no line, router line or span of request ${a.rid} in ${allLogs.length} log(s) (${linesRead} lines read)`
      + (a.otlp.length ? ' or the OTLP spans' : '')
      + (fleet ? `; asked: ${fleet.result.asked.join(' · ')}` : '');
  // A store that could not answer: a warning when something else had the request, the reason for exit 1 when nothing did.
  for (const m of fleet ? fleetMessages(fleet.result, found) : []) io.err(`hoplens timeline: ${forTerminal(m)}\n`);

  if (a.json) {
    for (const c of clockJson(t, labelOf)) out.line(JSON.stringify(c));
    for (const lane of t.lanes) {
      out.line(JSON.stringify({
        kind: 'lane', id: lane.id, laneKind: lane.kind, title: lane.title, clock: lane.clock, file: lane.file,
        process: lane.process, pid: lane.pid, role: lane.role, items: lane.items.length, notes: lane.notes,
      }));
      for (const [n, it] of lane.items.entries()) {
        out.line(JSON.stringify(itemJson(lane, it)));
        if (n % 2000 === 1999) { out.flush(); await out.room(); }
      }
      await out.room();
    }
    out.line(JSON.stringify({
      kind: 'summary', request: t.key, query: a.rid, ids: t.ids, origin: new Date(t.origin).toISOString(), reference: t.reference, window: t.window,
      logs: allLogs.map((p, i) => {
        const remote = fleet?.streams.get(p);
        const where = remote ? { store: `${remote.endpoint.kind}+${remote.endpoint.baseUrl}`, labels: remote.stream.labels } : {};
        return { path: p, lines: loaded.linesRead[i], ...where };
      }),
      spans: loaded.spans, traceFiles: loaded.traceFiles,
      ...(fleet ? { stores: fleet.result.asked, problems: fleet.result.problems.map((p) => p.message), traceIds: fleet.result.traceIds,
        truncated: fleet.result.truncated, notes: fleet.result.notes } : {}),
      lanes: t.lanes.length, items: t.lanes.reduce((n, l) => n + l.items.length, 0),
      perfetto: a.perfetto, markdown: a.markdown, includesText: t.includesText, warnings: t.warnings, message,
    }));
    out.flush();
    return !outputsOk ? 2 : found ? 0 : 1;
  }

  if (!found) {
    const norSpan = a.otlp.length || fleet?.result.spans.length === 0 ? ', nor a span' : '';
    out.line(`No line of request ${forTerminal(a.rid)} in ${allLogs.map(forTerminal).join(', ') || 'the stores'} (${linesRead} lines read)${norSpan}.`);
    for (const q of fleet?.result.asked ?? []) out.line(`asked ${forTerminal(q)}`);
    for (const w of t.warnings) out.line(`note: ${forTerminal(w)}`);
    out.flush();
    return outputsOk ? 1 : 2;
  }
  const ref = labelOf(t.reference);
  const seenAs = t.ids.length ? ` · seen as ${t.ids.slice(0, 6).map(forTerminal).join(', ')}` : '';
  out.line(`Request ${forTerminal(t.key)} across ${allLogs.length} log(s)${seenAs}`);
  out.line('');
  out.line(`Clocks (offset: how far a clock runs ahead of ${forTerminal(ref)}; its stamps are moved back by it)`);
  const w = Math.max(12, ...t.clocks.map((c) => c.label.length));
  for (const c of t.clocks) {
    const o = c.offset;
    if (o.source === 'reference') { out.line(`  ${padEnd(forTerminal(c.label), w)}  reference`); continue; }
    const sign = fmtSigned;
    const bounds = o.min === null && o.max === null ? 'no ordering ties it to the reference'
      : `allowed ${o.min !== null ? sign(o.min) : '−∞'} … ${o.max !== null ? sign(o.max) : '+∞'} by ${o.orderings} ordering(s)`;
    out.line(`  ${padEnd(forTerminal(c.label), w)}  ${padEnd(sign(o.ms), 10)} ${padEnd(o.source, 9)} ${bounds}`);
    if (o.conflict) out.line(`  ${' '.repeat(w)}  ! ${forTerminal(o.conflict)}`);
    // The orderings that set each bound, in chain order (a bound may come through a third clock).
    for (const [i, n] of o.upper.slice(0, 3).entries()) out.line(`  ${' '.repeat(w)}  ${i ? '   then' : 'at most'}: ${forTerminal(noteText(n, labelOf))}`);
    for (const [i, n] of o.lower.slice(0, 3).entries()) out.line(`  ${' '.repeat(w)}  ${i ? '    then' : 'at least'}: ${forTerminal(noteText(n, labelOf))}`);
  }
  out.line('');
  out.line(`Timeline (from ${client ? 'the client sending the request' : 'the request\'s first line'}, on ${forTerminal(ref)}'s clock; ` +
    '[a, b) is a stamp that only says the line was printed in that interval)');
  const laneW = Math.min(44, Math.max(16, ...t.lanes.map((l) => l.title.length)));
  for (const [n, { lane, item }] of mergedItems(t).entries()) {
    if (n % 2000 === 1999) { out.flush(); await out.room(); }
    // A line joined by the request's bootstrap_room says so (its own text may not name the request).
    const joined = typeof item.detail.joinedBy === 'string' ? `  (by ${item.detail.joinedBy})` : '';
    const where = item.ref.type === 'log' ? `  L${item.ref.line}${joined}` : '';
    const what = item.kind === 'client-frame'
      ? `frame ${item.ref.type === 'client' ? item.ref.frame : ''} ${item.label} (${item.detail.bytes} B)`
      : `${item.hop ? `${item.hop} ` : ''}${item.label}`;
    out.line(`  ${padEnd(fmtWhen(item), 30)} ${padEnd(forTerminal(lane.title).slice(0, laneW), laneW)}  ${forTerminal(what)}${where}`);
  }
  await out.room();
  for (const lane of t.lanes.filter((l) => l.kind === 'calls' || l.kind === 'engine-batches')) {
    out.line('');
    out.line(`${forTerminal(lane.title)}: ${lane.notes.map(forTerminal).join('; ') || `${lane.items.length} item(s)`}`);
    if (lane.kind === 'calls' && a.calls) {
      for (const [n, c] of lane.items.entries()) {
        const r = c.ref.type === 'call' ? c.ref : null;
        const when = padEnd(fmtWhen({ ...c, shape: 'instant' }), 14);
        const took = padEnd(c.detail.open ? 'open' : fmtMs(c.end - c.start), 10);
        out.line(`  ${when} ${took} ${'  '.repeat(c.depth ?? 0)}${forTerminal(c.label)}  ${r ? forTerminal(`${r.file}:${r.line}`) : ''}`);
        if (n % 2000 === 1999) { out.flush(); await out.room(); }
      }
    } else if (lane.kind === 'calls') {
      const top = lane.items.filter((c) => c.depth === 0);
      const names = new Map<string, number>();
      for (const c of top) names.set(c.label, (names.get(c.label) ?? 0) + 1);
      const outermost = [...names].slice(0, 8).map(([n, k]) => `${forTerminal(n)}${k > 1 ? ` ×${k}` : ''}`).join(', ');
      if (names.size) out.line(`  outermost: ${outermost} (--calls lists them all)`);
    }
  }
  if (t.warnings.length) {
    out.line('');
    for (const wn of t.warnings) out.line(`note: ${forTerminal(wn)}`);
  }
  if (a.perfetto && outputsOk) out.line(`\nwrote ${forTerminal(a.perfetto)} (open in ui.perfetto.dev)`);
  if (a.markdown && outputsOk) out.line(`${a.perfetto ? '' : '\n'}wrote ${forTerminal(a.markdown)}`);
  out.flush();
  return outputsOk ? 0 : 2;
}
