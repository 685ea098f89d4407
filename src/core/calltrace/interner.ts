// Interns "fn in file" byte ranges to small integer ids without building a string per line:
// a hash of the bytes finds the candidate id, a byte comparison confirms it, and only a new
// key is decoded to text (once).

import { rangesEqual, sameBytes, viewOf } from '../bytes';

// Small to start: a folder of thousands of short trace files holds one interner per file.
const INITIAL_POOL = 1 << 12;

export interface CodeNames {
  fns: string[];
  files: string[];
}

/**
 * quickMatch on raw positions (the indexer's loop holds them in locals): the key of `len` bytes
 * at `keyStart` in the pool, whose function name is `fnLen` bytes, is the one at view[at, at + len).
 */
export function keyBytesMatch(view: DataView, at: number, len: number, pool: DataView, keyStart: number, fnLen: number): boolean {
  const head = Math.min(len, fnLen + 4);
  if (!sameBytes(view, at, pool, keyStart, head)) return false;
  const tail = len - 24 > head ? len - 24 : head;
  return sameBytes(view, at + tail, pool, keyStart + tail, len - tail);
}

export class CodeInterner {
  /** Decoded function name and file of every id. */
  readonly fns: string[] = [];
  readonly files: string[] = [];
  private readonly byHash = new Map<number, number>();
  /** Keys whose hash collided with another key (rare): exact text → id. */
  private readonly collided = new Map<string, number>();
  private pool = Buffer.allocUnsafe(INITIAL_POOL);
  /** The key bytes of every id, and where each starts, its length and its function name's length: read in place by the indexer's inlined checks. */
  poolView = viewOf(this.pool);
  /** View of the last line buffer seen (the reader reuses one buffer per file). */
  private lastBuf: Buffer | null = null;
  private lastView: DataView | null = null;
  private poolUsed = 0;
  private keyStart: number[] = [];
  private keyLen: number[] = [];
  /** Bytes of the function name at the start of each key. */
  private fnLen: number[] = [];
  get keyStarts(): readonly number[] { return this.keyStart; }
  get keyLengths(): readonly number[] { return this.keyLen; }
  get fnLengths(): readonly number[] { return this.fnLen; }

  get size(): number { return this.fns.length; }

  /** Id of the key buf[start, end), where buf[start, fnEnd) is the function and buf[fnEnd + 4, end) the file. */
  intern(buf: Buffer, start: number, fnEnd: number, end: number): number {
    // Hash the length, the start (the function name) and the end (the file's tail): enough to
    // tell keys apart in practice; the byte comparison below makes it exact.
    let h = 0x811c9dc5 ^ (end - start);
    const headEnd = Math.min(end, start + 24);
    for (let i = start; i < headEnd; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    for (let i = Math.max(headEnd, end - 24); i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    const found = this.byHash.get(h);
    if (found !== undefined) {
      if (this.sameMiddle(found, buf, start, end, headEnd)) return found;
      const text = buf.toString('latin1', start, end);
      const again = this.collided.get(text);
      if (again !== undefined) return again;
      const id = this.add(buf, start, fnEnd, end);
      this.collided.set(text, id);
      return id;
    }
    const id = this.add(buf, start, fnEnd, end);
    this.byHash.set(h, id);
    return id;
  }

  /** Adds an id for names that came from elsewhere (a restored index). */
  static fromNames(names: CodeNames): CodeInterner {
    const interner = new CodeInterner();
    for (let i = 0; i < names.fns.length; i++) {
      const key = Buffer.from(`${names.fns[i]} in ${names.files[i]}`, 'utf8');
      interner.intern(key, 0, Buffer.byteLength(names.fns[i], 'utf8'), key.length);
    }
    return interner;
  }

  names(): CodeNames {
    return { fns: this.fns.slice(), files: this.files.slice() };
  }

  /** `intern`, but first tries the id the caller expects (the open call a return closes, the parent of a call). */
  internExpecting(expected: number, buf: Buffer, start: number, fnEnd: number, end: number): number {
    if (expected >= 0 && this.sameKey(expected, buf, start, end)) return expected;
    return this.intern(buf, start, fnEnd, end);
  }

  /** Length in bytes of id's key. */
  keyLength(id: number): number { return this.keyLen[id]; }

  /**
   * Cheap check for a key the call stack predicts (the call a return closes, the caller of a
   * call, the callee a repeating loop calls next): same length, the same function name (all of
   * it, followed by " in ") and the same last 24 bytes of the file. Files of equal length that
   * differ only before their last 24 bytes, holding functions of the same name, would be
   * confused; that is the price of not comparing ~100 bytes per line.
   */
  quickMatch(id: number, buf: Buffer, start: number, end: number): boolean {
    const len = end - start;
    if (this.keyLen[id] !== len || end > buf.length) return false;
    return keyBytesMatch(this.viewFor(buf), start, len, this.poolView, this.keyStart[id], this.fnLen[id]);
  }

  private viewFor(buf: Buffer): DataView {
    if (buf !== this.lastBuf) { this.lastBuf = buf; this.lastView = viewOf(buf); }
    return this.lastView!;
  }

  /**
   * After a hash hit: the same length and the same bytes outside the hashed head and tail.
   * (Keys that differ only in the hashed 48 bytes would also need a 32-bit hash collision.)
   */
  private sameMiddle(id: number, buf: Buffer, start: number, end: number, headEnd: number): boolean {
    const len = end - start;
    if (this.keyLen[id] !== len) return false;
    const tailStart = end - 24 > headEnd ? end - 24 : headEnd;
    if (tailStart <= headEnd) return true;
    const at = this.keyStart[id] + (headEnd - start);
    return rangesEqual(this.poolView, at, this.viewFor(buf), headEnd, tailStart - headEnd);
  }

  /** True when id's key equals buf[start, end). */
  sameKey(id: number, buf: Buffer, start: number, end: number): boolean {
    const len = end - start;
    if (this.keyLen[id] !== len) return false;
    const at = this.keyStart[id];
    return buf.compare(this.pool, at, at + len, start, end) === 0;
  }

  private add(buf: Buffer, start: number, fnEnd: number, end: number): number {
    const len = end - start;
    if (this.poolUsed + len > this.pool.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.pool.length * 2, this.poolUsed + len));
      this.pool.copy(bigger, 0, 0, this.poolUsed);
      this.pool = bigger;
      this.poolView = viewOf(bigger);
    }
    buf.copy(this.pool, this.poolUsed, start, end);
    const id = this.fns.length;
    this.keyStart.push(this.poolUsed);
    this.keyLen.push(len);
    this.fnLen.push(Math.min(fnEnd, end) - start);
    this.poolUsed += len;
    this.fns.push(buf.toString('utf8', start, fnEnd));
    this.files.push(buf.toString('utf8', Math.min(fnEnd + 4, end), end));
    return id;
  }
}
