// A column of numbers that grows without ever copying what it holds: pages of a fixed size, the
// first one small and doubled until it is full size. A typed array grown by doubling copies all of
// itself at once; on a million-entry request index that one copy (seven columns, ~30 MB to zero
// and fill) held the editor's thread 15–50 ms in a single task.
type Typed = Int32Array | Float64Array | Uint16Array | Uint8Array;

const SHIFT = 15;
/** Entries per page (about a megabyte over a request index's seven columns). */
export const PAGE = 1 << SHIFT;
const MASK = PAGE - 1;
const FIRST = 256;

/**
 * The bulk work of a column of one element type (reserve, slice, copy, fill). Reading and
 * writing one entry are in a subclass per type: with one get() for the four array types,
 * `hoplens annotate --json` on 1M lines took 1.57 s of CPU against 1.49 s before paging (medians
 * of 7 alternating runs; the request index's reads 63 ms against 17 ms in a sampled run), with
 * one per type 1.49 s, as before.
 */
export abstract class PagedColumn<T extends Typed> {
  protected readonly pages: T[];
  /** Entries the pages hold room for. */
  protected room: number;

  constructor(private readonly make: (n: number) => T) {
    this.pages = [make(FIRST)];
    this.room = FIRST;
  }

  /** Entries there is room for without another page. */
  get capacity(): number { return this.room; }

  abstract get(i: number): number;
  abstract set(i: number, v: number): void;
  /** set() for an entry below capacity (the caller reserved it). */
  abstract put(i: number, v: number): void;

  /** Room for at least `n` entries. */
  reserve(n: number): void {
    if (n <= this.room) return;
    if (this.room < PAGE) {
      // The first page doubles (at most PAGE entries to copy), then pages are added whole.
      let size = this.room * 2;
      while (size < n && size < PAGE) size *= 2;
      const first = this.make(size);
      first.set(this.pages[0]);
      this.pages[0] = first;
      this.room = size;
    }
    while (this.room < n) { this.pages.push(this.make(PAGE)); this.room += PAGE; }
  }

  /** Entries `a` to `b` (exclusive) in one array. */
  slice(a: number, b: number): T {
    const out = this.make(Math.max(0, b - a));
    for (let at = a; at < b;) {
      const p = at >>> SHIFT, off = at & MASK;
      const n = Math.min(b - at, PAGE - off);
      out.set(this.pages[p].subarray(off, off + n), at - a);
      at += n;
    }
    return out;
  }

  /** `src` written from entry `at` on. */
  setFrom(src: ArrayLike<number>, at: number): void {
    this.reserve(at + src.length);
    for (let k = 0; k < src.length;) {
      const i = at + k, p = i >>> SHIFT, off = i & MASK;
      const n = Math.min(src.length - k, PAGE - off);
      const page = this.pages[p];
      if (ArrayBuffer.isView(src)) page.set((src as unknown as Typed).subarray(k, k + n), off);
      else for (let j = 0; j < n; j++) page[off + j] = src[k + j];
      k += n;
    }
  }

  /** Entries `a` to `b` (exclusive) set to `v`. */
  fill(v: number, a: number, b: number): void {
    this.reserve(b);
    for (let at = a; at < b;) {
      const p = at >>> SHIFT, off = at & MASK;
      const n = Math.min(b - at, PAGE - off);
      this.pages[p].fill(v, off, off + n);
      at += n;
    }
  }
}

export class Int32Column extends PagedColumn<Int32Array> {
  constructor() { super((n) => new Int32Array(n)); }
  get(i: number): number { return this.pages[i >>> SHIFT][i & MASK]; }
  put(i: number, v: number): void { this.pages[i >>> SHIFT][i & MASK] = v; }
  set(i: number, v: number): void { if (i >= this.room) this.reserve(i + 1); this.pages[i >>> SHIFT][i & MASK] = v; }
}

export class Float64Column extends PagedColumn<Float64Array> {
  /** `empty`: what an entry holds before it is set. */
  constructor(empty = 0) { super(empty === 0 ? (n) => new Float64Array(n) : (n) => new Float64Array(n).fill(empty)); }
  get(i: number): number { return this.pages[i >>> SHIFT][i & MASK]; }
  put(i: number, v: number): void { this.pages[i >>> SHIFT][i & MASK] = v; }
  set(i: number, v: number): void { if (i >= this.room) this.reserve(i + 1); this.pages[i >>> SHIFT][i & MASK] = v; }
}

export class Uint16Column extends PagedColumn<Uint16Array> {
  constructor() { super((n) => new Uint16Array(n)); }
  get(i: number): number { return this.pages[i >>> SHIFT][i & MASK]; }
  put(i: number, v: number): void { this.pages[i >>> SHIFT][i & MASK] = v; }
  set(i: number, v: number): void { if (i >= this.room) this.reserve(i + 1); this.pages[i >>> SHIFT][i & MASK] = v; }
}

export class Uint8Column extends PagedColumn<Uint8Array> {
  constructor() { super((n) => new Uint8Array(n)); }
  get(i: number): number { return this.pages[i >>> SHIFT][i & MASK]; }
  put(i: number, v: number): void { this.pages[i >>> SHIFT][i & MASK] = v; }
  set(i: number, v: number): void { if (i >= this.room) this.reserve(i + 1); this.pages[i >>> SHIFT][i & MASK] = v; }
}
