// The output buffer `hoplens annotate --json` writes its lines into: an engine's byte fast path
// (src/engines/<id>/fastPath.ts, through the ByteSink it knows) writes a line's JSON straight into it.
import type { ByteSink } from '../../engines/fastPath';

/**
 * Output bytes; `drain` receives full buffers and must use or copy them before returning (the
 * buffer is reused), or keep the buffer and return another to fill next (of at least the same
 * size). Short pieces are copied in JS loops: a call into
 * the native Buffer methods costs more than copying a few dozen bytes by hand.
 */
export class ByteOut implements ByteSink {
  buf: Buffer;
  pos = 0;
  /** Set by writers of non-ASCII bytes; lets the consumer decode a pure-ASCII buffer cheaply. */
  nonAscii = false;
  /** A view of `buf`, for copies four bytes at a time. */
  private view: DataView;
  constructor(private readonly drain: (bytes: Buffer, ascii: boolean) => Buffer | void, size = 8 << 20) {
    this.buf = Buffer.allocUnsafe(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }
  /** Make room for n more bytes. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) {
      this.buf = Buffer.allocUnsafe(n);
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
    }
  }
  /** A string known to be ASCII (ids, names, constants already checked). */
  ascii(s: string): void {
    if (s.length > 16) { this.pos += this.buf.write(s, this.pos, 'latin1'); return; }
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }
  lit(bytes: Uint8Array): void {
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < bytes.length; i++) b[p++] = bytes[i];
    this.pos = p;
  }
  /** A short literal (a few dozen bytes), four bytes at a time. */
  litView(l: { view: DataView; length: number }): void { this.copyView(l.view, 0, l.length); }
  /** Bytes [start, end) of the buffer `src` views, four at a time (a request id: tens of bytes). */
  copyView(src: DataView, start: number, end: number): void {
    const o = this.view;
    const p = this.pos;
    const n = end - start;
    let i = 0;
    for (; i + 4 <= n; i += 4) o.setInt32(p + i, src.getInt32(start + i, true), true);
    for (; i < n; i++) o.setUint8(p + i, src.getUint8(start + i));
    this.pos = p + n;
  }
  /** Any string, as UTF-8. */
  text(s: string): void {
    const n = this.buf.write(s, this.pos, 'utf8');
    if (n !== s.length) this.nonAscii = true; // only all-ASCII text encodes to one byte per unit
    this.pos += n;
  }
  /** A prepared segment: one native copy (cheaper than a JS loop beyond a dozen bytes). */
  seg(bytes: Uint8Array): void {
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }
  copy(src: Uint8Array, start: number, end: number): void {
    if (end - start > 64) { this.buf.set(src.subarray(start, end), this.pos); this.pos += end - start; return; }
    const b = this.buf;
    let p = this.pos;
    for (let i = start; i < end; i++) b[p++] = src[i];
    this.pos = p;
  }
  int(n: number): void {
    if (n < 0 || n > 0x7fffffff) { this.ascii(String(n)); return; }
    const b = this.buf;
    let digits = 1;
    for (let t = n; t >= 10; t = (t / 10) | 0) digits++;
    let p = this.pos + digits;
    this.pos = p;
    do { b[--p] = 48 + (n % 10); n = (n / 10) | 0; } while (n > 0);
  }
  byte(c: number): void { this.buf[this.pos++] = c; }
  flush(): void {
    if (this.pos === 0) return;
    const next = this.drain(this.buf.subarray(0, this.pos), !this.nonAscii);
    // A drain that kept the buffer (handed to another thread) gives one to fill next.
    if (next) { this.buf = next; this.view = new DataView(next.buffer, next.byteOffset, next.length); }
    this.pos = 0;
    this.nonAscii = false;
  }
}

