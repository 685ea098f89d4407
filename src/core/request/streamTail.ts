// What is kept of a stream past the per-frame detail cap: counts and a fixed-size histogram of
// the gaps, so a server that floods frames (or a run with no max_tokens) costs bounded memory
// while TTFT, token counts and the ITL statistics still cover every frame.
import type { Distribution } from './metrics';

/** Frames kept with full detail (text, times, kinds); longer streams keep statistics past it. */
export const FRAME_DETAIL_CAP = 100_000;

/** Log-spaced buckets: 1 µs … ~17 min, each 1% wide (percentiles read from it are within ±1%). */
const MIN_MS = 0.001;
const GROWTH = 1.01;
const BUCKETS = Math.ceil(Math.log(1e6 / MIN_MS) / Math.log(GROWTH)) + 2;

/** A distribution over values that are never stored one by one. */
export class GapHistogram {
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  private readonly counts = new Float64Array(BUCKETS);

  add(v: number): void {
    this.count++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.counts[bucketOf(v)]++;
  }

  /** Nearest-rank percentile, like metrics.percentile, read from the buckets (the bucket's middle, clamped to min/max). */
  percentile(p: number): number {
    const rank = Math.min(this.count - 1, Math.max(0, Math.round((p / 100) * (this.count - 1))));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b];
      if (seen > rank) return Math.min(this.max, Math.max(this.min, bucketMiddle(b)));
    }
    return this.max;
  }

  distribution(): Distribution | null {
    if (this.count === 0) return null;
    return { count: this.count, mean: this.sum / this.count, p50: this.percentile(50), p90: this.percentile(90), p99: this.percentile(99),
      max: this.max, min: this.min };
  }

  toJSON(): object { return { count: this.count, sum: this.sum, min: this.min, max: this.max, counts: Array.from(this.counts) }; }

  /** Rebuilt from toJSON() (the record crosses a worker thread as plain data). */
  static from(data: { count: number; sum: number; min: number; max: number; counts: number[] } | GapHistogram): GapHistogram {
    if (data instanceof GapHistogram) return data;
    const h = new GapHistogram();
    h.count = data.count; h.sum = data.sum; h.min = data.min; h.max = data.max;
    h.counts.set(data.counts.slice(0, BUCKETS));
    return h;
  }
}

function bucketOf(v: number): number {
  if (!(v > MIN_MS)) return 0;
  return Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(v / MIN_MS) / Math.log(GROWTH)));
}

function bucketMiddle(b: number): number {
  if (b === 0) return 0;
  return MIN_MS * GROWTH ** (b - 0.5);
}

/** Statistics of the frames past FRAME_DETAIL_CAP (see TraceRecord.tail). */
export interface StreamTail {
  /** Frames received past the cap. */
  frames: number;
  outputFrames: number;
  unparseable: number;
  /** Arrival of the last frame (ms since the request started). */
  lastT: number;
  /** Arrival of the last output frame, to measure the next gap. */
  lastOutputT: number | null;
  /** The server's running completion-token count at the last frame that had one. */
  lastCumulativeTokens: number | null;
  /** Output frames past the cap that carried more than one token. */
  multiTokenFrames: number;
  /** Gaps between output frames past the cap (the first one measured from the last detailed output frame). */
  itl: GapHistogram;
  /** The same gaps spread over the tokens each frame carried, when the server reports counts. */
  itlPerToken: GapHistogram;
}

export function emptyTail(): StreamTail {
  return {
    frames: 0, outputFrames: 0, unparseable: 0, lastT: 0, lastOutputT: null, lastCumulativeTokens: null, multiTokenFrames: 0,
    itl: new GapHistogram(), itlPerToken: new GapHistogram(),
  };
}
