// One log, read once, downward: text or bytes → records (parseLine, or the byte fast path) →
// requests (RequestTracker) → for a line on screen, its hop (HopDef) and where its source is
// (an injected SourceLocator). The editor keeps one per open log, the streamed view of a large
// log one per file, `hoplens annotate` one per run, and a timeline across logs can hold several.
//
// A session grows by appends only: an edit that is not an append starts it over (`generation`
// changes). Text arrives from a document (syncText: only the new part is parsed, in slices of a
// time budget so the caller's thread is never blocked for long; a document read by ranges is
// never copied whole, and its edit offsets tell an append from any other edit) or as byte
// chunks (appendBytes: files, pipes, standard input).
import type { Engine, LogRecord } from '../logs/model';
import { createParseState, parseLine, primeState, type ParseState } from '../logs/parseLine';
import { RequestTracker } from '../logs/requests';
import { LineSplitter, type FastLineHandler } from '../logs/scanner';
import { lineParts, partAt, type LinePart } from '../logs/lineParts';
import { findHop, type HopDef } from '../../engines/index';
import type { LocatedSource, SourceLocator } from '../source/locate';
import { monotonicClock, type Clock } from '../clock';
import { SHARED_THREAD } from './pace';
import { SharedFields } from './sharedFields';

/** Text read ahead to prime the parser (see primeState). */
const PRIME_CHARS = 256 * 1024;
/** Characters of document text remembered to tell an append from any other edit. */
const TAIL_PROBE = 256;

export interface LogSessionOptions {
  engine?: Engine | 'auto';
  /** Epoch ms near the log's time (file mtime): the year of vLLM's year-less stamps. */
  referenceTime?: number;
  /** Keep every record (the editor, for its lines); false: only the requests (big files, the CLI). */
  keepRecords?: boolean;
  /** Keep batch lines as context of requests (default true). */
  keepContext?: boolean;
  /** Where sources are; null: the session answers no source. */
  sources?: SourceLocator | null;
  /** Sees each record the string parser makes, in order (the CLI prints them). */
  onRecord?: (rec: LogRecord) => void;
  /** A byte-level fast path for appendBytes (an engine's: src/engines/grammars.ts, fastPathFor); the lines it takes make no record. */
  fast?: (state: ParseState, tracker: RequestTracker) => FastLineHandler | null;
  /** appendBytes keeps the byte offset of every Nth line start (a power of two), to cut slices of big files. */
  offsetSampleEvery?: number;
  /** An identity for the caller (a document URI, a path): sessions of several logs side by side. */
  key?: string;
  /** The request index to fill (default a RequestTracker); a reader that keeps more per hop passes a subclass. */
  newTracker?: (forced: Engine | null, opts: { keepContext?: boolean }) => RequestTracker;
}

/** The document a session follows: its text and a version that changes with every edit. */
export interface TextSnapshot {
  readonly version: number;
  getText(): string;
  /**
   * Parts of the text without a copy of all of it. When given, syncText reads only what it has
   * not read, a slice per turn: asking a 50 MB document for its whole text again on each append
   * held the editor's extension host 115–272 ms (issue 28).
   */
  readonly ranges?: TextRanges;
}

/** A document's text read by character offsets (an editor document: its lines are joined only for the range asked). */
export interface TextRanges {
  /** Characters in the document now. */
  length(): number;
  /** Characters [from, to) of the document now. */
  text(from: number, to: number): string;
  /**
   * The lowest character offset edited after version `since` (offsets of the text of `since`):
   * Infinity when nothing was edited, undefined when not known. Known, an edit inside what was
   * read starts the session over even when it keeps the length; unknown, the session compares the
   * last characters it read (an edit that keeps length and tail goes unnoticed).
   */
  editedFrom?(since: number): number | undefined;
}

/** One version of a document as catchUp reads it: its length and its characters by offset. */
interface Reading {
  length: number;
  text(from: number, to: number): string;
}

export interface SyncOptions {
  /** Parsing per turn of the caller's event loop (default 25 ms). */
  budgetMs?: number;
  /** Characters parsed between two looks at the clock (default 128 K). */
  sliceChars?: number;
  /** A last line without a newline is taken as complete (the editor shows it); default: it waits. */
  completeLastLine?: boolean;
  /** Documents longer than this are not annotated (the session is left empty). */
  maxChars?: number;
  clock?: Clock;
  /** Gives the caller's event loop a turn between slices (default: setImmediate). */
  yieldTurn?: () => Promise<void>;
  /** Called while a long sync is under way, at most every `progressEveryMs` (default 1000). */
  onProgress?: () => void;
  progressEveryMs?: number;
}

export interface SyncReport {
  /** Lines parsed by this sync. */
  lines: number;
  /** Wall time of the sync and the part of it spent parsing (the rest was yielding). */
  wallMs: number;
  parseMs: number;
  /** The text was too long (maxChars): nothing is annotated. */
  tooLong: boolean;
}

/** A hop line on screen: its record, the hop table's entry, and where its source is. */
export interface ResolvedHop {
  record: LogRecord;
  def: HopDef;
  source: LocatedSource | null;
}

/** What a reader of a session may use (another extension, a timeline across logs): no writing. */
export type LogSessionView = Pick<LogSession, 'key' | 'engine' | 'records' | 'tracker' | 'generation' | 'parseMs' | 'linesParsed'
  | 'hasHops' | 'hopLines' | 'record' | 'hop' | 'source' | 'hopAt'>;

const nextTurn = SHARED_THREAD.turn;

export class LogSession {
  readonly key: string;
  records: LogRecord[] = [];
  tracker: RequestTracker;
  /** Changes each time the session starts over (an edit that is not an append, a truncated file). */
  generation = 0;
  /** Time spent parsing text on the caller's thread so far (syncText). */
  parseMs = 0;
  private state: ParseState;
  private pending = '';
  private lineNo = 0;
  private offset = 0;
  /** Characters of document text consumed so far, and the last few of them. */
  private consumed = 0;
  private tail = '';
  private splitter: LineSplitter | null = null;
  /** The parser learnt from the first bytes already (primeFrom). */
  private primed = false;
  private collected: LogRecord[] | null = null;
  /** The names kept records share (keepRecords). */
  private shared = new SharedFields();
  private readonly ridOf = (rid: string): string | undefined => this.tracker.storedId(rid);
  /** Document version whose text is (being) parsed (syncText). */
  private synced = -1;
  private running: Promise<SyncReport> | null = null;
  private closed = false;

  constructor(private readonly opts: LogSessionOptions = {}) {
    this.key = opts.key ?? '';
    this.state = createParseState({ engine: opts.engine ?? 'auto', referenceTime: opts.referenceTime });
    this.tracker = this.makeTracker();
  }

  private makeTracker(): RequestTracker {
    const opts = { keepContext: this.opts.keepContext };
    return this.opts.newTracker ? this.opts.newTracker(this.state.forced, opts) : new RequestTracker(this.state.forced, opts);
  }

  get engine(): Engine | null { return this.state.detected ?? this.state.forced; }
  /** Lines read so far (by either parser). */
  get linesParsed(): number { return this.splitter ? this.splitter.lineNo : this.lineNo; }
  get bytesParsed(): number { return this.splitter ? this.splitter.offset : this.offset; }
  /** The document version syncText read last (-1: none yet). */
  get syncedVersion(): number { return this.synced; }
  /** True while a syncText is parsing. */
  get syncing(): boolean { return this.running !== null; }
  /** Hop lines seen (every hop, also batch and startup lines). */
  get hopLines(): number {
    let n = 0;
    for (const c of this.tracker.counts.values()) n += c;
    return n;
  }
  get hasHops(): boolean { return this.tracker.counts.size > 0; }

  /** Forget everything read; the next text or bytes start from line 1. */
  reset(): void {
    this.state = createParseState({ engine: this.opts.engine ?? 'auto', referenceTime: this.opts.referenceTime });
    this.tracker = this.makeTracker();
    this.records = []; this.shared = new SharedFields(); this.pending = ''; this.lineNo = 0; this.offset = 0; this.consumed = 0; this.tail = '';
    this.splitter = null;
    this.primed = false;
    this.generation++;
  }

  /** The session will not be read again: a sync under way stops at its next slice. */
  close(): void { this.closed = true; }

  // ---- reading ------------------------------------------------------------------------------

  private take(text: string, truncated = false): LogRecord {
    const rec = parseLine(text, ++this.lineNo, this.offset, this.state);
    if (truncated) rec.truncated = true;
    this.offset += Buffer.byteLength(text) + 1;
    const keep = this.opts.keepRecords !== false;
    if (keep) this.records.push(rec);
    this.tracker.add(rec);
    this.opts.onRecord?.(rec);
    if (rec.glued) {
      // Records pasted onto the same line: each is a record of its own for requests and readers.
      for (const g of rec.glued) { this.tracker.add(g); this.opts.onRecord?.(g); if (keep) this.shared.share(g, this.ridOf); }
    }
    if (keep) this.shared.share(rec, this.ridOf);
    return rec;
  }

  /**
   * Parse appended text; returns the records of the lines it completed. `following`: text known to
   * come after it (the rest of a document parsed in slices), for a layout first seen partway; a
   * function is asked for at most that many characters, only when the parser looks ahead.
   */
  appendText(text: string, following: string | ((maxChars: number) => string) = ''): LogRecord[] {
    if (this.lineNo === 0 && this.pending === '') primeState(this.state, text.length > PRIME_CHARS ? text.slice(0, PRIME_CHARS) : text);
    const out: LogRecord[] = [];
    this.consumed += text.length;
    this.tail = text.length >= TAIL_PROBE ? text.slice(-TAIL_PROBE) : (this.tail + text).slice(-TAIL_PROBE);
    const data = this.pending + text;
    this.pending = '';
    let pos = 0;
    let next = 0;
    this.state.aheadEpoch++;
    this.state.ahead = (max) => {
      const own = data.slice(next, next + max);
      if (own.length >= max || !following) return own;
      return own + (typeof following === 'string' ? following.slice(0, max - own.length) : following(max - own.length));
    };
    for (;;) {
      const nl = data.indexOf('\n', pos);
      if (nl === -1) break;
      next = nl + 1;
      out.push(this.take(data.slice(pos, nl)));
      pos = nl + 1;
    }
    this.state.ahead = null;
    if (pos < data.length) this.pending = data.slice(pos);
    return out;
  }

  /**
   * Parse appended bytes (a file, a pipe); lines split by bytes, over-long lines parsed from their
   * start. Returns the records the string parser made (none when `collect` is false: the caller
   * reads them through onRecord); lines the fast path took make no record.
   */
  appendBytes(buf: Buffer, collect = true): LogRecord[] {
    if (!this.splitter) {
      if (this.lineNo === 0) this.primeFrom(buf);
      this.splitter = new LineSplitter((text, lineNo, offset, truncated) => {
        this.lineNo = lineNo - 1;
        this.offset = offset;
        const rec = this.take(text, truncated);
        if (this.collected !== null) this.collected.push(rec);
      }, { lineNo: this.lineNo, offset: this.offset }, this.opts.fast ? this.opts.fast(this.state, this.tracker) : null, this.opts.offsetSampleEvery ?? 0);
      const splitter = this.splitter;
      this.state.ahead = (max) => splitter.ahead(max);
    }
    const out: LogRecord[] = [];
    this.collected = collect ? out : null;
    this.state.aheadEpoch++;
    this.splitter.push(buf);
    this.collected = null;
    return out;
  }

  /**
   * Learn the engine and its layouts from the first bytes of the input (up to 256 K of them)
   * before any is parsed; appendBytes does it with the bytes it is first given, so a reader that
   * parses its first chunk in smaller slices gives the whole chunk here first. Once per input.
   */
  primeFrom(buf: Buffer): void {
    if (this.primed || this.lineNo !== 0 || this.splitter) return;
    this.primed = true;
    primeState(this.state, buf.toString('utf8', 0, Math.min(buf.length, PRIME_CHARS)));
  }

  /** The input ended: take a partial last line as a record. */
  end(): LogRecord[] {
    if (this.splitter) {
      const out: LogRecord[] = [];
      this.collected = out;
      this.splitter.end();
      this.collected = null;
      return out;
    }
    if (this.pending.length === 0) return [];
    const rec = this.take(this.pending);
    this.pending = '';
    return [rec];
  }

  /** Bytes after the last newline, waiting for it (appendBytes). */
  get pendingBytes(): number { return this.splitter?.pendingBytes ?? 0; }

  /** Byte offset of the start of 0-based line `index`, when it was sampled (offsetSampleEvery). */
  sampledOffset(sample: number): number | undefined { return this.splitter?.samples?.[sample]; }

  /** The sampled offsets from the `from`-th on (offsetSampleEvery), for a copy of the session elsewhere. */
  sampledOffsetsFrom(from: number): number[] { return this.splitter?.samples?.slice(from) ?? []; }

  /**
   * Bring the session up to date with a document's full text at once: parse only the appended
   * part when the text grew at the end, otherwise start over. A partial last line waits.
   */
  syncTextNow(fullText: string): { reset: boolean; added: LogRecord[] } {
    const grew = this.extends(fullText);
    if (!grew) this.reset();
    return { reset: !grew, added: this.appendText(fullText.slice(this.consumed)) };
  }

  private extends(text: string): boolean {
    return text.length >= this.consumed && text.startsWith(this.tail, this.consumed - this.tail.length);
  }

  /**
   * Bring the session up to date with `doc`, in slices of `budgetMs` of parsing with a turn of the
   * event loop between them; records parsed so far are readable meanwhile. One sync runs at a
   * time: a call while one runs joins it (it re-reads the document when its version moved).
   */
  syncText(doc: TextSnapshot, o: SyncOptions = {}): Promise<SyncReport> {
    if (this.running) return this.running;
    if (doc.version === this.synced) return Promise.resolve({ lines: 0, wallMs: 0, parseMs: 0, tooLong: false });
    // Running from its first slice on, which parses before catchUp first yields: a provider called
    // from that slice's progress event sees the read under way (and a call then joins it).
    let start!: (report: Promise<SyncReport>) => void;
    const run = new Promise<SyncReport>((resolve) => { start = resolve; }).finally(() => { this.running = null; });
    this.running = run;
    start(this.catchUp(doc, o));
    return run;
  }

  /** Resolves when every line of the document's current version is parsed. */
  async settled(doc: TextSnapshot, o: SyncOptions = {}): Promise<void> {
    while (!this.closed && (this.running || doc.version !== this.synced)) await this.syncText(doc, o);
  }

  private async catchUp(doc: TextSnapshot, o: SyncOptions): Promise<SyncReport> {
    const clock = o.clock ?? monotonicClock;
    const budget = o.budgetMs ?? 25;
    const sliceChars = o.sliceChars ?? 128 * 1024;
    const yieldTurn = o.yieldTurn ?? nextTurn;
    const started = clock.now();
    const parseBefore = this.parseMs;
    let lastEvent = started;
    let lines = 0;
    let tooLong = false;
    while (doc.version !== this.synced && !this.closed) {
      const since = this.synced;
      this.synced = doc.version;
      const reading = this.read(doc, o);
      if (reading === null) {
        if (this.consumed > 0 || this.records.length > 0) this.reset();
        tooLong = true;
        break;
      }
      if (!this.keeps(reading, since === -1 ? undefined : doc.ranges?.editedFrom?.(since))) this.reset();
      let pos = this.consumed;
      while (pos < reading.length && !this.closed) {
        const sliceStart = clock.now();
        while (pos < reading.length && clock.now() - sliceStart < budget) {
          const end = Math.min(reading.length, pos + sliceChars);
          const following = (max: number) => reading.text(end, Math.min(reading.length, end + max));
          lines += this.appendText(reading.text(pos, end), following).length;
          pos = end;
        }
        this.parseMs += clock.now() - sliceStart;
        if (pos < reading.length) {
          // Show what is parsed so far, but not after every slice: each event makes every
          // provider of the document run again.
          if (o.onProgress && clock.now() - lastEvent > (o.progressEveryMs ?? 1000)) { lastEvent = clock.now(); o.onProgress(); }
          await yieldTurn();
        }
        if (doc.version !== this.synced) break; // edited meanwhile: the outer loop re-reads
      }
    }
    return { lines, wallMs: clock.now() - started, parseMs: this.parseMs - parseBefore, tooLong };
  }

  /**
   * The document's current version as catchUp reads it, or null when it is too long (maxChars).
   * With ranges nothing is copied here: each slice is read when parsed (the version unchanged).
   */
  private read(doc: TextSnapshot, o: SyncOptions): Reading | null {
    const r = doc.ranges;
    if (!r) {
      let text = doc.getText();
      if (o.maxChars !== undefined && text.length > o.maxChars) return null;
      // The last line without a newline is still a line the user sees: take it as complete. If the
      // writer later continues that same line, the text no longer extends what was read, and the
      // session starts over, so nothing is mis-parsed.
      if (o.completeLastLine && text.length > 0 && !text.endsWith('\n')) text += '\n';
      return { length: text.length, text: (from, to) => text.slice(from, to) };
    }
    const length = r.length();
    if (o.maxChars !== undefined && length > o.maxChars) return null;
    // endsWith: in a document with CRLF line ends the last character's range starts before its \r.
    if (!o.completeLastLine || length === 0 || r.text(length - 1, length).endsWith('\n')) return { length, text: (from, to) => r.text(from, to) };
    // As above: a last line without a newline, read as if it had one.
    return { length: length + 1, text: (from, to) => (to > length ? r.text(from, length) + '\n' : r.text(from, to)) };
  }

  /**
   * Does `reading` start with the text read so far? `editedFrom`: the lowest offset edited since
   * (undefined: not known, the last characters read are compared).
   */
  private keeps(reading: Reading, editedFrom: number | undefined): boolean {
    if (reading.length < this.consumed) return false;
    const probeFrom = this.consumed - this.tail.length;
    if (editedFrom !== undefined && editedFrom >= this.consumed) return true;
    if (editedFrom !== undefined && editedFrom < probeFrom) return false;
    const probe = reading.text(probeFrom, this.consumed);
    // An offset between a \r and its \n reads from the \r (a document with CRLF line ends).
    return probe === this.tail || (probe.length === this.tail.length + 1 && probe.charCodeAt(0) === 13 && probe.endsWith(this.tail));
  }

  // ---- what a line is -------------------------------------------------------------------------

  /**
   * The record of a 0-based line, when records are kept and the line is parsed; with `part` > 1, the
   * record pasted onto that line in that place (LogRecord.glued).
   */
  record(line: number, part = 1): LogRecord | undefined {
    const rec = this.records[line];
    return part <= 1 || !rec ? rec : rec.glued?.[part - 2];
  }

  /** The records of a 0-based line with the columns each covers (`lineLength`: its text's length, no line break). */
  lineParts(line: number, lineLength: number): LinePart[] {
    const rec = this.records[line];
    return rec ? lineParts(rec, lineLength) : [];
  }

  /** The place (1, 2, …) on a 0-based line of the record under `column` (records pasted onto one line). */
  partAt(line: number, column: number): number {
    const rec = this.records[line];
    return rec ? partAt(rec, column) : 1;
  }

  /** The places (1, 2, …) of a 0-based line's records that are hops: one lens each. */
  hopParts(line: number): number[] {
    const rec = this.records[line];
    if (!rec) return [];
    const parts = rec.hop !== null && !rec.continuation && rec.engine !== 'other' ? [1] : [];
    rec.glued?.forEach((g, i) => { if (g.hop !== null && g.engine !== 'other') parts.push(i + 2); });
    return parts;
  }

  /** The hop table's entry of a 0-based line's hop (a continuation line is no hop of its own). */
  hop(line: number, part = 1): HopDef | undefined {
    const rec = this.record(line, part);
    return rec && rec.hop !== null && !rec.continuation && rec.engine !== 'other' ? findHop(rec.engine, rec.hop) : undefined;
  }

  /** Where a 0-based line's source is (any line a known emitter printed). */
  source(line: number, part = 1): LocatedSource | null {
    const rec = this.record(line, part);
    return rec && this.opts.sources ? this.opts.sources.locate(rec) : null;
  }

  /** The source of a 0-based line if it was located already (undefined: not yet; no search starts). */
  knownSource(line: number, part = 1): LocatedSource | null | undefined {
    const rec = this.record(line, part);
    if (!rec || !this.opts.sources) return null;
    return this.opts.sources.known ? this.opts.sources.known(rec) : undefined;
  }

  /** A hop line, resolved: record, hop and source (`part`: a record pasted onto the line). */
  hopAt(line: number, part = 1): ResolvedHop | undefined {
    const def = this.hop(line, part);
    return def ? { record: this.record(line, part)!, def, source: this.source(line, part) } : undefined;
  }
}

/** Parse a whole text at once (tests, benchmarks, small documents). */
export function annotateText(text: string, engine: Engine | 'auto' = 'auto', opts: { referenceTime?: number } = {}): LogSession {
  const s = new LogSession({ engine, referenceTime: opts.referenceTime });
  s.appendText(text);
  s.end();
  return s;
}
