// Comparing byte ranges four bytes at a time (DataView reads at any offset are inlined by V8 and
// beat a byte loop several times over on short ranges): an engine's byte fast path compares its
// literals with a line's bytes this way, and so do the core's trace readers (core/bytes.ts).

/** a[aAt, aAt + len) equals b[bAt, bAt + len). Ranges must lie inside both views. */
export function rangesEqual(a: DataView, aAt: number, b: DataView, bAt: number, len: number): boolean {
  if (len < 4) {
    for (let i = 0; i < len; i++) if (a.getUint8(aAt + i) !== b.getUint8(bAt + i)) return false;
    return true;
  }
  // Whole words, then the last four bytes (overlapping the last word read) instead of a byte
  // loop; little-endian, the machine's order, so no byte swapping (equality does not care).
  const last = len - 4;
  for (let i = 0; i < last; i += 4) if (a.getInt32(aAt + i, true) !== b.getInt32(bAt + i, true)) return false;
  return a.getInt32(aAt + last, true) === b.getInt32(bAt + last, true);
}
