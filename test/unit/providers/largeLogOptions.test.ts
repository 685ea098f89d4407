// What to do about a log VS Code handles as a large file (the status bar item's command), without
// a VS Code host: the choices offered for each case, and what each choice does.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { asked, configUpdates, EventEmitter, executed, InMemoryDocument, messages, registered, replies, shownWith, Uri, workspace } from '../fakes/vscode';
import { registerLargeLogOptions } from '../../../src/features/logs/largeLogOptionsCommand';
import type { LargeLogState } from '../../../src/features/logs/largeLogNotice';

function setUp(state: LargeLogState | undefined) {
  const logs = { find: () => undefined, onDidClose: new EventEmitter<vscode.Uri>().event as never };
  const disposable = registerLargeLogOptions({ state }, logs);
  messages.length = 0;
  return { run: (...args: unknown[]) => registered.get('hoplens.largeLogOptions')!(...args), dispose: () => disposable.dispose() };
}

test('a log that is not large: nothing to choose, it gets its lenses', async () => {
  const t = setUp(undefined);
  await t.run(Uri.file('/logs/small.log'));
  assert.deepEqual(messages, [{ kind: 'info', text: 'HopLens: the active log gets its lenses as usual.' }]);
  t.dispose();
});

test('a log over 50 MiB: the one choice is the streamed view, which opens the log from disk', async () => {
  const uri = Uri.file('/logs/huge.log');
  const t = setUp({ kind: 'notHandedOver', uri: uri as unknown as vscode.Uri, bytes: 60 * 1048576 });
  replies.push((items: { label: string }[]) => items[0]);
  await t.run(uri.toString());
  const pick = asked[asked.length - 1];
  assert.deepEqual((pick.items as { label: string }[]).map((i) => i.label), ['$(book) Open in the streamed view']);
  assert.equal((pick.options as { placeHolder: string }).placeHolder, 'VS Code gives extensions no text over 50 MiB');
  const open = executed.find((c) => c.id === 'hoplens.openLargeLog')!;
  assert.equal(String(open.args[0]), uri.toString());
  t.dispose();
});

test('a log VS Code shows no CodeLens on: large-file optimisations off for log files of this user, said with what it costs, and the log reopened', async () => {
  const uri = Uri.file('/logs/vllm-21mib.log');
  const doc = new InMemoryDocument(uri, 'INFO 06-03 10:00:00 [async_llm.py:439] Added request chatcmpl-x-1.');
  workspace.textDocuments = [doc];
  const t = setUp({ kind: 'noCodeLens', uri: uri as unknown as vscode.Uri, chars: 22_020_096, lines: 310_000 });
  replies.push((items: { label: string }[]) => items[1]);
  await t.run();
  const items = asked[asked.length - 1].items as { label: string; detail: string }[];
  assert.equal(items[1].label, '$(eye) Show CodeLens: large-file optimisations off for log files for this user, and reopen this log');
  assert.match(items[1].detail, /^Sets "\[log\]": \{ "editor\.largeFileOptimizations": false \}\. VS Code then tokenizes, folds and wraps the whole file: more memory, slower to open\./);
  assert.deepEqual(configUpdates.map((u) => [u.section, u.key, u.value, u.target, u.overrideInLanguage]), [['editor', 'largeFileOptimizations', false, 1, true]]);
  assert.equal(shownWith[shownWith.length - 1].doc.uri.toString(), uri.toString(), 'the log opened again');
  workspace.textDocuments = [];
  t.dispose();
});
