// Streams a trace file into a ThreadTrace in large chunks, from where the last read stopped
// (so a file still being written is followed by calling it again). Memory stays bounded:
// one chunk buffer, whatever the file size.
import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { ThreadTrace } from './threadTrace';

export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

export interface ReadTraceOptions {
  chunkBytes?: number;
  /** Called after each chunk with the bytes of this file consumed so far. */
  onProgress?: (bytesDone: number) => void;
  signal?: AbortSignal;
  /** Read with blocking calls (only in a worker thread). */
  blocking?: boolean;
}

export type ReadOutcome = 'ok' | 'shrunk';

export class CancelledError extends Error {
  constructor() { super('Indexing was cancelled.'); this.name = 'CancelledError'; }
}

/**
 * Reads `path` from `trace.consumed` to its current end. Returns 'shrunk' (and reads nothing)
 * when the file is now shorter than what was read: it was truncated or replaced, index it anew.
 */
export async function readTraceFile(path: string, trace: ThreadTrace, options: ReadTraceOptions = {}): Promise<ReadOutcome> {
  const chunkBytes = Math.max(4096, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size < trace.consumed) return 'shrunk';
    const buf = Buffer.allocUnsafe(chunkBytes);
    let filePos = trace.consumed;
    let carry = 0; // bytes of an incomplete line kept at the start of buf
    let skippingLongLine = false;
    while (filePos < size) {
      if (options.signal?.aborted) throw new CancelledError();
      const want = Math.min(buf.length - carry, size - filePos);
      // In a worker thread a blocking read is cheapest; on the main thread it must not block.
      const bytesRead = options.blocking ? readSync(fh.fd, buf, carry, want, filePos) : (await fh.read(buf, carry, want, filePos)).bytesRead;
      if (bytesRead === 0) break;
      filePos += bytesRead;
      const avail = carry + bytesRead;
      let begin = 0;
      if (skippingLongLine) {
        // Drop the rest of an over-long garbled line up to its newline.
        const nl = buf.indexOf(10, 0);
        if (nl < 0 || nl >= avail) { trace.consumed += avail; carry = 0; continue; }
        trace.consumed += nl + 1;
        begin = nl + 1;
        skippingLongLine = false;
      }
      const chunkStartOffset = filePos - avail;
      const stop = trace.feed(buf, begin, avail, chunkStartOffset + begin);
      if (stop === begin && avail - begin === buf.length) {
        // No newline in a whole buffer: not a trace line. Count it and skip to the next newline.
        trace.skipGarbled(chunkStartOffset, buf.toString('utf8', 0, 200), avail);
        skippingLongLine = true;
        carry = 0;
      } else {
        carry = avail - stop;
        if (carry > 0) buf.copyWithin(0, stop, avail);
      }
      options.onProgress?.(trace.consumed);
    }
    // A last line without its newline is a line still being written (or cut off): keep it unread.
    trace.setPartialTail(carry > 0 || skippingLongLine);
    return 'ok';
  } finally {
    await fh.close();
  }
}
