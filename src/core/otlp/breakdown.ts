// The engine's own view of one request (vLLM's llm_request span) beside the client's
// measurement, and the part nobody measures: client e2e − engine e2e.
import { forTerminal } from '../text/terminal';
import type { EngineTiming, RequestSnapshot } from './types';

export interface ClientTiming {
  /** Client TTFT to the first frame with content (ms). */
  ttftContentMs: number | null;
  /** Client end-to-end (ms). */
  e2eMs: number | null;
}

export type BreakdownKey = 'queue' | 'prefill' | 'decode' | 'inference' | 'ttft' | 'e2e' | 'residual' | 'ttftResidual';

export interface BreakdownRow {
  key: BreakdownKey;
  label: string;
  engineMs: number | null;
  clientMs: number | null;
  /** One line: what the number covers. */
  explanation: string;
}

export interface EngineBreakdown {
  rid: string;
  requestId: string;
  promptTokens: number | null;
  completionTokens: number | null;
  rows: BreakdownRow[];
  /** client e2e − engine e2e; null without both. */
  residualMs: number | null;
  /** client TTFT − engine TTFT; null without both. */
  ttftResidualMs: number | null;
  /** Set when a residual is negative: the two clocks do not describe the same request span. */
  note?: string;
}

export function engineBreakdown(timing: EngineTiming, client?: ClientTiming): EngineBreakdown {
  const ce2e = client?.e2eMs ?? null;
  const cttft = client?.ttftContentMs ?? null;
  const residualMs = ce2e !== null && timing.e2eMs !== null ? ce2e - timing.e2eMs : null;
  const ttftResidualMs = cttft !== null && timing.ttftMs !== null ? cttft - timing.ttftMs : null;
  const rows: BreakdownRow[] = [
    { key: 'queue', label: 'queue', engineMs: timing.queueMs, clientMs: null,
      explanation: 'waiting in the scheduler queue, from the engine core receiving the request to its first scheduling' },
    { key: 'prefill', label: 'prefill', engineMs: timing.prefillMs, clientMs: null,
      explanation: 'from first scheduling to the first output token (prompt processing in the model)' },
    { key: 'decode', label: 'decode', engineMs: timing.decodeMs, clientMs: null,
      explanation: 'from the first to the last output token' },
    { key: 'inference', label: 'inference', engineMs: timing.inferenceMs, clientMs: null,
      explanation: 'prefill + decode: time the request spent running in the model' },
    { key: 'ttft', label: 'TTFT', engineMs: timing.ttftMs, clientMs: cttft,
      explanation: 'engine: arrival to first token in the output processor; client: send to the first frame with content' },
    { key: 'e2e', label: 'E2E', engineMs: timing.e2eMs, clientMs: ce2e,
      explanation: 'engine: arrival to finish in the output processor; client: send to the end of the stream' },
    { key: 'ttftResidual', label: 'TTFT not measured by the engine', engineMs: null, clientMs: ttftResidualMs,
      explanation: 'client TTFT − engine TTFT: HTTP parsing and tokenisation before arrival, detokenisation, the first SSE write' },
    { key: 'residual', label: 'E2E not measured by the engine', engineMs: null, clientMs: residualMs,
      explanation: 'what the engine does not time: HTTP parsing, tokenisation, ZMQ hops, detokenisation, the HTTP write' },
  ];
  const out: EngineBreakdown = {
    rid: timing.rid, requestId: timing.requestId, promptTokens: timing.promptTokens, completionTokens: timing.completionTokens,
    rows, residualMs, ttftResidualMs,
  };
  if ((residualMs !== null && residualMs < 0) || (ttftResidualMs !== null && ttftResidualMs < 0)) {
    out.note = 'a negative residual means the client and the span do not describe the same request (or the client measurement is from another run)';
  }
  return out;
}

function ms(v: number | null): string {
  return v === null ? '—' : v.toFixed(1);
}

/** A Markdown table cell from data: pipes escaped, control characters made visible (a newline would end the row, ESC would act on a terminal). */
function cell(s: string): string {
  return forTerminal(s).replace(/\|/g, '\\|');
}

export function renderBreakdownMarkdown(b: EngineBreakdown): string {
  const lines = [
    `### Engine timing for \`${cell(b.rid)}\``,
    '',
    `Prompt tokens: ${b.promptTokens ?? '—'} · completion tokens: ${b.completionTokens ?? '—'}`,
    '',
    '| | engine (ms) | client (ms) | what it covers |',
    '|---|---:|---:|---|',
  ];
  for (const r of b.rows) lines.push(`| ${cell(r.label)} | ${ms(r.engineMs)} | ${ms(r.clientMs)} | ${cell(r.explanation)} |`);
  if (b.note) lines.push('', `> ${b.note}`);
  return lines.join('\n') + '\n';
}

/** Step snapshots of one request as Markdown rows (the per-request timeline). */
export function renderSnapshotsMarkdown(snaps: RequestSnapshot[]): string {
  if (snaps.length === 0) return '_No step snapshots for this request (step tracing is subsampled; see --step-tracing-rich-subsample-rate)._\n';
  const lines = ['| step | phase | scheduled | computed | output | preempt | KV alloc | KV cached |', '|---:|---|---:|---:|---:|---:|---:|---:|'];
  const n = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : String(v));
  for (const s of snaps) {
    lines.push(`| ${s.stepId} | ${cell(s.phase ?? '—')} | ${n(s.scheduledTokens)} | ${n(s.computedTokens)} | ${n(s.outputTokens)} `
      + `| ${n(s.preemptions)} | ${n(s.kvBlocksAllocated)} | ${n(s.kvBlocksCached)} |`);
  }
  return lines.join('\n') + '\n';
}
