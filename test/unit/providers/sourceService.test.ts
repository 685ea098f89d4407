// The editor's side of source lookup without a VS Code host: the checkout the settings name is
// opened once and lines resolve into it; a source with no git commit is said in the status
// bar; a setting that names no checkout is a warning; a located source opens at its line or in
// the browser.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { configValues, EventEmitter, executed, messages, opened, shownWith, statusItems, Uri, window } from '../fakes/vscode';
import { SourceService } from '../../../src/features/logs/sourceService';
import { HopLensSettings, type HopLensConfig } from '../../../src/config';
import { LogSession } from '../../../src/core/session/logSession';
import { makeTempDir } from '../../harness/tempDirs';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures');
const CHECKOUT = join(FIXTURES, 'source', 'vllm-checkout');
const LOG = readFileSync(join(FIXTURES, 'logs', 'vllm_info_chat_and_abort.log'), 'utf8');

function setUp(vllm: string) {
  const dir = makeTempDir('hoplens-sources-');
  const base = new HopLensSettings().current;
  const changed = new EventEmitter<HopLensConfig>();
  const settings = { current: { ...base, checkouts: { vllm, sglang: '' } } as HopLensConfig, onDidChange: changed.event as never };
  const service = new SourceService({ extensionUri: Uri.file('/ext') as unknown as vscode.Uri, storageUri: Uri.file(dir.path) as unknown as vscode.Uri, log: quiet, settings });
  const status = statusItems[statusItems.length - 1];
  messages.length = 0;
  return { service, status, settings, changed, dispose: () => { service.dispose(); dir.remove(); } };
}

test('lines of a vLLM log resolve into the configured checkout; a source with no git commit is said in the status bar, not as a notification', async () => {
  const t = setUp(CHECKOUT);
  const resolver = await t.service.resolver('vllm');
  assert.equal(resolver?.checkout.root, CHECKOUT);
  assert.equal(t.status.text, '$(git-commit) vllm: no commit');
  assert.match(String(t.status.tooltip), /has no git commit .*HopLens verifies each line by its text instead\.\nHopLens checks each line against this checkout and reports drift\./);
  assert.deepEqual(messages, [], 'no notification for it');
  await resolver!.indexReady;
  const session = new LogSession({ sources: t.service.sources });
  session.syncTextNow(LOG);
  const line = LOG.split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001-9e1f0c2d.'));
  const src = session.source(line)!;
  assert.equal(src.file, join(CHECKOUT, 'vllm', 'v1', 'engine', 'async_llm.py'));
  assert.equal(src.location.line, 439);
  assert.equal(src.location.verified, true, 'the logging call there matches the line');

  await t.service.open(src);
  const shown = shownWith[shownWith.length - 1];
  assert.equal(shown.doc.uri.fsPath, src.file);
  assert.equal(shown.options?.selection?.start.line, 438);
  assert.match(shown.doc.lineAt(438).text, /Added request/);
  t.dispose();
});

test('a checkout setting that names no checkout is a warning; a line then opens at the pinned commit in the browser', async () => {
  const notACheckout = makeTempDir('hoplens-not-vllm-');
  const t = setUp(notACheckout.path);
  try {
    assert.equal(await t.service.resolver('vllm'), null);
    assert.equal(messages.length, 1);
    assert.equal(messages[0].kind, 'warning');
    assert.ok(messages[0].text.startsWith('HopLens: the vllm checkout setting does not point at a usable checkout: '), messages[0].text);
    const session = new LogSession({ sources: t.service.sources });
    session.syncTextNow(LOG);
    const src = session.source(LOG.split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001-9e1f0c2d.')))!;
    assert.equal(src.file, null);
    await t.service.open(src);
    assert.match(opened[opened.length - 1].toString(), /^https:\/\/github\.com\/vllm-project\/vllm\/blob\/[0-9a-f]{40}\/vllm\/v1\/engine\/async_llm\.py#L439$/);

    // The setting changed to a checkout: lenses and links hear it, and lines resolve into it.
    let heard = 0;
    t.service.onDidChange(() => heard++);
    t.changed.fire({ ...t.settings.current, checkouts: { vllm: CHECKOUT, sglang: '' } });
    const now = await t.service.resolver('vllm');
    assert.equal(now?.checkout.root, CHECKOUT);
    assert.ok(heard >= 1, 'sources changed');
    await now!.indexReady; // its statement index is written to the storage folder before the test removes it
  } finally { t.dispose(); notACheckout.remove(); }
});

test('the checkout notice belongs to the active log: shown on a vLLM log, gone on a source tab or an SGLang log', async () => {
  const t = setUp(CHECKOUT);
  try {
    t.service.showCheckoutNoticeFor('vllm');
    const resolver = await t.service.resolver('vllm');
    assert.equal(t.status.text, '$(git-commit) vllm: no commit');
    assert.equal(t.status.visible, true, 'shown while the vLLM log is active');
    t.service.showCheckoutNoticeFor(null); // a source file, or no editor
    assert.equal(t.status.visible, false, 'gone on a tab that is not a log');
    t.service.showCheckoutNoticeFor('sglang');
    assert.equal(t.status.visible, false, 'another engine\'s log has no notice of its own');
    t.service.showCheckoutNoticeFor('vllm');
    assert.equal(t.status.visible, true, 'back on the vLLM log');
    await resolver!.indexReady;
  } finally { t.dispose(); }
});

test('a source opened from a log in preview pins the log first, unless the user keeps editors in preview on navigation, as VS Code does', async () => {
  const t = setUp(CHECKOUT);
  const resolver = await t.service.resolver('vllm');
  await resolver!.indexReady;
  const session = new LogSession({ sources: t.service.sources });
  session.syncTextNow(LOG);
  const src = session.source(LOG.split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001-9e1f0c2d.')))!;
  const tabs = window.tabGroups.activeTabGroup as { activeTab: unknown };
  const pinned = () => executed.filter((c) => c.id === 'workbench.action.keepEditor').length;
  const opens = async (tab: { isPreview: boolean }) => {
    tabs.activeTab = { input: undefined, ...tab };
    const before = pinned();
    await t.service.open(src);
    return pinned() - before;
  };
  try {
    assert.equal(await opens({ isPreview: true }), 1, 'a preview log is pinned before the source opens');
    assert.equal(await opens({ isPreview: false }), 0, 'a pinned log is left as it is');
    configValues.set('workbench.editor.enablePreviewFromCodeNavigation', true);
    assert.equal(await opens({ isPreview: true }), 0, 'the user keeps editors in preview: the source takes the preview tab, as after a link click');
  } finally {
    configValues.clear();
    tabs.activeTab = undefined;
    t.dispose();
  }
});
