// The call tree of one trace file (one process thread), built in one streaming pass.
// Every call is a row in column arrays (typed arrays, no object per event); children are a
// linked list (firstChild / nextSibling), so expanding a node costs O(its children).
import { rangesEqual, viewOf } from '../bytes';
import { CodeInterner, type CodeNames } from './interner';
import { CALL_TO, COLON, DIGIT_0, DIGIT_9, EVENT_CALL, FROM_WORD, ParsedLine, RETURN_FROM, SPACE, TimestampReader, digitsToEnd, parseCaller, parseTraceLine } from './lineFormat';
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

export class ThreadTrace {
  count = 0;
  private cap: number;
  private code: Int32Array; private defLine: Int32Array; private siteLine: Int32Array; private callerCode: Int32Array;
  private parent: Int32Array; private firstChild: Int32Array; private nextSibling: Int32Array; private childCount: Int32Array;
  private start: Float64Array; private end: Float64Array; private offset: Float64Array; private flags: Uint8Array;

  // The open calls, innermost last. `node` is NONE for calls past the node cap.
  private stackNode: number[] = [];
  private stackCode: number[] = [];
  private stackLast: number[] = [];
  private stackStart: number[] = [];
  private stackLine: number[] = [];

  /** Call prediction for repeating loops: code → the code called after it last time (same parent)… */
  private nextAfter = new Int32Array(64).fill(NONE);
  /** …and parent code → the code it called first last time. */
  private firstCallee = new Int32Array(64).fill(NONE);

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
      this.stackNode = state.stack.node; this.stackCode = state.stack.code; this.stackLast = state.stack.last;
      this.stackStart = state.stack.start; this.stackLine = state.stack.line;
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
      stack: { node: this.stackNode, code: this.stackCode, last: this.stackLast, start: this.stackStart, line: this.stackLine },
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
    let pos = from;
    const stats = this.stats;
    while (pos < to) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0 || nl >= to) break;
      let lineEnd = nl;
      if (lineEnd > pos && buf[lineEnd - 1] === 13) lineEnd--;
      stats.lines++;
      if (lineEnd > pos) this.readLine(buf, pos, lineEnd, fileOffset + (pos - from));
      pos = nl + 1;
    }
    const used = pos - from;
    this.consumed += used;
    stats.bytesRead = this.consumed;
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
    const tsEnd = this.ts.read(buf, s, e);
    if (tsEnd > 0 && buf[tsEnd] === SPACE) {
      const kind = buf[tsEnd + 1];
      if (kind === LETTER_R ? this.readReturnOfTop(buf, tsEnd, e) : kind === LETTER_C && this.readPredictedCall(buf, tsEnd, e, fileOffset)) return;
    }
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
    const depth = this.stackCode.length;
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

  /**
   * Fast path for the most common line: the return of the call on top of the stack. Checks the
   * expected "Return from <fn> in <file>:<digits>" in place, without scanning the line.
   * `tsEnd` is where the timestamp read by readLine ended.
   */
  private readReturnOfTop(buf: Buffer, tsEnd: number, e: number): boolean {
    const depth = this.stackCode.length;
    if (depth === 0) return false;
    const view = this.viewFor(buf);
    if (tsEnd + 1 + RETURN_FROM.length > e || !rangesEqual(view, tsEnd + 1, RETURN_FROM_VIEW, 0, RETURN_FROM.length)) return false;
    const top = this.stackCode[depth - 1];
    const ks = tsEnd + 1 + RETURN_FROM.length;
    const ke = ks + this.interner.keyLength(top);
    if (ke >= e || buf[ke] !== COLON || !this.interner.quickMatch(top, buf, ks, ke)) return false;
    let d = ke + 1;
    while (d < e && buf[d] >= DIGIT_0 && buf[d] <= DIGIT_9) d++;
    if (d === ke + 1 || (d < e && buf[d] !== SPACE)) return false;
    const t = this.ts.value;
    const stats = this.stats;
    if (!(t >= stats.firstTs)) stats.firstTs = t;
    if (!(t <= stats.lastTs)) stats.lastTs = t;
    stats.returns++;
    this.closeTop(t, false);
    return true;
  }

  /**
   * Fast path for a call in a repeating loop: the callee is predicted from what followed the
   * previous sibling last time (or what the parent called first), and the caller is the top of
   * the stack. Both are checked in place; anything unexpected falls back to the full parse.
   */
  private readPredictedCall(buf: Buffer, tsEnd: number, e: number, fileOffset: number): boolean {
    const depth = this.stackCode.length;
    if (depth === 0 || !this.sawCurrent) return false;
    const top = this.stackCode[depth - 1];
    const prevSibling = this.stackLast[depth - 1];
    const from = prevSibling !== NONE ? this.code[prevSibling] : top;
    if (from >= this.nextAfter.length) return false;
    const predicted = prevSibling !== NONE ? this.nextAfter[from] : this.firstCallee[from];
    if (predicted === NONE) return false;
    const view = this.viewFor(buf);
    if (tsEnd + 1 + CALL_TO.length > e || !rangesEqual(view, tsEnd + 1, CALL_TO_VIEW, 0, CALL_TO.length)) return false;
    const interner = this.interner;
    const ks = tsEnd + 1 + CALL_TO.length;
    const ke = ks + interner.keyLength(predicted);
    if (ke >= e || buf[ke] !== COLON || !interner.quickMatch(predicted, buf, ks, ke)) return false;
    let d = ke + 1;
    let line = 0;
    while (d < e && buf[d] >= DIGIT_0 && buf[d] <= DIGIT_9) { line = line * 10 + (buf[d] - DIGIT_0); d++; }
    if (d === ke + 1) return false;
    if (d + FROM_WORD.length > e || !rangesEqual(view, d, FROM_WORD_VIEW, 0, FROM_WORD.length)) return false;
    const cs = d + FROM_WORD.length;
    const colon = cs + interner.keyLength(top);
    if (colon >= e || buf[colon] !== COLON) return false;
    const site = digitsToEnd(buf, colon + 1, e);
    if (site < 0 || !interner.quickMatch(top, buf, cs, colon)) return false;
    const t = this.ts.value;
    const stats = this.stats;
    if (!(t >= stats.firstTs)) stats.firstTs = t;
    if (!(t <= stats.lastTs)) stats.lastTs = t;
    stats.calls++;
    this.pushCall(predicted, line, top, site, t, fileOffset);
    return true;
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
    const depth = this.stackCode.length;
    if (depth > 0) {
      if (this.interner.size > this.nextAfter.length) this.growPrediction();
      const prevSibling = this.stackLast[depth - 1];
      if (prevSibling !== NONE) this.nextAfter[this.code[prevSibling]] = code;
      else this.firstCallee[this.stackCode[depth - 1]] = code;
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
    this.stackNode.push(id); this.stackCode.push(code); this.stackLast.push(NONE); this.stackStart.push(t); this.stackLine.push(line);
    const d = depth + 1 + this.syntheticLevels;
    if (d > this.stats.maxDepth) this.stats.maxDepth = d;
  }

  private growPrediction(): void {
    const size = Math.max(this.interner.size, this.nextAfter.length * 2);
    const next = new Int32Array(size).fill(NONE); next.set(this.nextAfter); this.nextAfter = next;
    const first = new Int32Array(size).fill(NONE); first.set(this.firstCallee); this.firstCallee = first;
  }

  private closeTop(t: number, unterminated: boolean): void {
    const id = this.stackNode.pop()!;
    this.stackCode.pop(); this.stackLast.pop(); this.stackStart.pop(); this.stackLine.pop();
    if (id !== NONE) {
      this.end[id] = t;
      if (unterminated) this.flags[id] |= FLAG_UNTERMINATED;
    }
    if (unterminated) this.stats.unterminatedCalls++;
  }

  private popReturn(code: number, line: number, t: number): void {
    const depth = this.stackCode.length;
    if (depth > 0 && this.stackCode[depth - 1] === code) { this.closeTop(t, false); return; }
    const floor = Math.max(0, depth - RETURN_SEARCH_DEPTH);
    for (let k = depth - 2; k >= floor; k--) {
      if (this.stackCode[k] === code) {
        // The calls above k lost their return line (garbled or cut): close them here.
        this.stats.mismatchedReturns++;
        while (this.stackCode.length > k + 1) this.closeTop(t, true);
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
    return this.stackCode.map((code, i) => ({
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
