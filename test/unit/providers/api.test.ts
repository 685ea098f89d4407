// What activate() hands out (src/api.ts) is read-only: the Call Traces rows as the view lists
// them, the last traced request, the engine timings — and no live service behind them.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { registered, Uri } from '../fakes/vscode';
import { callTracesApi, engineTimingApi, tracedRequestsApi } from '../../../src/api';
import { CallTracesViewProvider } from '../../../src/features/callTraces/callTracesView';
import { registerCallTraceCommands } from '../../../src/features/callTraces/callTraceCommands';
import { EngineTimingService } from '../../../src/features/traces/engineTimingService';
import type { TracedRequestCommands } from '../../../src/features/send/sendTracedRequestCommand';
import type { HopLensConfig } from '../../../src/config';
import { DEFAULT_FILTER } from '../../../src/core/calltrace/filter';
import { callLine, returnLine, tempDir, writeTrace, CORE } from '../calltrace/helpers';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

test('the Call Traces rows are the view\'s, its filter follows Filter Calls…, and nothing else of the view is reachable', async () => {
  const root = tempDir();
  writeTrace(root, [callLine('01.000001', 'step', CORE, 380, 'run_busy_loop', CORE, 870), returnLine('01.000900', 'step', CORE, 380, 'run_busy_loop', CORE, 870)]);
  const settings = { current: { traceDirs: [root], checkouts: { vllm: '', sglang: '' } } as unknown as HopLensConfig };
  const view = new CallTracesViewProvider(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings, () => []);
  const commands = registerCallTraceCommands(view, settings);
  const api = callTracesApi(view);
  const [folder] = await api.rows();
  assert.deepEqual(folder.kind === 'folder' && folder.folder.path, root);
  const [proc] = await api.rows(folder);
  const [thread] = await api.rows(proc);
  await registered.get('hoplens.callTraces.filter')!('');
  assert.deepEqual(api.filter, []);
  const [step] = await api.rows(thread);
  assert.equal(step.kind === 'call' && step.row.durationUs, 899);
  assert.equal(api.item(step).label, 'step');
  await registered.get('hoplens.callTraces.filter')!('default');
  assert.equal(api.filter, DEFAULT_FILTER);
  assert.deepEqual(Object.keys(api).sort(), ['filter', 'item', 'rows']);
  commands.dispose();
  view.dispose();
});

test('the engine timings and the last traced request are views: no span store, no command object', () => {
  const settings = { current: { traces: { receiverHost: '127.0.0.1', receiverPort: 0, queryUrl: '', queryService: '' } } as HopLensConfig };
  const service = new EngineTimingService(Uri.file('/ext') as unknown as vscode.Uri, quiet, settings);
  const timing = engineTimingApi(service);
  assert.equal('store' in timing, false);
  assert.deepEqual([timing.running, timing.endpoint, timing.statusText, timing.timing('chatcmpl-1'), timing.spans().length], [false, undefined, undefined, null, 0]);
  const traced = tracedRequestsApi({ lastResult: undefined, lastReport: undefined } as unknown as TracedRequestCommands);
  assert.equal(traced.last(), undefined);
  assert.deepEqual(Object.keys(traced).sort(), ['last', 'openLog']);
  service.dispose();
});
