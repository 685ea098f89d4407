// The first lens of a log, as VS Code asks for it: it can ask as it hands the document over,
// before HopLens's read of it began. The lens provider then waits for the first slice (the top
// of the file) and answers with its lenses — the same ones a later ask gets — instead of an
// empty list that would cost a second ask after VS Code's debounce. And while a long log is
// still being read, providers hear of its first hop lines at once, not a second later.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EventEmitter, events, InMemoryDocument, InMemoryEditor, Range, Uri, window } from '../fakes/vscode';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { HopCodeLensProvider } from '../../../src/features/logs/hopCodeLens';
import { RecordSourceLocator } from '../../../src/core/source/locate';

const LOG_TEXT = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8');
const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) } as unknown as vscode.CancellationToken;

function open(text: string, name: string) {
  const info: string[] = [];
  const log = { trace() {}, debug() {}, info: (m: string) => { info.push(m); }, warn() {}, error() {} };
  const logs = new LogDocumentService({ log, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
  const provider = new HopCodeLensProvider(logs, new EventEmitter<void>().event as never, { firstRead: (d) => logs.firstRead(d), times: logs.times });
  const doc = new InMemoryDocument(Uri.file(`/logs/${name}`), text);
  window.visibleTextEditors = [new InMemoryEditor(doc, [new Range(0, 0, 40, 0)])];
  events.openDocument.fire(doc);
  return { logs, provider, doc, asDoc: doc as unknown as vscode.TextDocument, info };
}

const shown = (lenses: vscode.CodeLens[]) => lenses.map((l) => [l.range.start.line, l.command?.title, l.command?.command]);

test('asked as VS Code hands the log over (nothing read yet), the provider answers with the first lenses, as a later ask does', async () => {
  const { logs, provider, asDoc, info } = open(LOG_TEXT, 'vllm.log');
  assert.equal(logs.get(asDoc)!.session.records.length, 0, 'the read has not begun when VS Code asks');
  const first = await provider.registered().provideCodeLenses(asDoc, token) as vscode.CodeLens[];
  assert.ok(first.length > 0, 'the first answer lists lenses');
  await logs.settled(asDoc);
  assert.deepEqual(shown(first), shown(provider.provideCodeLenses(asDoc)));
  // HopLens's own share, in the output channel.
  assert.ok(info.some((m) => /^vllm\.log: VS Code handed over 25 lines at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z on the host's clock$/.test(m)), info.join('\n'));
  assert.ok(info.some((m) => /^vllm\.log: first hops read \d+ ms after VS Code handed it over \(\d+ lines read; the read began at \+\d+ ms\)$/.test(m)));
  assert.ok(info.some((m) => /^vllm\.log: first lens listed \d+ ms after VS Code handed it over \(VS Code asked 1 time\(s\), first at \+\d+ ms; /.test(m)));
  logs.dispose();
});

test('a long log still being read: providers hear of its first hop lines at once, and its first lenses are those of the whole read', async () => {
  // About 4 MB: many slices of reading.
  const lines = LOG_TEXT.split('\n').filter((l) => l.length > 0);
  const text = Array.from({ length: 1500 }, () => lines.join('\n')).join('\n') + '\n';
  const { logs, provider, asDoc } = open(text, 'big.log');
  let atFirstEvent: { parsed: number; lenses: vscode.CodeLens[] } | null = null;
  logs.onDidChange(() => {
    const s = logs.find(asDoc.uri)!.session;
    atFirstEvent ??= { parsed: s.records.length, lenses: provider.provideCodeLenses(asDoc) };
  });
  await logs.settled(asDoc);
  assert.ok(atFirstEvent, 'providers heard of the log');
  const first = atFirstEvent as { parsed: number; lenses: vscode.CodeLens[] };
  const all = logs.find(asDoc.uri)!.session.records.length;
  assert.ok(first.parsed < all / 10, `they heard after its first slice (${first.parsed} of ${all} lines read), not a second into the read`);
  assert.ok(first.lenses.length > 0);
  // What a lens shows (resolved) on the first screen is what it shows once everything is read.
  const resolved = (lenses: vscode.CodeLens[]) => shown(lenses.map((l) => provider.resolveCodeLens(l as never) as vscode.CodeLens));
  const done = new Map(resolved(provider.provideCodeLenses(asDoc)).map((l) => [`${l[0]} ${l[2]} ${l[1]}`, l]));
  // (the final answer covers the screen ± 1,000 lines: lenses past it are not asked for then)
  for (const l of resolved(first.lenses).filter((x) => (x[0] as number) <= 40 + 1000)) assert.deepEqual(done.get(`${l[0]} ${l[2]} ${l[1]}`), l);
  logs.dispose();
});

test('a big log: a provider called from the first progress event (the first slice just read) gets only the lenses around the screen', async () => {
  // Requests far apart (a quiet server: a blank line a second in a terminal capture), so the
  // first slice of 32 K characters reads hop lines well past the screen and its margin.
  const lines = LOG_TEXT.split('\n').filter((l) => l.length > 0);
  const unit = [...lines, ...Array.from({ length: 1100 }, () => '')].join('\n');
  const text = Array.from({ length: 60 }, () => unit).join('\n') + '\n';
  const { logs, provider, asDoc } = open(text, 'quiet.log');
  assert.ok(asDoc.lineCount > 5000, 'a log served by window');
  let atFirstEvent: { parsed: number; syncing: boolean; lines: number[] } | null = null;
  logs.onDidChange(() => {
    const s = logs.find(asDoc.uri)!.session;
    atFirstEvent ??= { parsed: s.records.length, syncing: s.syncing, lines: provider.provideCodeLenses(asDoc).map((l) => l.range.start.line) };
  });
  await logs.settled(asDoc);
  const first = atFirstEvent as { parsed: number; syncing: boolean; lines: number[] } | null;
  assert.ok(first, 'providers heard of the log');
  // The screen is lines 0–40: the window is those ± 1,000 lines; the first slice read past it.
  assert.ok(first.parsed > 1041 && first.parsed < asDoc.lineCount, `the first slice read ${first.parsed} of ${asDoc.lineCount} lines`);
  assert.ok(first.lines.length > 0);
  assert.deepEqual(first.lines.filter((l) => l > 40 + 1000), [], 'lenses past the window while the log is read');
  assert.ok(first.syncing, 'the session says it is reading');
  logs.dispose();
});

test('the read of a log begins at the event loop\'s next turn after VS Code hands it over: its top is read by then', async () => {
  const { logs, asDoc } = open(LOG_TEXT, 'vllm-turn.log');
  assert.equal(logs.get(asDoc)!.session.records.length, 0, 'nothing inside the hand-over\'s own task');
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.ok(logs.get(asDoc)!.session.records.length > 0, 'one turn later the first slice is read (the first lenses can be listed)');
  await logs.settled(asDoc);
});
