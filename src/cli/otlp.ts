// `hoplens otlp --listen HOST:PORT [--out spans.jsonl] [--max-seconds N]`
// `hoplens otlp --file export.json [--json] [--rid RID]`
// Receives vLLM's OpenTelemetry spans (OTLP/HTTP, protobuf or JSON) or reads a Collector
// file-exporter output, and prints the engine's own per-request timing.
import { readCollectorFile, readCollectorStream } from '../core/otlp/collectorFile';
import { SpanStore, batchSummaryOf, engineTimingOf, requestSnapshotOf } from '../core/otlp/engineTiming';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_OTLP_PORT, startOtlpReceiver, launchHints } from '../core/otlp/receiver';
import { engineBreakdown, renderBreakdownMarkdown, renderSnapshotsMarkdown } from '../core/otlp/breakdown';
import type { EngineTiming, OtlpSpan } from '../core/otlp/types';
import { forTerminal } from '../core/text/terminal';
import { batchedOut, type CliIO } from './io';
import { SpanFileWriter } from './spanFile';

/** A launch line as the usage text shows it: its variables' assignments, then, after a trailing backslash, the command; each line indented. */
function shellLines(line: string, indent: string): string {
  const words = line.split(' ');
  let vars = 0;
  while (vars < words.length - 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[vars])) vars++;
  const parts = vars > 0 ? [words.slice(0, vars).join(' '), words.slice(vars).join(' ')] : [line];
  return parts.map((p) => indent + p).join(' \\\n');
}

/** How to start each engine that exports spans to the default endpoint (the profiles' launch hints). */
function startLines(): string {
  return launchHints(`http://127.0.0.1:${DEFAULT_OTLP_PORT}/v1/traces`)
    .map((h, i) => `${i === 0 ? ' Start' : '\n           or start'} ${h.label} with\n${shellLines(h.line, '             ')}`).join('');
}

const help = () => `usage: hoplens otlp --listen [HOST:]PORT [--out spans.jsonl] [--max-seconds N] [--max-body-mb N]
       hoplens otlp --file export.json|- [--json] [--rid RID]

--listen   run an OTLP/HTTP trace receiver (POST /v1/traces, protobuf or JSON) and print one line
           per finished request (vLLM's llm_request span).${startLines()}
           --out FILE        also append every export request's spans to FILE as one line of OTLP
                             JSON (what --file reads). While FILE cannot be written, exporters are
                             answered 503 with Retry-After: they keep the spans and send them again
           --max-seconds N   stop after N seconds (otherwise Ctrl-C)
           --max-body-mb N   largest request accepted (default ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024})
           Binds to 127.0.0.1 unless HOST says otherwise (a warning is printed then).
--file     read OTLP JSON: the OpenTelemetry Collector file exporter's JSON Lines (as --out writes
           them), or one document; gzip is read as is; - reads standard input
           --json            JSON Lines: one "request" object per llm_request, then one "summary"
           --rid RID         the engine breakdown and step snapshots of one request

exit codes: 0 ok, 1 nothing to show (no spans in the file), cannot listen, or --out still failing
            when stopped (spans were refused), 2 bad input (not OTLP JSON, --out cannot be opened) or usage
`;

interface Args {
  listen: { host: string; port: number } | null;
  file: string | null;
  out: string | null;
  json: boolean;
  rid: string | null;
  maxSeconds: number | null;
  maxBodyBytes: number;
}

function parseListen(v: string): { host: string; port: number } | string {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(v) ?? /^()()(\d+)$/.exec(v);
  if (!m) return `--listen wants HOST:PORT or PORT, got '${v}'`;
  const port = Number(m[3]);
  if (port > 65535) return `--listen port must be 0-65535, got ${port}`;
  return { host: m[1] || m[2] || '127.0.0.1', port };
}

function parseArgs(argv: string[]): Args | string {
  const a: Args = { listen: null, file: null, out: null, json: false, rid: null, maxSeconds: null, maxBodyBytes: DEFAULT_MAX_BODY_BYTES };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const [name, inline] = arg.startsWith('--') && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, null];
    const take = (): string | null => {
      if (inline !== null) return inline;
      if (i + 1 >= argv.length) return null;
      return argv[++i];
    };
    const need = (): string => { const v = take(); if (v === null) throw new Error(`${name} needs a value`); return v; };
    try {
      switch (name) {
        case '--listen': { const l = parseListen(need()); if (typeof l === 'string') return l; a.listen = l; break; }
        case '--file': a.file = need(); break;
        case '--out': a.out = need(); break;
        case '--rid': a.rid = need(); break;
        case '--json': a.json = true; break;
        case '--max-seconds': {
          const v = need();
          if (!/^\d+(\.\d+)?$/.test(v)) return `--max-seconds must be a number of seconds, got '${v}'`;
          a.maxSeconds = Number(v); break;
        }
        case '--max-body-mb': {
          const v = need();
          if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0) return `--max-body-mb must be a positive number, got '${v}'`;
          a.maxBodyBytes = Math.floor(Number(v) * 1024 * 1024); break;
        }
        case '-h': case '--help': return 'help';
        default:
          if (name.startsWith('-')) return `unknown option '${arg}'`;
          if (a.file === null) a.file = arg; else return `unexpected argument '${arg}'`;
      }
    } catch (e) {
      return (e as Error).message;
    }
  }
  if (a.listen && a.file) return 'use either --listen or --file, not both';
  if (!a.listen && !a.file) return 'missing --listen HOST:PORT or --file export.json';
  return a;
}

function ms(v: number | null): string {
  return v === null ? '—' : v.toFixed(1);
}

function requestLine(t: EngineTiming): string {
  const when = new Date(t.span.endMs).toISOString().replace('T', ' ').replace('Z', '');
  return `${when}  ${forTerminal(t.rid)}  queue ${ms(t.queueMs)}  prefill ${ms(t.prefillMs)}  decode ${ms(t.decodeMs)}  ` +
    `TTFT ${ms(t.ttftMs)}  E2E ${ms(t.e2eMs)} ms  tokens ${t.promptTokens ?? '—'}→${t.completionTokens ?? '—'}`;
}

/** µs precision: seconds × 1000 in binary floating point would print 30.099999999999998. */
function r3(v: number | null): number | null {
  return v === null ? null : Math.round(v * 1000) / 1000;
}

function requestJson(t: EngineTiming): Record<string, unknown> {
  return {
    kind: 'request', rid: t.rid, requestId: t.requestId,
    queueMs: r3(t.queueMs), prefillMs: r3(t.prefillMs), decodeMs: r3(t.decodeMs), inferenceMs: r3(t.inferenceMs),
    ttftMs: r3(t.ttftMs), e2eMs: r3(t.e2eMs), promptTokens: t.promptTokens, completionTokens: t.completionTokens,
    traceId: t.span.traceId, spanId: t.span.spanId, startMs: t.span.startMs, endMs: t.span.endMs,
    startTimeUnixNano: t.span.startTimeUnixNano, endTimeUnixNano: t.span.endTimeUnixNano,
    status: t.span.status.code, ...(t.span.status.message ? { statusMessage: t.span.status.message } : {}),
  };
}

/** `stop` ends a --listen run like Ctrl-C does (tests, embedding). */
export async function runOtlp(argv: string[], io: CliIO, stop?: AbortSignal): Promise<number> {
  const a = parseArgs(argv);
  if (a === 'help') { io.out(help()); return 0; }
  if (typeof a === 'string') { io.err(`hoplens otlp: ${a}\n\n${help()}`); return 2; }
  return a.listen ? listen(a, a.listen, io, stop) : readFile(a, a.file!, io);
}

async function readFile(a: Args, path: string, io: CliIO): Promise<number> {
  // A whole-file listing streams: rows go out (JSON) or into a small table as lines are read,
  // so memory does not grow with the file. --rid needs the snapshots too, so it keeps a store.
  const store = a.rid !== null ? new SpanStore() : null;
  const counts = { spans: 0, requests: 0, batches: 0, snapshots: 0 };
  const rows: string[][] = [];
  const out = batchedOut(io);
  const onSpans = (spans: OtlpSpan[]): void => {
    if (store) { store.add(spans); return; }
    for (const s of spans) {
      counts.spans++;
      const t = engineTimingOf(s);
      if (t) {
        counts.requests++;
        if (a.json) out.line(JSON.stringify(requestJson(t))); else rows.push(tableRow(t));
      }
      for (const ev of s.events) {
        if (batchSummaryOf(ev)) counts.batches++;
        else if (requestSnapshotOf(ev)) counts.snapshots++;
      }
    }
  };
  const shownPath = forTerminal(path);
  let r;
  try {
    const onWaiting = (m: string): void => io.err(`hoplens otlp: ${forTerminal(m)} (Ctrl-C to stop)\n`);
    r = path === '-' ? await readCollectorStream(process.stdin, 'standard input', { onSpans }) : await readCollectorFile(path, { onSpans, onWaiting });
  } catch (e) {
    io.err(`hoplens otlp: ${forTerminal((e as Error).message)}\n`);
    return 2;
  }
  for (const b of r.badLines) io.err(`hoplens otlp: ${shownPath}:${b.line}: skipped: ${forTerminal(b.message)}\n`);
  const listedBad = r.badLines.filter((b) => b.spans === undefined).length;
  if (r.badLineCount > listedBad) io.err(`hoplens otlp: … and ${r.badLineCount - listedBad} more bad line(s)\n`);
  if (store) {
    const st = store.stats();
    Object.assign(counts, { spans: st.spans, requests: st.requests, batches: st.batches, snapshots: st.snapshots });
  }
  const summary = {
    kind: 'summary', ...counts, lines: r.lines, badLines: r.badLineCount,
    ...(r.rejectedSpanCount ? { rejectedSpans: r.rejectedSpanCount } : {}),
  };
  if (store && a.rid !== null) {
    const t = store.timing(a.rid);
    if (!t) {
      io.err(`hoplens otlp: no llm_request span for '${forTerminal(a.rid)}' in ${shownPath} (${counts.requests} request(s) there)\n`);
      return 1;
    }
    if (a.json) {
      out.line(JSON.stringify(requestJson(t)));
      for (const s of store.snapshots(t.rid)) out.line(JSON.stringify({ kind: 'snapshot', ...s }));
    } else {
      out.line(renderBreakdownMarkdown(engineBreakdown(t)) + '\n' + renderSnapshotsMarkdown(store.snapshots(t.rid)).trimEnd());
    }
  }
  if (a.json) out.line(JSON.stringify(summary));
  else if (a.rid === null) {
    out.line(requestTable(rows).trimEnd());
    out.line(`${counts.requests} request(s), ${counts.spans} span(s), ${counts.batches} step batch summar${counts.batches === 1 ? 'y' : 'ies'}, ` +
      `${counts.snapshots} request snapshot(s)${r.badLineCount ? `, ${r.badLineCount} bad line(s) skipped` : ''}` +
      `${r.rejectedSpanCount ? `, ${r.rejectedSpanCount} bad span(s) skipped` : ''}`);
  }
  out.flush();
  return counts.spans === 0 ? 1 : 0;
}


const TABLE_HEAD = ['request', 'prompt', 'output', 'queue', 'prefill', 'decode', 'inference', 'TTFT', 'E2E'];

function tableRow(t: EngineTiming): string[] {
  return [forTerminal(t.rid), String(t.promptTokens ?? '—'), String(t.completionTokens ?? '—'),
    ms(t.queueMs), ms(t.prefillMs), ms(t.decodeMs), ms(t.inferenceMs), ms(t.ttftMs), ms(t.e2eMs)];
}

function requestTable(rows: string[][]): string {
  const widths = TABLE_HEAD.map((h, i) => rows.reduce((w, r) => Math.max(w, r[i].length), h.length));
  const fmt = (r: string[]): string => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [fmt(TABLE_HEAD), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') + '\n' +
    (rows.length ? '' : '(no llm_request spans)\n') + '(times in ms, from the engine\'s llm_request spans)\n';
}

async function listen(a: Args, where: { host: string; port: number }, io: CliIO, stopSignal?: AbortSignal): Promise<number> {
  let out: SpanFileWriter | null = null;
  if (a.out) {
    try {
      out = await SpanFileWriter.open(a.out);
    } catch (e) {
      io.err(`hoplens otlp: ${forTerminal((e as Error).message)}\n`);
      return 2;
    }
  }
  let llmRequests = 0;
  const onSpans = async (spans: OtlpSpan[]): Promise<void> => {
    // The file first: if it fails, the exporter sends these again and they are printed then.
    if (out) await out.write(spans);
    const lines: string[] = [];
    for (const s of spans) {
      const t = engineTimingOf(s);
      if (t) { llmRequests++; lines.push(requestLine(t)); }
    }
    if (lines.length) io.out(lines.join('\n') + '\n');
  };
  let retryAfter = 1;
  const onSinkState = (failure: string | null): void => {
    if (failure !== null) {
      io.err(`hoplens otlp: ${forTerminal(failure)}\nhoplens otlp: answering 503 with Retry-After: ${retryAfter} s until spans can be written again; ` +
        'the exporters keep them and send them again\n');
    } else {
      io.err(`hoplens otlp: writing spans again (${rx?.stats().refused ?? 0} export request(s) were answered 503 meanwhile)\n`);
    }
  };
  let rx: Awaited<ReturnType<typeof startOtlpReceiver>> | undefined;
  try {
    rx = await startOtlpReceiver({
      host: where.host, port: where.port, maxBodyBytes: a.maxBodyBytes, onSpans, onSinkState,
      onError: (m) => io.err(`hoplens otlp: ${forTerminal(m)}\n`),
    });
  } catch (e) {
    io.err(`hoplens otlp: ${forTerminal((e as Error).message)}\n`);
    await out?.close();
    return 1;
  }
  retryAfter = rx.retryAfterSeconds;
  if (rx.warning) io.err(`hoplens otlp: warning: ${rx.warning}\n`);
  io.out(`listening on ${rx.url} (OTLP/HTTP, protobuf or JSON)\n`);
  for (const hint of launchHints(rx.url)) io.out(`start ${hint.label} with: ${hint.line}\n`);
  if (a.out) io.out(`writing spans to ${forTerminal(a.out)} (OTLP JSON Lines)\n`);

  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | null = null;
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      stopSignal?.removeEventListener('abort', stop);
      if (timer) clearTimeout(timer);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (stopSignal?.aborted) stop(); else stopSignal?.addEventListener('abort', stop);
    if (a.maxSeconds !== null) timer = setTimeout(stop, a.maxSeconds * 1000);
  });
  await rx.close();
  await out?.close();
  const st = rx.stats();
  io.out(`stopped: ${st.spans} span(s) in ${st.requests} export request(s), ${llmRequests} llm_request, ${st.rejected} rejected` +
    `${st.rejectedSpans ? `, ${st.rejectedSpans} bad span(s) refused` : ''}${st.refused ? `, ${st.refused} answered 503 (not kept)` : ''}\n`);
  // Still failing at the end: some exporter's spans were not kept.
  return st.sinkFailure ? 1 : 0;
}
