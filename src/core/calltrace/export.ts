// Exports: Chrome/Perfetto trace JSON (complete "X" events) and the filtered hop sequence
// as Markdown, like the lab's `--mode calltrace` listing.
import { open } from 'node:fs/promises';
import type { CallTraceIndex } from './callTraceIndex';
import { displayPath } from './paths';
import type { ThreadTrace } from './threadTrace';
import type { TraceFileInfo } from './types';
import { markdownCell, markdownCode } from '../text/markdown';

export const DEFAULT_PERFETTO_MAX_BYTES = 100 * 1024 * 1024;
const WRITE_BATCH_CHARS = 1 << 20;

/** "YYYY-MM-DD HH:MM:SS.ffffff" back from the µs the index keeps (the tracer's own local-time text). */
export function formatTraceTs(us: number): string {
  if (!Number.isFinite(us)) return '';
  const ms = Math.floor(us / 1000);
  const d = new Date(ms);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const micros = Math.round(us - Math.floor(us / 1_000_000) * 1_000_000);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} `
    + `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(micros, 6)}`;
}

/** "1.234 ms"-style duration for people. */
export function formatDuration(us: number | null): string {
  if (us === null) return 'open';
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(us < 10_000 ? 3 : 1)} ms`;
  return `${(us / 1_000_000).toFixed(3)} s`;
}

export interface PerfettoSelection {
  threadKey: string;
  /** A subtree root; omit for the whole thread. */
  nodeId?: number;
}

export interface PerfettoResult {
  events: number;
  bytes: number;
  /** True when the size limit stopped the export; the file is still valid JSON. */
  truncated: boolean;
}

/**
 * Writes `{"traceEvents":[…]}` with one complete event per call (ts/dur in µs), plus process and
 * thread name metadata. Stops before `maxBytes` (default 100 MB) and says so.
 */
export async function writePerfettoTrace(
  index: CallTraceIndex, selections: readonly PerfettoSelection[], outPath: string,
  options: { maxBytes?: number } = {},
): Promise<PerfettoResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_PERFETTO_MAX_BYTES;
  const fh = await open(outPath, 'w');
  const result: PerfettoResult = { events: 0, bytes: 0, truncated: false };
  let pending: string[] = [];
  let pendingChars = 0;
  const flush = async (): Promise<void> => {
    if (pending.length === 0) return;
    await fh.write(pending.join(''));
    pending = []; pendingChars = 0;
  };
  const CLOSING = '\n]}\n';
  let first = true;
  const emit = async (json: string): Promise<boolean> => {
    const piece = (first ? '\n' : ',\n') + json;
    const size = Buffer.byteLength(piece);
    if (result.bytes + size + CLOSING.length > maxBytes) { result.truncated = true; return false; }
    first = false;
    pending.push(piece); pendingChars += piece.length; result.bytes += size; result.events++;
    if (pendingChars >= WRITE_BATCH_CHARS) await flush();
    return true;
  };
  try {
    const head = '{"displayTimeUnit":"ms","traceEvents":[';
    await fh.write(head);
    result.bytes = head.length;
    const named = new Set<string>();
    outer: for (const sel of selections) {
      const entry = index.threads.get(sel.threadKey);
      if (!entry?.trace) continue;
      const { trace, file } = entry;
      const roleKey = `${file.pid}`;
      if (!named.has(roleKey)) {
        named.add(roleKey);
        const processName = { ph: 'M', name: 'process_name', pid: file.pid, tid: 0, args: { name: `${trace.guessRole()} (pid ${file.pid})` } };
        if (!await emit(JSON.stringify(processName))) break;
      }
      if (!await emit(JSON.stringify({ ph: 'M', name: 'thread_name', pid: file.pid, tid: file.tid, args: { name: `thread ${file.tidText}` } }))) break;
      for (const id of trace.preorder(sel.nodeId ?? -1)) {
        if (!await emit(perfettoEvent(trace, file, id))) break outer;
      }
    }
    await flush();
    await fh.write(CLOSING);
    result.bytes += CLOSING.length;
  } finally {
    await fh.close();
  }
  return result;
}

function perfettoEvent(trace: ThreadTrace, file: TraceFileInfo, id: number): string {
  const start = trace.startOf(id);
  const dur = trace.durationOf(id);
  const args: Record<string, unknown> = { file: trace.fileOf(id), line: trace.lineOf(id) };
  if (dur === null) args.open = true;
  if (trace.isSynthetic(id)) args.startedBeforeTrace = true;
  const end = dur === null ? trace.stats.lastTs : start + dur;
  return JSON.stringify({ ph: 'X', name: trace.fnOf(id), ts: start, dur: Math.max(0, end - start), pid: file.pid, tid: file.tid, args });
}

export interface HopRow {
  threadKey: string;
  nodeId: number;
  tsUs: number;
  fn: string;
  file: string;
  line: number;
  caller: string;
  depth: number;
  durationUs: number | null;
}

function matchingCodes(trace: ThreadTrace, filter: readonly string[]): Uint8Array {
  const wanted = filter.length > 0 ? new Set(filter) : null;
  const codeOk = new Uint8Array(trace.interner.size);
  for (let i = 0; i < codeOk.length; i++) codeOk[i] = !wanted || wanted.has(trace.interner.fns[i]) ? 1 : 0;
  return codeOk;
}

/** How many calls of a thread `filteredCalls` would list. */
export function countFilteredCalls(trace: ThreadTrace, filter: readonly string[]): number {
  const codeOk = matchingCodes(trace, filter);
  let n = 0;
  for (let id = 0; id < trace.count; id++) if (codeOk[trace.codeOf(id)] && !trace.isSynthetic(id)) n++;
  return n;
}

/** The calls of a thread whose function is in `filter` (all calls if empty), in call order. */
export function* filteredCalls(threadKey: string, trace: ThreadTrace, filter: readonly string[], limit = Infinity): Generator<HopRow> {
  const codeOk = matchingCodes(trace, filter);
  let yielded = 0;
  for (let id = 0; id < trace.count && yielded < limit; id++) {
    if (!codeOk[trace.codeOf(id)] || trace.isSynthetic(id)) continue;
    const site = trace.callSiteOf(id);
    yielded++;
    yield {
      threadKey, nodeId: id, tsUs: trace.startOf(id), fn: trace.fnOf(id), file: trace.fileOf(id),
      line: trace.lineOf(id), caller: site?.fn ?? '', depth: trace.depthOf(id), durationUs: trace.durationOf(id),
    };
  }
}

/** The filtered hop sequence of every thread as Markdown (one table per trace file). */
export function hopSequenceMarkdown(index: CallTraceIndex, filter: readonly string[], limit = 200): string {
  const out: string[] = ['# Call trace hops', ''];
  out.push(filter.length > 0 ? `Filter: ${filter.map((f) => markdownCode(f)).join(', ')}` : 'Filter: none (every call)', '');
  for (const s of index.threadSummaries()) {
    const trace = index.trace(s.key);
    const rows: HopRow[] = [];
    let more = 0;
    for (const r of filteredCalls(s.key, trace, filter)) { if (rows.length < limit) rows.push(r); else more++; }
    if (rows.length === 0) continue;
    out.push(`## pid ${s.file.pid} · thread ${s.file.tidText} · ${s.role}`, '', markdownCode(s.file.path), '');
    out.push('| time | function | source | caller | duration |', '|---|---|---|---|---|');
    for (const r of rows) {
      out.push(`| ${formatTraceTs(r.tsUs).slice(11)} | ${'· '.repeat(Math.min(r.depth, 12))}${markdownCell(r.fn)} | `
        + `${markdownCell(`${displayPath(r.file)}:${r.line}`)} | ${r.caller ? markdownCell(r.caller) : ''} | ${formatDuration(r.durationUs)} |`);
    }
    if (more > 0) out.push('', `… ${more} more calls (raise the limit)`);
    out.push('');
  }
  return out.join('\n');
}
