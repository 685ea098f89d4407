// Comparing byte ranges four bytes at a time: DataView reads at any offset are inlined by V8
// and beat a byte loop several times over on the short ranges the log and trace readers check per line.

// rangesEqual is in the bottom layer (src/engines/bytes.ts), where an engine's byte fast path compares its literals.
import { rangesEqual } from '../engines/bytes';

export { rangesEqual };

const views = new WeakMap<Buffer, DataView>();

/** A DataView over exactly the bytes of `buf` (cached per buffer). */
export function viewOf(buf: Buffer): DataView {
  let v = views.get(buf);
  if (!v) { v = new DataView(buf.buffer, buf.byteOffset, buf.length); views.set(buf, v); }
  return v;
}

/**
 * rangesEqual, eight bytes per read: as doubles, which are equal exactly when their bytes are,
 * except NaN (never equal to itself: a false "differ", never a false "same") and zero (+0 and -0
 * are equal: those are compared again as integers). Worth it on the indexer's ~40-byte names.
 */
export function sameBytes(a: DataView, aAt: number, b: DataView, bAt: number, len: number): boolean {
  if (len < 8) return rangesEqual(a, aAt, b, bAt, len);
  const last = len - 8;
  for (let i = 0; ; i += 8) {
    if (i > last) i = last;
    const x = a.getFloat64(aAt + i, true);
    if (x !== b.getFloat64(bAt + i, true)) return false;
    if (x === 0 && (a.getInt32(aAt + i + 4, true) !== b.getInt32(bAt + i + 4, true))) return false;
    if (i === last) return true;
  }
}
