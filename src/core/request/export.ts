// A traced request as JSON (the `hoplens send --json` shape), Markdown, a terminal table,
// and curl. None of them ever contains the API key: it is not in the record at all.
import { toCurl } from './build';
import { forTerminal } from '../text/terminal';
import type { Distribution, RunsSummary, TraceMetrics } from './metrics';
import type { TraceRecord } from './types';
import { markdownCell, markdownCode } from '../text/markdown';

const r3 = (v: number | null | undefined): number | null => (v === null || v === undefined || !Number.isFinite(v) ? null : Math.round(v * 1000) / 1000);

function dist(d: Distribution | null) {
  return d ? { mean: r3(d.mean), p50: r3(d.p50), p90: r3(d.p90), p99: r3(d.p99), max: r3(d.max) } : null;
}

export interface TraceJson {
  url: string;
  status: number | null;
  requestId: string;
  /** The W3C trace id sent in `traceparent`: the engine's spans for this request carry it. */
  traceId: string;
  traceparent: string;
  serverIds: string[];
  ttftContentMs: number | null;
  ttftFirstFrameMs: number | null;
  headersMs: number | null;
  e2eMs: number | null;
  outputTokens: number | null;
  itlMs: { mean: number | null; p50: number | null; p90: number | null; p99: number | null; max: number | null } | null;
  /** Per-frame detail, up to FRAME_DETAIL_CAP frames (framesReceived counts them all). */
  frames: { t: number | null; bytes: number; kind: string; chars: number }[];
  framesReceived: number;
  signatures: { kind: string; explanation: string; atFrame: number | null }[];
  error: null | { kind: string; message: string; hint: string; status?: number; serverMessage?: string; code?: string };
  // Beyond the documented shape, for tools that want more.
  engine: string;
  api: string;
  model: string;
  serverIdPattern: string;
  logRequestId: string;
  firstByteMs: number | null;
  /** Connection set-up before the request went out; every other time counts from its end. */
  connectMs: number | null;
  tpotMs: number | null;
  outputTokensSource: string | null;
  itlPerTokenMs: ReturnType<typeof dist>;
  multiTokenFrames: number[];
  framesWithoutOutput: number;
  unparseableFrames: number;
  sawDone: boolean;
  warnings: string[];
  /** Wall-clock epoch ms of t = 0 (the client's clock), to place the request beside server stamps. */
  startedAtEpochMs: number;
}

/** The object `hoplens send --json` prints (times in ms since the connection was up and the request went out). */
export function toJson(r: TraceRecord, m: TraceMetrics): TraceJson {
  return {
    url: r.request.url,
    status: r.status,
    requestId: r.requestId,
    traceId: r.traceContext.traceId,
    traceparent: r.traceContext.traceparent,
    serverIds: r.serverIds,
    ttftContentMs: r3(m.ttftContentMs),
    ttftFirstFrameMs: r3(m.ttftFirstFrameMs),
    headersMs: r3(m.headersMs),
    e2eMs: r3(m.e2eMs),
    outputTokens: m.outputTokens,
    itlMs: dist(m.itlMs),
    frames: r.frames.map((f) => ({ t: r3(f.t), bytes: f.bytes, kind: f.kind, chars: f.chars })),
    framesReceived: m.framesReceived,
    signatures: m.signatures.map((s) => ({ kind: s.kind, explanation: s.explanation, atFrame: s.atFrame })),
    error: r.error ? { ...r.error } : null,
    engine: r.engine,
    api: r.api,
    model: r.model,
    serverIdPattern: r.serverIdPattern,
    logRequestId: r.logRequestId,
    firstByteMs: r3(m.firstByteMs),
    connectMs: r3(r.timeline.connectMs),
    tpotMs: r3(m.tpotMs),
    outputTokensSource: m.outputTokensSource,
    itlPerTokenMs: dist(m.itlPerTokenMs),
    multiTokenFrames: m.multiTokenFrames,
    framesWithoutOutput: m.framesWithoutOutput,
    unparseableFrames: m.unparseableFrames,
    sawDone: r.sawDone,
    warnings: r.warnings,
    startedAtEpochMs: r.timeline.startedAtEpochMs,
  };
}

const ms = (v: number | null, digits = 1) => (v === null ? 'n/a' : `${v.toFixed(digits)} ms`);

/** Label/value rows of the summary, shared by the terminal table, Markdown and the webview. */
export function summaryRows(r: TraceRecord, m: TraceMetrics): [string, string][] {
  const rows: [string, string][] = [
    ['engine / API', `${r.engine} / ${r.api}${r.model ? ` · ${r.model}` : ''}`],
    ['request id', r.requestId],
    ['trace id (traceparent)', r.traceContext.traceId],
    ['server ids', r.serverIds.join(', ')],
    ['HTTP status', r.status === null ? 'n/a' : String(r.status)],
    ['connection set-up (before t = 0)', ms(r.timeline.connectMs, 2)],
    ['frames received', String(m.framesReceived)],
    ['frames with no content', String(m.framesWithoutOutput)],
    ['time to headers', ms(m.headersMs)],
    ['TTFT, first frame WITH content', ms(m.ttftContentMs)],
    ['TTFT, first frame at all', ms(m.ttftFirstFrameMs)],
    ['content frames', String(m.outputFrames)],
    ['output tokens', m.outputTokens === null ? 'n/a'
      : `${m.outputTokens}${m.outputTokensSource === 'frames' ? ' (one per frame; the server reported no count)' : ''}`],
    ['mean ITL', m.itlMs ? ms(m.itlMs.mean, 2) : 'n/a'],
    ['p50 ITL', m.itlMs ? ms(m.itlMs.p50, 2) : 'n/a'],
    ['p90 ITL', m.itlMs ? ms(m.itlMs.p90, 2) : 'n/a'],
    ['p99 ITL', m.itlMs ? ms(m.itlMs.p99, 2) : 'n/a'],
    ['max ITL', m.itlMs ? ms(m.itlMs.max, 2) : 'n/a'],
  ];
  if (m.itlPerTokenMs) rows.push(['p99 ITL per token', ms(m.itlPerTokenMs.p99, 2)]);
  if (m.multiTokenFrames.length) rows.push(['frames with several tokens', m.multiTokenFrames.map((i) => `#${i}`).join(' ')]);
  rows.push(['TPOT', ms(m.tpotMs, 2)], ['total (E2E)', ms(m.e2eMs)]);
  if (m.unparseableFrames) rows.push(['unparseable frames', String(m.unparseableFrames)]);
  return rows;
}

function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

/** Python-repr-like quoting for the frames table, so whitespace is visible (as the lab prints). */
function reprText(s: string): string {
  return JSON.stringify(s);
}

/** The lab's `--frames` table: #, t, Δt, chars, text (plus kind). */
export function framesTable(r: TraceRecord): string {
  const lines = ['   #     t(ms)   dt(ms)  chars  kind         text'];
  let prev = 0;
  for (const f of r.frames) {
    const timing = `${String(f.index).padStart(4)} ${f.t.toFixed(2).padStart(9)} ${(f.t - prev).toFixed(2).padStart(8)}`;
    lines.push(`${timing} ${String(f.chars).padStart(6)}  ${f.kind.padEnd(11)}  ${forTerminal(clip(reprText(f.text), 50))}`);
    prev = f.t;
  }
  return lines.join('\n');
}

/** The readable report for a terminal; every text the server or the user supplied has its control characters made visible. */
export function textReport(r: TraceRecord, m: TraceMetrics, opts: { frames?: boolean } = {}): string {
  const out: string[] = [`POST ${forTerminal(r.request.url)}`];
  if (r.status !== null) out.push(`HTTP ${r.status}, headers at ${ms(m.headersMs)}`);
  // Nothing arrived: the table would be all n/a, so only the identity rows and the error.
  const rows = r.frames.length === 0 && r.error ? summaryRows(r, m).slice(0, 4) : summaryRows(r, m);
  const w = Math.max(...rows.map(([k]) => k.length));
  out.push('', 'Measured from the client (socket arrival, monotonic clock; t = 0 when the connection is up and the request goes out)', '-'.repeat(w + 34));
  for (const [k, v] of rows) out.push(`${k.padEnd(w)}  ${forTerminal(v)}`);
  for (const s of m.signatures) out.push('', `${s.kind}: ${s.explanation}`);
  for (const wmsg of r.warnings) out.push('', `warning: ${forTerminal(wmsg)}`);
  if (r.error) {
    out.push('', `error (${r.error.kind}): ${forTerminal(r.error.message)}`);
    if (r.error.serverMessage && !r.error.message.includes(r.error.serverMessage)) out.push(`server said: ${forTerminal(r.error.serverMessage)}`);
    out.push(`try: ${forTerminal(r.error.hint)}`);
  }
  if (opts.frames) out.push('', framesTable(r));
  return out.join('\n') + '\n';
}

function mdEscape(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, '\\`').replace(/\r?\n/g, '\\n');
}

/** Markdown: summary, signatures, error, frames table. `redactText` hides prompt and outputs. */
export function toMarkdown(r: TraceRecord, m: TraceMetrics, opts: { redactText?: boolean } = {}): string {
  // Server text (model, ids, errors, output) goes into code spans: shown as sent, never a link or HTML.
  const out: string[] = [`### HopLens traced request ${markdownCode(r.requestId)}`, '', markdownCode(`POST ${r.request.url}`), '', '| | |', '|---|---|'];
  for (const [k, v] of summaryRows(r, m)) out.push(`| ${mdEscape(k)} | ${markdownCell(v)} |`);
  if (m.signatures.length) {
    out.push('', '**Signatures**', '');
    for (const s of m.signatures) out.push(`- **${s.kind}**: ${mdEscape(s.explanation)}`);
  }
  if (r.error) {
    out.push('', `**Error (${r.error.kind})**: ${markdownCode(r.error.message)}`, '', `Try: ${markdownCode(r.error.hint)}`);
  }
  if (r.warnings.length) {
    out.push('');
    for (const w of r.warnings) out.push(`- warning: ${markdownCode(w)}`);
  }
  out.push('', '| # | t (ms) | Δt (ms) | kind | chars | text |', '|---:|---:|---:|---|---:|---|');
  let prev = 0;
  for (const f of r.frames) {
    const text = opts.redactText ? (f.text ? '…' : '') : f.text ? markdownCell(f.text, { maxChars: 80 }) : '';
    out.push(`| ${f.index} | ${f.t.toFixed(2)} | ${(f.t - prev).toFixed(2)} | ${f.kind} | ${f.chars} | ${text} |`);
    prev = f.t;
  }
  out.push('', `_Client times are socket arrival on a monotonic clock; server log stamps have whole seconds (vLLM) or ms at best (SGLang)._`);
  return out.join('\n') + '\n';
}

/** curl that replays the request; the key (if one was used) is `$HOPLENS_API_KEY`. */
export function toCurlCommand(r: TraceRecord, opts: { usedApiKey?: boolean; apiKey?: string; revealKey?: boolean } = {}): string {
  return toCurl(r.request, { hasApiKey: opts.usedApiKey ?? false, ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
    ...(opts.revealKey ? { revealKey: true } : {}) });
}

/** The across-runs table for "Repeat Traced Request… N". */
export function runsReport(s: RunsSummary): string {
  const row = (label: string, d: Distribution | null) =>
    `${label.padEnd(22)} ${d ? [d.mean, d.p50, d.p90, d.p99, d.max].map((v) => v.toFixed(2).padStart(9)).join(' ') : '      n/a'}`;
  const out = [`${s.completed} of ${s.runs} run(s) completed`, `${''.padEnd(22)} ${['mean', 'p50', 'p90', 'p99', 'max'].map((h) => h.padStart(9)).join(' ')}`,
    row('TTFT content (ms)', s.ttftContentMs), row('TTFT first frame (ms)', s.ttftFirstFrameMs), row('ITL, pooled (ms)', s.itlMs),
    row('p99 ITL per run (ms)', s.itlP99AcrossRunsMs), row('TPOT (ms)', s.tpotMs), row('E2E (ms)', s.e2eMs)];
  const sig = Object.entries(s.signatureCounts).filter(([, n]) => n > 0).map(([k, n]) => `${k} in ${n} run(s)`);
  if (sig.length) out.push(`signatures: ${sig.join(', ')}`);
  for (const f of s.failed) out.push(`run ${f.run} failed (${f.kind}): ${forTerminal(f.message)}`);
  return out.join('\n') + '\n';
}
