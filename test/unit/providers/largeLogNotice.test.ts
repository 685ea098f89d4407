// The status bar notice for logs VS Code handles as large files, without a VS Code host: a log
// tab over 50 MiB gets no text (the streamed view is offered); a log VS Code shows no CodeLens on
// says why, and what HopLens draws instead.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EventEmitter, events, statusItems, TabInputText, Uri, window } from '../fakes/vscode';
import { LargeLogNotice } from '../../../src/features/logs/largeLogNotice';
import type { LogDocumentAnnotation, LogSessions } from '../../../src/features/logs/logDocuments';
import { LogSession } from '../../../src/core/session/logSession';
import { makeTempDir } from '../../harness/tempDirs';

function sessions(entries: Map<string, LogDocumentAnnotation>): LogSessions {
  return {
    get: () => undefined, find: (uri) => entries.get(uri.toString()),
    onDidChange: new EventEmitter<vscode.Uri>().event as never, onDidClose: new EventEmitter<vscode.Uri>().event as never,
  };
}

async function activate(uri: Uri, notice: LargeLogNotice): Promise<void> {
  window.tabGroups.activeTabGroup.activeTab = { input: new TabInputText(uri) };
  events.tabs.fire({});
  for (let i = 0; i < 50 && notice.state?.uri.toString() !== uri.toString(); i++) await new Promise((r) => setTimeout(r, 10));
}

test('a log tab over 50 MiB: the status bar says HopLens has no text of it and offers the streamed view', async () => {
  const dir = makeTempDir('hoplens-notice-');
  try {
    const file = join(dir.path, 'huge.log');
    const fd = openSync(file, 'w');
    ftruncateSync(fd, 51 * 1024 * 1024); // sparse: the size is what counts
    closeSync(fd);
    const notice = new LargeLogNotice(sessions(new Map()));
    const item = statusItems[statusItems.length - 1];
    await activate(Uri.file(file), notice);
    assert.equal(notice.state?.kind, 'notHandedOver');
    assert.equal(item.text, '$(warning) HopLens: 51.0 MiB, not annotated');
    assert.equal(item.visible, true);
    assert.match((item.tooltip as { value: string }).value, /\[Open it in the streamed view\]\(command:hoplens\.openLargeLog\?/);
    notice.dispose();
  } finally { dir.remove(); }
});

test('a log VS Code shows no CodeLens on: the status bar says so and what HopLens draws instead', async () => {
  const uri = Uri.file('/logs/vllm-21mib.log');
  const entry: LogDocumentAnnotation = { uri: uri as unknown as vscode.Uri, session: new LogSession(), chars: 22_020_096, noCodeLens: true };
  const notice = new LargeLogNotice(sessions(new Map([[uri.toString(), entry]])));
  const item = statusItems[statusItems.length - 1];
  await activate(uri, notice);
  assert.equal(notice.state?.kind, 'noCodeLens');
  assert.equal(item.text, '$(info) HopLens: 21.0 MiB, no CodeLens');
  assert.match((item.tooltip as { value: string }).value, /HopLens writes what the lens would say at the start of each hop line instead/);
  window.tabGroups.activeTabGroup.activeTab = { input: new TabInputText(Uri.file('/logs/small.log')) };
  events.tabs.fire({});
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(notice.state, undefined);
  assert.equal(item.visible, false, 'a small log: nothing to say');
  notice.dispose();
});
