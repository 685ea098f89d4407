// Output seam for the command line, so tests can capture what a command prints.
// The process implementation is a Unix citizen: it waits for a slow reader instead of
// buffering without bound, ends quietly when the reader went away (`| head -1`), and turns a
// write failure (a full disk) into one line on stderr.
import { existsSync, fstatSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { isatty } from 'node:tty';
import { Worker } from 'node:worker_threads';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Bytes for standard output, used before returning (the caller reuses the buffer); absent: decoded and given to out(). */
  outBytes?(bytes: Uint8Array): void;
  /**
   * The same, but the output may keep the bytes' buffer (the caller must not touch it again): it
   * returns the buffer to fill next (at least as large), or null when it used the bytes in place.
   * Spares a copy of every buffer into a pipe's writer thread. Absent: use outBytes.
   */
  outBytesTake?(bytes: Uint8Array): Buffer | null;
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
  let pipe = false;
  try {
    const st = fstatSync(1);
    direct = st.isFile() || (st.isCharacterDevice() && !isatty(1));
    pipe = st.isFIFO();
  } catch { /* no stdout */ }
  const stdout = process.stdout;
  // Without these listeners an EPIPE or ENOSPC is an unhandled 'error' event: a stack trace and exit 1.
  stdout.on('error', onOutputError);
  process.stderr.on('error', () => { /* nowhere left to say it */ });
  let draining: Promise<void> | null = null;
  // Bulk output into a pipe goes through a writer thread, from the first buffer on, once what
  // was written before it has left (so the order holds); everything after follows the same way.
  let writer: PipeWriter | null = null;
  let triedWriter = !pipe || availableParallelism() < 2;
  return {
    out: (t) => { if (writer) writer.write(Buffer.from(t)); else stdout.write(t); },
    err: (t) => { process.stderr.write(t); },
    outBytes: direct
      ? (b) => {
        try { for (let off = 0; off < b.length;) off += writeSync(1, b, off, b.length - off); } catch (e) { onOutputError(e as NodeJS.ErrnoException); }
      }
      : (b) => {
        if (!triedWriter && stdout.writableLength === 0) { triedWriter = true; writer = PipeWriter.start(onOutputError); }
        if (writer) writer.write(b); else stdout.write(Buffer.from(b));
      },
    outBytesTake: direct ? undefined
      : (b) => {
        if (!triedWriter && stdout.writableLength === 0) { triedWriter = true; writer = PipeWriter.start(onOutputError); }
        if (writer) return writer.take(b);
        stdout.write(Buffer.from(b));
        return null;
      },
    backpressure: () => {
      if (writer) return writer.room();
      if (!stdout.writableNeedDrain) return null;
      draining ??= new Promise<void>((resolve) => stdout.once('drain', () => { draining = null; resolve(); }));
      return draining;
    },
  };
}

/** Buffers handed to the writer thread at once; the producer waits while this many are out. */
const WRITER_IN_FLIGHT = 2;

/** Standard output written by a thread of its own (src/workers/stdoutWriter.ts); buffers travel, never shared. */
class PipeWriter {
  private readonly free: Uint8Array[] = [];
  private inFlight = 0;
  private waiting: (() => void)[] = [];

  /** A writer, or null when its script is not beside this bundle (stdout is then written here). */
  static start(fail: (e: NodeJS.ErrnoException) => never): PipeWriter | null {
    const script = join(__dirname, 'stdoutWriter.js');
    if (!existsSync(script)) return null;
    try { return new PipeWriter(new Worker(script), fail); } catch { return null; }
  }

  private constructor(private readonly worker: Worker, fail: (e: NodeJS.ErrnoException) => never) {
    worker.on('message', (m: { bytes?: Uint8Array; error?: { code?: string; message: string } }) => {
      if (m.error) fail(Object.assign(new Error(m.error.message), { code: m.error.code }));
      if (this.free.length < WRITER_IN_FLIGHT) this.free.push(new Uint8Array(m.bytes!.buffer));
      if (--this.inFlight === 0) worker.unref();
      const ready = this.waiting;
      this.waiting = [];
      for (const go of ready) go();
    });
    worker.on('error', (e) => fail(e as NodeJS.ErrnoException));
    worker.unref();
  }

  /** Copies the bytes (the caller reuses its buffer) and hands them to the thread. */
  write(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    let buf = this.free.pop();
    if (!buf || buf.length < bytes.length) buf = new Uint8Array(Math.max(bytes.length, 1 << 20));
    buf.set(bytes);
    if (this.inFlight++ === 0) this.worker.ref(); // the process stays until the last byte is written
    this.worker.postMessage({ bytes: buf.subarray(0, bytes.length) }, [buf.buffer as ArrayBuffer]);
  }

  /**
   * Hands the bytes' own buffer to the thread (no copy) when they start it and fill no other
   * bytes' buffer, and returns one to fill next: a buffer back from the thread, or a new one.
   * Other bytes are copied, as write() does (null: keep filling your buffer).
   */
  take(bytes: Uint8Array): Buffer | null {
    const whole = bytes.buffer;
    if (bytes.byteOffset !== 0 || whole instanceof SharedArrayBuffer || whole.byteLength < (1 << 20)) { this.write(bytes); return null; }
    const size = whole.byteLength;
    if (this.inFlight++ === 0) this.worker.ref();
    this.worker.postMessage({ bytes }, [whole]);
    let next = this.free.pop();
    while (next && next.byteLength < size) next = this.free.pop();
    return next ? Buffer.from(next.buffer, next.byteOffset, next.byteLength) : Buffer.allocUnsafe(size);
  }

  room(): Promise<void> | null {
    if (this.inFlight < WRITER_IN_FLIGHT) return null;
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }
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
