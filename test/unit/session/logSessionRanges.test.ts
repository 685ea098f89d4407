// A session following a document read by ranges (an editor's 50 MB log): after an append only
// the appended text is read and the records are those of a fresh read of the whole text; an edit
// inside what was read (even one that keeps the length), a truncation or a reload start it over
// with the records a fresh open gives; and the first read of a big text is cut into slices that
// let other work of the caller's event loop run in between.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession, type SyncOptions, type TextRanges, type TextSnapshot } from '../../../src/core/session/logSession';

const REF = new Date(2025, 7, 22).getTime();
const FIXTURE = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8')
  .split('\n').filter((l) => l.startsWith('(APIServer')).join('\n') + '\n';

/** `copies` of the fixture's requests, each copy with ids of its own (a server that served many). */
function vllmLog(copies: number, first = 0): string {
  let out = '';
  for (let k = first; k < first + copies; k++) {
    out += FIXTURE.replaceAll('myrun-0001', `myrun-${String(k).padStart(6, '0')}`).replaceAll('5c1d8e0f2a9b4e6d', `${String(k).padStart(16, '0')}`);
  }
  return out;
}

/** A document in memory read by ranges, that remembers what was asked of it and which edits were made. */
class RangedDoc implements TextSnapshot {
  version = 1;
  wholeReads = 0;
  /** [from, to) of each range read. */
  reads: [number, number][] = [];
  private edits: { version: number; from: number }[] = [];
  readonly ranges: TextRanges;
  constructor(public text: string, knowsEdits = true) {
    this.ranges = {
      length: () => this.text.length,
      text: (from, to) => { this.reads.push([from, to]); return this.text.slice(from, to); },
      editedFrom: knowsEdits ? (since) => {
        const after = this.edits.filter((e) => e.version > since);
        return after.reduce((m, e) => Math.min(m, e.from), Infinity);
      } : undefined,
    };
  }
  getText(): string { this.wholeReads++; return this.text; }
  /** Replace [from, to) with `insert` (a new version). */
  edit(from: number, to: number, insert: string): void {
    this.text = this.text.slice(0, from) + insert + this.text.slice(to);
    this.version++;
    this.edits.push({ version: this.version, from });
  }
  append(more: string): void { this.edit(this.text.length, this.text.length, more); }
  forgetReads(): void { this.reads = []; this.wholeReads = 0; }
}

const QUICK: SyncOptions = { budgetMs: 1_000, sliceChars: 4096, completeLastLine: true, yieldTurn: async () => undefined };

/** What a user sees of a session: each line's record (its hop, request, time, source), and each request. */
function seen(s: LogSession) {
  return { records: s.records, requests: s.tracker.all(), engine: s.engine };
}

async function fresh(text: string) {
  const s = new LogSession({ referenceTime: REF });
  await s.settled(new RangedDoc(text), QUICK);
  return seen(s);
}

test('after an append only the appended text is read, and the records and requests are those of a fresh read', async () => {
  const doc = new RangedDoc(vllmLog(40));
  const s = new LogSession({ referenceTime: REF });
  await s.settled(doc, QUICK);
  assert.equal(doc.wholeReads, 0, 'the document\'s whole text is never asked for');
  const before = doc.text.length;
  const generation = s.generation;
  for (const k of [1, 2, 3]) {
    doc.forgetReads();
    doc.append(vllmLog(5, 100 * k));
    await s.settled(doc, QUICK);
    assert.equal(doc.wholeReads, 0);
    const lowest = Math.min(...doc.reads.map(([from]) => from));
    assert.ok(lowest >= before, `append ${k}: read from ${lowest}, the text before ${before} was read already`);
    const chars = doc.reads.reduce((n, [from, to]) => n + (to - from), 0);
    assert.ok(chars <= 2 * (doc.text.length - before), `append ${k}: ${chars} characters read for ${doc.text.length - before} appended`);
    assert.equal(s.generation, generation, 'the session did not start over');
    assert.deepEqual(seen(s), await fresh(doc.text));
  }
  assert.equal(s.tracker.requestCount, 2 * (40 + 15));
});

test('an edit inside what was read starts over with the records of a fresh open, even one that keeps the length', async () => {
  const doc = new RangedDoc(vllmLog(30));
  const s = new LogSession({ referenceTime: REF });
  await s.settled(doc, QUICK);
  // The user fixes a word in the middle: same length, same tail; the request's id changes.
  const at = doc.text.indexOf('myrun-000015');
  doc.edit(at, at + 'myrun-000015'.length, 'myrun-999915');
  await s.settled(doc, QUICK);
  assert.ok(s.tracker.get('chatcmpl-myrun-999915'), 'the request under its new id is listed');
  assert.deepEqual(seen(s), await fresh(doc.text));

  // A line deleted in the middle (shorter text), then a truncation, then a reload with other text.
  const line = doc.text.indexOf('(APIServer', doc.text.length / 2);
  doc.edit(line, doc.text.indexOf('\n', line) + 1, '');
  await s.settled(doc, QUICK);
  assert.deepEqual(seen(s), await fresh(doc.text));
  doc.edit(doc.text.length / 3, doc.text.length, '');
  await s.settled(doc, QUICK);
  assert.deepEqual(seen(s), await fresh(doc.text));
  doc.edit(0, doc.text.length, vllmLog(7, 500));
  await s.settled(doc, QUICK);
  assert.deepEqual(seen(s), await fresh(doc.text));
});

test('without edit offsets, an append is still read alone and a truncation still starts over (the last characters read are compared)', async () => {
  const doc = new RangedDoc(vllmLog(20), false);
  const s = new LogSession({ referenceTime: REF });
  await s.settled(doc, QUICK);
  const generation = s.generation;
  const before = doc.text.length;
  doc.forgetReads();
  doc.append(vllmLog(3, 900));
  await s.settled(doc, QUICK);
  assert.equal(s.generation, generation);
  assert.ok(Math.min(...doc.reads.map(([from]) => from)) >= before - 256, 'only the 256 characters before the append are read again');
  assert.deepEqual(seen(s), await fresh(doc.text));
  doc.edit(100, doc.text.length, '');
  await s.settled(doc, QUICK);
  assert.equal(s.generation, generation + 1);
  assert.deepEqual(seen(s), await fresh(doc.text));
});

test('a last line without a newline is shown as a line, and read again when the writer finishes it', async () => {
  const full = vllmLog(4);
  const cut = full.lastIndexOf('Engine 000:');
  const doc = new RangedDoc(full.slice(0, cut + 5));
  const s = new LogSession({ referenceTime: REF });
  await s.settled(doc, QUICK);
  assert.equal(s.records.length, full.slice(0, cut).split('\n').length, 'the unfinished line is a record');
  doc.append(full.slice(cut + 5));
  await s.settled(doc, QUICK);
  assert.deepEqual(seen(s), await fresh(doc.text));
  // The writer ends a line the session took as complete with its newline: an append like any other.
  const ended = new RangedDoc(full.slice(0, -1));
  const t = new LogSession({ referenceTime: REF });
  await t.settled(ended, QUICK);
  const generation = t.generation;
  ended.append('\n' + vllmLog(1, 77));
  await t.settled(ended, QUICK);
  assert.equal(t.generation, generation);
  assert.deepEqual(seen(t), await fresh(ended.text));
});

test('the first read of a big text lets the caller\'s other work run between its slices', async () => {
  const doc = new RangedDoc(vllmLog(2000)); // about 4 MB, 30,000 lines
  const s = new LogSession({ referenceTime: REF });
  const linesWhenTimerFired: number[] = [];
  const timer = setTimeout(() => linesWhenTimerFired.push(s.linesParsed), 0);
  const immediate = setImmediate(() => linesWhenTimerFired.push(s.linesParsed));
  await s.syncText(doc, { budgetMs: 10, sliceChars: 32 * 1024, completeLastLine: true });
  clearTimeout(timer); clearImmediate(immediate);
  const total = s.linesParsed;
  assert.equal(total, 30_000);
  assert.equal(linesWhenTimerFired.length, 2, 'a timer and an immediate set before the read ran during it');
  for (const n of linesWhenTimerFired) assert.ok(n < total, `another task ran at line ${n} of ${total}`);
  const longest = Math.max(...doc.reads.map(([from, to]) => to - from));
  assert.ok(longest <= 256 * 1024, `no read of over 256 K characters at once (longest ${longest})`);
  assert.equal(doc.wholeReads, 0);
});

/**
 * A document with CRLF line ends as VS Code's extension host serves it: offsets count two
 * characters a line end, and an offset between a \r and its \n is read as the one before the \r
 * (positionAt keeps a position inside its line), so a range may start or end there.
 */
class CrlfDoc extends RangedDoc {
  /** Slice ends asked for that stood between a \r and its \n. */
  between = 0;
  constructor(text: string, knowsEdits = true) {
    super(text, knowsEdits);
    const inner = this.ranges.text;
    const inside = (at: number) => at > 0 && this.text.charCodeAt(at - 1) === 13 && this.text.charCodeAt(at) === 10;
    (this.ranges as { text: TextRanges['text'] }).text = (from, to) => {
      if (inside(to)) this.between++;
      return inner(inside(from) ? from - 1 : from, inside(to) ? to - 1 : to);
    };
  }
}

const crlf = (lf: string) => lf.replaceAll('\n', '\r\n');

test('CRLF line ends read by ranges: slices that end between a \\r and its \\n give the records of a whole read', async () => {
  const text = crlf(vllmLog(30));
  const whole = new LogSession({ referenceTime: REF });
  await whole.settled({ version: 1, getText: () => text }, QUICK);
  let between = 0;
  for (let sliceChars = 1000; sliceChars < 1040; sliceChars++) {
    const doc = new CrlfDoc(text);
    const s = new LogSession({ referenceTime: REF });
    await s.settled(doc, { ...QUICK, sliceChars });
    between += doc.between;
    assert.equal(doc.wholeReads, 0);
    assert.deepEqual(seen(s), seen(whole), `slices of ${sliceChars}`);
  }
  assert.ok(between >= 10, `slice ends fell between a \\r and its \\n ${between} times`);
});

test('CRLF line ends, edits not known: an append whose probe of the last characters read starts between a \\r and its \\n is still an append', async () => {
  // The last line is 253 characters: 256 characters before the end stands the \n of the line end before it.
  const head = `(APIServer pid=1) INFO 08-22 10:00:00 [logger.py:1] `;
  const text = crlf(vllmLog(10)) + head + 'x'.repeat(253 - head.length) + '\r\n';
  assert.equal(text.slice(text.length - 257, text.length - 255), '\r\n');
  const doc = new CrlfDoc(text, false);
  const s = new LogSession({ referenceTime: REF });
  await s.settled(doc, QUICK);
  const generation = s.generation;
  doc.append(crlf(vllmLog(2, 300)));
  await s.settled(doc, QUICK);
  assert.equal(s.generation, generation, 'the session did not start over');
  const whole = new LogSession({ referenceTime: REF });
  await whole.settled({ version: 1, getText: () => doc.text }, QUICK);
  assert.deepEqual(seen(s), seen(whole));
});
