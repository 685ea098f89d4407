// `hoplens calltrace DIR [--filter a,b] [--limit N] [--json] [--perfetto OUT.json]
//   [--max-depth N] [--follow-links]`
// Indexes VLLM_TRACE_FUNCTION files into call trees (worker threads) and lists the filtered
// calls per file like the lab's `--mode calltrace`, with durations and the calls left open.
import { stat } from 'node:fs/promises';
import { openTraceFolder } from '../core/calltrace/callTraceIndex';
import {
  DEFAULT_PERFETTO_MAX_BYTES, countFilteredCalls, filteredCalls, formatDuration, formatTraceTs, hopSequenceMarkdown, writePerfettoTrace,
  type HopRow,
} from '../core/calltrace/export';
import { DEFAULT_FILTER, parseFilterList } from '../core/calltrace/filter';
import { DEFAULT_MAX_DEPTH } from '../core/calltrace/discovery';
import { forTerminal } from '../core/text/terminal';
import { displayPath } from '../core/calltrace/paths';
import { batchedOut, type CliIO } from './io';

const HELP = `usage: hoplens calltrace DIR [--filter a,b] [--limit N] [--json] [--markdown] [--perfetto OUT.json] [--perfetto-max-mb N]
                          [--max-depth N] [--follow-links]

Reads the VLLM_TRACE_FUNCTION_for_process_*.log files under DIR (vLLM writes them under
$TMPDIR/<user>/vllm/vllm-instance-<id>/ when started with VLLM_TRACE_FUNCTION=1), builds
each thread's call tree and lists the calls of the request path.

  --filter a,b        functions to list (default: the lab's request-path list; --filter '' = every call)
  --limit N           calls listed per file (default 60; 0 = no limit)
  --json              JSON Lines: one "file" object per trace file followed by its "call" objects,
                      then one "summary" object
  --markdown          the filtered hop sequence as Markdown
  --perfetto OUT.json also write every thread as Chrome/Perfetto trace JSON (open in ui.perfetto.dev)
  --perfetto-max-mb N size limit of that file (default ${DEFAULT_PERFETTO_MAX_BYTES / 1024 / 1024})
  --max-depth N       folder levels below DIR to search (default ${DEFAULT_MAX_DEPTH})
  --follow-links      follow symbolic links that lead outside DIR (default: listed, not followed)

Each file is read once, by its real path, however many links lead to it.

exit codes: 0 ok, 1 no trace files found, 2 bad input or usage
`;

interface Args {
  dir: string;
  filter: string[];
  limit: number;
  json: boolean;
  markdown: boolean;
  perfetto: string | null;
  perfettoMaxBytes: number;
  maxDepth: number;
  followLinks: boolean;
}

function parseArgs(argv: string[]): Args | string {
  const a: Args = {
    dir: '', filter: [...DEFAULT_FILTER], limit: 60, json: false, markdown: false, perfetto: null,
    perfettoMaxBytes: DEFAULT_PERFETTO_MAX_BYTES, maxDepth: DEFAULT_MAX_DEPTH, followLinks: false,
  };
  const value = (i: number, name: string): string | Error => (i + 1 < argv.length ? argv[i + 1] : new Error(`${name} needs a value`));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, null];
    const take = (): string | Error => { if (inline !== null) return inline; const v = value(i, name); if (!(v instanceof Error)) i++; return v; };
    switch (name) {
      case '--filter': { const v = take(); if (v instanceof Error) return v.message; a.filter = parseFilterList(v); break; }
      case '--limit': {
        const v = take(); if (v instanceof Error) return v.message;
        if (!/^\d+$/.test(v)) return `--limit must be a whole number, got '${v}'`;
        a.limit = Number(v); break;
      }
      case '--perfetto': { const v = take(); if (v instanceof Error) return v.message; a.perfetto = v; break; }
      case '--perfetto-max-mb': {
        const v = take(); if (v instanceof Error) return v.message;
        if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0) return `--perfetto-max-mb must be a positive number, got '${v}'`;
        a.perfettoMaxBytes = Math.floor(Number(v) * 1024 * 1024); break;
      }
      case '--max-depth': {
        const v = take(); if (v instanceof Error) return v.message;
        if (!/^\d+$/.test(v) || Number(v) > 1000) return `--max-depth must be a whole number from 0 to 1000, got '${v}'`;
        a.maxDepth = Number(v); break;
      }
      case '--follow-links': a.followLinks = true; break;
      case '--json': a.json = true; break;
      case '--markdown': a.markdown = true; break;
      default:
        if (name.startsWith('-')) return `unknown option '${arg}'`;
        if (a.dir) return `only one DIR, got '${a.dir}' and '${arg}'`;
        a.dir = arg;
    }
  }
  if (!a.dir) return 'missing DIR (a folder of VLLM_TRACE_FUNCTION_*.log files)';
  return a;
}


/** Folders and links the walk did not enter, summed up in a few lines for stderr. */
function skippedNote(skipped: readonly { path: string; reason: string }[], a: Args): string {
  if (skipped.length === 0) return '';
  const deep = skipped.filter((s) => s.reason.startsWith('deeper'));
  const links = skipped.filter((s) => !s.reason.startsWith('deeper'));
  const out: string[] = [];
  if (deep.length) {
    out.push(`${deep.length} folder(s) deeper than ${a.maxDepth} levels were not searched, e.g. ${forTerminal(deep[0].path)}; ` +
      'raise the limit with --max-depth N\n');
  }
  if (links.length) {
    out.push(`${links.length} link(s) leading outside ${forTerminal(a.dir)} were not followed, ` +
      `e.g. ${forTerminal(links[0].path)} (${forTerminal(links[0].reason)}); follow them with --follow-links\n`);
  }
  return out.map((l) => `hoplens calltrace: ${l}`).join('');
}

export async function runCalltrace(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) { io.out(HELP); return 0; }
  const parsed = parseArgs(argv);
  if (typeof parsed === 'string') { io.err(`hoplens calltrace: ${forTerminal(parsed)}\n\n${HELP}`); return 2; }
  const a = parsed;
  const shownDir = forTerminal(a.dir);
  try {
    const st = await stat(a.dir);
    if (!st.isDirectory() && !st.isFile()) { io.err(`hoplens calltrace: ${shownDir} is not a folder\n`); return 2; }
  } catch {
    io.err(`hoplens calltrace: no such folder: ${shownDir}\n`);
    return 2;
  }

  const index = await openTraceFolder(a.dir, { mainThreadLane: true, discovery: { maxDepth: a.maxDepth, followLinksOutside: a.followLinks } });
  const summaries = index.threadSummaries();
  const fileCount = index.threads.size;
  const skipped = skippedNote(index.discovery.skipped, a);
  const ignored = index.discovery.ignored;
  if (fileCount === 0) {
    io.err(`hoplens calltrace: no VLLM_TRACE_FUNCTION_for_process_*.log files under ${shownDir}${skipped ? ' in the folders searched' : ''}.\n` +
      `Start vLLM with VLLM_TRACE_FUNCTION=1; it writes them under $TMPDIR/<user>/vllm/vllm-instance-<id>/.\n` +
      (ignored.length ? `${ignored.length} other file(s) ignored, e.g. ${forTerminal(ignored[0].path)}: ${ignored[0].reason}\n` : '') +
      skipped);
    return 1;
  }
  if (skipped) io.err(skipped);
  const lookalikes = ignored.filter((i) => /TRACE_FUNCTION|trace_frame/.test(i.path));
  if (lookalikes.length) {
    io.err(`hoplens calltrace: ${lookalikes.length} file(s) named like traces were not read, ` +
      `e.g. ${forTerminal(lookalikes[0].path)}: ${lookalikes[0].reason}\n`);
  }
  const unreadable = [...index.threads.values()].filter((t) => t.error);
  for (const t of unreadable) io.err(`hoplens calltrace: cannot read ${forTerminal(t.file.path)}: ${forTerminal(t.error ?? '')}\n`);
  if (summaries.length === 0) return 2;

  const out = batchedOut(io);
  let calls = 0;
  let returns = 0;
  if (a.markdown) {
    out.line(hopSequenceMarkdown(index, a.filter, a.limit === 0 ? Number.MAX_SAFE_INTEGER : a.limit));
  } else if (!a.json) {
    out.line(`${fileCount} trace file(s) under ${shownDir}`);
  }
  for (const s of summaries) {
    await out.room();
    const trace = index.trace(s.key);
    calls += s.stats.calls;
    returns += s.stats.returns;
    if (a.markdown) continue;
    const open = s.openStack;
    if (a.json) {
      out.line(JSON.stringify({
        kind: 'file', path: s.file.path, pid: s.file.pid, tid: s.file.tid, calls: s.stats.calls, returns: s.stats.returns,
        maxDepth: s.stats.maxDepth, open: open.map((o) => ({ fn: o.fn, file: o.file, line: o.line, ts: formatTraceTs(o.startUs) })), role: s.role,
        garbledLines: s.stats.garbledLines, orphanReturns: s.stats.orphanReturns,
        partialLastLine: s.stats.partialLastLine,
      }));
    }
    const limit = a.limit > 0 ? a.limit : Infinity;
    const matched = countFilteredCalls(trace, a.filter);
    const more = Math.max(0, matched - limit);
    const callsOf = (): Generator<HopRow> => filteredCalls(s.key, trace, a.filter, limit);
    const cells = (r: HopRow): string[] => [
      formatTraceTs(r.tsUs).slice(11),
      '  '.repeat(Math.min(r.depth, 20)) + forTerminal(r.fn),
      `${forTerminal(displayPath(r.file))}:${r.line}`,
      forTerminal(r.caller),
      formatDuration(r.durationUs),
    ];
    let listed = 0;
    if (a.json) {
      for (const r of callsOf()) {
        out.line(JSON.stringify({
          kind: 'call', pid: s.file.pid, tid: s.file.tid, ts: formatTraceTs(r.tsUs),
          fn: r.fn, file: r.file, line: r.line, caller: r.caller, depth: r.depth, durationUs: r.durationUs,
        }));
        if (++listed % 4096 === 0) await out.room();
      }
      continue;
    }
    // Column widths in a first pass, rows printed in a second: a listing of a million calls is never held.
    const w = [0, 0, 0, 0];
    for (const r of callsOf()) {
      const c = cells(r);
      for (let i = 1; i < 4; i++) if (c[i].length > w[i]) w[i] = c[i].length;
      listed++;
    }
    const problems: string[] = [];
    if (s.stats.garbledLines) problems.push(`${s.stats.garbledLines} unreadable line(s)`);
    if (s.stats.orphanReturns) problems.push(`${s.stats.orphanReturns} return(s) without a call (tracing began mid-stack)`);
    if (s.stats.mismatchedReturns) problems.push(`${s.stats.mismatchedReturns} return(s) out of order`);
    if (s.stats.droppedCalls) problems.push(`${s.stats.droppedCalls} call(s) past the node limit, counted only`);
    if (s.stats.partialLastLine) problems.push('last line incomplete (still being written?)');
    if (listed === 0 && open.length === 0 && problems.length === 0) continue;
    out.line(`=== ${forTerminal(s.file.path.split(/[\\/]/).pop() ?? '')}`);
    out.line(`    pid ${s.file.pid} · thread ${forTerminal(s.file.tidText)} · ${s.role} · ` +
      `${s.stats.calls.toLocaleString('en-US')} calls · max depth ${s.stats.maxDepth}`);
    const w2 = Math.min(w[2], 52);
    let printed = 0;
    for (const r of callsOf()) {
      const c = cells(r);
      out.line(`  ${c[0]}  ${c[1].padEnd(w[1])}  ${c[2].padEnd(w2)}  <- ${c[3].padEnd(w[3])}  ${c[4]}`);
      if (++printed % 4096 === 0) await out.room();
    }
    if (more > 0) out.line(`  ... ${more} more (raise --limit)`);
    if (open.length > 0) {
      out.line(`  still open at the end of the file (where it is stuck), outermost first:`);
      for (let i = 0; i < open.length; i++) {
        const o = open[i];
        const indent = '  '.repeat(Math.min(i, 20));
        out.line(`  ${indent}${forTerminal(o.fn)}  ${forTerminal(displayPath(o.file))}:${o.line}  since ${formatTraceTs(o.startUs).slice(11)}`);
        if (i % 4096 === 4095) await out.room();
      }
    }
    for (const p of problems) out.line(`  note: ${p}`);
    out.line('');
  }
  if (a.json) out.line(JSON.stringify({ kind: 'summary', files: summaries.length, calls, returns }));
  else if (!a.markdown) out.line(`${calls.toLocaleString('en-US')} call events scanned.`);
  out.flush();

  if (a.perfetto) {
    try {
      const r = await writePerfettoTrace(index, summaries.map((s) => ({ threadKey: s.key })), a.perfetto, { maxBytes: a.perfettoMaxBytes });
      io.err(`wrote ${r.events.toLocaleString('en-US')} events (${(r.bytes / 1024 / 1024).toFixed(1)} MB) to ${forTerminal(a.perfetto)}` +
        (r.truncated ? ` — truncated at the size limit; raise it with --perfetto-max-mb\n` : '\n'));
    } catch (e) {
      io.err(`hoplens calltrace: cannot write ${forTerminal(a.perfetto)}: ${forTerminal((e as Error).message)}\n`);
      return 2;
    }
  }
  return 0;
}
