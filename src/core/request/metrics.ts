// Client-side latency figures with the definitions of `vllm bench serve`:
// TTFT = first frame carrying output; ITL = gap between output frames;
// TPOT = (E2EL − TTFT) / (output tokens − 1). Plus the lab's point: TTFT to the first
// frame at all (vLLM's empty role frame) differs from TTFT to the first content.
import { OUTPUT_KINDS, type Frame, type TraceRecord } from './types';
import { GapHistogram } from './streamTail';

export interface Distribution {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  min: number;
}

export type SignatureKind = 'coalescing' | 'sawtooth' | 'stall';

export interface Signature {
  kind: SignatureKind;
  /** One line a user can act on. */
  explanation: string;
  /** Frame index where it shows (the frame after the spike), if any. */
  atFrame: number | null;
}

export interface TraceMetrics {
  framesReceived: number;
  outputFrames: number;
  /** Frames that carried no output (role-only, usage, finish, empty, done, unparseable, error). */
  framesWithoutOutput: number;
  unparseableFrames: number;
  ttftContentMs: number | null;
  ttftFirstFrameMs: number | null;
  headersMs: number | null;
  firstByteMs: number | null;
  e2eMs: number | null;
  outputTokens: number | null;
  /** Where outputTokens came from: the server's count, or one token per output frame. */
  outputTokensSource: 'usage' | 'frames' | null;
  tpotMs: number | null;
  /** Gap between consecutive output frames (one value per output frame after the first). */
  itlMs: Distribution | null;
  /** Gap divided over the tokens the frame carried, when the server reports token counts. */
  itlPerTokenMs: Distribution | null;
  /** Output frames that carried more than one token (server-reported). */
  multiTokenFrames: number[];
  signatures: Signature[];
}

/** Nearest-rank percentile on a sorted array (the lab's `_pct`: round(p/100·(n−1))). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round((p / 100) * (sorted.length - 1))))];
}

export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  let sum = 0;
  for (const v of s) sum += v;
  return { count: s.length, mean: sum / s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), max: s[s.length - 1], min: s[0] };
}

/** Gaps under this are "arrived together" on any network (ms). */
const NEAR_ZERO_MS = 0.5;

export function computeMetrics(r: TraceRecord): TraceMetrics {
  const frames = r.frames;
  const output = frames.filter((f) => OUTPUT_KINDS.has(f.kind));
  const gaps: number[] = [];
  for (let i = 1; i < output.length; i++) gaps.push(output[i].t - output[i - 1].t);

  // Token counts: the server's running count when it reports one, else one per output frame.
  let lastCumulative: number | null = null;
  for (const f of frames) if (f.cumulativeTokens !== null) lastCumulative = f.cumulativeTokens;
  const outputTokens = lastCumulative ?? (output.length || null);
  const outputTokensSource = lastCumulative !== null ? 'usage' : output.length ? 'frames' : null;

  const perToken: number[] = [];
  const multiTokenFrames: number[] = [];
  const tokensKnown = output.some((f) => f.tokens !== null);
  for (let i = 0; i < output.length; i++) {
    const f = output[i];
    if (f.tokens !== null && f.tokens > 1) multiTokenFrames.push(f.index);
    if (i === 0 || !tokensKnown) continue;
    const n = f.tokens !== null && f.tokens > 0 ? f.tokens : 1;
    for (let k = 0; k < n; k++) perToken.push(gaps[i - 1] / n);
  }

  const ttftContentMs = output.length ? output[0].t : null;
  const tail = r.tail ?? null;
  const last = tail && tail.frames > 0 ? tail.lastT : frames.length ? frames[frames.length - 1].t : null;
  const e2eMs = r.timeline.endMs ?? last;
  // Past the detail cap the counts continue in the tail, and the ITL statistics come from one histogram of every gap.
  const allOutput = output.length + (tail?.outputFrames ?? 0);
  const totalTokens = tail ? (tail.lastCumulativeTokens ?? lastCumulative ?? (allOutput || null)) : outputTokens;
  const tokensSource = tail ? ((tail.lastCumulativeTokens ?? lastCumulative) !== null ? 'usage' : allOutput ? 'frames' : null) : outputTokensSource;
  const tpotMs = ttftContentMs !== null && e2eMs !== null && totalTokens !== null && totalTokens > 1
    ? (e2eMs - ttftContentMs) / (totalTokens - 1) : null;
  const merged = (values: readonly number[], past: GapHistogram | null): Distribution | null => {
    if (!past || past.count === 0) return distribution(values);
    const h = GapHistogram.from(past);
    const all = new GapHistogram();
    for (const v of values) all.add(v);
    return mergeHistograms(all, h).distribution();
  };
  const framesReceived = frames.length + (tail?.frames ?? 0);
  const unparseable = frames.filter((f) => f.kind === 'unparseable').length + (tail?.unparseable ?? 0);

  return {
    framesReceived,
    outputFrames: allOutput,
    framesWithoutOutput: framesReceived - allOutput,
    unparseableFrames: unparseable,
    ttftContentMs,
    ttftFirstFrameMs: frames.length ? frames[0].t : null,
    headersMs: r.timeline.headersMs,
    firstByteMs: r.timeline.firstByteMs,
    e2eMs,
    outputTokens: totalTokens,
    outputTokensSource: tokensSource,
    tpotMs,
    itlMs: merged(gaps, tail ? tail.itl : null),
    itlPerTokenMs: tokensKnown || (tail !== null && tail.itlPerToken.count > 0) ? merged(perToken, tail ? tail.itlPerToken : null) : null,
    multiTokenFrames,
    signatures: detectSignatures(output, gaps),
  };
}

function mergeHistograms(a: GapHistogram, b: GapHistogram): GapHistogram {
  const ja = a.toJSON() as { count: number; sum: number; min: number; max: number; counts: number[] };
  const jb = GapHistogram.from(b).toJSON() as typeof ja;
  return GapHistogram.from({
    count: ja.count + jb.count, sum: ja.sum + jb.sum, min: Math.min(ja.min, jb.min), max: Math.max(ja.max, jb.max),
    counts: ja.counts.map((c, i) => c + jb.counts[i]),
  });
}

function fmt(ms: number): string {
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

/**
 * Reads the gap pattern between output frames:
 * - coalescing: a spike followed by frames that arrive together (or one frame carrying
 *   several tokens) — the frontend fell behind and merged deltas;
 * - sawtooth: most frames carry the same k > 1 tokens — the server streams every k tokens;
 * - stall: a spike with nothing piled up behind it — the server (or network) paused.
 */
export function detectSignatures(output: readonly Frame[], gaps: readonly number[]): Signature[] {
  const out: Signature[] = [];
  if (gaps.length < 3) return out;
  const sorted = [...gaps].sort((a, b) => a - b);
  const median = percentile(sorted, 50);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;

  // sawtooth: token counts say most frames carry k ≥ 2 tokens.
  const counts = output.slice(1).map((f) => f.tokens).filter((n): n is number => n !== null && n > 0);
  if (counts.length >= 3) {
    const multi = counts.filter((n) => n >= 2);
    if (multi.length / counts.length >= 0.6) {
      const k = percentile([...multi].sort((a, b) => a - b), 50);
      out.push({ kind: 'sawtooth', atFrame: null,
        explanation: `Most frames carry ${k} tokens: the server sends every ${k} tokens (--stream-interval ${k}), `
          + `so per-token ITL is a sawtooth — one gap, then ${k - 1} zero gaps.` });
    }
  }
  const sawtooth = out.length > 0;

  // The typical gap, ignoring near-zero ones so a burst does not hide the spike.
  const positive = sorted.filter((g) => g > NEAR_ZERO_MS);
  const typical = positive.length ? percentile(positive, 50) : median;
  let coalesced = false;
  let stalled = false;
  for (let i = 0; i < gaps.length; i++) {
    const g = gaps[i];
    // A burst behind the gap is evidence enough at 2× typical; a lone gap must be far larger to be a stall.
    if (!(g >= 2 * typical && g > 4 * NEAR_ZERO_MS)) continue;
    // Frames right after the spike that arrived together with the spike's frame.
    let together = 0;
    while (i + 1 + together < gaps.length && gaps[i + 1 + together] < Math.max(NEAR_ZERO_MS, 0.1 * typical)) together++;
    const frameAfter = output[i + 1];
    const carriedMany = !sawtooth && frameAfter.tokens !== null && frameAfter.tokens > 1;
    if ((together >= 2 || carriedMany) && !coalesced) {
      coalesced = true;
      const what = together >= 2
        ? `${together + 1} frames arrived within ${fmt(sumRange(gaps, i + 1, i + 1 + together))}`
        : `frame #${frameAfter.index} carried ${frameAfter.tokens} tokens`;
      out.push({ kind: 'coalescing', atFrame: frameAfter.index,
        explanation: `${fmt(g)} gap (${(g / typical).toFixed(0)}× the typical ${fmt(typical)}), then ${what}: `
          + 'the frontend fell behind and merged deltas — tokens survive, their timing does not.' });
    } else if (together < 2 && !carriedMany && g >= 5 * typical && g >= typical + 100 && !stalled) {
      stalled = true;
      out.push({ kind: 'stall', atFrame: frameAfter.index,
        explanation: `${fmt(g)} gap before frame #${frameAfter.index}, ${(g / typical).toFixed(0)}× the typical ${fmt(typical)}: `
          + 'the server paused (a long prefill batched in, preemption, GC) or the network did.' });
    }
  }
  // The lab's rule, for streams whose gaps are mostly near zero (no typical gap to compare with).
  const maxGap = sorted[sorted.length - 1];
  if (!coalesced && positive.length <= gaps.length / 2 && maxGap > 4 * mean && maxGap > 4 * NEAR_ZERO_MS) {
    const maxAt = gaps.indexOf(maxGap);
    out.push({ kind: 'coalescing', atFrame: output[maxAt + 1].index,
      explanation: `Max ITL ${fmt(maxGap)} is ${(maxGap / mean).toFixed(0)}× the mean with most gaps near zero: `
        + 'the frontend fell behind and merged deltas.' });
  }
  return out;
}

function sumRange(a: readonly number[], from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += a[i];
  return s;
}

export interface RunsSummary {
  runs: number;
  completed: number;
  failed: { run: number; kind: string; message: string }[];
  ttftContentMs: Distribution | null;
  ttftFirstFrameMs: Distribution | null;
  e2eMs: Distribution | null;
  tpotMs: Distribution | null;
  /** Every ITL gap of every run, pooled. */
  itlMs: Distribution | null;
  /** Each run's p99 ITL, as a distribution across runs. */
  itlP99AcrossRunsMs: Distribution | null;
  signatureCounts: Record<SignatureKind, number>;
}

/** "Repeat Traced Request… N": the distribution across runs. */
export function aggregateRuns(results: readonly { record: TraceRecord; metrics: TraceMetrics }[]): RunsSummary {
  const ok = results.filter((r) => r.record.error === null);
  const pick = (f: (m: TraceMetrics) => number | null) => distribution(ok.map((r) => f(r.metrics)).filter((v): v is number => v !== null));
  const pooled: number[] = [];
  for (const r of ok) {
    const out = r.record.frames.filter((f) => OUTPUT_KINDS.has(f.kind));
    for (let i = 1; i < out.length; i++) pooled.push(out[i].t - out[i - 1].t);
  }
  const signatureCounts: Record<SignatureKind, number> = { coalescing: 0, sawtooth: 0, stall: 0 };
  for (const r of ok) for (const s of r.metrics.signatures) signatureCounts[s.kind]++;
  return {
    runs: results.length,
    completed: ok.length,
    failed: results.map((r, i) => ({ r, i })).filter(({ r }) => r.record.error !== null)
      .map(({ r, i }) => ({ run: i + 1, kind: r.record.error!.kind, message: r.record.error!.message })),
    ttftContentMs: pick((m) => m.ttftContentMs),
    ttftFirstFrameMs: pick((m) => m.ttftFirstFrameMs),
    e2eMs: pick((m) => m.e2eMs),
    tpotMs: pick((m) => m.tpotMs),
    itlMs: distribution(pooled),
    itlP99AcrossRunsMs: pick((m) => m.itlMs?.p99 ?? null),
    signatureCounts,
  };
}

export interface HistogramBin { fromMs: number; toMs: number; count: number }

/** ITL histogram for the report's plot: equal-width bins from 0 to the max gap. */
export function itlHistogram(r: TraceRecord, bins = 20): HistogramBin[] {
  const out = r.frames.filter((f) => OUTPUT_KINDS.has(f.kind));
  const gaps: number[] = [];
  for (let i = 1; i < out.length; i++) gaps.push(out[i].t - out[i - 1].t);
  if (!gaps.length) return [];
  const max = Math.max(...gaps);
  const width = max > 0 ? max / bins : 1;
  const hist: HistogramBin[] = Array.from({ length: bins }, (_, i) => ({ fromMs: i * width, toMs: (i + 1) * width, count: 0 }));
  for (const g of gaps) hist[Math.min(bins - 1, Math.floor(g / width))].count++;
  return hist;
}
