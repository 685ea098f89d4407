// The call tree of one trace file (one process thread), built in one streaming pass.
// Every call is a row in column arrays (typed arrays, no object per event); children are a
// linked list (firstChild / nextSibling), so expanding a node costs O(its children).
import { CodeInterner, type CodeNames } from './interner';
import { EVENT_CALL, ParsedLine, TimestampReader, parseTraceLine } from './lineFormat';
import type { CallRow, ChildrenPage, PageOptions, ProcessRole, ThreadStats } from './types';

const FLAG_SYNTHETIC = 1;
const FLAG_UNTERMINATED = 2;
const NONE = -1;
/** How far down the stack a return may look for its call before it counts as unmatched. */
const RETURN_SEARCH_DEPTH = 64;
const GARBLED_SAMPLES = 5;
/** Default cap on stored calls per thread: ~57 bytes each, so 4 M ≈ 230 MB. Calls past it are counted. */
export const DEFAULT_MAX_NODES = 4_000_000;

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
      const cap = Math.max(1024, Math.min(this.maxNodes, Math.ceil((options.expectedCalls ?? 0) * 1.1)));
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
    const p = this.parsed;
    if (!parseTraceLine(buf, s, e, this.ts, p)) {
      this.noteGarbled(fileOffset, buf.toString('utf8', s, Math.min(e, s + 400)));
      return;
    }
    const stats = this.stats;
    if (p.hasCaller) { if (!this.sawCurrent) { this.sawCurrent = true; this.updateFormat(); } }
    else if (!this.sawLegacy) { this.sawLegacy = true; this.updateFormat(); }
    const t = p.tsUs;
    if (!(t >= stats.firstTs)) stats.firstTs = t;
    if (!(t <= stats.lastTs)) stats.lastTs = t;
    const code = this.interner.intern(buf, p.codeStart, p.fnEnd, p.codeEnd);
    if (p.event === EVENT_CALL) {
      stats.calls++;
      let caller = NONE;
      if (p.hasCaller && p.callerEnd > p.callerFnEnd + 4) caller = this.interner.intern(buf, p.callerStart, p.callerFnEnd, p.callerEnd);
      this.pushCall(code, p.line, caller, p.hasCaller ? p.callerLine : 0, t, fileOffset);
    } else {
      stats.returns++;
      this.popReturn(code, p.line, t);
    }
  }

  private updateFormat(): void {
    this.stats.format = this.sawCurrent && this.sawLegacy ? 'mixed' : this.sawCurrent ? 'current' : 'legacy';
  }

  private ensureCapacity(): boolean {
    if (this.count < this.cap) return true;
    if (this.count >= this.maxNodes) return false;
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

  depthOf(id: number): number {
    let d = 0;
    for (let p = this.parent[id]; p !== NONE; p = this.parent[p]) d++;
    return d;
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

  /**
   * Visits the subtree of `rootId` (NONE = the whole thread) in call order without recursion.
   * The visitor returns false to stop.
   */
  walk(rootId: number, visit: (id: number, depth: number) => boolean): void {
    let depth = 0;
    let n: number;
    if (rootId === NONE) { n = this.topFirst; }
    else { if (!visit(rootId, 0)) return; n = this.firstChild[rootId]; depth = 1; }
    while (n !== NONE) {
      if (!visit(n, depth)) return;
      const fc = this.firstChild[n];
      if (fc !== NONE) { n = fc; depth++; continue; }
      // Climb until a node has a next sibling, stopping at the subtree root.
      for (;;) {
        const sib = this.nextSibling[n];
        if (sib !== NONE) { n = sib; break; }
        n = this.parent[n];
        depth--;
        if (n === NONE || n === rootId || depth <= 0 && rootId !== NONE) { n = NONE; break; }
      }
    }
  }
}
