// Output seam for the command line, so tests can capture what a command prints.
import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Bytes for standard output, used before returning (the caller reuses the buffer); absent: decoded and given to out(). */
  outBytes?(bytes: Uint8Array): void;
}

export function processIO(): CliIO {
  // A file (or /dev/null) is written in place; a pipe or terminal may hold on to the chunk
  // after write() returns, so it gets a copy.
  let direct = false;
  try { const st = fstatSync(1); direct = st.isFile() || (st.isCharacterDevice() && !isatty(1)); } catch { /* no stdout */ }
  return {
    out: (t) => { process.stdout.write(t); },
    err: (t) => { process.stderr.write(t); },
    outBytes: direct
      ? (b) => { for (let off = 0; off < b.length;) off += writeSync(1, b, off, b.length - off); }
      : (b) => { process.stdout.write(Buffer.from(b)); },
  };
}

/** Collects output in memory (tests). */
export function bufferIO(): CliIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out(t: string) { io.stdout += t; }, err(t: string) { io.stderr += t; } };
  return io;
}

/** Batches output so a long listing is a few large writes, not one per line. */
export function batchedOut(io: CliIO): { line(s: string): void; flush(): void } {
  let buf: string[] = [];
  let size = 0;
  return {
    line(s: string) { buf.push(s, '\n'); size += s.length + 1; if (size > 1 << 16) { io.out(buf.join('')); buf = []; size = 0; } },
    flush() { if (buf.length) io.out(buf.join('')); buf = []; size = 0; },
  };
}
