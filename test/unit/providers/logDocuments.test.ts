// The open logs' sessions without a VS Code host: a document VS Code opens is read, an append
// is parsed alone, any other edit starts over, `settled` waits for the last edit, and closing
// the document ends its session.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EndOfLine, events, InMemoryDocument, Uri } from '../fakes/vscode';
import { LogDocumentService, type LogDocumentAnnotation } from '../../../src/features/logs/logDocuments';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { annotateText } from '../../../src/core/session/logSession';

const LINES = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8')
  .split('\n').filter((l) => l.startsWith('(APIServer'));
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function service(largeFileOptimizations = true) {
  return new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => largeFileOptimizations });
}

test('a log VS Code opens gets a session; appended lines are parsed alone; an edit that is no append starts over', async () => {
  const logs = service();
  const changed: string[] = [];
  logs.onDidChange((u) => changed.push(u.toString()));
  const doc = new InMemoryDocument(Uri.file('/logs/growing.log'), LINES.slice(0, 3).join('\n') + '\n');
  const asDoc = doc as unknown as vscode.TextDocument;
  events.openDocument.fire(doc);
  const first = (await logs.settled(asDoc))!;
  assert.equal(first.session.tracker.brief('chatcmpl-myrun-0001')?.hops.length, 2);
  assert.ok(changed.length >= 1, 'providers hear that the session changed');
  const generation = first.session.generation;
  const firstRecord = first.session.records[0];

  doc.setText(LINES.join('\n') + '\n');
  events.changeDocument.fire({ document: doc, contentChanges: [{}] });
  await logs.settled(asDoc);
  assert.equal(first.session.records.length, LINES.length);
  assert.equal(first.session.records[0], firstRecord, 'the lines read before were not parsed again');
  assert.equal(first.session.generation, generation);
  assert.equal(first.session.tracker.brief('cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0')?.hops.length, 4);

  doc.setText(LINES[1] + '\n'); // truncated: a restarted server overwrote the log
  events.changeDocument.fire({ document: doc, contentChanges: [{}] });
  await logs.settled(asDoc);
  assert.equal(first.session.generation, generation + 1);
  assert.equal(first.session.tracker.requestCount, 1);

  // Providers read: get() parses nothing on its own (the change event does).
  doc.setText(LINES.join('\n') + '\n');
  assert.equal(logs.get(asDoc), first);
  assert.equal(first.session.syncing, false);
  assert.equal(first.session.records.length, 1);
  await logs.settled(asDoc);
  assert.equal(first.session.records.length, LINES.length, 'settled() brings it up to date');

  const closed: string[] = [];
  logs.onDidClose((u) => closed.push(u.toString()));
  events.closeDocument.fire(doc);
  assert.deepEqual(closed, [doc.uri.toString()]);
  assert.equal(logs.find(doc.uri as unknown as vscode.Uri), undefined);
  logs.dispose();
});

test('only server logs get a session, unless the user asks to annotate a document', async () => {
  const logs = service();
  const notes = new InMemoryDocument(Uri.file('/notes/todo.md'), LINES.join('\n'));
  notes.languageId = 'markdown';
  const asDoc = notes as unknown as vscode.TextDocument;
  assert.equal(logs.get(asDoc), undefined);
  assert.ok(logs.force(asDoc));
  assert.ok((await logs.settled(asDoc))!.session.hasHops);
  const rotated = new InMemoryDocument(Uri.file('/logs/vllm.log.1'), '');
  rotated.languageId = 'plaintext';
  assert.ok(logs.get(rotated as unknown as vscode.TextDocument), 'a rotated log (vllm.log.1) is a log');
  logs.dispose();
});

test('a log over 300,000 lines with large-file optimisations on is marked: VS Code shows it no CodeLens', async () => {
  const text = Array.from({ length: 300_001 }, (_, i) => LINES[i % LINES.length]).join('\n');
  const big = new InMemoryDocument(Uri.file('/logs/big.log'), text);
  const withOptimisations = service(true);
  const on = await withOptimisations.settled(big as unknown as vscode.TextDocument);
  assert.equal(on!.noCodeLens, true);
  assert.equal(on!.chars, text.length);
  withOptimisations.dispose();
  const without = service(false);
  const off = await without.settled(new InMemoryDocument(Uri.file('/logs/big2.log'), text) as unknown as vscode.TextDocument);
  assert.equal(off!.noCodeLens, false);
  without.dispose();
});

test('vLLM\'s year-less stamps take the year of the file\'s last write, as on the command line: a log last written on 2 January has its 31 December lines in the year before', async () => {
  const line = '(APIServer pid=2101) INFO 12-31 23:59:58 [async_llm.py:439] Added request chatcmpl-newyear-0001-9e1f0c2d.';
  const january = new Date(2025, 0, 2, 9, 0, 0).getTime(); // the log was last written on 2 January 2025
  const logs = new LogDocumentService({
    log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true,
    referenceTime: (uri) => (uri.path === '/logs/newyear.log' ? january : undefined),
  });
  const doc = new InMemoryDocument(Uri.file('/logs/newyear.log'), line + '\n');
  events.openDocument.fire(doc);
  const ann = (await logs.settled(doc as unknown as vscode.TextDocument))!;
  const when = new Date(ann.session.records[0].time!);
  assert.deepEqual([when.getFullYear(), when.getMonth() + 1, when.getDate()], [2024, 12, 31]);
  logs.dispose();
});

/** An edit as VS Code reports it: the offset and length of the replaced text (in the text before the edit). */
function edit(doc: InMemoryDocument, from: number, to: number, insert: string): void {
  const before = doc.content;
  doc.setText(before.slice(0, from) + insert + before.slice(to));
  events.changeDocument.fire({ document: doc, contentChanges: [{ rangeOffset: from, rangeLength: to - from, text: insert }] });
}

async function freshRecords(text: string) {
  const logs = service();
  const ann = (await logs.settled(new InMemoryDocument(Uri.file('/logs/fresh.log'), text) as unknown as vscode.TextDocument))!;
  logs.dispose();
  return { records: ann.session.records, requests: ann.session.tracker.all() };
}

test('a growing log is read by ranges: never its whole text, after an append only the appended lines, the same records as a fresh open', async () => {
  const logs = service();
  const many = Array.from({ length: 400 }, (_, i) => LINES[i % LINES.length].replace('myrun-0001', `myrun-${1000 + Math.floor(i / LINES.length)}`));
  const doc = new InMemoryDocument(Uri.file('/logs/served.log'), many.slice(0, 300).join('\n') + '\n');
  const asDoc = doc as unknown as vscode.TextDocument;
  events.openDocument.fire(doc);
  const ann = (await logs.settled(asDoc))!;
  try { await appendsAndAnEdit(logs, doc, many, ann); } finally { logs.dispose(); }
});

async function appendsAndAnEdit(logs: LogDocumentService, doc: InMemoryDocument, many: string[], ann: LogDocumentAnnotation) {
  const asDoc = doc as unknown as vscode.TextDocument;
  assert.equal(ann.chars, doc.content.length, 'its size is known on first sight');
  doc.wholeTextReads = 0;
  for (const [from, to] of [[300, 340], [340, 400]]) {
    doc.rangeCharsRead = 0;
    const more = many.slice(from, to).join('\n') + '\n';
    edit(doc, doc.content.length, doc.content.length, more);
    await logs.settled(asDoc);
    assert.equal(doc.wholeTextReads, 0, 'the whole text is not asked for again');
    assert.ok(doc.rangeCharsRead <= 2 * more.length, `${doc.rangeCharsRead} characters read for ${more.length} appended`);
    assert.equal(ann.session.records.length, to);
    assert.deepEqual({ records: ann.session.records, requests: ann.session.tracker.all() }, await freshRecords(doc.content));
  }
  // An edit in the middle that keeps the length: a fresh open's records, not the old ones.
  const at = doc.content.indexOf('myrun-1003');
  edit(doc, at, at + 'myrun-1003'.length, 'myrun-7777');
  await logs.settled(asDoc);
  assert.deepEqual({ records: ann.session.records, requests: ann.session.tracker.all() }, await freshRecords(doc.content));
  assert.ok(ann.session.tracker.get('chatcmpl-myrun-7777'), 'the request under its new id is listed');
}

test('a log with CRLF line ends is read by ranges, slices ending between a \\r and its \\n, with the records of a whole read', async () => {
  const logs = service();
  // Enough lines for many 32 K slices; line lengths vary, so slice ends fall on every column, the \r\n among them.
  const many = Array.from({ length: 3000 }, (_, i) => LINES[i % LINES.length].replace('myrun-0001', `myrun-${100000 + i}`));
  const text = many.join('\r\n') + '\r\n';
  const doc = new InMemoryDocument(Uri.file('/logs/windows.log'), text);
  doc.eol = EndOfLine.CRLF;
  const asDoc = doc as unknown as vscode.TextDocument;
  events.openDocument.fire(doc);
  const ann = (await logs.settled(asDoc))!;
  assert.equal(doc.wholeTextReads, 0, 'the whole text is not asked for');
  assert.equal(ann.session.records.length, many.length, 'no line lost or doubled at a slice end');
  // The reference: the same text read whole (as before), line by line with its \r.
  const whole = annotateText(text, 'auto');
  assert.deepEqual(ann.session.records, whole.records);
  assert.deepEqual(ann.session.tracker.all(), whole.tracker.all());
  // An append is read alone.
  const more = LINES.map((l) => l.replace('myrun-0001', 'myrun-appended')).join('\r\n') + '\r\n';
  edit(doc, text.length, text.length, more);
  await logs.settled(asDoc);
  assert.equal(doc.wholeTextReads, 0);
  assert.deepEqual(ann.session.records, annotateText(text + more, 'auto').records);
  assert.ok(ann.session.tracker.get('chatcmpl-myrun-appended'));
  logs.dispose();
});

test('hundreds of edits before the session reads again (one in the middle among them): the records of a fresh open', async () => {
  const logs = service();
  const doc = new InMemoryDocument(Uri.file('/logs/burst.log'), LINES.join('\n') + '\n');
  const asDoc = doc as unknown as vscode.TextDocument;
  events.openDocument.fire(doc);
  const ann = (await logs.settled(asDoc))!;
  try {
    for (let i = 0; i < 400; i++) {
      const line = LINES[i % LINES.length].replace('myrun-0001', `myrun-${5000 + i}`) + '\n';
      if (i === 150) {
        const at = doc.content.indexOf('myrun-0001');
        edit(doc, at, at + 'myrun-0001'.length, 'myrun-0002'); // same length, early in the text
      } else edit(doc, doc.content.length, doc.content.length, line);
    }
    await logs.settled(asDoc);
    assert.deepEqual({ records: ann.session.records, requests: ann.session.tracker.all() }, await freshRecords(doc.content));
    assert.ok(ann.session.tracker.get('chatcmpl-myrun-0002'), 'the edit early in the text was seen');
  } finally { logs.dispose(); }
});
