// The OpenTelemetry Collector's file exporter writes one OTLP/JSON TracesData per line. Read it
// streaming (files can be large); a bad line is counted and reported, never fatal. A single
// pretty-printed OTLP JSON document (e.g. saved from a backend) is accepted too.
import { createReadStream, promises as fsp } from 'node:fs';
import { createInterface } from 'node:readline';
import { decodeOtlpJson } from './decode';
import type { OtlpSpan } from './types';

export interface BadLine {
  line: number;
  message: string;
}

export interface CollectorFileResult {
  /** The spans, unless an onSpans callback took them. */
  spans: OtlpSpan[];
  spanCount: number;
  lines: number;
  badLineCount: number;
  /** The first few bad lines, for the message to the user. */
  badLines: BadLine[];
}

export interface CollectorFileOptions {
  /** Receive spans line by line instead of collecting them (large files). */
  onSpans?(spans: OtlpSpan[]): void;
  signal?: AbortSignal;
}

const MAX_REPORTED_BAD_LINES = 20;
/** Beyond this a file that is not JSON Lines is not parsed as one document. */
const MAX_SINGLE_DOCUMENT_BYTES = 512 * 1024 * 1024;

class LineCollector {
  readonly result: CollectorFileResult = { spans: [], spanCount: 0, lines: 0, badLineCount: 0, badLines: [] };
  constructor(private readonly onSpans?: (spans: OtlpSpan[]) => void) {}

  line(text: string, lineNo: number): void {
    const t = text.trim();
    if (t === '') return;
    this.result.lines++;
    try {
      this.take(decodeOtlpJson(t));
    } catch (e) {
      this.bad(lineNo, (e as Error).message);
    }
  }

  take(spans: OtlpSpan[]): void {
    this.result.spanCount += spans.length;
    if (this.onSpans) { if (spans.length) this.onSpans(spans); } else for (const s of spans) this.result.spans.push(s);
  }

  bad(line: number, message: string): void {
    this.result.badLineCount++;
    if (this.result.badLines.length < MAX_REPORTED_BAD_LINES) this.result.badLines.push({ line, message });
  }
}

/** Parse collector output already in memory (an open editor document). */
export function parseCollectorText(text: string, onSpans?: (spans: OtlpSpan[]) => void): CollectorFileResult {
  const c = new LineCollector(onSpans);
  const lines = text.split(/\r?\n/);
  lines.forEach((l, i) => c.line(l, i + 1));
  return maybeSingleDocument(c, text, onSpans);
}

function maybeSingleDocument(c: LineCollector, text: string, onSpans?: (spans: OtlpSpan[]) => void): CollectorFileResult {
  // Every line failed and the file starts like one JSON object: try it as one document.
  if (c.result.spanCount === 0 && c.result.badLineCount > 1 && c.result.badLineCount === c.result.lines && text.trimStart().startsWith('{')) {
    const whole = new LineCollector(onSpans);
    try {
      whole.take(decodeOtlpJson(text));
      whole.result.lines = 1;
      return whole.result;
    } catch { /* keep the per-line report */ }
  }
  return c.result;
}

export async function readCollectorFile(path: string, opts: CollectorFileOptions = {}): Promise<CollectorFileResult> {
  let size: number;
  try {
    const st = await fsp.stat(path);
    if (st.isDirectory()) throw new Error(`${path} is a directory, not an OTLP JSON file`);
    size = st.size;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new Error(err.code === 'ENOENT' ? `no such file: ${path}` : err.message);
  }
  const c = new LineCollector(opts.onSpans);
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const rl = createInterface({ input: stream, crlfDelay: Infinity });
  let lineNo = 0;
  try {
    for await (const line of rl) {
      if (opts.signal?.aborted) break;
      c.line(line, ++lineNo);
    }
  } finally {
    rl.close();
    stream.destroy();
  }
  if (c.result.spanCount === 0 && c.result.badLineCount > 1 && size <= MAX_SINGLE_DOCUMENT_BYTES) {
    return maybeSingleDocument(c, await fsp.readFile(path, 'utf8'), opts.onSpans);
  }
  return c.result;
}
