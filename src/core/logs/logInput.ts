// Where a server log's bytes come from on the command line: a file, standard input (`-`), a
// pipe or FIFO (`<(zcat …)`, `kubectl logs … |`), or a gzip file — all read as one stream, in
// order, never whole in memory. The first bytes are looked at before parsing: gzip is
// decompressed here; zstd, xz, bzip2, UTF-16 and a leading run of NUL bytes are refused with
// their cause and the command that turns them into a plain log.
import { createReadStream, promises as fsp } from 'node:fs';
import type { ReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { LogInputError, looksBinary } from './scanner';

/** How much of the start is looked at (decompressed) before parsing. */
const HEAD_BYTES = 64 * 1024;
const READ_CHUNK = 1024 * 1024;

export interface LogInput {
  /** The name to print: the path, or "standard input". */
  readonly name: string;
  /** Year-less stamps are placed near this time: the file's mtime, or now for a stream. */
  readonly referenceTime: number;
  /** The first bytes (decompressed), for detecting the engine. */
  readonly head: Buffer;
  /** 'gzip' when the bytes were decompressed on the way. */
  readonly compression: 'gzip' | null;
  /** All bytes from the start (head included), once. */
  chunks(): AsyncIterable<Buffer>;
  /** Stops reading (the rest is not wanted). */
  close(): void;
}

type Opened = { stream: Readable; name: string; referenceTime: number; shown: string };

/** A shell word for the path in a suggested command. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

async function openRaw(path: string): Promise<Opened> {
  if (path === '-') {
    const stream = createReadStream('', { fd: 0, highWaterMark: READ_CHUNK, autoClose: false });
    return { stream, name: 'standard input', referenceTime: Date.now(), shown: '-' };
  }
  let st;
  try { st = await fsp.stat(path); } catch { throw new LogInputError(`no such file: ${path}`, 'missing'); }
  if (st.isDirectory()) throw new LogInputError(`${path} is a folder, not a log file`, 'not-a-file');
  // A FIFO, a process substitution (/dev/fd/63) or a character device is read as a stream;
  // the reference time is now (what it carries was written just now).
  const regular = st.isFile();
  let stream: ReadStream;
  try {
    const fh = await fsp.open(path, 'r');
    stream = createReadStream('', { fd: fh, highWaterMark: READ_CHUNK });
  } catch (e) {
    throw new LogInputError(`cannot read ${path}: ${(e as Error).message}`, 'unreadable');
  }
  return { stream, name: path, referenceTime: regular ? st.mtimeMs : Date.now(), shown: path };
}

/** Reads at least `want` bytes (or to the end) from the iterator; returns them and whether it ended. */
async function readHead(it: AsyncIterator<Buffer>, want: number): Promise<{ pieces: Buffer[]; size: number; ended: boolean }> {
  const pieces: Buffer[] = [];
  let size = 0;
  while (size < want) {
    const r = await it.next();
    if (r.done) return { pieces, size, ended: true };
    const b = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    pieces.push(b);
    size += b.length;
  }
  return { pieces, size, ended: false };
}

/** The pieces already read, then the rest of the iterator. */
async function* replay(pieces: Buffer[], it: AsyncIterator<Buffer>, ended: boolean): AsyncGenerator<Buffer> {
  for (const p of pieces) yield p;
  if (ended) return;
  for (;;) {
    const r = await it.next();
    if (r.done) return;
    yield typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
  }
}

const startsWith = (b: Buffer, bytes: number[]): boolean => b.length >= bytes.length && bytes.every((x, i) => b[i] === x);

/** Another compression than gzip, by its magic number: the tool that decompresses it. */
function otherCompression(b: Buffer): { format: string; tool: string } | null {
  if (startsWith(b, [0x28, 0xb5, 0x2f, 0xfd])) return { format: 'zstd', tool: 'zstd -dc' };
  if (startsWith(b, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return { format: 'xz', tool: 'xz -dc' };
  // "BZh", the block size digit, then the block magic (the digits of pi in BCD).
  // `BZh` and the block size 1-9, then the first block's magic (π's digits in BCD).
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'BZh' && b[3] >= 0x31 && b[3] <= 0x39
    && startsWith(b.subarray(4), [0x31, 0x41, 0x59, 0x26, 0x53, 0x59])) {
    return { format: 'bzip2', tool: 'bzip2 -dc' };
  }
  if (startsWith(b, [0x04, 0x22, 0x4d, 0x18])) return { format: 'lz4', tool: 'lz4 -dc' };
  return null;
}

/** UTF-16 text: a byte-order mark, or ASCII text with every other byte NUL. Returns the iconv name. */
function utf16Encoding(b: Buffer): string | null {
  if (startsWith(b, [0xff, 0xfe]) || startsWith(b, [0xfe, 0xff])) return 'UTF-16';
  const n = Math.min(b.length, 4096) & ~1;
  if (n < 16) return null;
  let evenNul = 0, oddNul = 0;
  for (let i = 0; i < n; i += 2) { if (b[i] === 0) evenNul++; if (b[i + 1] === 0) oddNul++; }
  const pairs = n / 2;
  if (oddNul > pairs * 0.9 && evenNul < pairs * 0.1) return 'UTF-16LE';
  if (evenNul > pairs * 0.9 && oddNul < pairs * 0.1) return 'UTF-16BE';
  return null;
}

/** Refuses what is not a plain UTF-8 log, naming the cause and the command that fixes it. */
function checkHead(head: Buffer, shown: string, name: string, gzipped: boolean): void {
  const from = shown === '-' ? '' : ` ${shellWord(shown)}`;
  const source = (tool: string): string => shown === '-' ? `… | ${tool}` : `${tool}${from}`;
  const inner = gzipped ? ' (inside the gzip)' : '';
  const other = otherCompression(head);
  if (other) {
    throw new LogInputError(`${name} is ${other.format}-compressed${inner}; HopLens reads plain and gzip logs. Decompress it on the way: `
      + `${gzipped ? `zcat${from} | ${other.tool}` : source(other.tool)} | hoplens annotate -`, 'binary');
  }
  const utf16 = utf16Encoding(head);
  if (utf16) {
    throw new LogInputError(`${name} is ${utf16} text${inner} (PowerShell's > and some Windows tools write it), not UTF-8. Convert it on the way: `
      + `${gzipped ? `zcat${from} | iconv -f ${utf16} -t UTF-8` : source(`iconv -f ${utf16} -t UTF-8`)} | hoplens annotate -`, 'binary');
  }
  if (head.length > 0 && head[0] === 0) {
    let run = 0;
    while (run < head.length && head[run] === 0) run++;
    const count = run === head.length ? `at least ${run.toLocaleString('en-US')}` : run.toLocaleString('en-US');
    throw new LogInputError(`${name} starts with ${count} NUL bytes${inner}: the log was truncated in place while the server kept writing at its old offset `
      + `(logrotate's copytruncate does this), and the gap reads as NULs. Drop them on the way: `
      + `${gzipped ? `zcat${from} | tr -d '\\000'` : shown === '-' ? `… | tr -d '\\000'` : `tr -d '\\000' <${from}`} | hoplens annotate -`, 'binary');
  }
  if (looksBinary(head)) {
    throw new LogInputError(`${name} looks like a binary file (NUL bytes in its first 64 KB), not a server log`, 'binary');
  }
}

/**
 * Opens a log for streaming: `-` is standard input; a FIFO or device is read as a stream; a
 * gzip file (or gzip bytes on a pipe) is decompressed. Throws LogInputError with a message
 * for the user when the input cannot be read as a plain log.
 */
export async function openLogInput(path: string): Promise<LogInput> {
  const raw = await openRaw(path);
  const rawIt = raw.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let rawHead;
  try { rawHead = await readHead(rawIt, HEAD_BYTES); } catch (e) {
    raw.stream.destroy();
    throw new LogInputError(`cannot read ${raw.name}: ${(e as Error).message}`, 'unreadable');
  }
  const first = Buffer.concat(rawHead.pieces);
  const close = (): void => { raw.stream.destroy(); };
  if (startsWith(first, [0x1f, 0x8b])) {
    const gunzip = createGunzip({ chunkSize: 256 * 1024 });
    Readable.from(replay(rawHead.pieces, rawIt, rawHead.ended)).on('error', (e) => gunzip.destroy(e)).pipe(gunzip);
    const gzIt = gunzip[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let head;
    try { head = await readHead(gzIt, HEAD_BYTES); } catch (e) {
      close();
      throw new LogInputError(`${raw.name} looks like gzip but does not decompress: ${(e as Error).message}`, 'unreadable');
    }
    const text = Buffer.concat(head.pieces);
    try { checkHead(text, raw.shown, raw.name, true); } catch (e) { close(); gunzip.destroy(); throw e; }
    let used = false;
    return {
      name: raw.name, referenceTime: raw.referenceTime, head: text.subarray(0, HEAD_BYTES), compression: 'gzip',
      chunks: () => {
        if (used) throw new Error('a log input is read once');
        used = true;
        return gzipChunks(replay(head.pieces, gzIt, head.ended), raw.name);
      },
      close: () => { close(); gunzip.destroy(); },
    };
  }
  try { checkHead(first, raw.shown, raw.name, false); } catch (e) { close(); throw e; }
  let used = false;
  return {
    name: raw.name, referenceTime: raw.referenceTime, head: first.subarray(0, HEAD_BYTES), compression: null,
    chunks: () => {
      if (used) throw new Error('a log input is read once');
      used = true;
      return replay(rawHead.pieces, rawIt, rawHead.ended);
    },
    close,
  };
}

/** Decompressed chunks; a gzip stream that breaks off says so in words. */
async function* gzipChunks(source: AsyncGenerator<Buffer>, name: string): AsyncGenerator<Buffer> {
  try {
    yield* source;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'Z_BUF_ERROR' ? 'the gzip data ends early (a file still being compressed, or cut off)' : (e as Error).message;
    throw new LogInputError(`${name}: ${why}`, 'unreadable');
  }
}
