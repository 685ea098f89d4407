// The call tree of one trace file (one process thread), built in one streaming pass.
// Every call is a row in column arrays (typed arrays, no object per event); children are a
// linked list (firstChild / nextSibling), so expanding a node costs O(its children).
import { rangesEqual, sameBytes, viewOf } from '../bytes';
import { CodeInterner, keyBytesMatch, type CodeNames } from './interner';
import {
  CALL_TO, COLON, DIGIT_0, DIGIT_9, DOT, EVENT_CALL, FROM_WORD, ParsedLine, RETURN_FROM, SPACE, TimestampReader, digitsToEnd, parseCaller, parseTraceLine,
} from './lineFormat';
import type { CallRow, ChildrenPage, PageOptions, ProcessRole, ThreadStats } from './types';

const LETTER_R = 0x52;
const LETTER_C = 0x43;
const RETURN_FROM_VIEW = viewOf(RETURN_FROM);
const CALL_TO_VIEW = viewOf(CALL_TO);
const FROM_WORD_VIEW = viewOf(FROM_WORD);

const FLAG_SYNTHETIC = 1;
const FLAG_UNTERMINATED = 2;
const NONE = -1;
/** How far down the stack a return may look for its call before it counts as unmatched. */
const RETURN_SEARCH_DEPTH = 64;
const GARBLED_SAMPLES = 5;
/** Parent links followed one by one before depthOf builds its table instead. */
const SHORT_DEPTH_WALK = 256;
/** Default cap on stored calls (per folder, shared by the threads): ~57 bytes each, so 3.5 M ≈ 200 MB. Calls past it are counted. */
export const DEFAULT_MAX_NODES = 3_500_000;

export interface ThreadTraceOptions {
  /** Calls stored as nodes at most; later calls are counted and still tracked on the stack. */
  maxNodes?: number;
  /** Expected number of calls, to size the arrays once (e.g. file size / 400). */
  expectedCalls?: number;
}

/** Everything needed to move a ThreadTrace between threads (the buffers are transferable). */
export interface ThreadTraceState {
  count: number;
  columns: {
    code: Int32Array; defLine: Int32Array; siteLine: Int32Array; callerCode: Int32Array;
    parent: Int32Array; firstChild: Int32Array; nextSibling: Int32Array; childCount: Int32Array;
    start: Float64Array; end: Float64Array; offset: Float64Array; flags: Uint8Array;
  };
  stack: { node: number[]; code: number[]; last: number[]; start: number[]; line: number[] };
  top: { first: number; last: number; count: number };
  names: CodeNames;
  stats: ThreadStats;
  consumed: number;
  maxNodes: number;
  syntheticLevels: number;
}

export function emptyStats(): ThreadStats {
  return {
    bytesRead: 0, lines: 0, calls: 0, returns: 0, garbledLines: 0, orphanReturns: 0,
    mismatchedReturns: 0, unterminatedCalls: 0, maxDepth: 0, droppedCalls: 0, partialLastLine: false,
    garbledSamples: [], format: 'none', firstTs: NaN, lastTs: NaN,
  };
}

function growInt(a: Int32Array, cap: number): Int32Array { const b = new Int32Array(cap); b.set(a); return b; }
function growF64(a: Float64Array, cap: number): Float64Array { const b = new Float64Array(cap); b.set(a); return b; }

/** The interner's key (at `keyStart` in the pool) stands at buf[ks, ke), followed by ':' before the line's end `e`. */
function keyAt(buf: Buffer, view: DataView, ks: number, ke: number, e: number, pool: DataView, keyStart: number, fnLen: number): boolean {
  return ke < e && buf[ke] === COLON && keyBytesMatch(view, ks, ke - ks, pool, keyStart, fnLen);
}

const MIN_PREDICTOR = 1024;
const MAX_PREDICTOR = 1 << 16;

/**
 * The predictor's slot for a call made inside `parentCode` (defined at `parentLine`: torch's
 * `forward` of every module shares one name and file) after a child `prevCode` (NONE: the first).
 */
function predictorSlot(parentCode: number, parentLine: number, prevCode: number, mask: number): number {
  let h = Math.imul(parentCode + 1, 0x9e3779b1) ^ Math.imul(prevCode + 2, 0x85ebca6b) ^ Math.imul(parentLine, 0xc2b2ae35);
  h ^= h >>> 15;
  return h & mask;
}

export class ThreadTrace {
  count = 0;
  private cap: number;
  private code: Int32Array; private defLine: Int32Array; private siteLine: Int32Array; private callerCode: Int32Array;
  private parent: Int32Array; private firstChild: Int32Array; private nextSibling: Int32Array; private childCount: Int32Array;
  private start: Float64Array; private end: Float64Array; private offset: Float64Array; private flags: Uint8Array;

  // The open calls, innermost at depth - 1, in typed columns. `node` is NONE for calls past the node cap.
  private depth = 0;
  private stackNode = new Int32Array(64);
  private stackCode = new Int32Array(64);
  private stackLast = new Int32Array(64);
  private stackStart = new Float64Array(64);
  private stackLine = new Int32Array(64);

  /**
   * Call prediction for repeating loops: what a call (its code and the line it is defined at)
   * called last time after the same previous child, or first. A hint only, checked against the
   * line's bytes, so the table is direct-mapped and overwritten freely.
   */
  private predictor = new Int32Array(MIN_PREDICTOR).fill(NONE);

  private topFirst = NONE;
  private topLast = NONE;
  private topCount = 0;
  private syntheticLevels = 0;

  readonly interner: CodeInterner;
  readonly stats: ThreadStats;
  /** Bytes of the file consumed so far (always at a line boundary). */
  consumed = 0;
  readonly maxNodes: number;

  private readonly parsed = new ParsedLine();
  private readonly ts = new TimestampReader();
  private sawCurrent = false;
  private sawLegacy = false;
  private visibleCache: { key: string; visible: Uint8Array } | null = null;

  constructor(options: ThreadTraceOptions = {}, state?: ThreadTraceState) {
    this.maxNodes = state?.maxNodes ?? options.maxNodes ?? DEFAULT_MAX_NODES;
    if (state) {
      const c = state.columns;
      this.count = state.count;
      this.cap = c.code.length;
      this.code = c.code; this.defLine = c.defLine; this.siteLine = c.siteLine; this.callerCode = c.callerCode;
      this.parent = c.parent; this.firstChild = c.firstChild; this.nextSibling = c.nextSibling; this.childCount = c.childCount;
      this.start = c.start; this.end = c.end; this.offset = c.offset; this.flags = c.flags;
      const st = state.stack;
      for (let i = 0; i < st.code.length; i++) this.pushFrame(st.node[i], st.code[i], st.last[i], st.start[i], st.line[i]);
      this.topFirst = state.top.first; this.topLast = state.top.last; this.topCount = state.top.count;
      this.interner = CodeInterner.fromNames(state.names);
      this.stats = state.stats;
      this.consumed = state.consumed;
      this.syntheticLevels = state.syntheticLevels;
      this.sawCurrent = state.stats.format === 'current' || state.stats.format === 'mixed';
      this.sawLegacy = state.stats.format === 'legacy' || state.stats.format === 'mixed';
    } else {
      const cap = Math.max(1, Math.min(this.maxNodes, Math.max(128, Math.ceil((options.expectedCalls ?? 0) * 1.1))));
      this.cap = cap;
      this.code = new Int32Array(cap); this.defLine = new Int32Array(cap); this.siteLine = new Int32Array(cap);
      this.callerCode = new Int32Array(cap); this.parent = new Int32Array(cap); this.firstChild = new Int32Array(cap);
      this.nextSibling = new Int32Array(cap); this.childCount = new Int32Array(cap);
      this.start = new Float64Array(cap); this.end = new Float64Array(cap); this.offset = new Float64Array(cap);
      this.flags = new Uint8Array(cap);
      this.interner = new CodeInterner();
      this.stats = emptyStats();
    }
  }

  /** The state to post to another thread; pass `transferList(state)` as the transfer list. */
  exportState(): ThreadTraceState {
    return {
      count: this.count,
      columns: {
        code: this.code, defLine: this.defLine, siteLine: this.siteLine, callerCode: this.callerCode,
        parent: this.parent, firstChild: this.firstChild, nextSibling: this.nextSibling, childCount: this.childCount,
        start: this.start, end: this.end, offset: this.offset, flags: this.flags,
      },
      stack: {
        node: Array.from(this.stackNode.subarray(0, this.depth)), code: Array.from(this.stackCode.subarray(0, this.depth)),
        last: Array.from(this.stackLast.subarray(0, this.depth)), start: Array.from(this.stackStart.subarray(0, this.depth)),
        line: Array.from(this.stackLine.subarray(0, this.depth)),
      },
      top: { first: this.topFirst, last: this.topLast, count: this.topCount },
      names: this.interner.names(),
      stats: this.stats,
      consumed: this.consumed,
      maxNodes: this.maxNodes,
      syntheticLevels: this.syntheticLevels,
    };
  }

  static transferList(state: ThreadTraceState): ArrayBuffer[] {
    return Object.values(state.columns).map((a) => a.buffer as ArrayBuffer);
  }

  // ---------------------------------------------------------------- building

  /**
   * Reads the complete lines of buf[from, to), whose first byte is at file offset `fileOffset`.
   * Returns the buffer position after the last complete line; the rest is a partial line the
   * caller keeps for the next chunk.
   */
  feed(buf: Buffer, from: number, to: number, fileOffset: number): number {
    const stats = this.stats;
    let pos = from;
    while (pos < to) {
      pos = this.predictedRun(buf, pos, to, fileOffset - from);
      const nl = this.stoppedAt;
      if (nl < 0) break;
      // A line the run could not predict: the full parse.
      let e = nl;
      if (e > pos && buf[e - 1] === 13) e--;
      stats.lines++;
      this.readLine(buf, pos, e, fileOffset + (pos - from));
      pos = nl + 1;
    }
    const used = pos - from;
    this.consumed += used;
    stats.bytesRead = this.consumed;
    return pos;
  }

  /** Where predictedRun stopped: the newline of the line it left to readLine, or -1 (no complete line left). */
  private stoppedAt = -1;

  /**
   * Reads lines from `pos` while the stack predicts them, and returns the position of the first
   * line it cannot (its newline in `stoppedAt`) or of the partial line at the end (`stoppedAt` -1).
   * `base` turns a buffer position into a file offset.
   *
   * Nearly every line of a trace is predicted: the return of the call on top, or a call a
   * repeating loop made last time from the same place. They are checked in place, in one loop
   * over local variables (a gigabyte is millions of lines: a call or a property read per line
   * shows). The locals are loaded on entry, so a full parse in between (which may grow the
   * arrays, intern names, move the stack) is seen by the next run; V8 also sees every load
   * often, and never meets cold code in the loop (that would throw its optimised code away).
   */
  private predictedRun(buf: Buffer, pos: number, to: number, base: number): number {
    const view = this.viewFor(buf);
    const stats = this.stats;
    const ts = this.ts;
    const tsPrefix = ts.prefixView;
    const interner = this.interner;
    const keyStart = interner.keyStarts, keyLen = interner.keyLengths, fnLen = interner.fnLengths, pool = interner.poolView;
    const stackNode = this.stackNode, stackCode = this.stackCode, stackLast = this.stackLast, stackStart = this.stackStart, stackLine = this.stackLine;
    const code = this.code, defLine = this.defLine, siteLine = this.siteLine, callerCode = this.callerCode, parent = this.parent;
    const firstChild = this.firstChild, nextSibling = this.nextSibling, childCount = this.childCount;
    const start = this.start, end = this.end, offset = this.offset, flags = this.flags;
    const nodeLimit = Math.min(this.cap, this.maxNodes);
    const predictor = this.predictor;
    const synthetic = this.syntheticLevels;
    const current = this.sawCurrent;
    let depth = this.depth;
    let count = this.count;
    let maxDepth = stats.maxDepth, droppedCalls = stats.droppedCalls;
    let firstTs = stats.firstTs, lastTs = stats.lastTs;
    let lines = 0, calls = 0, returns = 0;
    let stoppedAt = -1;
    while (pos < to) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0 || nl >= to) break;
      let e = nl;
      if (e > pos && buf[e - 1] === 13) e--;
      if (e === pos) { lines++; pos = nl + 1; continue; }
      if (depth === 0) { stoppedAt = nl; break; }
      // The timestamp: the second of the line before, and six digits of fraction.
      let t: number;
      let tsEnd: number;
      const sec = ts.lastSecondUs;
      // (Eight bytes per read as doubles: the prefix is digits and punctuation, never a NaN or a zero.)
      if (sec >= 0 && e - pos > 27 && view.getFloat64(pos, true) === tsPrefix.getFloat64(0, true)
        && view.getFloat64(pos + 8, true) === tsPrefix.getFloat64(8, true) && view.getFloat64(pos + 11, true) === tsPrefix.getFloat64(11, true)
        && buf[pos + 19] === DOT) {
        let micros = 0;
        let i = pos + 20;
        for (; i < pos + 26; i++) {
          const c = buf[i] - DIGIT_0;
          if (c < 0 || c > 9) break;
          micros = micros * 10 + c;
        }
        if (i < pos + 26) { stoppedAt = nl; break; }
        t = sec + micros;
        tsEnd = pos + 26;
      } else {
        tsEnd = ts.read(buf, pos, e);
        t = ts.value;
      }
      if (tsEnd <= 0 || buf[tsEnd] !== SPACE) { stoppedAt = nl; break; }
      const kind = buf[tsEnd + 1];
      const top = stackCode[depth - 1];
      if (kind === LETTER_R) {
        // "Return from <fn> in <file>:<digits>" of the call on top of the stack (the rest, where
        // it returns to, is not needed).
        const ks = tsEnd + 1 + RETURN_FROM.length;
        const ke = ks + keyLen[top];
        if (ks > e || !sameBytes(view, tsEnd + 1, RETURN_FROM_VIEW, 0, RETURN_FROM.length)
          || !keyAt(buf, view, ks, ke, e, pool, keyStart[top], fnLen[top])) { stoppedAt = nl; break; }
        let d = ke + 1;
        while (d < e && buf[d] >= DIGIT_0 && buf[d] <= DIGIT_9) d++;
        if (d === ke + 1 || (d < e && buf[d] !== SPACE)) { stoppedAt = nl; break; }
        returns++;
        const id = stackNode[--depth];
        if (id !== NONE) end[id] = t;
      } else if (kind === LETTER_C && current) {
        // "Call to <predicted> in <file>:<line> from <top> in <file>:<site>": the callee this
        // call made last time after the same previous child (or first).
        const prevSibling = stackLast[depth - 1];
        const predicted = predictor[predictorSlot(top, stackLine[depth - 1], prevSibling !== NONE ? code[prevSibling] : NONE, predictor.length - 1)];
        if (predicted === NONE) { stoppedAt = nl; break; }
        const ks = tsEnd + 1 + CALL_TO.length;
        const ke = ks + keyLen[predicted];
        if (ks > e || !sameBytes(view, tsEnd + 1, CALL_TO_VIEW, 0, CALL_TO.length)
          || !keyAt(buf, view, ks, ke, e, pool, keyStart[predicted], fnLen[predicted])) { stoppedAt = nl; break; }
        let d = ke + 1;
        let line = 0;
        while (d < e && buf[d] >= DIGIT_0 && buf[d] <= DIGIT_9) { line = line * 10 + (buf[d] - DIGIT_0); d++; }
        const cs = d + FROM_WORD.length;
        const colon = cs + keyLen[top];
        if (d === ke + 1 || cs > e || !rangesEqual(view, d, FROM_WORD_VIEW, 0, FROM_WORD.length)
          || !keyAt(buf, view, cs, colon, e, pool, keyStart[top], fnLen[top])) { stoppedAt = nl; break; }
        const site = digitsToEnd(buf, colon + 1, e);
        // A new child of the call on top (the predictor already says so); growing the arrays
        // and the node cap are pushCall's.
        const parentNode = stackNode[depth - 1];
        if (site < 0 || (parentNode !== NONE && count >= nodeLimit) || depth === stackCode.length) { stoppedAt = nl; break; }
        calls++;
        let id = NONE;
        if (parentNode === NONE) droppedCalls++;
        else {
          id = count++;
          code[id] = predicted; defLine[id] = line; callerCode[id] = top; siteLine[id] = site;
          start[id] = t; end[id] = NaN; offset[id] = base + pos; parent[id] = parentNode;
          firstChild[id] = NONE; nextSibling[id] = NONE; childCount[id] = 0; flags[id] = 0;
          if (prevSibling === NONE) firstChild[parentNode] = id; else nextSibling[prevSibling] = id;
          stackLast[depth - 1] = id;
          childCount[parentNode]++;
        }
        stackNode[depth] = id; stackCode[depth] = predicted; stackLast[depth] = NONE; stackStart[depth] = t; stackLine[depth] = line;
        depth++;
        if (depth + synthetic > maxDepth) maxDepth = depth + synthetic;
      } else { stoppedAt = nl; break; }
      if (!(t >= firstTs)) firstTs = t;
      if (!(t <= lastTs)) lastTs = t;
      lines++;
      pos = nl + 1;
    }
    this.stoppedAt = stoppedAt;
    this.depth = depth; this.count = count;
    stats.firstTs = firstTs; stats.lastTs = lastTs; stats.maxDepth = maxDepth; stats.droppedCalls = droppedCalls;
    stats.lines += lines; stats.calls += calls; stats.returns += returns;
    return pos;
  }

  /** Skips an over-long line (no newline within the read window): counted as garbled. */
  skipGarbled(offset: number, sample: string, bytes: number): void {
    this.noteGarbled(offset, sample);
    this.stats.lines++;
    this.consumed += bytes;
    this.stats.bytesRead = this.consumed;
  }

  private noteGarbled(offset: number, text: string): void {
    this.stats.garbledLines++;
    if (this.stats.garbledSamples.length < GARBLED_SAMPLES) {
      this.stats.garbledSamples.push({ offset, text: text.length > 200 ? text.slice(0, 200) + '…' : text });
    }
  }

  private readLine(buf: Buffer, s: number, e: number, fileOffset: number): void {
    const p = this.parsed;
    if (!parseTraceLine(buf, s, e, this.ts, p, false)) {
      this.noteGarbled(fileOffset, buf.toString('utf8', s, Math.min(e, s + 400)));
      return;
    }
    const stats = this.stats;
    if (p.hasCaller) { if (!this.sawCurrent) { this.sawCurrent = true; this.updateFormat(); } }
    else if (!this.sawLegacy) { this.sawLegacy = true; this.updateFormat(); }
    const t = p.tsUs;
    if (!(t >= stats.firstTs)) stats.firstTs = t;
    if (!(t <= stats.lastTs)) stats.lastTs = t;
    const depth = this.depth;
    const top = depth > 0 ? this.stackCode[depth - 1] : NONE;
    const interner = this.interner;
    if (p.event === EVENT_CALL) {
      const code = interner.intern(buf, p.codeStart, p.fnEnd, p.codeEnd);
      let caller = NONE;
      let site = 0;
      if (p.hasCaller) {
        // The caller is nearly always the open call on top of the stack: check that first,
        // which spares parsing and looking up the caller part.
        const cs = p.callerStart;
        if (top !== NONE) {
          const colon = cs + interner.keyLength(top);
          if (colon < e && buf[colon] === COLON) {
            const line = digitsToEnd(buf, colon + 1, e);
            if (line >= 0 && interner.quickMatch(top, buf, cs, colon)) { caller = top; site = line; }
          }
        }
        if (caller === NONE) {
          if (!parseCaller(buf, cs, e, p)) { this.noteGarbled(fileOffset, buf.toString('utf8', s, Math.min(e, s + 400))); return; }
          if (p.callerEnd > p.callerFnEnd + 4) caller = interner.internExpecting(top, buf, p.callerStart, p.callerFnEnd, p.callerEnd);
          site = p.callerLine;
        }
      }
      stats.calls++;
      this.pushCall(code, p.line, caller, site, t, fileOffset);
    } else {
      // A return nearly always closes the call on top of the stack (its caller part is not needed).
      const code = top !== NONE && interner.quickMatch(top, buf, p.codeStart, p.codeEnd)
        ? top : interner.intern(buf, p.codeStart, p.fnEnd, p.codeEnd);
      stats.returns++;
      this.popReturn(code, p.line, t);
    }
  }

  private lastBuf: Buffer | null = null;
  private lastView: DataView | null = null;

  private viewFor(buf: Buffer): DataView {
    if (buf !== this.lastBuf) { this.lastBuf = buf; this.lastView = viewOf(buf); }
    return this.lastView!;
  }

  private updateFormat(): void {
    this.stats.format = this.sawCurrent && this.sawLegacy ? 'mixed' : this.sawCurrent ? 'current' : 'legacy';
  }

  private ensureCapacity(): boolean {
    if (this.count >= this.maxNodes) return false;
    if (this.count < this.cap) return true;
    // Grow by a quarter: fewer idle bytes than doubling when the estimate was close.
    const cap = Math.min(this.maxNodes, Math.max(this.cap + 1024, Math.ceil(this.cap * 1.25)));
    this.code = growInt(this.code, cap); this.defLine = growInt(this.defLine, cap); this.siteLine = growInt(this.siteLine, cap);
    this.callerCode = growInt(this.callerCode, cap); this.parent = growInt(this.parent, cap);
    this.firstChild = growInt(this.firstChild, cap); this.nextSibling = growInt(this.nextSibling, cap);
    this.childCount = growInt(this.childCount, cap);
    this.start = growF64(this.start, cap); this.end = growF64(this.end, cap); this.offset = growF64(this.offset, cap);
    const flags = new Uint8Array(cap); flags.set(this.flags); this.flags = flags;
    this.cap = cap;
    return true;
  }

  private newNode(code: number, line: number, caller: number, site: number, t: number, offset: number, parentId: number): number {
    if (!this.ensureCapacity()) return NONE;
    const id = this.count++;
    this.code[id] = code; this.defLine[id] = line; this.callerCode[id] = caller; this.siteLine[id] = site;
    this.start[id] = t; this.end[id] = NaN; this.offset[id] = offset; this.parent[id] = parentId;
    this.firstChild[id] = NONE; this.nextSibling[id] = NONE; this.childCount[id] = 0; this.flags[id] = 0;
    return id;
  }

  private pushCall(code: number, line: number, caller: number, site: number, t: number, offset: number): void {
    const depth = this.depth;
    if (depth > 0) {
      if (this.interner.size * 64 > this.predictor.length && this.predictor.length < MAX_PREDICTOR) {
        // Sized by the names seen, roomy (a slot is a hint only, shared freely); a new table starts empty.
        this.predictor = new Int32Array(Math.min(MAX_PREDICTOR, 2 ** Math.ceil(Math.log2(this.interner.size * 64)))).fill(NONE);
      }
      const prevSibling = this.stackLast[depth - 1];
      const slot = predictorSlot(this.stackCode[depth - 1], this.stackLine[depth - 1], prevSibling !== NONE ? this.code[prevSibling] : NONE,
        this.predictor.length - 1);
      this.predictor[slot] = code;
    }
    // The parent is the innermost open call that has a node; past the cap no new nodes are made.
    const parentNode = depth > 0 ? this.stackNode[depth - 1] : NONE;
    let id = NONE;
    if (depth === 0 || parentNode !== NONE) id = this.newNode(code, line, caller, site, t, offset, parentNode);
    if (id === NONE) this.stats.droppedCalls++;
    else if (depth === 0) {
      if (this.topLast === NONE) this.topFirst = id; else this.nextSibling[this.topLast] = id;
      this.topLast = id;
      this.topCount++;
    } else {
      const last = this.stackLast[depth - 1];
      if (last === NONE) this.firstChild[parentNode] = id; else this.nextSibling[last] = id;
      this.stackLast[depth - 1] = id;
      this.childCount[parentNode]++;
    }
    this.pushFrame(id, code, NONE, t, line);
    const d = depth + 1 + this.syntheticLevels;
    if (d > this.stats.maxDepth) this.stats.maxDepth = d;
  }

  private pushFrame(node: number, code: number, last: number, start: number, line: number): void {
    const d = this.depth;
    if (d === this.stackCode.length) {
      const n = d * 2;
      const grow = <T extends Int32Array | Float64Array>(a: T, C: new (n: number) => T): T => { const b = new C(n); b.set(a); return b; };
      this.stackNode = grow(this.stackNode, Int32Array); this.stackCode = grow(this.stackCode, Int32Array);
      this.stackLast = grow(this.stackLast, Int32Array); this.stackStart = grow(this.stackStart, Float64Array);
      this.stackLine = grow(this.stackLine, Int32Array);
    }
    this.stackNode[d] = node; this.stackCode[d] = code; this.stackLast[d] = last; this.stackStart[d] = start; this.stackLine[d] = line;
    this.depth = d + 1;
  }

  private closeTop(t: number, unterminated: boolean): void {
    const id = this.stackNode[--this.depth];
    if (id !== NONE) {
      this.end[id] = t;
      if (unterminated) this.flags[id] |= FLAG_UNTERMINATED;
    }
    if (unterminated) this.stats.unterminatedCalls++;
  }

  private popReturn(code: number, line: number, t: number): void {
    const depth = this.depth;
    if (depth > 0 && this.stackCode[depth - 1] === code) { this.closeTop(t, false); return; }
    const floor = Math.max(0, depth - RETURN_SEARCH_DEPTH);
    for (let k = depth - 2; k >= floor; k--) {
      if (this.stackCode[k] === code) {
        // The calls above k lost their return line (garbled or cut): close them here.
        this.stats.mismatchedReturns++;
        while (this.depth > k + 1) this.closeTop(t, true);
        this.closeTop(t, false);
        return;
      }
    }
    if (depth > 0) { this.stats.mismatchedReturns++; return; }
    // Stack empty: tracing began inside this function. Everything traced so far ran inside it,
    // so a synthetic call adopts all current top-level calls.
    this.stats.orphanReturns++;
    const startT = this.topFirst !== NONE ? this.start[this.topFirst] : t;
    const id = this.newNode(code, line, NONE, 0, startT, -1, NONE);
    if (id === NONE) { this.stats.droppedCalls++; return; }
    this.end[id] = t;
    this.flags[id] = FLAG_SYNTHETIC;
    this.firstChild[id] = this.topFirst;
    this.childCount[id] = this.topCount;
    for (let c = this.topFirst; c !== NONE; c = this.nextSibling[c]) this.parent[c] = id;
    this.topFirst = id; this.topLast = id; this.topCount = 1;
    this.syntheticLevels++;
    if (1 + this.syntheticLevels > this.stats.maxDepth) this.stats.maxDepth = this.syntheticLevels;
  }

  /** Marks whether the file ended in a line without a newline (being written, or cut off). */
  setPartialTail(partial: boolean): void {
    this.stats.partialLastLine = partial;
  }

  // ---------------------------------------------------------------- reading

  fnOf(id: number): string { return this.interner.fns[this.code[id]]; }
  fileOf(id: number): string { return this.interner.files[this.code[id]]; }
  lineOf(id: number): number { return this.defLine[id]; }
  startOf(id: number): number { return this.start[id]; }
  endOf(id: number): number { return this.end[id]; }
  parentOf(id: number): number { return this.parent[id]; }
  childCountOf(id: number): number { return id === NONE ? this.topCount : this.childCount[id]; }
  isOpen(id: number): boolean { return Number.isNaN(this.end[id]); }
  isSynthetic(id: number): boolean { return (this.flags[id] & FLAG_SYNTHETIC) !== 0; }
  offsetOf(id: number): number { return this.offset[id]; }
  codeOf(id: number): number { return this.code[id]; }
  get topLevelCount(): number { return this.topCount; }

  /** First child of `id` (NONE = the thread root), then follow `nextSiblingOf`. */
  firstChildOf(id: number): number { return id === NONE ? this.topFirst : this.firstChild[id]; }
  nextSiblingOf(id: number): number { return this.nextSibling[id]; }

  durationOf(id: number): number | null {
    const e = this.end[id];
    return Number.isNaN(e) ? null : e - this.start[id];
  }

  selfTimeOf(id: number): number | null {
    const d = this.durationOf(id);
    if (d === null) return null;
    let children = 0;
    for (let c = this.firstChild[id]; c !== NONE; c = this.nextSibling[c]) {
      const cd = this.durationOf(c);
      if (cd !== null) children += cd;
    }
    return Math.max(0, d - children);
  }

  /**
   * Levels above a call. A short walk up the parents; a deep one (a runaway recursion, a hung
   * process a million calls deep) reads a table of every node's depth built once in one pass,
   * so listing every call of a deep stack stays linear.
   */
  depthOf(id: number): number {
    if (this.depthTable !== null && this.depthTableCount === this.count && this.depthTableSynthetic === this.syntheticLevels) return this.depthTable[id];
    let d = 0;
    for (let p = this.parent[id]; p !== NONE; p = this.parent[p]) {
      if (++d > SHORT_DEPTH_WALK) return this.depths()[id];
    }
    return d;
  }

  private depthTable: Int32Array | null = null;
  private depthTableCount = -1;
  private depthTableSynthetic = -1;

  /** Every node's depth, from one walk of the tree (children lists, no recursion). */
  private depths(): Int32Array {
    const table = new Int32Array(this.count);
    let n = this.topFirst;
    let d = 0;
    while (n !== NONE) {
      table[n] = d;
      const fc = this.firstChild[n];
      if (fc !== NONE) { n = fc; d++; continue; }
      for (;;) {
        const sib = this.nextSibling[n];
        if (sib !== NONE) { n = sib; break; }
        n = this.parent[n];
        d--;
        if (n === NONE) break;
      }
    }
    this.depthTable = table; this.depthTableCount = this.count; this.depthTableSynthetic = this.syntheticLevels;
    return table;
  }

  /** Ancestors of a call, outermost first (for revealing a search hit in the tree). */
  ancestorsOf(id: number): number[] {
    const out: number[] = [];
    for (let p = this.parent[id]; p !== NONE; p = this.parent[p]) out.push(p);
    return out.reverse();
  }

  callSiteOf(id: number): { fn: string; file: string; line: number } | null {
    const c = this.callerCode[id];
    if (c === NONE) return null;
    return { fn: this.interner.fns[c], file: this.interner.files[c], line: this.siteLine[id] };
  }

  row(id: number, depth = this.depthOf(id)): CallRow {
    return {
      nodeId: id, count: 1, fn: this.fnOf(id), file: this.fileOf(id), line: this.defLine[id],
      callSite: this.callSiteOf(id), startUs: this.start[id], durationUs: this.durationOf(id),
      selfUs: this.selfTimeOf(id), childCount: this.childCount[id], depth, open: this.isOpen(id),
      synthetic: this.isSynthetic(id), unterminated: (this.flags[id] & FLAG_UNTERMINATED) !== 0,
      offset: this.offset[id],
    };
  }

  /**
   * One level of the tree: the children of `parentId` (NONE / -1 = the top level), with runs of
   * consecutive identical sibling calls collapsed into ×N rows. O(children).
   */
  children(parentId: number, options: PageOptions = {}): ChildrenPage {
    const offset = Math.max(0, options.offset ?? 0);
    const limit = Math.max(0, options.limit ?? 200);
    const collapse = options.collapse !== false;
    const visible = options.filter && options.filter.length > 0 ? this.visibleSet(options.filter) : null;
    const depth = parentId === NONE ? 0 : this.depthOf(parentId) + 1;
    const rows: CallRow[] = [];
    let total = 0;
    let c = this.firstChildOf(parentId);
    while (c !== NONE) {
      if (visible && !visible[c]) { c = this.nextSibling[c]; continue; }
      // A run: following visible siblings with the same function and file.
      let runEnd = c;
      let count = 1;
      if (collapse) {
        const code = this.code[c];
        const synthetic = this.flags[c] & FLAG_SYNTHETIC;
        for (let n = this.nextSibling[c]; n !== NONE; n = this.nextSibling[n]) {
          if (visible && !visible[n]) break;
          if (this.code[n] !== code || (this.flags[n] & FLAG_SYNTHETIC) !== synthetic) break;
          runEnd = n; count++;
        }
      }
      if (total >= offset && rows.length < limit) rows.push(count === 1 ? this.row(c, depth) : this.runRow(c, count, depth));
      total++;
      c = this.nextSibling[runEnd];
    }
    return { rows, total };
  }

  /** The calls of a ×N row (starting at its first node), paged. */
  runMembers(firstId: number, options: PageOptions = {}): ChildrenPage {
    const offset = Math.max(0, options.offset ?? 0);
    const limit = Math.max(0, options.limit ?? 200);
    const depth = this.depthOf(firstId);
    const code = this.code[firstId];
    const rows: CallRow[] = [];
    let total = 0;
    for (let n = firstId; n !== NONE && this.code[n] === code; n = this.nextSibling[n]) {
      if (total >= offset && rows.length < limit) rows.push(this.row(n, depth));
      total++;
    }
    return { rows, total };
  }

  private runRow(first: number, count: number, depth: number): CallRow {
    const row = this.row(first, depth);
    let dur: number | null = 0;
    let self: number | null = 0;
    let children = 0;
    let open = false;
    for (let n = first, i = 0; i < count; n = this.nextSibling[n], i++) {
      const d = this.durationOf(n);
      const s = this.selfTimeOf(n);
      if (d === null || s === null) { dur = null; self = null; open = true; }
      else if (dur !== null && self !== null) { dur += d; self += s; }
      children += this.childCount[n];
    }
    row.count = count; row.durationUs = dur; row.selfUs = self; row.childCount = children; row.open = open;
    return row;
  }

  /** Node ids to keep when filtering by function names: the matches and all their ancestors. */
  visibleSet(filter: readonly string[]): Uint8Array {
    const key = filter.join('\n');
    if (this.visibleCache?.key === key) return this.visibleCache.visible;
    const wanted = new Set(filter);
    const codeMatches = new Uint8Array(this.interner.size);
    for (let i = 0; i < codeMatches.length; i++) if (wanted.has(this.interner.fns[i])) codeMatches[i] = 1;
    const visible = new Uint8Array(this.count);
    for (let id = 0; id < this.count; id++) {
      if (!codeMatches[this.code[id]]) continue;
      for (let n = id; n !== NONE && !visible[n]; n = this.parent[n]) visible[n] = 1;
    }
    this.visibleCache = { key, visible };
    return visible;
  }

  /** Calls whose function name contains `query` (case-insensitive), in call order. */
  search(query: string, limit = 100): number[] {
    const q = query.toLowerCase();
    const codeMatches = new Uint8Array(this.interner.size);
    let any = false;
    for (let i = 0; i < codeMatches.length; i++) if (this.interner.fns[i].toLowerCase().includes(q)) { codeMatches[i] = 1; any = true; }
    const out: number[] = [];
    if (!any) return out;
    for (let id = 0; id < this.count && out.length < limit; id++) if (codeMatches[this.code[id]]) out.push(id);
    return out;
  }

  /** The calls still open at the end of what was read, outermost first. */
  openStack(): Array<{ nodeId: number; fn: string; file: string; line: number; startUs: number }> {
    return Array.from(this.stackCode.subarray(0, this.depth), (code, i) => ({
      nodeId: this.stackNode[i], fn: this.interner.fns[code], file: this.interner.files[code],
      line: this.stackLine[i], startUs: this.stackStart[i],
    }));
  }

  /**
   * Guess the process role from the functions this thread ran: the EngineCore busy loop wins
   * (with TP=PP=1 the worker runs inside the engine-core process), then the worker loop, then
   * API-server code.
   */
  guessRole(): ProcessRole {
    const fns = this.interner.fns;
    const files = this.interner.files;
    let worker = false;
    let api = false;
    for (let i = 0; i < fns.length; i++) {
      const fn = fns[i];
      if (fn === 'run_busy_loop' || fn === 'run_engine_core' || /\/v1\/engine\/core\.py$/.test(files[i]) && fn.startsWith('EngineCore')) return 'engine-core';
      if (fn === 'worker_busy_loop' || fn === 'worker_main') worker = true;
      if (files[i].includes('/uvicorn/') || /\/serving[^/]*\.py$/.test(files[i]) || files[i].includes('/entrypoints/openai/')) api = true;
    }
    return worker ? 'worker' : api ? 'api-server' : 'unknown';
  }

  /** The subtree of `rootId` (NONE = the whole thread, root included otherwise) in call order, lazily. */
  *preorder(rootId: number): Generator<number> {
    let n: number;
    if (rootId === NONE) n = this.topFirst;
    else { yield rootId; n = this.firstChild[rootId]; }
    while (n !== NONE) {
      yield n;
      const fc = this.firstChild[n];
      if (fc !== NONE) { n = fc; continue; }
      // Climb until a node has a next sibling, never past the subtree root.
      for (;;) {
        const sib = this.nextSibling[n];
        if (sib !== NONE) { n = sib; break; }
        n = this.parent[n];
        if (n === NONE || n === rootId) { n = NONE; break; }
      }
    }
  }
}
