// Line grammars: one physical line -> one LogRecord. Pure and synchronous; the hot path
// of both the editor and the CLI, so the engine's own header is tried first at the start of
// the line, and everything slower (outer wrappers, the header found further in, custom
// logging layouts) runs only for lines that did not start with it. The parts live beside it:
// parseState (what is known of the log), engineHeader (where a header stands), layouts (custom
// logging layouts), hopTagging (the hop and its ids), onOneLine (several records on one line),
// shapedGrammar (an engine whose profile gives its line shapes, not a grammar of its own). Each
// engine's own header grammar is in its folder (src/engines/<id>/grammar.ts): this file calls its
// hooks (EngineGrammar) through src/engines/grammars.ts and names no engine.
import { impossibleStampNote, stampProblem } from './civilTime';
import type { Engine, LogRecord, TimeResolution } from './model';
import { createParseState, LAYOUT_DATE_ANCHOR, newRecord, SEARCH_WINDOW, type ParseState } from './parseState';
import { matchHop, stopsInOpening } from '../../engines/index';
import { GRAMMARS, grammarOf, isPlainOutput } from '../../engines/grammars';
import { columnBeforeStrip, hasColour, stripColour } from './colour';
import { dropMarkdownClosers, stripWrapper, type OuterStamp } from './outerPrefix';
import { inBasicFormat, readLayoutHeader } from './pythonLayout';
import { hasPasteArtefacts, pastedLead, unpaste } from './pasted';
import { findHeader, parseEngine, unquoteRecord } from './engineHeader';
import { applyLayout, parseLayout } from './layouts';
import { joinWrapped, tagHop } from './hopTagging';
import { gluedAt, nextRecordAt, parseGlued } from './onOneLine';
import { anyShapedEngine, parseShaped } from './shapedGrammar';

export { inferYear } from './outerPrefix';
export { createParseState, processInfo, type ParseOptions, type ParseState, type ProcessInfo } from './parseState';
export { nextRecordAt } from './onOneLine';

// Ray's dedup count; the first one of a session adds a note on how to turn deduplication off.
const RAY_REPEATED = / \[repeated (\d+)x across cluster\](?: \(Ray deduplicates logs by default\.[^()]*\))?$/;
// Pod and container names are DNS labels: lower-case letters, digits, `-` and `.` (no quotes or
// braces, so an exporter's `{"message":"(APIServer pid=1) …` is not taken for them).
const W_STERN = /^[a-z0-9][a-z0-9.-]* [a-z0-9][a-z0-9.-]* /;

/** A stamp no calendar has (month 84, hour 25): the line keeps no time, and says why. */
function unknownTime(rec: LogRecord, header: string): void {
  rec.time = null; rec.timeResolution = null;
  const m = /(?:(\d{4})-)?(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(header);
  const problem = m ? stampProblem(m[1] ? Number(m[1]) : 2000, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) : null;
  rec.timeUnknown = impossibleStampNote(problem ?? 'a field out of range');
}

/**
 * Parse one physical line (without its `\n`; a trailing `\r` is allowed: a CRLF line ending,
 * or vLLM's multi-line marker in an LF file). Never throws; unknown lines come back as engine "other".
 */
export function parseLine(text: string, lineNo: number, offset: number, state: ParseState): LogRecord {
  let s = text;
  let marker = false;
  const n = s.length;
  if (n > 0 && s.charCodeAt(n - 1) === 13) {
    // CR CR LF is the marker after a tty turned its LF into CR LF (`docker logs` of a `-t` container).
    const double = n > 1 && s.charCodeAt(n - 2) === 13;
    s = s.slice(0, double ? n - 2 : n - 1);
    marker = double || state.sawBareLF;
  } else {
    state.sawBareLF = true;
  }
  let bom = 0;
  if (s.charCodeAt(0) === 0xfeff) { s = s.slice(1); bom = 1; } // a UTF-8 byte order mark
  // The text before each colour strip, to tell a glued record's column on the line as read.
  let coloured: string | null = null;
  let colouredAgain: string | null = null;
  if (s.indexOf('\x1b') !== -1) { coloured = s; s = stripColour(s); }
  let rec = newRecord(lineNo, offset, s);
  let matched = s.length > 0 && (parseEngine(s, rec, state) || (anyShapedEngine() && parseShaped(s, rec, state)));
  // Colour in its text forms (remnants, caret) is looked for only when the header did not parse:
  // a header that parsed had none, and most lines are such lines.
  if ((!matched || isPlainOutput(rec.format)) && hasColour(s)) {
    colouredAgain = s;
    s = stripColour(s);
    rec = newRecord(lineNo, offset, s);
    matched = s.length > 0 && parseEngine(s, rec, state);
  }
  // A paste from a web page (wide and zero-width spaces, markdown escapes, HTML entities), looked
  // for, as colour is, only when the header did not parse: the line as the program wrote it.
  // A line already read as a process's plain output keeps its text unless the header then parses.
  let unpasted = false;
  const asRead = s;
  if ((!matched || isPlainOutput(rec.format)) && hasPasteArtefacts(s)) {
    const t = unpaste(s);
    if (t !== s) {
      const probe = newRecord(lineNo, offset, t);
      const ok = t.length > 0 && parseEngine(t, probe, state);
      if (!matched || (ok && !isPlainOutput(probe.format))) { unpasted = true; s = t; rec = probe; matched = ok; }
    }
  }
  const stamp: { v: OuterStamp | null } = { v: null };
  let body = s;
  if (!matched && s.length > 0) {
    const found = readFurtherIn(s, rec, stamp, unpasted, asRead, state);
    if (typeof found !== 'string') { state.outerDate = null; return found; }
    body = found;
    matched = true;
  }
  if (!matched) { state.prevCR = false; return rec; }
  const done = finishRecord(rec, s, body, marker, stamp.v, unpasted, coloured, colouredAgain, bom, state);
  // A wrapper's date (outerPrefix.ts: dated) is this line's only.
  state.outerDate = null;
  return done;
}

/**
 * A line that did not start with an engine's header (`s`, colour and paste taken off): the header
 * behind wrappers, anywhere further in, quoted, in a custom layout, or in the shapes a paste or a
 * log platform leaves. Fills `rec` and returns the text from the header on (`stamp`: a wrapper's
 * own time); when no engine's header is found, the line's record as another program's.
 */
function readFurtherIn(s: string, rec: LogRecord, stamp: { v: OuterStamp | null }, unpasted: boolean, asRead: string, state: ParseState): string | LogRecord {
  let matched = false;
  const wrappers: string[] = [];
  let body = s;
  let quotedPrefix: string | null = null;
  // Known wrappers one by one, so their own timestamps are kept.
  for (let i = 0; i < 6 && !matched; i++) {
    const rest = stripWrapper(body, state, wrappers, stamp);
    if (rest === null) break;
    body = rest;
    matched = body.length > 0 && parseEngine(body, rec, state);
  }
  if (!matched) {
    // kubectl/stern print `<pod> <container> ` in front: only believe it if an engine line follows.
    const m = W_STERN.exec(body);
    if (m && parseEngine(body.slice(m[0].length), rec, state)) { matched = true; wrappers.push('kubectl'); body = body.slice(m[0].length); }
  }
  if (!matched) {
    // Anything else in front (markdown, pasted words, a progress bar, a time column of any
    // shape): the engine's header wherever it stands.
    const at = findHeader(body, rec, state);
    if (at > 0) {
      matched = true;
      const rest = body.slice(at);
      // The header right after a quote: the line is a JSON string or CSV field of an export.
      const quoted = body.charCodeAt(at - 1) === 34 ? unquoteRecord(body, at, rec, state) : null;
      if (quoted !== null) {
        wrappers.push(quoted.kind);
        quotedPrefix = s.endsWith(rest) ? s.slice(0, s.length - rest.length) : '';
        body = quoted.text;
      } else {
        body = rest;
      }
    }
  }
  if (!matched) {
    // A header that lost its opening (SGLang's `[`: its date may have looked like a wrapper's time column).
    const base = wrappers.includes('json') ? body : s;
    for (let i = 0; i < GRAMMARS.length && !matched; i++) {
      const at = GRAMMARS[i].lostHeaderAt?.(base, rec, state) ?? -1;
      if (at >= 0) {
        matched = true;
        body = base.slice(at);
        if (base === s) { wrappers.length = 0; stamp.v = null; state.outerDate = null; }
      }
    }
  }
  if (!matched) {
    // A custom logging layout: after the wrappers, or from the line's start (its own date may
    // have looked like a wrapper's), or after whatever stands in front of its date.
    if (body !== s && parseLayout(body, 0, rec, state)) matched = true;
    else if (inBasicFormat(body) && parseLayout(body, 0, rec, state)) matched = true;
    else {
      // A JSON envelope is no part of the line: search its log field only.
      const base = wrappers.includes('json') ? body : s;
      const window = base.length > SEARCH_WINDOW ? base.slice(0, SEARCH_WINDOW) : base;
      LAYOUT_DATE_ANCHOR.lastIndex = 0;
      for (let m = LAYOUT_DATE_ANCHOR.exec(window); m && !matched; m = LAYOUT_DATE_ANCHOR.exec(window)) {
        // A bracketed date (`[%(asctime)s %(levelname)s] %(message)s`) is read from its bracket.
        const at = m.index > 0 && base.charCodeAt(m.index - 1) === 91 /* [ */ ? m.index - 1 : m.index;
        if (parseLayout(base, at, rec, state)) {
          matched = true;
          body = base.slice(at);
          if (base === s) { wrappers.length = 0; stamp.v = null; state.outerDate = null; }
        }
      }
    }
  }
  for (let i = 0; i < GRAMMARS.length && !matched; i++) {
    // A header with its start taken off by a log platform (SGLang's `… INFO TP0] Prefill batch, …`), or
    // a message printed with none (SGLang's request logger in a release whose formatter was `%(message)s`).
    const at = GRAMMARS[i].headerlessAt?.(body, rec, state) ?? -1;
    if (at >= 0) { matched = true; body = body.slice(at); }
  }
  if (!matched) {
    // Unrecognised: keep the whole line (wrapper-stripped) as "other"; one that was no paste after all, as read.
    const r = newRecord(rec.line, rec.offset, unpasted ? asRead : wrappers.length ? body : s);
    if (stamp.v) { r.time = stamp.v.time; r.timeResolution = stamp.v.res; r.timeIsUtc = stamp.v.utc; }
    if (wrappers.length) r.wrappers = wrappers;
    state.prevCR = false;
    return r;
  }
  if (wrappers.length) rec.wrappers = wrappers;
  const prefix = quotedPrefix ?? (s.endsWith(body) ? s.slice(0, s.length - body.length) : '');
  if (prefix) {
    rec.prefix = prefix;
    // What the text in front says of the record (vLLM's process prefix that lost its `(`).
    grammarOf(rec.engine)?.fromPrefix?.(rec, prefix, state);
  }
  return body;
}

/**
 * A record whose header was read (`body`: the text from it on): its message tidied (pasted spaces,
 * markdown closers, padding, Ray's dedup count), records glued after it split off, a multi-line
 * record's continuation joined, its hop and request ids tagged.
 */
function finishRecord(
  rec: LogRecord, s: string, body: string, marker: boolean, outer: OuterStamp | null, unpasted: boolean,
  coloured: string | null, colouredAgain: string | null, bom: number, state: ParseState,
): LogRecord {

  const grammar = grammarOf(rec.engine);
  if (grammar?.layoutInMessage?.(rec) === true) {
    // `[date] [INFO] sglang.srt.managers.scheduler: …`: a logging config that kept SGLang's bracketed date.
    const h = readLayoutHeader(body, 0);
    if (h && h.msgStart > body.length - rec.message.length && (h.logger !== null || h.file !== null)) {
      applyLayout(rec, h, grammar.engine, body.slice(h.msgStart), state);
    }
  }

  // The outer stamp wins when it is finer (docker's nanoseconds beat vLLM's whole seconds).
  if (outer && (rec.timeResolution === null || RES_RANK[outer.res] > RES_RANK[rec.timeResolution])) {
    rec.time = outer.time; rec.timeResolution = outer.res; rec.timeIsUtc = outer.utc;
  }
  if (rec.time !== null && Number.isNaN(rec.time)) unknownTime(rec, body);
  if (rec.engine !== 'other' && state.detected === null && rec.format !== 'uvicorn' && !isPlainOutput(rec.format)) state.detected = rec.engine;

  // The header as printed (for multi-line records), before the message is tidied.
  const headerLength = body.length - rec.message.length;
  let msg = rec.message;
  // Only the spaces after the header were pasted wide (or a zero-width character came with them).
  const lead = msg.length > 0 && msg.charCodeAt(0) >= 0xa0 ? pastedLead(msg) : 0;
  if (lead > 0) { msg = unpaste(msg.slice(lead)); unpasted = true; }
  if (rec.prefix !== undefined) msg = dropMarkdownClosers(msg, rec.prefix);
  // Terminal padding after a pasted line is no part of the message.
  const last = msg.charCodeAt(msg.length - 1);
  if (last === 32 || last === 9) msg = msg.trimEnd();
  const end = msg.charCodeAt(msg.length - 1);
  if (msg.length > 28 && ((end === 93 && msg.endsWith(' across cluster]')) || (end === 41 && msg.endsWith(' for more options.)')))) {
    const r = RAY_REPEATED.exec(msg);
    if (r) { rec.repeated = Number(r[1]); msg = msg.slice(0, r.index); }
  }
  // Several records on one line (a paste lost its newlines): this record ends where the next header starts.
  let gluedRest: string | null = null;
  let gluedColumn = -1;
  if (msg.length > 24 && rec.engine !== 'other') {
    const at = gluedAt(msg, rec, state);
    if (at > 0) {
      gluedRest = msg.slice(at);
      // Where it stands on the line as read: the message's place in the parsed text (markdown
      // closers come off its ends only), then back through the colour strips and the BOM.
      const whole = rec.message;
      if (s.endsWith(whole) && !unpasted) {
        let column = s.length - whole.length + whole.indexOf(msg) + at;
        if (colouredAgain !== null) column = columnBeforeStrip(colouredAgain, column);
        if (coloured !== null) column = columnBeforeStrip(coloured, column);
        gluedColumn = column + bom;
      }
      msg = msg.slice(0, at).trimEnd();
    }
  }
  rec.message = msg;

  // A multi-line record (vLLM's): continuation lines repeat the header after the marker.
  if (state.prevCR && grammarOf(rec.engine)?.repeatsHeader === true && rec.fileinfo !== null
    && headerLength === state.prevHeader.length && body.startsWith(state.prevHeader)) {
    rec.continuation = true;
    rec.rid = state.prevRid;
    state.prevCR = marker;
    return rec;
  }

  // The line may go on on the next one (a paste wrapped it): it stops inside a hop's opening
  // words, fits its hop only cut short, or ends with the id itself (no closing `.`, `'`, `:`).
  let mayWrap = false;
  if (rec.engine !== 'other' && rec.hop === null) {
    const hm = matchHop(rec.engine, msg, rec.fileinfo, rec.format, nextRecordAt);
    // uvicorn's access line cut inside its quoted request line: `… - "POST /v1/chat/completions HTTP/1.`
    if (hm === null) mayWrap = rec.format === 'uvicorn' ? msg.indexOf('"') >= 0 : stopsInOpening(rec.engine, msg, rec.fileinfo);
    else mayWrap = hm.cut === true;
    if (hm) {
      const hop = hm.hop;
      grammarOf(rec.engine)?.retag?.(rec, hop);
      const raw = tagHop(rec, hm);
      if (raw && msg.endsWith(raw)) mayWrap = true;
    }
  }
  if (mayWrap && state.ahead !== null && gluedRest === null) joinWrapped(rec, msg, state);
  if (marker) {
    state.prevHeader = body.slice(0, headerLength);
    state.prevRid = rec.rid;
  }
  state.prevCR = marker;
  if (gluedRest !== null) parseGlued(rec, gluedRest, gluedColumn, state, marker);
  return rec;
}

const RES_RANK: Record<TimeResolution, number> = { s: 0, ms: 1, us: 2, ns: 3 };

/** Parses up to `maxLines` lines of `sample` into `probe`, stopping after the line that makes `done` true; the lines parsed. */
export function parseSample(sample: string, maxLines: number, probe: ParseState, done: () => boolean): number {
  let pos = 0;
  let n = 0;
  while (n < maxLines && pos < sample.length) {
    let nl = sample.indexOf('\n', pos);
    if (nl < 0) nl = sample.length;
    parseLine(sample.slice(pos, nl), ++n, pos, probe);
    pos = nl + 1;
    if (done()) break;
  }
  return n;
}

/**
 * Learn from the first lines of a log what a later line may be the first to show: the engine,
 * and which custom logging layouts are the engine's (a start-up line in a layout that only a
 * hop line further down proves). The lines themselves are parsed again afterwards.
 */
export function primeState(state: ParseState, sample: string, maxLines = 2000): void {
  const probe = createParseState({ engine: state.forced ?? 'auto' });
  // Nothing left to learn: the engine is known and no line used a layout not yet shown to be its.
  parseSample(sample, maxLines, probe, () => (probe.detected !== null || probe.forced !== null) && probe.unknownLayouts === 0);
  if (state.detected === null) state.detected = probe.detected;
  for (const [layout, engine] of probe.layouts) if (!state.layouts.has(layout)) state.layouts.set(layout, engine);
}

/** Engine from the first recognisable lines of a text (for `--engine auto`). */
export function detectEngine(lines: Iterable<string>, maxLines = 2000): Engine | null {
  const st = createParseState();
  let n = 0;
  for (const l of lines) {
    parseLine(l, ++n, 0, st);
    if (st.detected) return st.detected;
    if (n >= maxLines) break;
  }
  return null;
}
