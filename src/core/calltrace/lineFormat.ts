// Byte-level reader of one VLLM_TRACE_FUNCTION line. Works on a Buffer slice so a gigabyte
// file never becomes strings. Formats (vllm/logger.py `_trace_calls`, SGLang's copy is the same):
//   current: "<ts> Call to <fn> in <file>:<line> from <cfn> in <cfile>:<cline>"
//            "<ts> Return from <fn> in <file>:<line> to <cfn> in <cfile>:<cline>"
//            ts = strftime("%Y-%m-%d %H:%M:%S.%f"); an initial frame has "from  in :0".
//   legacy (VLLM_TRACE_FRAME, vLLM ≤ 0.4): "<str(datetime.now())> Call to <fn> in <file>:<line>"
//            with no caller part, and no ".%f" when the microsecond is 0.
// Paths may hold spaces and colons: the file ends at the first ":<digits> from " / ":<digits> to ",
// and the caller's file at the last ":<digits>" of the line.

import { rangesEqual, viewOf } from '../bytes';

export const EVENT_NONE = 0;
export const EVENT_CALL = 1;
export const EVENT_RETURN = 2;

export const SPACE = 0x20;
export const COLON = 0x3a;
export const DOT = 0x2e;
export const DIGIT_0 = 0x30;
export const DIGIT_9 = 0x39;

export const CALL_TO = Buffer.from('Call to ');
export const RETURN_FROM = Buffer.from('Return from ');
export const FROM_WORD = Buffer.from(' from ');
const TO_WORD = Buffer.from(' to ');
const IN_WORD = Buffer.from(' in ');

/** The parts of one parsed line as byte positions into the buffer (reused, never allocated per line). */
export class ParsedLine {
  event = EVENT_NONE;
  tsUs = 0;
  /** "fn in file" of the frame: [codeStart, codeEnd); fn is [codeStart, fnEnd). */
  codeStart = 0;
  codeEnd = 0;
  fnEnd = 0;
  line = 0;
  /** True when the line has the caller part (current format). */
  hasCaller = false;
  /** "cfn in cfile" of the caller: [callerStart, callerEnd); empty fn and file for an initial frame. */
  callerStart = 0;
  callerEnd = 0;
  callerFnEnd = 0;
  callerLine = 0;
  /** Text of the timestamp, [s, tsEnd). */
  tsEnd = 0;
}

function matchesAt(buf: Buffer, pos: number, word: Buffer, end: number): boolean {
  if (pos + word.length > end) return false;
  for (let i = 0; i < word.length; i++) if (buf[pos + i] !== word[i]) return false;
  return true;
}

/** The number in buf[from, end) when it is all digits (and not empty), else -1. */
export function digitsToEnd(buf: Buffer, from: number, end: number): number {
  if (from >= end) return -1;
  let n = 0;
  for (let i = from; i < end; i++) {
    const c = buf[i] - DIGIT_0;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

function isDigit(b: number): boolean {
  return b >= DIGIT_0 && b <= DIGIT_9;
}

/** Two digits at pos as a number, or -1. */
function two(buf: Buffer, pos: number): number {
  const a = buf[pos] - DIGIT_0;
  const b = buf[pos + 1] - DIGIT_0;
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1;
  return a * 10 + b;
}

/** Caches the epoch of the last calendar day seen: most lines share it. */
export class TimestampReader {
  private dayKey = -1;
  private dayUs = 0;

  /** Parses "YYYY-MM-DD HH:MM:SS[.ffffff]" at pos; returns the end position or -1. Sets `value` (µs). */
  value = 0;

  /**
   * The first 19 bytes (date and time to the second) of the last timestamp read, and its value
   * (-1: none yet). Read, never written, by the indexer's inlined check of the next line.
   */
  private readonly lastPrefix = Buffer.alloc(19);
  readonly prefixView = viewOf(this.lastPrefix);
  private lastBuf: Buffer | null = null;
  private lastView: DataView | null = null;
  lastSecondUs = -1;

  read(buf: Buffer, pos: number, end: number): number {
    if (pos + 19 > end) return -1;
    // Most lines share the second of the line before: then only the fraction needs reading.
    if (this.lastSecondUs >= 0) {
      if (buf !== this.lastBuf) { this.lastBuf = buf; this.lastView = viewOf(buf); }
      if (rangesEqual(this.prefixView, 0, this.lastView!, pos, 19)) return this.readFraction(buf, pos + 19, end, this.lastSecondUs);
    }
    if (buf[pos + 4] !== 0x2d || buf[pos + 7] !== 0x2d || buf[pos + 10] !== SPACE || buf[pos + 13] !== COLON || buf[pos + 16] !== COLON) return -1;
    const y1 = two(buf, pos), y2 = two(buf, pos + 2), mo = two(buf, pos + 5), d = two(buf, pos + 8);
    const h = two(buf, pos + 11), mi = two(buf, pos + 14), s = two(buf, pos + 17);
    if (y1 < 0 || y2 < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60) return -1;
    const key = ((y1 * 100 + y2) * 100 + mo) * 100 + d;
    if (key !== this.dayKey) {
      this.dayKey = key;
      this.dayUs = Date.UTC(y1 * 100 + y2, mo - 1, d) * 1000;
    }
    const secondUs = this.dayUs + ((h * 60 + mi) * 60 + s) * 1_000_000;
    const p = this.readFraction(buf, pos + 19, end, secondUs);
    if (p < 0) return -1;
    this.lastSecondUs = secondUs;
    buf.copy(this.lastPrefix, 0, pos, pos + 19);
    return p;
  }

  private readFraction(buf: Buffer, p: number, end: number, secondUs: number): number {
    let micros = 0;
    if (p < end && buf[p] === 0x2e) {
      p++;
      const fracStart = p;
      while (p < end && isDigit(buf[p]) && p - fracStart < 6) { micros = micros * 10 + (buf[p] - DIGIT_0); p++; }
      const digits = p - fracStart;
      if (digits === 0) return -1;
      for (let i = digits; i < 6; i++) micros *= 10;
    }
    this.value = secondUs + micros;
    return p;
  }
}

/**
 * Parses the line [start, end) (no newline; a trailing CR already removed).
 * Returns false for anything that is not a call or return line.
 */
export function parseTraceLine(buf: Buffer, start: number, end: number, ts: TimestampReader, out: ParsedLine, withCaller = true): boolean {
  const tsEnd = ts.read(buf, start, end);
  if (tsEnd < 0 || tsEnd >= end || buf[tsEnd] !== SPACE) return false;
  out.tsUs = ts.value;
  out.tsEnd = tsEnd;
  let p = tsEnd + 1;
  let event: number;
  if (matchesAt(buf, p, CALL_TO, end)) { event = EVENT_CALL; p += CALL_TO.length; }
  else if (matchesAt(buf, p, RETURN_FROM, end)) { event = EVENT_RETURN; p += RETURN_FROM.length; }
  else return false;

  // fn: up to the first space (co_name never holds one), then " in ".
  const codeStart = p;
  const fnSpace = buf.indexOf(SPACE, p);
  if (fnSpace < 0 || fnSpace >= end || fnSpace === codeStart) return false;
  if (!matchesAt(buf, fnSpace, IN_WORD, end)) return false;
  const fileStart = fnSpace + IN_WORD.length;
  const joinWord = event === EVENT_CALL ? FROM_WORD : TO_WORD;

  // The file ends at the first ":<digits>" followed by the join word, or by the end (legacy).
  let search = fileStart;
  for (;;) {
    const colon = buf.indexOf(COLON, search);
    if (colon < 0 || colon >= end) return false;
    let d = colon + 1;
    let lineNo = 0;
    while (d < end && isDigit(buf[d])) { lineNo = lineNo * 10 + (buf[d] - DIGIT_0); d++; }
    if (d > colon + 1) {
      if (d === end) {
        out.event = event; out.codeStart = codeStart; out.fnEnd = fnSpace; out.codeEnd = colon; out.line = lineNo;
        out.hasCaller = false;
        return colon > fileStart;
      }
      if (matchesAt(buf, d, joinWord, end)) {
        out.event = event; out.codeStart = codeStart; out.fnEnd = fnSpace; out.codeEnd = colon; out.line = lineNo;
        if (colon <= fileStart) return false;
        if (withCaller) return parseCaller(buf, d + joinWord.length, end, out);
        // The caller part is left to the caller (`parseCaller`), which often needs less.
        out.hasCaller = true;
        out.callerStart = d + joinWord.length;
        return true;
      }
    }
    search = colon + 1;
  }
}

/** Parses the caller part "<cfn> in <cfile>:<cline>" starting at p (to the end of the line). */
export function parseCaller(buf: Buffer, p: number, end: number, out: ParsedLine): boolean {
  // "<cfn> in <cfile>:<cline>" where cfn may be empty (initial frame: " in :0").
  const cfnSpace = buf.indexOf(SPACE, p);
  if (cfnSpace < 0 || cfnSpace >= end || !matchesAt(buf, cfnSpace, IN_WORD, end)) return false;
  let d = end - 1;
  let mult = 1;
  let lineNo = 0;
  while (d > cfnSpace && isDigit(buf[d])) { lineNo += (buf[d] - DIGIT_0) * mult; mult *= 10; d--; }
  if (d === end - 1 || buf[d] !== COLON || d < cfnSpace + IN_WORD.length) return false;
  out.hasCaller = true;
  out.callerStart = p;
  out.callerFnEnd = cfnSpace;
  out.callerEnd = d;
  out.callerLine = lineNo;
  return true;
}
