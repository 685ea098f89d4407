// OTLP JSON files: the OpenTelemetry Collector file exporter's JSON Lines (one TracesData per
// line, the same shape `hoplens otlp --out` writes), or a single OTLP JSON document, e.g. saved
// from a backend, pretty-printed. Read streaming (files can be large); a bad line is counted and
// reported, never fatal. What is plainly not OTLP JSON (binary data, a log, another JSON) stops
// the read early with a NotOtlpError instead of being scanned to its end.
import { promises as fsp, constants as fsConstants, openSync, closeSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { decodeOtlpJson, type RejectedSpan } from './decode';
import type { OtlpSpan } from './types';

export interface BadLine {
  line: number;
  message: string;
  /** Set when the line was read but this many of its spans were skipped. */
  spans?: number;
}

export interface CollectorFileResult {
  /** The spans, unless an onSpans callback took them. */
  spans: OtlpSpan[];
  spanCount: number;
  /** Non-empty lines read. */
  lines: number;
  badLineCount: number;
  /** Spans skipped inside lines that were otherwise read (a bad id, a bad time). */
  rejectedSpanCount: number;
  /** The first few bad lines (and skipped spans), for the message to the user. */
  badLines: BadLine[];
}

export interface CollectorFileOptions {
  /** Receive spans line by line instead of collecting them (large files). */
  onSpans?(spans: OtlpSpan[]): void;
  signal?: AbortSignal;
  /** Called once when opening a FIFO waits for a writer. */
  onWaiting?(message: string): void;
}

/** The input is not OTLP JSON at all (binary, compressed, a log…); nothing more will be read. */
export class NotOtlpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotOtlpError';
  }
}

const MAX_REPORTED_BAD_LINES = 20;
/** A longer line is skipped: the receiver refuses bodies past 64 MiB too. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/** Beyond this a file that is not JSON Lines is not parsed as one document. */
export const MAX_SINGLE_DOCUMENT_BYTES = 256 * 1024 * 1024;
/** With no OTLP line among the first this many lines (or bytes), the input is not OTLP JSON. */
const GIVE_UP_AFTER_LINES = 100;
const GIVE_UP_AFTER_BYTES = 16 * 1024 * 1024;
/** How much of the start is checked for binary content. */
const SNIFF_BYTES = 64 * 1024;
const FIFO_WAIT_NOTICE_MS = 1000;

/** Compressions named by their magic bytes, with the command that reads them. */
const COMPRESSED: Array<{ magic: number[]; name: string; cat: string }> = [
  { magic: [0x28, 0xb5, 0x2f, 0xfd], name: 'zstd', cat: 'zstdcat' },
  { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], name: 'xz', cat: 'xzcat' },
  { magic: [0x42, 0x5a, 0x68], name: 'bzip2', cat: 'bzcat' },
];

class LineCollector {
  readonly result: CollectorFileResult = { spans: [], spanCount: 0, lines: 0, badLineCount: 0, rejectedSpanCount: 0, badLines: [] };
  /** Lines that were OTLP (even with no spans in them). */
  goodLines = 0;
  /** The first line opens a JSON object that does not close on it: maybe one pretty-printed document. */
  singleDocumentCandidate = false;
  constructor(private readonly onSpans?: (spans: OtlpSpan[]) => void) {}

  line(text: string, lineNo: number): void {
    const t = text.trim();
    if (t === '') return;
    this.result.lines++;
    const first = this.result.lines === 1;
    let decoded;
    try {
      decoded = decodeOtlpJson(t);
    } catch (e) {
      if (first && t.startsWith('{') && /^not valid JSON/.test((e as Error).message)) this.singleDocumentCandidate = true;
      this.bad(lineNo, (e as Error).message);
      return;
    }
    if (!decoded.hasResourceSpans) {
      this.bad(lineNo, 'a JSON object without "resourceSpans": not OTLP trace data');
      return;
    }
    this.goodLines++;
    this.singleDocumentCandidate = false;
    this.take(decoded.spans, decoded.rejected, lineNo);
  }

  take(spans: OtlpSpan[], rejected: RejectedSpan[], lineNo: number): void {
    this.result.spanCount += spans.length;
    if (rejected.length) {
      this.result.rejectedSpanCount += rejected.length;
      this.note({ line: lineNo, message: `${rejected.length} span(s) skipped: ${rejected[0].message}`, spans: rejected.length });
    }
    if (this.onSpans) { if (spans.length) this.onSpans(spans); } else for (const s of spans) this.result.spans.push(s);
  }

  bad(line: number, message: string): void {
    this.result.badLineCount++;
    this.note({ line, message });
  }

  private note(b: BadLine): void {
    if (this.result.badLines.length < MAX_REPORTED_BAD_LINES) this.result.badLines.push(b);
  }

  /** Every line so far failed and the first one started an object: try the whole text as one document. */
  wholeDocument(text: string): CollectorFileResult | null {
    if (this.goodLines > 0 || !this.singleDocumentCandidate) return null;
    const whole = new LineCollector(this.onSpans);
    try {
      const decoded = decodeOtlpJson(text);
      if (!decoded.hasResourceSpans) return null;
      whole.take(decoded.spans, decoded.rejected, 1);
    } catch {
      return null;
    }
    whole.result.lines = 1;
    return whole.result;
  }

  notOtlpYet(bytesRead: number): boolean {
    return this.goodLines === 0 && (this.result.badLineCount >= GIVE_UP_AFTER_LINES || bytesRead >= GIVE_UP_AFTER_BYTES);
  }
}

/** Parse OTLP JSON already in memory (an open editor document). */
export function parseCollectorText(text: string, onSpans?: (spans: OtlpSpan[]) => void): CollectorFileResult {
  const c = new LineCollector(onSpans);
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((l, i) => c.line(l, i + 1));
  return c.wholeDocument(text.replace(/^\uFEFF/, '')) ?? c.result;
}

export async function readCollectorFile(path: string, opts: CollectorFileOptions = {}): Promise<CollectorFileResult> {
  let st;
  try {
    st = await fsp.stat(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Error(err.code === 'ENOENT' ? `no such file: ${path}` : err.message, { cause: e });
  }
  if (st.isDirectory()) throw new Error(`${path} is a directory, not an OTLP JSON file`);
  const fh = st.isFIFO() ? await openFifo(path, opts) : await fsp.open(path, 'r');
  if (!fh) return new LineCollector().result;
  try {
    return await readCollectorStream(fh.createReadStream({ highWaterMark: 1 << 20, autoClose: false }), path, opts);
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * Opening a FIFO for reading waits until something opens it for writing, as `cat` does. Say so
 * after a moment; on abort, open it for writing ourselves, which ends the wait at once.
 */
async function openFifo(path: string, opts: CollectorFileOptions): Promise<fsp.FileHandle | null> {
  const opening = fsp.open(path, 'r');
  const notice = setTimeout(() => opts.onWaiting?.(`waiting for a program to write into the FIFO ${path}`), FIFO_WAIT_NOTICE_MS);
  const release = (): void => {
    try { closeSync(openSync(path, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK)); } catch { /* already open or gone */ }
  };
  opts.signal?.addEventListener('abort', release, { once: true });
  try {
    const fh = await opening;
    if (opts.signal?.aborted) { await fh.close(); return null; }
    return fh;
  } finally {
    clearTimeout(notice);
    opts.signal?.removeEventListener('abort', release);
  }
}

function startsWith(buf: Buffer, magic: number[]): boolean {
  return buf.length >= magic.length && magic.every((b, i) => buf[i] === b);
}

/** Reads OTLP JSON from a byte stream (a file, a FIFO, standard input); gzip is read as is. */
export async function readCollectorStream(input: AsyncIterable<Buffer | string>, name: string, opts: CollectorFileOptions = {}): Promise<CollectorFileResult> {
  const iterator = input[Symbol.asyncIterator]();
  const firstRead = await iterator.next();
  if (firstRead.done) return new LineCollector().result;
  const first = Buffer.from(firstRead.value);
  const rest: AsyncIterable<Buffer | string> = { [Symbol.asyncIterator]: () => iterator };
  const whole = (async function* () { yield first; yield* rest; })();
  let bytes: AsyncIterable<Buffer | string> = whole;
  if (startsWith(first, [0x1f, 0x8b])) bytes = Readable.from(whole).pipe(createGunzip());
  else {
    for (const c of COMPRESSED) {
      if (startsWith(first, c.magic)) throw new NotOtlpError(`${name} is ${c.name}-compressed; read it with: ${c.cat} ${name} | hoplens otlp --file -`);
    }
  }

  const c = new LineCollector(opts.onSpans);
  let lineNo = 0;
  let bytesRead = 0;
  let sniffed = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let overlong = false;
  // Kept from the start while the input may be one pretty-printed document: it starts with '{'
  // and its first line is not a whole JSON value.
  let doc: Buffer[] | null = [];
  let docBytes = 0;
  let seenContent = false;

  const endLine = (): void => {
    lineNo++;
    if (overlong) {
      c.bad(lineNo, `line is longer than ${MAX_LINE_BYTES / 1024 / 1024} MiB; skipped`);
    } else {
      const buf = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      c.line(buf.toString('utf8'), lineNo);
    }
    pending = [];
    pendingBytes = 0;
    overlong = false;
  };

  const giveUp = (): never => {
    const firstBad = c.result.badLines[0];
    const mib = Math.max(1, Math.round(bytesRead / 1024 / 1024));
    throw new NotOtlpError(`${name} is not OTLP JSON: its first ${c.result.lines} line(s) (${mib} MiB) hold no OTLP trace data` +
      (firstBad ? ` (line ${firstBad.line}: ${firstBad.message})` : ''));
  };

  for await (const chunk of bytes) {
    if (opts.signal?.aborted) break;
    let buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (bytesRead === 0 && startsWith(buf, [0xef, 0xbb, 0xbf])) buf = buf.subarray(3);
    if (sniffed < SNIFF_BYTES) {
      const look = buf.subarray(0, SNIFF_BYTES - sniffed);
      const nul = look.indexOf(0);
      if (nul >= 0) throw new NotOtlpError(`${name} is not OTLP JSON: it holds binary data (a NUL byte at offset ${bytesRead + nul})`);
      sniffed += look.length;
    }
    bytesRead += buf.length;
    if (doc && !seenContent) {
      const at = buf.findIndex((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
      if (at >= 0) { seenContent = true; if (buf[at] !== 0x7b /* { */) doc = null; }
    }
    if (doc) {
      doc.push(buf);
      docBytes += buf.length;
    }
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      if (!overlong) pending.push(buf.subarray(start, nl));
      endLine();
      start = nl + 1;
      if (doc && (c.goodLines > 0 || (c.result.lines > 0 && !c.singleDocumentCandidate))) doc = null;
      if (!doc && c.notOtlpYet(bytesRead)) giveUp();
    }
    if (start < buf.length && !overlong) {
      pending.push(buf.subarray(start));
      pendingBytes += buf.length - start;
      if (pendingBytes > MAX_LINE_BYTES) { overlong = true; pending = []; pendingBytes = 0; }
    }
    if (doc && (c.goodLines > 0 || (c.result.lines > 0 && !c.singleDocumentCandidate))) doc = null;
    if (doc && docBytes > MAX_SINGLE_DOCUMENT_BYTES) {
      throw new NotOtlpError(`${name} is not JSON Lines, and as one JSON document it is larger than ${MAX_SINGLE_DOCUMENT_BYTES / 1024 / 1024} MiB; ` +
        'write it as JSON Lines (one TracesData per line, as the Collector\'s file exporter does)');
    }
    if (!doc && c.notOtlpYet(bytesRead)) giveUp();
  }
  if (pending.length || overlong) endLine();
  if (doc) {
    const one = c.wholeDocument(Buffer.concat(doc).toString('utf8'));
    if (one) return one;
  }
  return c.result;
}
