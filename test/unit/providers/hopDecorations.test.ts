// Hop decorations over a log of thousands of lines, through the in-memory `vscode` stand-in: what a
// scroll or an append shows on the visible lines is what a fresh update of the whole window shows,
// and the deltas agree with the tracker's own description of each request; the work an update does
// is bounded by the lines it marks anew, never by the document or the requests in it.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EventEmitter, InMemoryDocument, InMemoryEditor, Range, Uri, window } from '../fakes/vscode';
import { LogSession } from '../../../src/core/session/logSession';
import type { LogDocumentAnnotation, LogSessions } from '../../../src/features/logs/logDocuments';
import { HopDecorations } from '../../../src/features/logs/hopDecorations';

const FIXTURE = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8')
  .split('\n').filter((l) => l !== '' && !l.startsWith('#'));
const COPIES = 300;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The fixture's two requests again and again, each copy with its own ids and a minute of its own, as a long-running server prints them. */
function copy(k: number): string[] {
  const stamp = `${pad(10 + Math.floor(k / 60))}:${pad(k % 60)}:`;
  return FIXTURE.map((l) => l.replaceAll('myrun-0001', `myrun-${pad(k, 4)}`).replaceAll('5c1d8e0f2a9b', `5c1d8e${pad(k, 6)}`)
    .replaceAll('22:30:', stamp));
}
/** A request still streaming at the end of the log: its last hop's delta needs its first, thousands of lines up. */
const LATE = '(APIServer pid=2101) INFO 08-21 15:00:00 [request_logger.py:98] Generated response chatcmpl-myrun-0000 (streaming complete): '
  + "output: 'Hello! How can I help?', finish_reason: streaming_complete";
const TEXT = Array.from({ length: COPIES }, (_, k) => copy(k)).flat().join('\n') + '\n';

/** `parsed`: the text the session has read so far (all of it unless told). */
function openLog(text: string, parsed = text) {
  const doc = new InMemoryDocument(Uri.file('/logs/vllm.log'), text);
  const session = new LogSession({});
  session.syncTextNow(parsed);
  const entry: LogDocumentAnnotation = { uri: doc.uri as unknown as vscode.Uri, session, chars: text.length, noCodeLens: true };
  const sessions: LogSessions = { get: () => entry, find: () => entry, onDidChange: new EventEmitter<vscode.Uri>().event as never,
    onDidClose: new EventEmitter<vscode.Uri>().event as never };
  window.visibleTextEditors = [];
  return { doc, session, sessions };
}

type Shown = { line: number; text: string | undefined }[];

/** What an editor shows on lines `from`–`to`: the notes at line ends, and the hop column. */
function shown(editor: InMemoryEditor, from: number, to: number): { deltas: Shown; notes: Shown } {
  const [deltas, notes] = [...editor.decorations.values()];
  const pick = (ds: typeof deltas, side: 'after' | 'before') => ds.filter((d) => d.range.start.line >= from && d.range.start.line <= to)
    .map((d) => ({ line: d.range.start.line, text: d.renderOptions?.[side]?.contentText }));
  return { deltas: pick(deltas, 'after'), notes: pick(notes, 'before') };
}

/** A fresh HopDecorations on a fresh editor at the same place: the whole window decorated from nothing. */
function fresh(sessions: LogSessions, doc: InMemoryDocument, top: number, height: number): InMemoryEditor {
  const editor = new InMemoryEditor(doc, [new Range(top, 0, top + height, 0)]);
  const d = new HopDecorations(sessions);
  d.update(editor as unknown as vscode.TextEditor);
  d.dispose();
  return editor;
}

/** The delta text the tracker's whole description of each request gives, for each visible line with one hop on it. */
function described(session: LogSession, from: number, to: number): Shown {
  const out: Shown = [];
  for (let line = from; line <= to; line++) {
    const rec = session.record(line);
    if (!rec || rec.rid === null || rec.hop === null || rec.continuation || session.hopParts(line).length !== 1) continue;
    const hop = session.tracker.get(rec.rid)?.hops.find((h) => h.line === line + 1 && h.hop === rec.hop);
    if (hop) out.push({ line, text: `  ${hop.sincePrevious ? `Δ ${hop.sincePrevious.text} since previous hop` : 'first hop of this request'}` });
  }
  return out;
}

/** Hop entries of every request with a hop on lines `from`–`to`: what reading those requests' stamps may cost at most. */
function entriesOfRequestsOn(session: LogSession, from: number, to: number): number {
  const rids = new Set<string>();
  for (let line = from; line <= to; line++) {
    for (const part of session.hopParts(line)) { const rid = session.record(line, part)?.rid; if (rid) rids.add(rid); }
  }
  let n = 0;
  for (const rid of rids) session.tracker.forEachEntry(rid, () => { n++; });
  return n;
}

test('decorations: after scrolls and an append, the visible lines show what a fresh update shows, with the tracker\'s own deltas', () => {
  const { doc, session, sessions } = openLog(TEXT);
  const height = 40;
  const editor = new InMemoryEditor(doc, [new Range(0, 0, height, 0)]);
  const decorations = new HopDecorations(sessions);
  const check = (top: number, why: string) => {
    editor.visibleRanges = [new Range(top, 0, top + height, 0)];
    decorations.update(editor as unknown as vscode.TextEditor);
    const got = shown(editor, top, top + height);
    assert.deepEqual(got, shown(fresh(sessions, doc, top, height), top, top + height), why);
    assert.ok(got.deltas.length > 5 && got.notes.length === height + 1, `${why}: the lines are decorated (${got.deltas.length} notes)`);
    const single = new Set(described(session, top, top + height).map((d) => d.line));
    assert.deepEqual(got.deltas.filter((d) => single.has(d.line)), described(session, top, top + height), `${why}: deltas as the tracker describes them`);
  };
  check(0, 'first view');
  check(20, 'a small scroll, inside the margin');
  check(130, 'a scroll past half the margin');
  check(60, 'back up');
  check(2000, 'a jump to the middle');
  check(doc.lineCount - height - 1, 'the end');
  doc.setText(TEXT + LATE + '\n' + copy(COPIES).join('\n') + '\n');
  session.syncTextNow(doc.getText());
  check(doc.lineCount - height - 1, 'after lines are appended, the new end');
  const late = shown(editor, 0, doc.lineCount).deltas.find((d) => d.line === COPIES * FIXTURE.length);
  assert.match(late?.text ?? '', /^ {2}Δ ~\d+ s since previous hop$/, 'the appended hop of a request that began far up has its delta');
  decorations.dispose();
});

test('decorations: an update reads only the requests on the lines it marks anew, and a scroll inside the margin reads nothing', () => {
  const { doc, session, sessions } = openLog(TEXT);
  const height = 40;
  const editor = new InMemoryEditor(doc, [new Range(0, 0, height, 0)]);
  const decorations = new HopDecorations(sessions);
  let total = 0;
  for (const rid of session.tracker.rids()) session.tracker.forEachEntry(rid, () => { total++; });
  const scroll = (top: number) => {
    editor.visibleRanges = [new Range(top, 0, top + height, 0)];
    decorations.update(editor as unknown as vscode.TextEditor);
    return { ...decorations.work };
  };
  const first = scroll(2000);
  assert.equal(first.linesMarked, height + 1 + 2 * 200, 'the visible lines and a margin of 200 either side');
  assert.ok(first.entriesRead <= entriesOfRequestsOn(session, 1800, 2240), `${first.entriesRead} entries read for the window`);
  assert.ok(first.entriesRead < total / 5, `${first.entriesRead} of ${total} entries read: not the whole log`);
  assert.deepEqual(scroll(2030), { entriesRead: 0, linesMarked: 0 }, 'a scroll that stays well inside the margin costs nothing');
  const on = scroll(2150);
  assert.equal(on.linesMarked, 150, 'only the lines that came into the window are marked');
  assert.ok(on.entriesRead <= entriesOfRequestsOn(session, 2241, 2390), `${on.entriesRead} entries read for 150 new lines`);
  decorations.dispose();
});

test('decorations: lines parsed while the view stays put get their notes on the next update', () => {
  const half = TEXT.split('\n').slice(0, 2000).join('\n') + '\n';
  const { doc, session, sessions } = openLog(TEXT, half);
  const editor = new InMemoryEditor(doc, [new Range(1990, 0, 2030, 0)]);
  const decorations = new HopDecorations(sessions);
  decorations.update(editor as unknown as vscode.TextEditor);
  assert.deepEqual(shown(editor, 2000, 2030).deltas, [], 'nothing on lines not parsed yet');
  session.syncTextNow(TEXT);
  decorations.update(editor as unknown as vscode.TextEditor);
  const got = shown(editor, 1990, 2030);
  assert.ok(got.deltas.some((d) => d.line > 2000), 'the lines parsed since are decorated');
  assert.deepEqual(got, shown(fresh(sessions, doc, 1990, 40), 1990, 2030));
  decorations.dispose();
});
