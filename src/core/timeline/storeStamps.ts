// A log store's own timestamp of each line (VictoriaLogs' `_time`, Loki's ns stamp) as a sharper
// upper end for the line's printed stamp, for the clock rules. A node's log agent stamps each line
// with the node's clock as it reads it, after the pod printed it: the event happened in
// [printed, printed + resolution) and no later than the store's stamp (+1 ms, the agent's ms
// rounding). A vLLM line printed to the second with a store stamp 3 ms into it happened in those
// 3 ms, which narrows the per-pod clock bounds the orderings give (see clockOffsets.ts).
//
// Used only where the store's stamps read as that pod's clock: a stamp before the second it
// was printed in (the store's clock behind the pod's, e.g. stamped on ingest by another machine)
// or stamps that are the printed stamps themselves (an agent that parsed the line's own time)
// turn it off for the whole log, which then keeps its printed stamps as they are. A clock behind
// by less than a second can hide in a few lines, each printed late enough in its second: then no
// store stamp is as far into its printed second as lines get, and by how far it falls short of the
// end of that second the store's clock may be behind. The upper end is widened by the least such
// shortfall over the log's stamps (a line printed to the ms: under a ms), which holds any lag the
// stamps cannot show, as long as the agent reads lines after a like delay.
import type { Stamp, StampReader, StampSlot } from './requestStamps';

/** Slots a row may have (requestStamps.ts's STAMP: 0 … 7). */
const SLOTS = 8;

/** A store stamp this close to the printed one is taken as that stamp copied (ms). */
const SAME_MS = 0.5;

export class StoreTimedStamps implements StampReader {
  private usable: boolean | undefined;
  /** How far behind the pod's the store's clock may be without a stamp having shown it (ms), once usable is known. */
  private lagMs = 0;

  constructor(private readonly inner: StampReader, private readonly storeTimeMs: (line: number) => number | null) {}

  get size(): number { return this.inner.size; }
  keys(): Iterable<string> { return this.inner.keys(); }
  find(key: string): number { return this.inner.find(key); }
  has(row: number, slot: StampSlot): boolean { return this.inner.has(row, slot); }
  time(row: number, slot: StampSlot): number { return this.inner.time(row, slot); }
  line(row: number, slot: StampSlot): number { return this.inner.line(row, slot); }

  resMs(row: number, slot: StampSlot): number {
    const res = this.inner.resMs(row, slot);
    if (!this.inner.has(row, slot) || !this.storeClockIsThePods()) return res;
    const s = this.storeTimeMs(this.inner.line(row, slot));
    if (s === null) return res;
    return Math.max(1, Math.min(res, s + 1 + this.lagMs - this.inner.time(row, slot)));
  }

  get(row: number, slot: StampSlot): Stamp | null {
    const st = this.inner.get(row, slot);
    return st && { ...st, resMs: this.resMs(row, slot) };
  }

  /**
   * Whether the store's stamps read as the pod's clock: none before the printed stamp of its
   * line, and not (mostly) equal to it. Worked out once, over every stamp of every request.
   */
  private storeClockIsThePods(): boolean {
    if (this.usable !== undefined) return this.usable;
    let checked = 0;
    let same = 0;
    let before = false;
    let shortfall = Infinity;
    for (const key of [...this.inner.keys()]) {
      const row = this.inner.find(key);
      for (let slot = 0 as StampSlot; slot < SLOTS && !before; slot = (slot + 1) as StampSlot) {
        if (!this.inner.has(row, slot)) continue;
        const s = this.storeTimeMs(this.inner.line(row, slot));
        if (s === null) continue;
        const t = this.inner.time(row, slot);
        const res = this.inner.resMs(row, slot);
        checked++;
        shortfall = Math.min(shortfall, res - (s - t));
        if (s < t - SAME_MS) before = true;
        else if (Math.abs(s - t) <= SAME_MS && res > 1) same++;
      }
      if (before) break;
    }
    this.usable = checked > 0 && !before && same <= Math.max(0, Math.floor(checked / 20));
    this.lagMs = this.usable ? Math.max(0, shortfall) : 0;
    return this.usable;
  }
}
