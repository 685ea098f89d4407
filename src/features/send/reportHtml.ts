// The traced-request report as HTML: summary, signatures, an arrival plot and an ITL
// histogram in plain SVG (no network, no library), and the frames table. Every string from
// the server or the user is escaped; styling comes from theme variables in media/report.css.
import type { TracedRequest, HistogramBin } from '../../core/request/index';
import { summaryRows, itlHistogram, secondStampRangeText } from '../../core/request/index';
import { escapeHtml } from '../shared/webviewHtml';
import { endpointFlags } from '../../core/otlp/receiver';

export interface ReportLogLine { line: number; text: string; sinceRequestStartMs: number | null; resolution: 's' | 'ms' }

const OUTPUT = new Set(['content', 'reasoning', 'tool-call']);

function arrivalPlot(r: TracedRequest): string {
  const frames = r.record.frames;
  if (frames.length === 0) return '<p class="muted">No frames arrived.</p>';
  const W = 640, H = 180, P = 32;
  const tMax = Math.max(1, ...frames.map((f) => f.t));
  const x = (t: number) => P + (t / tMax) * (W - 2 * P);
  const y = (i: number) => H - P - (i / Math.max(1, frames.length - 1)) * (H - 2 * P);
  const dots = frames.map((f, i) => `<circle class="${OUTPUT.has(f.kind) ? 'dot-out' : 'dot-other'}" cx="${x(f.t).toFixed(1)}" cy="${y(i).toFixed(1)}" r="2.5">`
    + `<title>#${i} ${f.kind} at ${f.t.toFixed(2)} ms</title></circle>`).join('');
  const ttft = r.metrics.ttftContentMs;
  const ttftLine = ttft !== null
    ? `<line class="mark" x1="${x(ttft)}" x2="${x(ttft)}" y1="${P / 2}" y2="${H - P}"/>`
      + `<text class="axis" x="${x(ttft) + 4}" y="${P / 2 + 8}">TTFT ${ttft.toFixed(1)} ms</text>`
    : '';
  return `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="frame arrival times">
<line class="axisline" x1="${P}" y1="${H - P}" x2="${W - P}" y2="${H - P}"/><line class="axisline" x1="${P}" y1="${P / 2}" x2="${P}" y2="${H - P}"/>
<text class="axis" x="${P}" y="${H - 8}">0 ms</text><text class="axis" x="${W - P - 60}" y="${H - 8}">${tMax.toFixed(0)} ms</text>
<text class="axis" x="4" y="${P / 2 + 4}">#${frames.length - 1}</text>${ttftLine}${dots}</svg>`;
}

function histogram(bins: HistogramBin[]): string {
  if (bins.length === 0) return '<p class="muted">Fewer than two output frames: no inter-token gaps.</p>';
  const W = 640, H = 160, P = 32;
  const max = Math.max(...bins.map((b) => b.count));
  const bw = (W - 2 * P) / bins.length;
  const bars = bins.map((b, i) => {
    const h = max ? (b.count / max) * (H - 2 * P) : 0;
    return `<rect class="bar" x="${(P + i * bw + 1).toFixed(1)}" y="${(H - P - h).toFixed(1)}" `
      + `width="${Math.max(1, bw - 2).toFixed(1)}" height="${h.toFixed(1)}"><title>${b.fromMs.toFixed(2)}–${b.toMs.toFixed(2)} ms: ${b.count}</title></rect>`;
  }).join('');
  const from = `<text class="axis" x="${P}" y="${H - 8}">${bins[0].fromMs.toFixed(1)} ms</text>`;
  const to = `<text class="axis" x="${W - P - 70}" y="${H - 8}">${bins[bins.length - 1].toMs.toFixed(1)} ms</text>`;
  return `<svg class="plot" viewBox="0 0 ${W} ${H}" role="img" aria-label="inter-token latency histogram">
<line class="axisline" x1="${P}" y1="${H - P}" x2="${W - P}" y2="${H - P}"/>
${from}${to}
<text class="axis" x="4" y="${P}">${max}</text>${bars}</svg>`;
}

/** The server-log column: a millisecond stamp is a point; a whole-second stamp is the range it allows. */
function sinceStartCell(l: ReportLogLine): string {
  if (l.sinceRequestStartMs === null) return '—';
  if (l.resolution === 'ms') return `${l.sinceRequestStartMs.toFixed(0)} ms`;
  return `${secondStampRangeText(l.sinceRequestStartMs)} (whole-second stamp)`;
}

/** What the engine-timing section says before spans arrive: how to get them, from each engine that exports them. */
function noEngineTiming(): string {
  const flags = endpointFlags();
  if (flags.length === 0) return '<p class="muted">No engine HopLens knows exports its own timing (OpenTelemetry spans).</p>';
  const launch = flags.map((f) => `${escapeHtml(f.label)} with <code>${escapeHtml(f.flag)}</code>`).join(' or ');
  return `<p class="muted">Start <em>HopLens: Start Trace Receiver</em> and launch ${launch} `
    + 'to see the engine\'s own breakdown (queue, prefill, decode) here, next to these socket times.</p>';
}
const FRAMES_HEAD = '<thead><tr><th>#</th><th>t (ms)</th><th>Δt (ms)</th><th>kind</th><th>chars</th><th>text</th></tr></thead>';

function logLineRow(l: ReportLogLine): string {
  const text = l.text.length > 200 ? l.text.slice(0, 200) + '…' : l.text;
  return `<tr><td><a href="#" data-line="${l.line}">${l.line}</a></td><td>${sinceStartCell(l)}</td><td><code>${escapeHtml(text)}</code></td></tr>`;
}

export function reportBodyHtml(r: TracedRequest, logLines: ReportLogLine[] | null, logNote: string, engineHtml: string | null = null): string {
  const { record, metrics } = r;
  const rows = summaryRows(record, metrics).map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('');
  const err = record.error
    ? `<div class="error" role="alert"><strong>${escapeHtml(record.error.message)}</strong>`
      + `${record.error.serverMessage ? `<pre>${escapeHtml(record.error.serverMessage)}</pre>` : ''}<p>${escapeHtml(record.error.hint)}</p></div>`
    : '';
  const sigs = metrics.signatures.length
    ? `<ul class="signatures">${metrics.signatures.map((s) => {
      const at = s.atFrame !== null && s.atFrame !== undefined ? ` (frame #${s.atFrame})` : '';
      return `<li><strong>${escapeHtml(s.kind)}</strong>${at}: ${escapeHtml(s.explanation)}</li>`;
    }).join('')}</ul>`
    : '<p class="muted">No coalescing, sawtooth or stall signature.</p>';
  let prev = 0;
  const frameRows = record.frames.map((f, i) => {
    const dt = f.t - prev; prev = f.t;
    const text = JSON.stringify(f.text.length > 60 ? f.text.slice(0, 60) + '…' : f.text);
    return `<tr class="${OUTPUT.has(f.kind) ? '' : 'muted'}"><td>${i}</td><td>${f.t.toFixed(2)}</td><td>${dt.toFixed(2)}</td><td>${escapeHtml(f.kind)}</td>`
      + `<td>${f.chars}</td><td><code>${escapeHtml(text)}</code></td></tr>`;
  }).join('');
  const log = logLines === null ? `<p class="muted">${escapeHtml(logNote)}</p>`
    : logLines.length === 0 ? `<p class="muted">${escapeHtml(logNote)}</p>`
    : `<p class="muted">${escapeHtml(logNote)}</p><table class="log"><thead><tr><th>line</th><th>server time − request start</th><th>text</th></tr></thead>`
      + `<tbody>${logLines.map(logLineRow).join('')}</tbody></table>`;
  return `<header>
<h1>Traced request <code>${escapeHtml(record.requestId)}</code></h1>
<p class="muted">${[record.engine, record.api, record.model, record.request.url].map(escapeHtml).join(' · ')} · HTTP ${record.status ?? '—'}</p>
<nav>
<button data-action="copyMarkdown">Copy as Markdown</button>
<button data-action="copyJson">Copy as JSON</button>
<button data-action="copyCurl">Copy as curl</button>
<button data-action="openLog">Open Server Log Lines</button>
<button data-action="timeline">Timeline</button>
<button data-action="sendAgain">Send Again</button>
</nav>
</header>
${err}
<section><h2>Summary</h2><table class="summary" id="summary">${rows}</table></section>
<section><h2>Signatures</h2>${sigs}</section>
<section><h2>Frame arrivals</h2>${arrivalPlot(r)}</section>
<section><h2>Inter-token latency</h2>${histogram(itlHistogram(record, 20))}</section>
<section><h2>Server log</h2>${log}</section>
<section><h2>Engine timing (OpenTelemetry)</h2>${engineHtml ?? noEngineTiming()}</section>
<section><h2>Frames</h2><table class="frames" id="frames">${FRAMES_HEAD}<tbody>${frameRows}</tbody></table></section>`;
}
