// Splitting log bytes into lines on byte 0x0A, for the parser: never holds the whole input;
// over-long lines are parsed from their first bytes only; invalid UTF-8 decodes to U+FFFD;
// binary files are refused. A LogSession (core/session) drives it.
import { promises as fsp } from 'node:fs';
import type { FastLineHandler } from '../../engines/fastPath';

/** Lines longer than this are truncated for parsing (but counted, and their bytes skipped). */
export const LINE_PARSE_CAP = 64 * 1024;

export class LogInputError extends Error {
  constructor(message: string, readonly code: 'missing' | 'binary' | 'not-a-file' | 'unreadable') { super(message); }
}

/** True when the bytes look like a binary file (a NUL byte in the sample). */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.indexOf(0) !== -1;
}

// A line handler from its bytes `[start, end)` (an engine's fast path); false hands the line to the string parser.
export type { FastLineHandler };

/**
 * Incremental byte-level line splitter. Feed chunks; complete lines go to `onLine`
 * (text without `\n`, a trailing `\r` kept), with their 1-based number and byte offset.
 */
export class LineSplitter {
  lineNo: number;
  offset: number;
  private carry: Buffer[] = [];
  private carryLen = 0;
  private carryOverflow = false;
  /** Byte offset of every 2^sampleShift-th line start (line index 0, N, 2N, …), when asked for. */
  readonly samples: number[] | null;
  private readonly sampleShift: number;
  private readonly sampleMask: number;

  /**
   * `fast`, when given, sees each line's bytes first (lines inside one chunk, under the cap);
   * returning true means it handled the line and no string is decoded for it.
   */
  constructor(private readonly onLine: (text: string, lineNo: number, offset: number, truncated: boolean) => void,
              start: { lineNo?: number; offset?: number } = {},
              private readonly fast: FastLineHandler | null = null,
              /** Keep the offset of every line whose 0-based index is a multiple of this power of two. */
              sampleEvery = 0) {
    this.lineNo = start.lineNo ?? 0;
    this.offset = start.offset ?? 0;
    this.samples = sampleEvery > 0 ? [] : null;
    this.sampleShift = sampleEvery > 0 ? Math.round(Math.log2(sampleEvery)) : 0;
    this.sampleMask = sampleEvery > 0 ? (1 << this.sampleShift) - 1 : 0;
  }

  /** The chunk being split and where its next line starts (for ahead()). */
  private curBuf: Buffer | null = null;
  private nextPos = 0;

  /** Up to `maxBytes` of the chunk after the line being handed out (what the reader already holds), decoded. */
  ahead(maxBytes: number): string {
    const b = this.curBuf;
    if (b === null || this.nextPos >= b.length) return '';
    return b.toString('utf8', this.nextPos, Math.min(b.length, this.nextPos + maxBytes));
  }

  private sample(): void {
    if ((this.lineNo & this.sampleMask) === 0) this.samples![this.lineNo >> this.sampleShift] = this.offset;
  }

  push(buf: Buffer): void {
    let pos = 0;
    const len = buf.length;
    this.curBuf = buf;
    while (pos < len) {
      const nl = buf.indexOf(10, pos);
      if (nl === -1) { this.keep(buf, pos, len); this.curBuf = null; return; }
      this.nextPos = nl + 1;
      if (this.carryLen > 0 || this.carryOverflow) {
        this.keep(buf, pos, nl);
        const joined = Buffer.concat(this.carry, Math.min(this.carryLen, LINE_PARSE_CAP));
        const fullLen = this.carryLen;
        const truncated = this.carryOverflow;
        this.carry = []; this.carryLen = 0; this.carryOverflow = false;
        this.emit(joined, 0, joined.length, fullLen, truncated);
      } else {
        const n = nl - pos;
        if (n > LINE_PARSE_CAP) this.emit(buf, pos, pos + LINE_PARSE_CAP, n, true);
        else if (this.fast !== null && this.fast(buf, pos, nl, this.lineNo + 1, this.offset)) {
          if (this.samples !== null) this.sample();
          this.lineNo++; this.offset += n + 1;
        }
        else this.emit(buf, pos, nl, n, false);
      }
      pos = nl + 1;
    }
    this.curBuf = null;
  }

  /** Emit the last line when the input ended without a newline. */
  end(): void {
    if (this.carryLen > 0 || this.carryOverflow) {
      const joined = Buffer.concat(this.carry, Math.min(this.carryLen, LINE_PARSE_CAP));
      const fullLen = this.carryLen;
      const truncated = this.carryOverflow;
      this.carry = []; this.carryLen = 0; this.carryOverflow = false;
      this.emit(joined, 0, joined.length, fullLen - 1, truncated); // no newline byte follows
    }
  }

  /** Bytes waiting for their newline (a partial last line of a growing file). */
  get pendingBytes(): number { return this.carryLen; }

  private keep(buf: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n <= 0) return;
    const room = LINE_PARSE_CAP - Math.min(this.carryLen, LINE_PARSE_CAP);
    if (room > 0) this.carry.push(Buffer.from(buf.subarray(from, from + Math.min(room, n))));
    if (n > room) this.carryOverflow = true;
    this.carryLen += n;
  }

  private emit(buf: Buffer, start: number, end: number, fullLen: number, truncated: boolean): void {
    if (this.samples !== null) this.sample();
    this.lineNo++;
    const text = buf.toString('utf8', start, end);
    this.onLine(text, this.lineNo, this.offset, truncated);
    this.offset += fullLen + 1;
  }
}

/** Check that a path is a readable, non-binary regular file; throws LogInputError otherwise. */
export async function checkLogFile(path: string): Promise<{ size: number; mtimeMs: number }> {
  let st;
  try { st = await fsp.stat(path); } catch { throw new LogInputError(`no such file: ${path}`, 'missing'); }
  if (!st.isFile()) throw new LogInputError(`not a regular file: ${path}`, 'not-a-file');
  let fh;
  try { fh = await fsp.open(path, 'r'); } catch (e) { throw new LogInputError(`cannot read ${path}: ${(e as Error).message}`, 'unreadable'); }
  try {
    const sample = Buffer.alloc(Math.min(64 * 1024, st.size));
    await fh.read(sample, 0, sample.length, 0);
    if (looksBinary(sample)) throw new LogInputError(`${path} looks like a binary file (NUL bytes in its first 64 KB), not a server log`, 'binary');
  } finally { await fh.close(); }
  return { size: st.size, mtimeMs: st.mtimeMs };
}
