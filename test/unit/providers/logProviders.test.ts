// The log providers without a VS Code host: lenses, links, hovers, decorations and the Requests
// tree over a real session of a real-shaped vLLM log, through the in-memory `vscode` stand-in.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { EventEmitter, InMemoryDocument, InMemoryEditor, Range, Uri, window } from '../fakes/vscode';
import { LogSession } from '../../../src/core/session/logSession';
import { RecordSourceLocator, type CheckoutResolver, type LocatedSource } from '../../../src/core/source/locate';
import type { LogDocumentAnnotation, LogSessions } from '../../../src/features/logs/logDocuments';
import { HopCodeLensProvider } from '../../../src/features/logs/hopCodeLens';
import { HopHoverProvider } from '../../../src/features/logs/hopHover';
import { HopDecorations } from '../../../src/features/logs/hopDecorations';
import { FileInfoLinkProvider } from '../../../src/features/logs/fileInfoLinks';
import { RequestsViewProvider, documentLogSource } from '../../../src/features/logs/requestsView';

const LOG_TEXT = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8');
const LOG = LOG_TEXT;
const ADDED_LINE = LOG.split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001-9e1f0c2d.'));

/** A checkout at another commit: every statement three lines further down. */
const movedCheckout: CheckoutResolver = {
  resolve: (q) => (q.hop === 'V2' ? { path: 'vllm/v1/engine/async_llm.py', line: 442, verified: true, drift: 3, method: 'statement-index' } : null),
  absolutePath: (loc) => `/checkouts/vllm/${loc.path}`,
  hasFile: () => true,
};

/** One open log: a document, its session, and the narrow LogSessions the providers read. */
function openLog(opts: { checkout?: CheckoutResolver | null; noCodeLens?: boolean; text?: string } = {}) {
  const LOG = opts.text ?? LOG_TEXT;
  const doc = new InMemoryDocument(Uri.file('/logs/vllm.log'), LOG);
  const session = new LogSession({ sources: new RecordSourceLocator({ ready: () => opts.checkout ?? null }) });
  session.syncTextNow(doc.getText());
  const entry: LogDocumentAnnotation = { uri: doc.uri as unknown as vscode.Uri, session, chars: LOG.length, noCodeLens: opts.noCodeLens ?? false };
  const changed = new EventEmitter<vscode.Uri>();
  const sessions: LogSessions = { get: () => entry, find: () => entry, onDidChange: changed.event as never,
    onDidClose: new EventEmitter<vscode.Uri>().event as never };
  const editor = new InMemoryEditor(doc, [new Range(0, 0, doc.lineCount - 1, 0)]);
  window.visibleTextEditors = [editor];
  return { doc, session, sessions, editor, asDoc: doc as unknown as vscode.TextDocument };
}

test('lenses: one per hop line, titled with hop, process and the pinned file (↗) when no checkout is open', () => {
  const { sessions, asDoc, session } = openLog();
  const lenses = new HopCodeLensProvider(sessions, new EventEmitter<void>().event as never).provideCodeLenses(asDoc)
    .filter((l) => l.command?.command !== 'hoplens.showRequestTimeline');
  const hopLines = session.records.filter((r) => r.hop !== null && !r.continuation).map((r) => r.line - 1);
  assert.deepEqual(lenses.map((l) => l.range.start.line), hopLines);
  const added = lenses.find((l) => l.range.start.line === ADDED_LINE)!;
  assert.equal(added.command?.title, 'hop 2 · api-server · v1/engine/async_llm.py:439 ↗');
  assert.equal(added.command?.command, 'hoplens.openSource');
  assert.match(added.command?.tooltip ?? '', /^Open https:\/\/github\.com\/vllm-project\/vllm\/blob\/[0-9a-f]{40}\/vllm\/v1\/engine\/async_llm\.py#L439 \(no local checkout\)$/);
});

test('lenses: Timeline once per request, on its first hop line, opening that request\'s timeline', () => {
  const { sessions, asDoc } = openLog();
  const provider = new HopCodeLensProvider(sessions, new EventEmitter<void>().event as never);
  const lenses = provider.provideCodeLenses(asDoc);
  const lines = LOG.split('\n');
  const timeline = lenses.filter((l) => l.command?.title === 'Timeline');
  assert.deepEqual(timeline.map((l) => [/\] (Received request \S+): params/.exec(lines[l.range.start.line])?.[1], l.command?.command, l.command?.arguments]), [
    ['Received request chatcmpl-myrun-0001', 'hoplens.showRequestTimeline', ['chatcmpl-myrun-0001']],
    ['Received request cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0', 'hoplens.showRequestTimeline', ['cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0']],
  ]);
  // Beside the line's hop lens, after it; resolving it changes nothing.
  const at = lenses.findIndex((l) => l === timeline[0]);
  assert.equal(lenses[at - 1].range.start.line, timeline[0].range.start.line);
  assert.match(lenses[at - 1].command?.title ?? '', /^hop 1 · /);
  assert.deepEqual(provider.resolveCodeLens(timeline[0]).command, timeline[0].command);
});

test('lenses: through a checkout at another commit, the moved line and its drift, opening the local file', () => {
  const { sessions, asDoc } = openLog({ checkout: movedCheckout });
  const lenses = new HopCodeLensProvider(sessions, new EventEmitter<void>().event as never).provideCodeLenses(asDoc);
  const added = lenses.find((l) => l.range.start.line === ADDED_LINE)!;
  assert.equal(added.command?.title, 'hop 2 · api-server · v1/engine/async_llm.py:442 (+3 lines)');
  assert.equal(added.command?.tooltip, 'Open /checkouts/vllm/vllm/v1/engine/async_llm.py:442');
});

test('lenses: a path the log printed shows as text, never as an icon or a link', () => {
  const text = 'INFO 06-03 10:00:00 [$(alert)/async_llm.py:439] Added request chatcmpl-x-1.\n';
  const { sessions, asDoc } = openLog({ text });
  const [lens] = new HopCodeLensProvider(sessions, new EventEmitter<void>().event as never).provideCodeLenses(asDoc);
  const title = lens.command?.title ?? '';
  assert.match(title, /^hop 2 · api-server · /);
  assert.doesNotMatch(title, /\$\(/, 'no `$(` left for the workbench to draw as an icon');
  assert.equal(title.replace(/\u200b/g, ''), 'hop 2 · api-server · $(alert)/async_llm.py:439 ↗', 'reads as printed');
});

/** Three records on one line, as a paste that lost its newlines shows them (vllm-project/vllm#34503's lines): no hop, hop 2, hop 7. */
const PASTED = ['(APIServer pid=7) INFO 08-21 22:30:05 [chat_utils.py:470] Detected the chat template content format to be \'string\'.',
  '(APIServer pid=7) INFO 08-21 22:30:06 [async_llm.py:439] Added request chatcmpl-g-0a1b2c3d. ',
  '(APIServer pid=7) INFO 08-21 22:30:06 [async_llm.py:623] Request chatcmpl-g aborted.'];
const PASTED_AT = [0, PASTED[0].length, PASTED[0].length + PASTED[1].length];

test('lenses: records pasted onto one line (a paste lost its newlines) get a lens each, opening their own statement', () => {
  const text = PASTED.join('') + '\n';
  const { sessions, asDoc, session } = openLog({ text });
  const lenses = new HopCodeLensProvider(sessions, new EventEmitter<void>().event as never).provideCodeLenses(asDoc);
  assert.deepEqual(lenses.map((l) => [l.range.start.line, l.command?.title]), [
    [0, 'hop 2 · api-server · v1/engine/async_llm.py:439 ↗'],
    // The pasted Added request is its request's first line here.
    [0, 'Timeline'],
    [0, 'hop 7 · api-server · v1/engine/async_llm.py:623 ↗'],
  ]);
  // A lens's click carries its line, its record on the line and the source it located (path, line, verified).
  const carried = (l: vscode.CodeLens) => {
    const [line, part, src] = (l.command?.arguments ?? []).slice(1) as [number?, number?, LocatedSource?];
    return line === undefined ? [] : [line, part, src?.location.path, src?.location.line, src?.location.verified];
  };
  assert.deepEqual(lenses.map(carried), [[0, 2, 'vllm/v1/engine/async_llm.py', 439, false], [], [0, 3, 'vllm/v1/engine/async_llm.py', 623, false]]);
  assert.equal(session.source(0, 3)?.location.line, 623);
});

test('hover: what the hop means, the flag that turns it on, the source and the request', () => {
  const { sessions, asDoc } = openLog({ checkout: movedCheckout });
  const hover = new HopHoverProvider(sessions).provideHover(asDoc, new vscode.Position(ADDED_LINE, 30))!;
  // As a reader sees it: the text appended as text comes back unescaped.
  const md = (hover.contents as unknown as { value: string }).value.replace(/\\([\\`*_{}[\]()#+\-.!<>])/g, '$1');
  assert.match(md, /\*\*HopLens · hop 2\*\* \(V2\) · api-server · INFO/);
  assert.match(md, /--enable-log-requests/);
  assert.match(md, /Checkout: v1/);
  assert.match(md, /verified: the logging call there matches this message/);
  assert.match(md, /Drift: the statement is \+3 lines from the line the server printed/);
  assert.match(md, /\[Open\]\(command:hoplens\.openSource\?/);
  assert.match(md, /Request: chatcmpl-myrun-0001 · \d+ hop lines/);
  // The request's timeline, one click away: the id as the command's one argument.
  const link = /\[Timeline\]\(command:hoplens\.showRequestTimeline\?([^)]*)\)/.exec((hover.contents as unknown as { value: string }).value);
  assert.ok(link, md);
  assert.deepEqual(JSON.parse(decodeURIComponent(link[1])), ['chatcmpl-myrun-0001']);
  assert.deepEqual((hover.contents as unknown as { isTrusted: { enabledCommands: string[] } }).isTrusted.enabledCommands, ['hoplens.openSource', 'hoplens.showRequestTimeline']);
});

test('hover: on records pasted onto one line, the one under the cursor, over its own columns', () => {
  const { sessions, asDoc } = openLog({ text: PASTED.join('') + '\n' });
  const hover = (column: number) => new HopHoverProvider(sessions).provideHover(asDoc, new vscode.Position(0, column));
  const text = (h: vscode.Hover | undefined) => ((h?.contents as unknown as { value: string }) ?? { value: '' }).value.replace(/\\([\\`*_{}[\]()#+\-.!<>])/g, '$1');
  const added = hover(PASTED_AT[1] + 60)!;
  assert.match(text(added), /\*\*HopLens · hop 2\*\* \(V2\)/);
  assert.match(text(added), /No local checkout: opens the pinned file on the public repository: v1\/engine\/async_llm\.py:439/);
  assert.deepEqual([added.range?.start.character, added.range?.end.character], [PASTED_AT[1], PASTED_AT[2]]);
  const aborted = hover(PASTED_AT[2] + 5)!;
  assert.match(text(aborted), /\*\*HopLens · hop 7\*\* \(V7\)/);
  assert.match(text(aborted), /async_llm\.py:623/);
  assert.deepEqual([aborted.range?.start.character, aborted.range?.end.character], [PASTED_AT[2], PASTED.join('').length]);
  // Its Open link opens the third record's statement.
  const open = /\[Open\]\(command:hoplens\.openSource\?([^)]*)\)/.exec((aborted.contents as unknown as { value: string }).value)!;
  assert.deepEqual(JSON.parse(decodeURIComponent(open[1])).slice(1), [0, 3]);
  // The first record is no hop, and without a checkout nothing names its statement.
  assert.equal(hover(PASTED_AT[0] + 5), undefined);
});

test('hover of a request whose id is a command link: the id reads as text, the only links are HopLens\'s own', () => {
  const rid = '[x](command:workbench.action.terminal.new)';
  const { sessions, asDoc } = openLog({ text: LOG.replaceAll('myrun-0001', rid) });
  const md = (new HopHoverProvider(sessions).provideHover(asDoc, new vscode.Position(ADDED_LINE, 30))!.contents as unknown as { value: string }).value;
  const targets = [...md.matchAll(/\]\((command:[^?)]*)/g)].map((m) => m[1]);
  assert.deepEqual(targets, ['command:hoplens.openSource', 'command:hoplens.showRequestTimeline']);
  const link = /\[Timeline\]\(command:hoplens\.showRequestTimeline\?([^)]*)\)/.exec(md)!;
  assert.deepEqual(JSON.parse(decodeURIComponent(link[1])), [`chatcmpl-${rid}`]);
  assert.ok(!/[()[\]]/.test(link[1]), 'the argument holds no bracket that could end the link');
});

test('decorations: the time since the previous hop at the end of each hop line, and the hop column where VS Code shows no lens', () => {
  const { sessions, editor } = openLog({ noCodeLens: true });
  const decorations = new HopDecorations(sessions);
  decorations.update(editor as unknown as vscode.TextEditor);
  const [deltas, notes] = [...editor.decorations.values()];
  const texts = deltas.map((d) => d.renderOptions?.after?.contentText.trim());
  assert.ok(texts.includes('first hop of this request'), texts.join(' | '));
  assert.ok(texts.includes('Δ ≤1 s since previous hop'), 'whole-second stamps say ≤1 s, not 0 ms');
  assert.equal(notes.length, editor.document.lineCount, 'every line gets the column, so the text stays aligned');
  assert.equal(notes[ADDED_LINE].renderOptions?.before?.contentText.trimEnd().replace(/\u00a0+$/, ''), 'hop 2');
  assert.match(notes[0].renderOptions?.before?.contentText ?? '', /^\u00a0+$/);
  decorations.dispose();
});

test('decorations: records pasted onto one line name each hop, in the column and in the note at the end', () => {
  const { sessions, editor } = openLog({ noCodeLens: true, text: PASTED.join('') + '\n' });
  const decorations = new HopDecorations(sessions);
  decorations.update(editor as unknown as vscode.TextEditor);
  const [deltas, notes] = [...editor.decorations.values()];
  assert.equal(notes[0].renderOptions?.before?.contentText.replace(/\u00a0+$/, ''), 'hops 2, 7');
  assert.deepEqual(deltas.map((d) => d.renderOptions?.after?.contentText.trim()), ['hop 2: first hop of this request · hop 7: Δ ≤1 s since previous hop']);
  decorations.dispose();
});

test('links: each record pasted onto one line links its own [file:line], opening its own statement', () => {
  const { sessions, asDoc, doc } = openLog({ text: PASTED.join('') + '\n' });
  const provider = new FileInfoLinkProvider(sessions);
  const links = provider.provideDocumentLinks(asDoc);
  assert.deepEqual(links.map((l) => doc.getText(l.range as unknown as Range)), ['chat_utils.py:470', 'async_llm.py:439', 'async_llm.py:623']);
  (vscode.workspace as unknown as { textDocuments: unknown[] }).textDocuments = [doc];
  assert.match(provider.resolveDocumentLink(links[2]).target?.toString() ?? '', /vllm\/v1\/engine\/async_llm\.py#L623$/);
  assert.match(provider.resolveDocumentLink(links[1]).target?.toString() ?? '', /vllm\/v1\/engine\/async_llm\.py#L439$/);
});

test('links: vLLM\'s own [file:line] bracket, and its target when VS Code resolves it', () => {
  const { sessions, asDoc, doc } = openLog();
  const provider = new FileInfoLinkProvider(sessions);
  const links = provider.provideDocumentLinks(asDoc);
  const added = links.find((l) => l.range.start.line === ADDED_LINE)!;
  assert.equal(doc.getText(added.range as unknown as Range), 'async_llm.py:439');
  (vscode.workspace as unknown as { textDocuments: unknown[] }).textDocuments = [doc];
  const resolved = provider.resolveDocumentLink(added);
  assert.equal(resolved.target?.scheme, 'https');
  assert.match(resolved.target?.toString() ?? '', /vllm\/v1\/engine\/async_llm\.py#L439$/);
});

test('the Requests tree: one row per request, its hops in order with deltas, then the hops it never printed', () => {
  const { session, doc } = openLog();
  const view = new RequestsViewProvider();
  view.setSource(documentLogSource(doc.uri as unknown as vscode.Uri, session));
  const rows = view.getChildren();
  const labels = rows.map((n) => String(view.getTreeItem(n).label));
  assert.deepEqual(labels, ['chatcmpl-myrun-0001', 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0']);
  const chat = view.getTreeItem(rows[0]);
  assert.match(String(chat.description), /^22:30:05 · \d+ hops/);
  // The server's wall clock as the log printed it: no zone is made up for it.
  assert.match(String(chat.tooltip), /\nfirst stamp \d{4}-08-21 22:30:05 \(server time, as the log printed it\)\n/);
  assert.doesNotMatch(`${chat.description} ${chat.tooltip}`, /UTC|Z\b|T22/);
  const children = view.getChildren(rows[0]).map((n) => view.getTreeItem(n));
  assert.match(String(children[0].label), /^hop 1 /);
  assert.match(String(children[1].label), /^hop 2 /);
  assert.ok(children.some((c) => String(c.description).includes('≤1 s')), 'deltas state whole-second resolution');
  assert.ok(children.some((c) => / not printed$/.test(String(c.label))), 'missing hops are listed');
  view.setFilter('5c1d8e0f');
  assert.deepEqual(view.getChildren().map((n) => String(view.getTreeItem(n).label)), ['cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10-0']);
  view.dispose();
});

test('the Requests tree shows a request\'s first time with the digits the log printed, milliseconds included', () => {
  const text = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'timeline', 'sglang-run', 'sgl.log'), 'utf8');
  const { session, doc } = openLog({ text });
  const view = new RequestsViewProvider();
  view.setSource(documentLogSource(doc.uri as unknown as vscode.Uri, session));
  const row = view.getChildren().find((n) => String(view.getTreeItem(n).label) === 'sg0006513270e269e0d37')!;
  const item = view.getTreeItem(row);
  const firstLine = text.split('\n')[Number(/first line (\d+)/.exec(String(item.tooltip))![1]) - 1];
  const printed = /^\[(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3})/.exec(firstLine)!;
  assert.equal(String(item.description).split(' · ')[0], printed[2]);
  assert.match(String(item.tooltip), new RegExp(`first stamp ${printed[1]} ${printed[2].replace('.', '\\.')} \\(server time`));
  view.dispose();
});

test('the Requests tree of a log with more than 1,000 requests lists the newest and says how to find the others', async () => {
  const lines = LOG.split('\n').filter((l) => l.startsWith('(APIServer'));
  const many: string[] = [];
  for (let r = 0; r < 600; r++) for (const l of lines) many.push(l.replace(/myrun-0001/g, `run-${r}`).replace(/5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10/g, `c${r}`));
  const session = new LogSession();
  session.syncTextNow(many.join('\n') + '\n');
  const view = new RequestsViewProvider();
  const revealed: unknown[] = [];
  view.attach({ reveal: async (n: unknown) => { revealed.push(n); }, message: undefined, description: undefined } as unknown as vscode.TreeView<never>);
  view.setSource(documentLogSource(Uri.file('/logs/many.log') as unknown as vscode.Uri, session));
  const rows = view.getChildren().map((n) => String(view.getTreeItem(n).label));
  assert.equal(rows.length, 1001);
  assert.equal(rows[0], 'Showing the last 1,000 of 1,200 requests; filter by id to find others.');
  assert.equal(rows[rows.length - 1], 'cmpl-c599-0');
  assert.equal(await view.reveal('chatcmpl-run-0'), true, 'an older request is revealed through the filter');
  assert.deepEqual(view.getChildren().map((n) => String(view.getTreeItem(n).label)), ['chatcmpl-run-0']);
  assert.equal(revealed.length, 1);
  view.setEngineTimingLookup((rid) => (rid === 'chatcmpl-run-0' ? { label: 'engine: e2e 812.0 ms', description: 'queue 1.2 ms · prefill 30.5 ms', tooltip: '' } : null));
  const [request] = view.getChildren();
  const first = view.getTreeItem(view.getChildren(request)[0]);
  assert.equal(first.label, 'engine: e2e 812.0 ms', 'the engine\'s own timing comes first under its request');
  assert.equal(first.command?.command, 'hoplens.showEngineTiming');
  view.dispose();
});

test('a Requests row\'s count agrees with its rows: hops, the lines that printed them, and the hops not printed apart', () => {
  const { session, doc } = openLog();
  const view = new RequestsViewProvider();
  view.setSource(documentLogSource(doc.uri as unknown as vscode.Uri, session));
  const row = view.getChildren()[0];
  const item = view.getTreeItem(row);
  const children = view.getChildren(row).map((n) => view.getTreeItem(n));
  const hopRows = children.filter((c) => /^hop \S+ /.test(String(c.label)) && !/ not printed$/.test(String(c.label)));
  const missingRows = children.filter((c) => / not printed$/.test(String(c.label)));
  const m = /· (\d+) hops?(?: in (\d+) lines)? /.exec(`${String(item.description)} `);
  assert.ok(m, String(item.description));
  assert.equal(Number(m[2] ?? m[1]), hopRows.length, `"${String(item.description)}" over ${hopRows.length} hop rows`);
  assert.ok(missingRows.length > 0);
  // The hops not printed are counted apart, as many as their rows.
  assert.equal(Number(/ · (\d+) not printed\b/.exec(String(item.description))?.[1]), missingRows.length, String(item.description));
  // Every row of the log: the count is the rows' (the same rule as the missing-hops summary).
  for (const r of view.getChildren()) {
    const d = String(view.getTreeItem(r).description);
    const rows = view.getChildren(r).filter((n) => / not printed$/.test(String(view.getTreeItem(n).label))).length;
    assert.equal(Number(/ · (\d+) not printed\b/.exec(d)?.[1] ?? 0), rows, d);
  }
  // Each hop id the row names is explained in its tooltip.
  const ids = /\nhops: (.*)/.exec(String(item.tooltip))![1].split(' → ');
  for (const id of new Set(ids)) assert.match(String(item.tooltip), new RegExp(`\\n  ${id}: \\S`), `${id} is explained: ${String(item.tooltip)}`);
  // A missing hop's reason is there in full.
  for (const c of missingRows) assert.ok(String(c.tooltip).startsWith(String(c.description)), String(c.tooltip));
  view.dispose();
});
