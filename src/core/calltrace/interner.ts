// Interns "fn in file" byte ranges to small integer ids without building a string per line:
// a hash of the bytes finds the candidate id, a byte comparison confirms it, and only a new
// key is decoded to text (once).

const INITIAL_POOL = 1 << 16;

export interface CodeNames {
  fns: string[];
  files: string[];
}

export class CodeInterner {
  /** Decoded function name and file of every id. */
  readonly fns: string[] = [];
  readonly files: string[] = [];
  private readonly byHash = new Map<number, number>();
  /** Keys whose hash collided with another key (rare): exact text → id. */
  private readonly collided = new Map<string, number>();
  private pool = Buffer.allocUnsafe(INITIAL_POOL);
  private poolUsed = 0;
  private keyStart: number[] = [];
  private keyLen: number[] = [];

  get size(): number { return this.fns.length; }

  /** Id of the key buf[start, end), where buf[start, fnEnd) is the function and buf[fnEnd + 4, end) the file. */
  intern(buf: Buffer, start: number, fnEnd: number, end: number): number {
    let h = 0x811c9dc5 ^ (end - start);
    for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i], 0x01000193);
    const found = this.byHash.get(h);
    if (found !== undefined) {
      if (this.sameKey(found, buf, start, end)) return found;
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

  private sameKey(id: number, buf: Buffer, start: number, end: number): boolean {
    const len = end - start;
    if (this.keyLen[id] !== len) return false;
    const at = this.keyStart[id];
    const pool = this.pool;
    for (let i = 0; i < len; i++) if (pool[at + i] !== buf[start + i]) return false;
    return true;
  }

  private add(buf: Buffer, start: number, fnEnd: number, end: number): number {
    const len = end - start;
    if (this.poolUsed + len > this.pool.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.pool.length * 2, this.poolUsed + len));
      this.pool.copy(bigger, 0, 0, this.poolUsed);
      this.pool = bigger;
    }
    buf.copy(this.pool, this.poolUsed, start, end);
    const id = this.fns.length;
    this.keyStart.push(this.poolUsed);
    this.keyLen.push(len);
    this.poolUsed += len;
    this.fns.push(buf.toString('utf8', start, fnEnd));
    this.files.push(buf.toString('utf8', Math.min(fnEnd + 4, end), end));
    return id;
  }
}
