// A session fed from bytes: a whole stream (`hoplens annotate`: a file, a pipe, standard input),
// or a file on disk followed as it grows (the editor's streamed view of a large log).
import { createReadStream, promises as fsp } from 'node:fs';
import type { Engine, LogRecord } from '../logs/model';
import { checkLogFile, looksBinary } from '../logs/scanner';
import { LogSession, type LogSessionOptions } from './logSession';
import { Turns, type Pace } from './pace';

const CHUNK = 1024 * 1024;

/**
 * Bytes parsed between two looks at the clock when a stream is read at a pace: about 2 ms of a
 * router's lines (the string parser's slowest, ~30 ms a MB), so a turn overruns its budget little.
 */
const PACED_SLICE = 64 * 1024;

export interface ScanResult {
  lines: number;
  bytes: number;
  engine: Engine | null;
  /** Bytes after the last newline that were parsed as a final line (0 if the input ended in \n). */
  partialTail: number;
}

/**
 * Read a stream of log bytes through a session to its end (the session learns the engine and
 * its layouts from the first chunk, never waiting for more: a pipe may be live). With a `pace`,
 * each chunk is parsed in slices and the thread's event loop gets a turn whenever the pace's
 * budget is spent (the editor: a megabyte of a router's lines is 30–200 ms of parsing).
 */
export async function readLogStream(session: LogSession, chunks: AsyncIterable<Buffer>, signal?: AbortSignal, pace?: Pace): Promise<ScanResult> {
  const lines0 = session.linesParsed;
  let bytes = 0;
  const turns = pace ? new Turns(pace) : null;
  for await (const chunk of chunks) {
    if (signal?.aborted) break;
    if (turns === null) { bytes += chunk.length; session.appendBytes(chunk, false); continue; }
    // The session learns the engine and its layouts from its first bytes (up to 256 K): from the
    // whole chunk, as an unpaced read's, though it parses them a slice at a time.
    session.primeFrom(chunk);
    for (let at = 0; at < chunk.length && !signal?.aborted;) {
      const slice = chunk.subarray(at, at + PACED_SLICE);
      session.appendBytes(slice, false);
      at += slice.length;
      bytes += slice.length;
      await turns.breathe();
    }
  }
  const partialTail = session.pendingBytes;
  session.end();
  return { lines: session.linesParsed - lines0, bytes, engine: session.engine, partialTail };
}

/** Stream a log file through a new session; `onRecord` sees every line in order. */
export async function scanLogFile(path: string, onRecord: (rec: LogRecord) => void, opts: Omit<LogSessionOptions, 'onRecord'> = {}): Promise<ScanResult> {
  const info = await checkLogFile(path);
  const session = new LogSession({ keepRecords: false, ...opts, referenceTime: info.mtimeMs, onRecord });
  return readLogStream(session, createReadStream(path, { highWaterMark: CHUNK }));
}

/** A line longer than this is cut in a slice (a slice is for reading around a hop, not for megabyte lines). */
const SLICE_LINE_CHARS = 4000;

/**
 * Up to `count` lines of a file from 1-based line `first`, reading from a place whose line number
 * is known (`from`: a sampled offset the session kept, else the top) — never the whole file.
 */
export async function readLineSlice(path: string, first: number, count: number, from: { offset: number; line: number } = { offset: 0,
  line: 1 }): Promise<string[]> {
  const fh = await fsp.open(path, 'r');
  try {
    let pos = from.offset;
    let lineNo = from.line;
    const lines: string[] = [];
    let carry = '';
    const buf = Buffer.alloc(CHUNK);
    while (lines.length < count) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) { if (carry && lineNo >= first) lines.push(carry); break; }
      pos += bytesRead;
      const parts = (carry + buf.subarray(0, bytesRead).toString('utf8')).split('\n');
      carry = parts.pop()!;
      for (const p of parts) {
        if (lineNo >= first) lines.push(p.length > SLICE_LINE_CHARS ? p.slice(0, SLICE_LINE_CHARS) + ' …[line cut]' : p);
        lineNo++;
        if (lines.length >= count) break;
      }
    }
    return lines;
  } finally { await fh.close(); }
}

/** A file's size in bytes now; 0 when it cannot be read. */
export function fileSize(path: string): Promise<number> {
  return fsp.stat(path).then((st) => st.size, () => 0);
}

/** Bytes read from disk at once when the caller parses in smaller slices (see poll). */
const READ_AHEAD_BYTES = 4 * 1024 * 1024;

/**
 * Follow a log file on disk: each poll() feeds the session the bytes appended since the last
 * one. Truncation (size shrank) and rotation (a new inode at the path) start the session over.
 */
export class LogFileFeed {
  private position = 0;
  private ino: number | null = null;
  /** Bytes read from the file but not yet parsed (from `aheadPos`), at file offset `position`. */
  private ahead: Buffer | null = null;
  private aheadPos = 0;

  constructor(readonly path: string, readonly session: LogSession) {}

  /**
   * Parses at most `maxBytes` more; `bytes` is 0 when nothing was appended. A caller that parses a
   * big log in small slices (to keep its thread free) gets them from one larger read: a file-system
   * round trip (stat, open, read, close) per 256 KB slice cost about a quarter of the time of
   * reading a 200 MB log.
   */
  async poll(maxBytes = 64 * 1024 * 1024): Promise<{ reset: boolean; bytes: number; added: LogRecord[] }> {
    if (this.ahead !== null) {
      const chunk = this.ahead.subarray(this.aheadPos, this.aheadPos + maxBytes);
      this.aheadPos += chunk.length;
      if (this.aheadPos >= this.ahead.length) this.ahead = null;
      this.position += chunk.length;
      return { reset: false, bytes: chunk.length, added: this.session.appendBytes(chunk) };
    }
    const st = await fsp.stat(this.path);
    let reset = false;
    if ((this.ino !== null && st.ino !== this.ino) || st.size < this.position) {
      this.session.reset(); this.position = 0; reset = true;
    }
    this.ino = st.ino;
    if (st.size === this.position) return { reset, bytes: 0, added: [] };
    const fh = await fsp.open(this.path, 'r');
    try {
      const n = Math.min(st.size - this.position, Math.max(maxBytes, READ_AHEAD_BYTES));
      const buf = Buffer.alloc(n);
      const { bytesRead } = await fh.read(buf, 0, n, this.position);
      if (this.position === 0 && looksBinary(buf.subarray(0, Math.min(bytesRead, 64 * 1024)))) {
        throw new Error(`${this.path} looks like a binary file (NUL bytes in its first 64 KB), not a server log`);
      }
      const chunk = buf.subarray(0, Math.min(bytesRead, maxBytes));
      if (bytesRead > chunk.length) { this.ahead = buf.subarray(0, bytesRead); this.aheadPos = chunk.length; }
      this.position += chunk.length;
      return { reset, bytes: chunk.length, added: this.session.appendBytes(chunk) };
    } finally { await fh.close(); }
  }
}
