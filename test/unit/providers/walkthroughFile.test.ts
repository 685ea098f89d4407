// The walkthrough's "open the demo's log at a line" command, over an in-memory workspace: the
// file a relative path names in a workspace folder opens at its line; anything a command link
// could carry besides (absolute paths, `..`, URIs, other commands, odd lines) opens nothing and
// says why, with the text made inert.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { Uri } from '../fakes/vscode';
import { openWalkthroughFile, walkthroughTarget, type WalkthroughWorkspace } from '../../../src/features/walkthrough/openWalkthroughFile';

/** Workspace folders holding these files (absolute paths); what was shown and said. */
function workspace(folders: string[], files: string[]) {
  const shown: { path: string; line: number }[] = [];
  const warnings: string[] = [];
  const asked: string[] = [];
  const ws: WalkthroughWorkspace = {
    folders: () => folders.map((f) => Uri.file(f) as unknown as vscode.Uri),
    join: (root, segments) => Uri.joinPath(root as unknown as Uri, ...segments) as unknown as vscode.Uri,
    isFile: async (uri) => { asked.push(uri.path); return files.includes(uri.path); },
    inside: async () => true, // no symbolic links here (walkthroughSymlinks.test.ts has real ones)
    show: async (uri, line) => { shown.push({ path: uri.path, line }); },
    warn: (m) => { warnings.push(m); },
  };
  return { ws, shown, warnings, asked };
}

const DEMO = '/tmp/hoplens-demo-x1';

test('the demo log opens at the Added line the step names, and at its top without a line', async () => {
  const w = workspace([DEMO], [`${DEMO}/logs/vllm.log`]);
  const opened = await openWalkthroughFile(w.ws, 'logs/vllm.log', 11);
  assert.equal(opened?.path, `${DEMO}/logs/vllm.log`);
  await openWalkthroughFile(w.ws, 'logs/vllm.log', undefined);
  assert.deepEqual(w.shown, [{ path: `${DEMO}/logs/vllm.log`, line: 11 }, { path: `${DEMO}/logs/vllm.log`, line: 1 }]);
  assert.deepEqual(w.warnings, []);
});

test('in a multi-root workspace, the first folder that has the file', async () => {
  const w = workspace(['/work/a', DEMO], [`${DEMO}/logs/vllm.log`]);
  await openWalkthroughFile(w.ws, 'logs/vllm.log', 3);
  assert.deepEqual(w.shown, [{ path: `${DEMO}/logs/vllm.log`, line: 3 }]);
  assert.deepEqual(w.asked, ['/work/a/logs/vllm.log', `${DEMO}/logs/vllm.log`]);
});

test('a path that is not relative inside the workspace opens nothing and looks nothing up', async () => {
  const refused: unknown[] = [
    '/etc/passwd', '../outside.log', 'logs/../../etc/passwd', './logs/vllm.log', 'logs//vllm.log', 'logs/', '', 'logs\\..\\x.log',
    'C:\\logs\\vllm.log', 'c:/logs/vllm.log', 'file:///etc/passwd', 'command:workbench.action.terminal.new', 'https://127.0.0.1/x.log',
    'logs/vllm.log\n', 'logs/\u0000vllm.log', 'x'.repeat(1025), 42, null, undefined, { path: 'logs/vllm.log' }, ['logs/vllm.log'],
  ];
  for (const path of refused) {
    const w = workspace([DEMO], [`${DEMO}/logs/vllm.log`, '/etc/passwd', `${DEMO}/logs/x.log`]);
    assert.equal(await openWalkthroughFile(w.ws, path, 1), undefined, JSON.stringify(path));
    assert.deepEqual(w.shown, [], JSON.stringify(path));
    assert.deepEqual(w.asked, [], `${JSON.stringify(path)} is never looked up`);
    assert.equal(w.warnings.length, 1);
    assert.match(w.warnings[0], /^HopLens: the walkthrough opens a file of the workspace by its relative path \(like logs\/vllm\.log\), not /);
  }
});

test('a line that is not a whole number from 1 opens nothing and says what it was', async () => {
  for (const line of [0, -1, 1.5, '11', Number.NaN, Number.POSITIVE_INFINITY, 1e9, null, [11]]) {
    const w = workspace([DEMO], [`${DEMO}/logs/vllm.log`]);
    assert.equal(await openWalkthroughFile(w.ws, 'logs/vllm.log', line), undefined, String(line));
    assert.deepEqual(w.shown, []);
    assert.match(w.warnings[0] ?? '', /^HopLens: the walkthrough's line for logs\/vllm\.log is .+; a line is a whole number from 1\.$/, String(line));
  }
});

test('outside the demo: no such file, or no folder open, is said with what to do', async () => {
  const missing = workspace(['/work/project'], ['/work/project/server.log']);
  assert.equal(await openWalkthroughFile(missing.ws, 'logs/vllm.log', 11), undefined);
  assert.deepEqual(missing.shown, []);
  assert.match(missing.warnings[0], /^HopLens: this workspace has no file logs\/vllm\.log\. The walkthrough's buttons use the demo's files \(npm run demo\)/);
  const none = workspace([], []);
  assert.equal(await openWalkthroughFile(none.ws, 'logs/vllm.log', 11), undefined);
  assert.match(none.warnings[0], /^HopLens: open a folder first/);
});

test('text from the link shows as it is written and never becomes a link of the message', async () => {
  const w = workspace([DEMO], []);
  await openWalkthroughFile(w.ws, 'logs/[run](command:workbench.action.terminal.new).log', 1);
  assert.equal(w.warnings.length, 1);
  assert.doesNotMatch(w.warnings[0], /\]\(command:/, 'a `[label](command:…)` from the argument stays inert');
  assert.match(w.warnings[0], /\[run\]\u200b\(command:workbench\.action\.terminal\.new\)\.log/);
  const bad = walkthroughTarget('[x](command:y)', '[z](command:w)');
  assert.ok('problem' in bad);
  assert.doesNotMatch(bad.problem, /\]\(command:/);
});
