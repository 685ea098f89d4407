// Output seam for the command line, so tests can capture what a command prints.
// The process implementation is a Unix citizen: it waits for a slow reader instead of
// buffering without bound, ends quietly when the reader went away (`| head -1`), and turns a
// write failure (a full disk) into one line on stderr.
import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Bytes for standard output, used before returning (the caller reuses the buffer); absent: decoded and given to out(). */
  outBytes?(bytes: Uint8Array): void;
  /**
   * A promise while standard output's reader is behind (wait for it before producing more),
   * null when it can take more now. Absent: output never backs up (a buffer in memory).
   */
  backpressure?(): Promise<void> | null;
}

/** Exit code when the output cannot be written (a full disk, an I/O error). */
export const EXIT_OUTPUT_FAILED = 2;

/** One line for a failed write: what happened, in words, with the errno code for scripts. */
export function outputFailureMessage(e: NodeJS.ErrnoException): string {
  const what = e.code === 'ENOSPC' ? 'no space left on the device'
    : e.code === 'EDQUOT' ? 'disk quota exceeded'
      : e.code === 'EIO' ? 'an I/O error'
        : e.code === 'EFBIG' ? 'the file is too large for its file system'
          : e.message;
  return `hoplens: cannot write the output: ${what}${e.code ? ` (${e.code})` : ''}\n`;
}

/** The reader closed the pipe: nothing more is wanted, so the command ends with success. */
function isClosedPipe(e: NodeJS.ErrnoException): boolean {
  return e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED';
}

/** Ends the process for a failed write to standard output (never returns). */
function onOutputError(e: NodeJS.ErrnoException): never {
  if (isClosedPipe(e)) process.exit(0);
  try { writeSync(2, outputFailureMessage(e)); } catch { /* stderr is gone too */ }
  process.exit(EXIT_OUTPUT_FAILED);
}

export function processIO(): CliIO {
  // A file (or /dev/null) is written in place; a pipe or terminal may hold on to the chunk
  // after write() returns, so it gets a copy.
  let direct = false;
  try { const st = fstatSync(1); direct = st.isFile() || (st.isCharacterDevice() && !isatty(1)); } catch { /* no stdout */ }
  const stdout = process.stdout;
  // Without these listeners an EPIPE or ENOSPC is an unhandled 'error' event: a stack trace and exit 1.
  stdout.on('error', onOutputError);
  process.stderr.on('error', () => { /* nowhere left to say it */ });
  let draining: Promise<void> | null = null;
  return {
    out: (t) => { stdout.write(t); },
    err: (t) => { process.stderr.write(t); },
    outBytes: direct
      ? (b) => {
        try { for (let off = 0; off < b.length;) off += writeSync(1, b, off, b.length - off); } catch (e) { onOutputError(e as NodeJS.ErrnoException); }
      }
      : (b) => { stdout.write(Buffer.from(b)); },
    backpressure: () => {
      if (!stdout.writableNeedDrain) return null;
      draining ??= new Promise<void>((resolve) => stdout.once('drain', () => { draining = null; resolve(); }));
      return draining;
    },
  };
}

/** Collects output in memory (tests). */
export function bufferIO(): CliIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out(t: string) { io.stdout += t; }, err(t: string) { io.stderr += t; } };
  return io;
}

/** Waits while standard output's reader is behind (see CliIO.backpressure). */
export async function outputRoom(io: CliIO): Promise<void> {
  const wait = io.backpressure?.();
  if (wait) await wait;
}

/** Batches output so a long listing is a few large writes, not one per line. */
export function batchedOut(io: CliIO): { line(s: string): void; flush(): void; room(): Promise<void> } {
  let buf: string[] = [];
  let size = 0;
  return {
    line(s: string) { buf.push(s, '\n'); size += s.length + 1; if (size > 1 << 16) { io.out(buf.join('')); buf = []; size = 0; } },
    flush() { if (buf.length) io.out(buf.join('')); buf = []; size = 0; },
    /** Resolves when the reader has room again; call it between records of a long listing. */
    room: () => outputRoom(io),
  };
}
