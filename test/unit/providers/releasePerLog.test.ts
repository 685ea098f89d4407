// Two vLLM logs of two releases open at once: each log's lines resolve in its own release's
// source (real trees of vLLM 0.8.5 and 0.10.2 from the matrix's test cache), and the status bar
// names the release of the log that is active. A log that states no release stays on the
// configured checkout.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EventEmitter, statusItems, Uri } from '../fakes/vscode';
import { SourceService } from '../../../src/features/logs/sourceService';
import { HopLensSettings, type HopLensConfig } from '../../../src/config';
import { LogSession } from '../../../src/core/session/logSession';
import { makeTempDir } from '../../harness/tempDirs';
import { realReleaseTrees } from '../source/releaseTrees';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const CHECKOUT = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source', 'vllm-checkout');

/** A V1 server's start and one request, as that release prints them (its api_server.py and async_llm.py lines). */
function serverLog(version: string, apiLine: number, addedLine: number): string {
  return [
    `INFO 05-01 10:00:02 [api_server.py:${apiLine}] vLLM API server version ${version}`,
    `INFO 05-01 10:00:09 [async_llm.py:${addedLine}] Added request chatcmpl-${version.replace(/\./g, '')}.`,
  ].join('\n') + '\n';
}

test('two logs of two vLLM releases each resolve in their own release source; the status bar follows the active log', async (t) => {
  const trees = await realReleaseTrees(t, [{ engine: 'vllm', version: '0.8.5' }, { engine: 'vllm', version: '0.10.2' }]);
  if (!trees) return;
  const [tree085, tree0102] = trees;
  const dir = makeTempDir('hoplens-release-per-log-');
  const base = new HopLensSettings().current;
  const settings = { current: { ...base, checkouts: { vllm: CHECKOUT, sglang: '' } } as HopLensConfig, onDidChange: new EventEmitter<HopLensConfig>().event as never };
  const service = new SourceService({ extensionUri: Uri.file('/ext') as unknown as vscode.Uri, storageUri: Uri.file(dir.path) as unknown as vscode.Uri, log: quiet, settings });
  const status = statusItems[statusItems.length - 1];
  try {
    const logs = {
      old: { uri: Uri.file(join(dir.path, 'old.log')) as unknown as vscode.Uri, text: serverLog('0.8.5', 1043, 252) },
      newer: { uri: Uri.file(join(dir.path, 'newer.log')) as unknown as vscode.Uri, text: serverLog('0.10.2', 1896, 321) },
      plain: { uri: Uri.file(join(dir.path, 'plain.log')) as unknown as vscode.Uri, text: 'INFO 05-01 10:00:09 [async_llm.py:439] Added request chatcmpl-plain.\n' },
    };
    for (const l of Object.values(logs)) { writeFileSync(l.uri.fsPath, l.text); await service.prepareFor(l.uri); }
    // "Use Release Source" on each log's offer: the release's source is in use for the logs that state it.
    service.checkouts.useReleaseSource({ engine: 'vllm', version: '0.8.5' }, tree085);
    service.checkouts.useReleaseSource({ engine: 'vllm', version: '0.10.2' }, tree0102);

    const added = (l: { uri: vscode.Uri; text: string }) => {
      const session = new LogSession({ sources: service.sourcesFor(l.uri) });
      session.syncTextNow(l.text);
      return session.source(l.text.split('\n').findIndex((s) => s.includes('Added request')));
    };
    for (const l of Object.values(logs)) await (await service.resolverFor(l.uri, 'vllm'))!.indexReady;

    const old = added(logs.old)!;
    assert.equal(old.file, join(tree085, 'vllm', 'v1', 'engine', 'async_llm.py'));
    assert.deepEqual([old.location.line, old.location.verified, old.location.drift], [252, true, 0]);
    assert.match(readFileSync(old.file!, 'utf8').split('\n')[251], /logger\.info\("Added request %s\."/);
    const newer = added(logs.newer)!;
    assert.equal(newer.file, join(tree0102, 'vllm', 'v1', 'engine', 'async_llm.py'));
    assert.deepEqual([newer.location.line, newer.location.verified, newer.location.drift], [321, true, 0]);
    const plain = added(logs.plain)!;
    assert.equal(plain.file, join(CHECKOUT, 'vllm', 'v1', 'engine', 'async_llm.py'), 'a log stating no release stays on the checkout');

    service.showCheckoutNoticeFor('vllm', logs.old.uri);
    assert.deepEqual([status.text, status.visible], ['$(package) vLLM 0.8.5 · release source', true]);
    service.showCheckoutNoticeFor('vllm', logs.newer.uri);
    assert.deepEqual([status.text, status.visible], ['$(package) vLLM 0.10.2 · release source', true]);
    service.showCheckoutNoticeFor('vllm', logs.plain.uri);
    assert.deepEqual([status.text, status.visible], ['$(git-commit) vllm: no commit', true]);
    service.showCheckoutNoticeFor(null);
    assert.equal(status.visible, false);
  } finally { service.dispose(); dir.remove(); }
});
