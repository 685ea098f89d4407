// Per request, in one log: the first or last stamp of the few hops the clock rules compare
// (clockRules.ts). Kept for every request of every log, so in typed columns (one row of 24
// doubles per request, no object per request): a million-line log with 60,000 requests costs
// 10 MB here and no allocation per line. The columns grow in pages (pagedColumn.ts): doubling
// one array held the editor's thread for tens of milliseconds at a time on such a log.

import { Float64Column } from '../logs/pagedColumn';

/** The hop classes the clock rules compare: a row's slots. */
export const STAMP = {
  /** The instance has the request: vLLM Received request (V1, V1b), SGLang Receive (S1, S2). First. */
  arrive: 0,
  /** vLLM Added request (V2): handed to the engine core. First. */
  admit: 1,
  /** The last line an instance prints before its response is complete (V1, V1b, V2, V6). Last. */
  beforeResponse: 2,
  /** SGLang ReqTimeStats (S5): the scheduler finished the request. Last. */
  engineFinish: 3,
  /** SGLang Finish (S6): the tokenizer manager has the whole output. Last. */
  apiFinish: 4,
  /** Router: started processing request. First. */
  routerReceived: 5,
  /** Router: the engine's response (headers) came back. Last. */
  routerResponded: 6,
  /**
   * Printed before the instance returns its response headers: vLLM's Received request (V1, V1b),
   * SGLang's Receive OpenAI (S1). Not SGLang's Receive (S2): a streaming response's headers go
   * out before its generator, which prints S2, runs. First.
   */
  beforeHeaders: 7,
} as const;
export type StampSlot = typeof STAMP[keyof typeof STAMP];

const SLOTS = 8;
const WIDTH = 3 * SLOTS;
/** Slots that keep their first stamp (the others keep their last), as bits. */
const FIRST_BITS = (1 << STAMP.arrive) | (1 << STAMP.admit) | (1 << STAMP.routerReceived) | (1 << STAMP.beforeHeaders);

export interface Stamp { time: number; resMs: number; line: number }

/** What the clock rules read: a row per request (join key), found by key. */
export interface StampReader {
  /** Requests in the log. */
  readonly size: number;
  keys(): Iterable<string>;
  /** The row of a request, or -1 when the log does not have it. */
  find(key: string): number;
  has(row: number, slot: StampSlot): boolean;
  time(row: number, slot: StampSlot): number;
  resMs(row: number, slot: StampSlot): number;
  line(row: number, slot: StampSlot): number;
  get(row: number, slot: StampSlot): Stamp | null;
}

export class RequestStamps implements StampReader {
  /** Row r, slot s: time (epoch ms of the log's clock, NaN: none) at r*24+s, resolution at +8, line at +16. */
  private readonly cols = new Float64Column(NaN);
  private rows = 0;
  private readonly ids = new Map<string, number>();
  private lastId = '';
  private lastRow = -1;

  get size(): number { return this.rows; }
  keys(): IterableIterator<string> { return this.ids.keys(); }

  /** A copy to add to (a timeline adds rows to the copy of what an open log's cache holds). */
  clone(): RequestStamps {
    const c = new RequestStamps();
    c.cols.setFrom(this.cols.slice(0, this.rows * WIDTH), 0);
    c.rows = this.rows;
    for (const [id, r] of this.ids) c.ids.set(id, r);
    return c;
  }

  /** The row of an id, made when new. */
  row(id: string): number {
    if (id === this.lastId && this.lastRow >= 0) return this.lastRow;
    let r = this.ids.get(id);
    if (r === undefined) {
      r = this.rows++;
      this.cols.reserve(this.rows * WIDTH);
      this.ids.set(id, r);
    }
    this.lastId = id; this.lastRow = r;
    return r;
  }

  /** The row of an id, or -1. */
  find(id: string): number { return this.ids.get(id) ?? -1; }

  note(row: number, slot: StampSlot, time: number, resMs: number, line: number): void {
    const i = row * WIDTH + slot;
    const c = this.cols;
    const cur = c.get(i);
    if (Number.isNaN(cur) || ((FIRST_BITS >> slot) & 1 ? time < cur : time > cur)) {
      c.put(i, time); c.put(i + SLOTS, resMs); c.put(i + 2 * SLOTS, line);
    }
  }

  has(row: number, slot: StampSlot): boolean { return !Number.isNaN(this.cols.get(row * WIDTH + slot)); }
  time(row: number, slot: StampSlot): number { return this.cols.get(row * WIDTH + slot); }
  resMs(row: number, slot: StampSlot): number { return this.cols.get(row * WIDTH + slot + SLOTS); }
  line(row: number, slot: StampSlot): number { return this.cols.get(row * WIDTH + slot + 2 * SLOTS); }

  get(row: number, slot: StampSlot): Stamp | null {
    return this.has(row, slot) ? { time: this.time(row, slot), resMs: this.resMs(row, slot), line: this.line(row, slot) } : null;
  }
}
