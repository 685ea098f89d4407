// The Call Traces view on the release that ran the trace: a trace written on another machine
// (`/usr/local/lib/python3.12/site-packages/vllm/…`) whose process's log states vLLM 0.8.5 opens
// Open Definition in 0.8.5's own source at the `def` line, though the checkout is 0.10.2 (real
// trees from the matrix's test cache); a process no open log names stays on the checkout.
import '../fakes/register';
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EventEmitter, registered, shownWith, Uri } from '../fakes/vscode';
import { CallTracesViewProvider, type CallTraceNode } from '../../../src/features/callTraces/callTracesView';
import { registerCallTraceCommands } from '../../../src/features/callTraces/callTraceCommands';
import { SourceService } from '../../../src/features/logs/sourceService';
import { LogSession } from '../../../src/core/session/logSession';
import { HopLensSettings, type HopLensConfig } from '../../../src/config';
import { makeTempDir } from '../../harness/tempDirs';
import { callLine, returnLine, tempDir, writeTrace } from '../calltrace/helpers';
import { realReleaseTrees } from '../source/releaseTrees';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const live: { dispose(): void }[] = [];
afterEach(() => { for (const d of live.splice(0)) d.dispose(); });

const INSTALLED = '/usr/local/lib/python3.12/site-packages/vllm/v1/engine/async_llm.py';

test('Open Definition of a call traced in a process whose log states vLLM 0.8.5 lands on 0.8.5\'s def line, not the 0.10.2 checkout\'s', async (t) => {
  const trees = await realReleaseTrees(t, [{ engine: 'vllm', version: '0.8.5' }, { engine: 'vllm', version: '0.10.2' }]);
  if (!trees) return;
  const [tree085, checkout0102] = trees;
  const traces = tempDir();
  // generate() at 0.8.5's async_llm.py calls add_request (def at line 197 there, 266 at 0.10.2).
  writeTrace(traces, [
    callLine('01.000000', 'add_request', INSTALLED, 197, 'generate', INSTALLED, 290),
    returnLine('01.001000', 'add_request', INSTALLED, 197, 'generate', INSTALLED, 290),
  ], { pid: 4242, tid: 1 });
  writeTrace(traces, [callLine('01.000000', 'add_request', INSTALLED, 197, 'generate', INSTALLED, 290)], { pid: 5151, tid: 2 });

  const dir = makeTempDir('hoplens-trace-release-');
  const base = new HopLensSettings().current;
  const settings = { current: { ...base, traceDirs: [], checkouts: { vllm: checkout0102, sglang: '' } } as HopLensConfig, onDidChange: new EventEmitter<HopLensConfig>().event as never };
  const sources = new SourceService({ extensionUri: Uri.file('/ext') as unknown as vscode.Uri, storageUri: Uri.file(dir.path) as unknown as vscode.Uri, log: quiet, settings });
  // The server log of process 4242, open in the editor: it states its release.
  const logText = '(APIServer pid=4242) INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5\n';
  const logUri = Uri.file(join(dir.path, 'server.log')) as unknown as vscode.Uri;
  writeFileSync(logUri.fsPath, logText);
  await sources.prepareFor(logUri);
  sources.checkouts.useReleaseSource({ engine: 'vllm', version: '0.8.5' }, tree085);
  const session = new LogSession({ sources: sources.sourcesFor(logUri) });
  session.syncTextNow(logText);
  const logs = { find: (u: vscode.Uri) => (u.toString() === logUri.toString() ? { session } : undefined) };

  const view = new CallTracesViewProvider(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings, () => []);
  const commands = registerCallTraceCommands(view, settings, (pid) => sources.releaseOfProcess(pid, [logUri], logs));
  live.push(commands, view, sources, { dispose: () => dir.remove() });
  await registered.get('hoplens.openCallTraceFolder')!(Uri.file(traces));
  view.setFilter([]);
  const [folder] = await view.getChildren();
  const callOf = async (pid: number) => {
    const proc = (await view.getChildren(folder)).find((n) => n.kind === 'process' && n.group.pid === pid)!;
    const [thread] = await view.getChildren(proc);
    const [call] = await view.getChildren(thread);
    return call as CallTraceNode & { kind: 'call' };
  };

  await registered.get('hoplens.callTraces.openDefinition')!(await callOf(4242));
  const opened = shownWith[shownWith.length - 1];
  assert.equal(opened.doc.uri.fsPath, join(tree085, 'vllm', 'v1', 'engine', 'async_llm.py'));
  assert.equal(opened.options!.selection!.start.line, 196);
  assert.match(opened.doc.lineAt(196).text, /^\s+async def add_request\(/, 'the def line of the release that ran');

  // Process 5151: no open log names it, so its version is unknown: the checkout (another version, another line there).
  await registered.get('hoplens.callTraces.openDefinition')!(await callOf(5151));
  const fallback = shownWith[shownWith.length - 1];
  assert.equal(fallback.doc.uri.fsPath, join(checkout0102, 'vllm', 'v1', 'engine', 'async_llm.py'));
  assert.doesNotMatch(fallback.doc.lineAt(196).text, /def add_request/);
  // Their statement indexes are written into the storage folder before it is removed.
  await (await sources.resolver('vllm'))?.indexReady;
  await (await sources.resolverFor(logUri, 'vllm'))?.indexReady;
});
