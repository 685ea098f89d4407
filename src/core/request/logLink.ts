// From a traced request to its lines in the server log: every line carrying one of the ids
// the server prints for it, with the line's own timestamp set beside the client's clock.
// Server clocks are coarse (vLLM: whole seconds, no year; SGLang: seconds, ms with
// SGLANG_LOG_MS), so each offset carries its resolution.
import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { TraceRecord } from './types';
import { ENGINE_PROFILES, isEngine, registryGeneration, requestLogFlags } from '../../engines/registry';
import { fractionMs } from '../../engines/grammar';

export interface RequestLogLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  text: string;
  /** The line's own timestamp (epoch ms), when it has one. */
  epochMs: number | null;
  resolution: 's' | 'ms' | null;
  /** Line time minus the client's request start (ms); ±1000 when resolution is 's'. */
  sinceRequestStartMs: number | null;
}

/** Every registered engine's stamp shapes (its profile's stampShape, else its line shapes'), remade when the registry changes. */
let stampShapes: RegExp[] = [];
let shapesOf = -1;

function currentStampShapes(): RegExp[] {
  if (shapesOf !== registryGeneration()) {
    stampShapes = ENGINE_PROFILES.flatMap((p) => (p.stampShape !== undefined ? [p.stampShape] : (p.lineShapes ?? []).map((l) => l.pattern)));
    shapesOf = registryGeneration();
  }
  return stampShapes;
}

/**
 * The stamp of a server log line read alone, as the engines print it (their profiles' stamp shapes):
 * local time; a year-less stamp (vLLM's `MM-DD HH:MM:SS`) takes the year nearest to `refEpochMs`.
 */
export function parseServerTime(line: string, refEpochMs: number): { epochMs: number; resolution: 's' | 'ms' } | null {
  for (const shape of currentStampShapes()) {
    const g = shape.exec(line)?.groups;
    if (g !== undefined) return localStamp(g, refEpochMs);
  }
  return null;
}

function localStamp(g: Record<string, string | undefined>, refEpochMs: number): { epochMs: number; resolution: 's' | 'ms' } {
  const at = (year: number) => new Date(year, Number(g.month) - 1, Number(g.day), Number(g.hour), Number(g.minute), Number(g.second),
    fractionMs(g.fraction)).getTime();
  const resolution = g.fraction !== undefined ? 'ms' : 's';
  if (g.year !== undefined) return { epochMs: at(Number(g.year)), resolution };
  const refYear = new Date(refEpochMs).getFullYear();
  let best: number | null = null;
  for (const y of [refYear - 1, refYear, refYear + 1]) {
    const t = at(y);
    if (best === null || Math.abs(t - refEpochMs) < Math.abs(best - refEpochMs)) best = t;
  }
  return { epochMs: best!, resolution };
}

/**
 * Lines of `path` that belong to this request, streamed (big logs are fine). `fromOffset`
 * skips what was already scanned, for a log that is still growing.
 */
export function findRequestLogLines(path: string, record: Pick<TraceRecord, 'requestId' | 'serverIdPattern' | 'timeline'>,
  opts: { fromOffset?: number; /** Lines before fromOffset,
    so numbers stay file-absolute. */ linesBefore?: number; maxLines?: number } = {}): Promise<RequestLogLine[]> {
  const pattern = new RegExp(record.serverIdPattern);
  const needle = record.requestId;
  const maxLines = opts.maxLines ?? 10_000;
  const start = record.timeline.startedAtEpochMs;
  return new Promise((resolve, reject) => {
    const out: RequestLogLine[] = [];
    const stream = createReadStream(path, { start: opts.fromOffset ?? 0 });
    let carry: Buffer = Buffer.alloc(0);
    let offset = opts.fromOffset ?? 0;
    let lineNo = opts.linesBefore ?? 0;
    const consider = (buf: Buffer, at: number) => {
      lineNo++;
      let text = buf.toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      // Every id the server prints contains our request id verbatim: a cheap filter first.
      if (!text.includes(needle) || !pattern.test(text)) return;
      const ts = parseServerTime(text, start);
      out.push({ line: lineNo, offset: at, text, epochMs: ts?.epochMs ?? null, resolution: ts?.resolution ?? null,
        sinceRequestStartMs: ts ? ts.epochMs - start : null });
    };
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      const data = carry.length ? Buffer.concat([carry, buf]) : buf;
      let from = 0;
      for (let nl = data.indexOf(10, from); nl >= 0; nl = data.indexOf(10, from)) {
        consider(data.subarray(from, nl), offset);
        offset += nl - from + 1;
        from = nl + 1;
        if (out.length >= maxLines) { stream.destroy(); resolve(out); return; }
      }
      carry = Buffer.from(data.subarray(from));
    });
    stream.on('end', () => { if (carry.length) consider(carry, offset); resolve(out); });
    stream.on('error', (e) => reject(e));
  });
}

/**
 * Lines before byte `end` of a log, counting on from an earlier mark of the same file when one
 * is given (a growing log is counted once, then only its new part).
 */
export function countLinesUpTo(path: string, end: number, from: { offset: number; lines: number } = { offset: 0,
  lines: 0 }): Promise<{ offset: number; lines: number }> {
  const start = from.offset <= end ? from : { offset: 0, lines: 0 };
  if (end <= start.offset) return Promise.resolve({ offset: end, lines: start.lines });
  return new Promise((resolve, reject) => {
    let lines = start.lines;
    const stream = createReadStream(path, { start: start.offset, end: end - 1 });
    stream.on('data', (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, nl + 1)) lines++;
    });
    stream.on('end', () => resolve({ offset: end, lines }));
    stream.on('error', reject);
  });
}

/** The server log a traced request's lines are read from: the configured file, when it is there. */
export function serverLogFile(configured: string, exists: (path: string) => boolean = existsSync): string | undefined {
  return configured && exists(configured) ? configured : undefined;
}

/** What the report says about the server log: the request's lines (null: none to show) and a note. */
export interface ServerLogAnswer { lines: RequestLogLine[] | null; note: string }

/**
 * The server log of one window, read for traced requests: where it ended before a request (its
 * lines can only come after), then this request's lines. The server writes them while and just
 * after it answers, so reading waits a little for them; a growing log is counted once, then
 * only its new part (the count is kept here, per path, for this reader's life).
 */
export class ServerLogReader {
  private counted: { path: string; offset: number; lines: number } | undefined;

  constructor(private readonly opts: { attempts?: number; waitMs?: number; sleep?: (ms: number) => Promise<void> } = {}) {}

  /** Where the log ends now (undefined when it cannot be read). */
  async end(path: string): Promise<number | undefined> {
    return stat(path).then((st) => st.size, () => undefined);
  }

  async linesOf(path: string, record: Pick<TraceRecord, 'engine' | 'requestId' | 'logRequestId' | 'serverIdPattern' | 'timeline'>,
    sizeBefore: number | undefined): Promise<ServerLogAnswer> {
    const attempts = this.opts.attempts ?? 10;
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (let attempt = 0; attempt < attempts; attempt++) {
      try {
        // Only what the server wrote since the request started (a restarted, truncated log: from the top).
        const { size } = await stat(path);
        let from = { offset: 0, lines: 0 };
        if (sizeBefore !== undefined && size >= sizeBefore) {
          const known = this.counted?.path === path ? this.counted : undefined;
          from = await countLinesUpTo(path, sizeBefore, known);
          this.counted = { path, ...from };
        }
        const found = await findRequestLogLines(path, record, { fromOffset: from.offset, linesBefore: from.lines });
        if (found.length > 0 || attempt === attempts - 1) {
          return {
            lines: found,
            note: found.length
              ? `${found.length} line(s) in ${path}. Server clocks: ${found[0].resolution === 'ms' ? 'milliseconds' : 'whole seconds only'}; `
                + 'the client\'s times are monotonic from the socket.'
              : `No line of ${path} mentions ${record.logRequestId}${requestLoggingQuestion(record.engine)}.`,
          };
        }
      } catch (e) {
        return { lines: null, note: `Could not read ${path}: ${(e as Error).message}` };
      }
      await sleep(this.opts.waitMs ?? 200);
    }
    return { lines: null, note: '' };
  }
}

/**
 * Asked when no line of the server log names the request: is its engine's request logging on? Its flag
 * (` (is --log-requests on?)`); every registered engine's, by name, for an engine not known; '' when none needs one.
 */
export function requestLoggingQuestion(engine: string): string {
  const flags = requestLogFlags(engine);
  if (flags.length === 0) return '';
  if (isEngine(engine)) return ` (is ${flags.map((f) => f.flag).join(' or ')} on?)`;
  return ` (is request logging on? ${flags.map((f) => `${f.label}: ${f.flag}`).join(', ')})`;
}

/**
 * A whole-second stamp names a second, not a moment: the line was printed somewhere in
 * [stamp, stamp + 1 s). Relative to the request's start that is a range, shown to a tenth of
 * a second and rounded outwards, e.g. "−0.6 … +0.4 s"; a point ("≈−337 ms") would claim a
 * precision the stamp does not have, and read as if the line came before the request.
 */
export function secondStampRangeText(sinceRequestStartMs: number): string {
  const from = Math.floor(sinceRequestStartMs / 100) / 10;
  const to = Math.ceil((sinceRequestStartMs + 1000) / 100) / 10;
  const signed = (s: number) => `${s < 0 ? '−' : '+'}${Math.abs(s).toFixed(1)}`;
  return `${signed(from)} … ${signed(to)} s`;
}
