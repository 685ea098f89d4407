// The log commands without a VS Code host: each adapts what the sessions and the locator
// answer into what the user gets (a clipboard, a warning, an opened source, a filtered view).
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { env, executed, InMemoryDocument, InMemoryEditor, messages, Selection, Uri, window, workspace, registered } from '../fakes/vscode';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { RecordSourceLocator, type LocatedSource } from '../../../src/core/source/locate';
import { RequestsViewProvider } from '../../../src/features/logs/requestsView';
import { registerLogCommands } from '../../../src/features/logs/logCommands';
import type { HopLensConfig } from '../../../src/config';

const LOG = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8');
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

function setUp(includePromptsAndOutputs = false) {
  const logs = new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
  const requests = new RequestsViewProvider();
  const openedSources: LocatedSource[] = [];
  const settings = { current: { export: { includePromptsAndOutputs } } as HopLensConfig };
  const notLarge = { get: () => undefined, reveal: async () => undefined, openFile: async () => undefined };
  const disposable = registerLogCommands({ logs, sources: { open: async (s) => { openedSources.push(s); } }, requests, largeLogs: notLarge, settings,
    log: quiet });
  const doc = new InMemoryDocument(Uri.file('/logs/vllm.log'), LOG);
  workspace.textDocuments = [doc];
  messages.length = 0;
  const run = (id: string, ...args: unknown[]) => registered.get(id)!(...args);
  return { logs, requests, openedSources, doc, run, dispose: () => { disposable.dispose(); logs.dispose(); requests.dispose(); } };
}

function cursorAt(doc: InMemoryDocument, needle: string): void {
  const line = LOG.split('\n').findIndex((l) => l.includes(needle));
  const editor = new InMemoryEditor(doc, []);
  editor.selection = new Selection(line, 0, line, 0);
  window.activeTextEditor = editor;
}

test('Export Hop Table: the request at the cursor as Markdown, on the clipboard, generated text redacted unless the setting keeps it', async () => {
  const t = setUp();
  cursorAt(t.doc, '(streaming complete)');
  const md = await t.run('hoplens.exportHopTable') as string;
  assert.match(md, /### Request `chatcmpl-myrun-0001`/);
  assert.match(md, /\| L\d+: `Added request chatcmpl-myrun-0001-9e1f0c2d\.` \| `vllm\/v1\/engine\/async_llm\.py:439` \| `APIServer` \|/);
  assert.ok(!md.includes('Hello! How can I help?'), 'generated text is redacted by default');
  assert.equal(await env.clipboard.readText(), md);
  t.dispose();
  const kept = setUp(true);
  cursorAt(kept.doc, '(streaming complete)');
  assert.ok((await kept.run('hoplens.exportHopTable') as string).includes('Hello! How can I help?'));
  kept.dispose();
});

test('Export Hop Table on a line of no request says where to put the cursor', async () => {
  const t = setUp();
  cursorAt(t.doc, 'CONSTRUCTED EXAMPLE');
  assert.equal(await t.run('hoplens.exportHopTable'), undefined);
  assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: put the cursor on a line of a request in a server log.' }]);
  t.dispose();
});

test('Open Source (from a lens, or the hover\'s link with a URI string) opens the located source; a line with none says so', async () => {
  const t = setUp();
  await t.logs.settled(t.doc as unknown as vscode.TextDocument);
  const added = LOG.split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001'));
  await t.run('hoplens.openSource', t.doc.uri.toString(), added);
  assert.equal(t.openedSources.length, 1);
  assert.deepEqual(t.openedSources[0].location, { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: false, drift: 0, method: 'hop-table' });
  assert.match(t.openedSources[0].url ?? '', /^https:\/\/github\.com\/vllm-project\/vllm\/blob\/[0-9a-f]{40}\/vllm\/v1\/engine\/async_llm\.py#L439$/);
  await t.run('hoplens.openSource', t.doc.uri, 0);
  assert.equal(t.openedSources.length, 1);
  assert.deepEqual(messages, [{ kind: 'warning', text: 'HopLens: no source is known for this line.' }]);
  t.dispose();
});

test('Open Source from a lens opens the source the lens carried, without asking the session for the line again', async () => {
  const t = setUp();
  await t.logs.settled(t.doc as unknown as vscode.TextDocument);
  // Line 0 has no source of its own: what opens is the one the lens located, path, line and verified as it said.
  const carried: LocatedSource = { engine: 'vllm', file: '/src/vllm/vllm/v1/engine/async_llm.py', url: null,
    location: { path: 'vllm/v1/engine/async_llm.py', line: 442, verified: true, drift: 3, method: 'exact' } };
  await t.run('hoplens.openSource', t.doc.uri, 0, 1, carried);
  assert.deepEqual(t.openedSources, [carried]);
  assert.deepEqual(messages, []);
  t.dispose();
});

test('opening a source from a log sets the key the walkthrough\'s lens step is done on; a line without one does not', async () => {
  const t = setUp();
  await t.logs.settled(t.doc as unknown as vscode.TextDocument);
  const keySet = () => executed.filter((c) => c.id === 'setContext' && c.args[0] === 'hoplens.sourceOpened' && c.args[1] === true).length;
  executed.length = 0;
  await t.run('hoplens.openSource', t.doc.uri, 0);
  assert.equal(keySet(), 0, 'no source opened: the step is not done');
  const carried: LocatedSource = { engine: 'vllm', file: '/src/vllm/vllm/v1/engine/async_llm.py', url: null,
    location: { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: true, drift: 0, method: 'exact' } };
  await t.run('hoplens.openSource', t.doc.uri, 0, 1, carried);
  assert.equal(keySet(), 1);
  t.dispose();
});

test('Annotate This Log: a document with no hops says so, and the Requests view shows it', async () => {
  const t = setUp();
  const notes = new InMemoryDocument(Uri.file('/notes/notes.txt'), 'just text\nno engine here\n');
  notes.languageId = 'plaintext';
  window.activeTextEditor = new InMemoryEditor(notes, []);
  await t.run('hoplens.annotateLog');
  assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: no hops found in notes.txt (2 lines, not a vLLM or SGLang log).' }]);
  assert.equal(t.requests.currentSource?.label, 'notes.txt');
  assert.ok(executed.some((c) => c.id === 'hoplens.requests.focus'));
  t.dispose();
});

test('Filter Requests by Id narrows the Requests view; Clear Request Filter widens it', async () => {
  const t = setUp();
  await t.run('hoplens.filterRequests', '  myrun  ');
  assert.equal(t.requests.currentFilter, 'myrun');
  await t.run('hoplens.clearRequestFilter');
  assert.equal(t.requests.currentFilter, '');
  t.dispose();
});
