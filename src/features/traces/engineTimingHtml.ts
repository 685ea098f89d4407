// The engine's own view of one request, as HTML for a webview: the breakdown next to the
// client's measurement (with the residual the engine does not see), the per-step snapshots of
// this request, and the scheduler's batch summaries around it as a small SVG chart.
import type { EngineTiming, RequestSnapshot, BatchSummary } from '../../core/otlp/types';
import { escapeHtml } from '../shared/webviewHtml';
import { engineBreakdown } from '../../core/otlp/breakdown';

import type { ClientTimes } from '../shared/contracts';
export type { ClientTimes } from '../shared/contracts';

const ms = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? '—' : `${v.toFixed(1)} ms`);

export function breakdownTableHtml(t: EngineTiming, client: ClientTimes | null): string {
  // The same rows and words as `hoplens otlp` (core/otlp/breakdown.ts); a residual only with a client measurement.
  const b = engineBreakdown(t, client ?? undefined);
  const residual = (k: string) => k === 'residual' || k === 'ttftResidual';
  const clientSide = (k: string) => residual(k) || k === 'ttft' || k === 'e2e';
  const rows = b.rows
    .filter((r) => !residual(r.key) || r.clientMs !== null)
    .map((r) => [r.label, residual(r.key) ? '' : ms(r.engineMs), clientSide(r.key) ? ms(r.clientMs) : '', r.explanation]);
  const body = rows
    .map((r) => `<tr><th>${escapeHtml(r[0])}</th><td>${escapeHtml(r[1])}</td><td>${escapeHtml(r[2])}</td><td class="muted">${escapeHtml(r[3])}</td></tr>`)
    .join('');
  const tokens = `${t.promptTokens ?? '—'} prompt / ${t.completionTokens ?? '—'} completion tokens`;
  const note = b.note ? `<p class="warn">${escapeHtml(b.note)}</p>` : '';
  const service = String(t.span.resource['service.name'] ?? 'vLLM');
  return `${note}<table class="summary" id="engine-breakdown">`
    + '<thead><tr><th></th><th>engine (span)</th><th>client (socket)</th><th></th></tr></thead>'
    + `<tbody>${body}</tbody></table>`
    + `<p class="muted">${escapeHtml(tokens)} · span <code>${escapeHtml(t.span.name)}</code> from ${escapeHtml(service)}</p>`;
}

function snapshotsTable(snaps: RequestSnapshot[]): string {
  if (snaps.length === 0) return '<p class="muted">No step snapshots for this request (they come from the step-tracing branch of vLLM, subsampled).</p>';
  const rows = snaps.slice(0, 2000).map((s) => `<tr><td>${s.stepId}</td><td>${escapeHtml(new Date(s.timeMs).toISOString().slice(11, 23))}</td>`
    + `<td>${escapeHtml(s.phase ?? '—')}</td><td>${s.scheduledTokens ?? '—'}</td><td>${s.computedTokens ?? '—'}</td><td>${s.outputTokens ?? '—'}</td>`
    + `<td>${s.preemptions ?? '—'}</td><td>${s.kvBlocksAllocated ?? '—'}</td><td>${s.kvBlocksCached ?? '—'}</td></tr>`).join('');
  return '<table class="frames" id="snapshots"><thead><tr><th>step</th><th>time</th><th>phase</th><th>scheduled</th><th>computed</th><th>output</th>'
    + `<th>preempt.</th><th>KV blocks</th><th>cached</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function batchChart(batches: BatchSummary[]): string {
  if (batches.length < 2) return '<p class="muted">No batch summaries around this request.</p>';
  const W = 640, H = 160, P = 32;
  const t0 = batches[0].timeMs, t1 = batches[batches.length - 1].timeMs;
  const maxTok = Math.max(1, ...batches.map((b) => b.scheduledTokens ?? 0));
  const maxReq = Math.max(1, ...batches.map((b) => (b.running ?? 0) + (b.waiting ?? 0)));
  const x = (t: number) => P + ((t - t0) / Math.max(1, t1 - t0)) * (W - 2 * P);
  const y = (v: number) => H - P - v * (H - 2 * P);
  const line = (f: (b: BatchSummary) => number, max: number) =>
    batches.map((b, i) => `${i ? 'L' : 'M'}${x(b.timeMs).toFixed(1)},${y(f(b) / max).toFixed(1)}`).join('');
  return `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="batch summaries">
<line class="axisline" x1="${P}" y1="${H - P}" x2="${W - P}" y2="${H - P}"/>
<path class="series-a" d="${line((b) => b.scheduledTokens ?? 0, maxTok)}" fill="none"/>
<path class="series-b" d="${line((b) => b.running ?? 0, maxReq)}" fill="none"/>
<text class="axis" x="${P}" y="${H - 8}">${batches.length} steps over ${(t1 - t0).toFixed(0)} ms — `
    + `blue: scheduled tokens (max ${maxTok}), orange: running requests (max ${maxReq})</text></svg>`;
}

const NO_SPAN_YET = '<p class="muted">No llm_request span for this request yet. vLLM exports it when the request finishes (batched, about every 5 s).</p>';

export function engineTimingBodyHtml(rid: string, timing: EngineTiming | null, client: ClientTimes | null, snaps: RequestSnapshot[],
  batches: BatchSummary[], note: string): string {
  return `<header><h1>Engine timing of <code>${escapeHtml(rid)}</code></h1><p class="muted">${escapeHtml(note)}</p></header>
<section><h2>Breakdown</h2>${timing ? breakdownTableHtml(timing, client) : NO_SPAN_YET}</section>
<section><h2>Step snapshots</h2>${snapshotsTable(snaps)}</section>
<section><h2>Batches while it ran</h2>${batchChart(batches)}</section>`;
}
