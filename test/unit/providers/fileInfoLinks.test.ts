// Links on SGLang lines that are no hop, without a VS Code host: SGLang prints no file:line, so
// a line's `[time rank]` header links to the statement the checkout's index finds for its text;
// a line no statement prints, and a hop line (it has its lens), get none.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { EventEmitter, InMemoryDocument, InMemoryEditor, Range, Uri, window, workspace } from '../fakes/vscode';
import { CheckoutSet } from '../../../src/core/source/checkouts';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { LogSession } from '../../../src/core/session/logSession';
import type { LogDocumentAnnotation, LogSessions } from '../../../src/features/logs/logDocuments';
import { FileInfoLinkProvider } from '../../../src/features/logs/fileInfoLinks';
import { makeTempDir } from '../../harness/tempDirs';

const CHECKOUT = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source', 'sglang-checkout');

test('an SGLang start-up line links its [time rank] header to the statement that prints it', async () => {
  const cache = makeTempDir('hoplens-links-');
  try {
    const checkouts = new CheckoutSet({ configured: { vllm: '', sglang: CHECKOUT }, folders: [] }, { resolver: { cacheDir: cache.path, workerScript: null } });
    await (await checkouts.resolver('sglang'))!.indexReady;
    const text = [
      '[2026-08-21 22:49:40.101 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.61 GB, mem usage=15.38 GB.',
      '[2026-08-21 22:49:41 TP0] something this checkout never logs 12345',
      '[2026-08-21 22:50:10.215 TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, ' +
        '#pending-token: 0, cuda graph: False, input throughput (token/s): 0.00',
    ].join('\n') + '\n';
    const doc = new InMemoryDocument(Uri.file('/logs/sgl-startup.log'), text);
    const session = new LogSession({ sources: new RecordSourceLocator(checkouts) });
    session.syncTextNow(text);
    const entry: LogDocumentAnnotation = { uri: doc.uri as unknown as vscode.Uri, session, chars: text.length, noCodeLens: false };
    const never = new EventEmitter<vscode.Uri>().event as never;
    const sessions: LogSessions = { get: () => entry, find: () => entry, onDidChange: never, onDidClose: never };
    window.visibleTextEditors = [new InMemoryEditor(doc, [new Range(0, 0, 3, 0)])];
    workspace.textDocuments = [doc];

    const links = new FileInfoLinkProvider(sessions).provideDocumentLinks(doc as unknown as vscode.TextDocument);
    assert.deepEqual(links.map((l) => l.range.start.line), [0], 'no link on a line no statement prints, nor on the hop line');
    const [load] = links;
    assert.equal(doc.getText(load.range as unknown as Range), '[2026-08-21 22:49:40.101 TP0]');
    assert.equal(load.target?.fsPath, join(CHECKOUT, 'python', 'sglang', 'srt', 'model_executor', 'model_runner.py'));
    assert.equal(load.target?.fragment, 'L880');
    assert.equal(load.tooltip, 'python/sglang/srt/model_executor/model_runner.py:880');
  } finally { cache.remove(); workspace.textDocuments = []; }
});

test('SGLang records pasted onto one line each link their own [time rank] header', async () => {
  const cache = makeTempDir('hoplens-links-');
  try {
    const checkouts = new CheckoutSet({ configured: { vllm: '', sglang: CHECKOUT }, folders: [] }, { resolver: { cacheDir: cache.path, workerScript: null } });
    await (await checkouts.resolver('sglang'))!.indexReady;
    // Start-up lines of two ranks as a paste that lost its newlines shows them (sgl-project/sglang#4058's shape).
    const text = '[2026-08-21 22:49:40.101 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.61 GB, mem usage=15.38 GB. '
      + '[2026-08-21 22:49:41 TP0] something this checkout never logs 12345 '
      + '[2026-08-21 22:49:40.388 TP1] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.60 GB, mem usage=15.38 GB.\n';
    const doc = new InMemoryDocument(Uri.file('/logs/sgl-pasted.log'), text);
    const session = new LogSession({ sources: new RecordSourceLocator(checkouts) });
    session.syncTextNow(text);
    const entry: LogDocumentAnnotation = { uri: doc.uri as unknown as vscode.Uri, session, chars: text.length, noCodeLens: false };
    const never = new EventEmitter<vscode.Uri>().event as never;
    const sessions: LogSessions = { get: () => entry, find: () => entry, onDidChange: never, onDidClose: never };
    window.visibleTextEditors = [new InMemoryEditor(doc, [new Range(0, 0, 1, 0)])];
    workspace.textDocuments = [doc];

    const links = new FileInfoLinkProvider(sessions).provideDocumentLinks(doc as unknown as vscode.TextDocument);
    assert.deepEqual(links.map((l) => doc.getText(l.range as unknown as Range)), ['[2026-08-21 22:49:40.101 TP0]', '[2026-08-21 22:49:40.388 TP1]'],
      'the record no statement prints gets none');
    for (const link of links) assert.equal(link.target?.fragment, 'L880');
  } finally { cache.remove(); workspace.textDocuments = []; }
});

test('a traceback frame citing an installed vLLM (site-packages, a container path) links to that file and line of the checkout', () => {
  const VLLM = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source', 'vllm-checkout');
  // A V1 engine core's traceback as vLLM 0.10 prints it: the frames behind the process prefix, one
  // inside vLLM's header, a bare one, a container checkout's path, and frames of other packages.
  const text = [
    '(EngineCore_DP0 pid=75) ERROR 08-25 10:46:52 [core.py:700] EngineCore failed to start.',
    '(EngineCore_DP0 pid=75) ERROR 08-25 10:46:52 [core.py:700] Traceback (most recent call last):',
    '(EngineCore_DP0 pid=75) ERROR 08-25 10:46:52 [core.py:700]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691, in run_engine_core',
    '(EngineCore_DP0 pid=75)   File "/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 82, in __init__',
    '  File "/workspace/vllm/vllm/v1/engine/core.py", line 12, in <module>',
    '  File "/usr/local/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1751, in _wrapped_call_impl',
    '  File "/usr/local/lib/python3.12/site-packages/vllm/no/such/file.py", line 3, in f',
  ].join('\n') + '\n';
  const doc = new InMemoryDocument(Uri.file('/logs/vllm-traceback.log'), text);
  const session = new LogSession({ engine: 'auto' });
  session.syncTextNow(text);
  assert.equal(session.engine, 'vllm');
  const entry: LogDocumentAnnotation = { uri: doc.uri as unknown as vscode.Uri, session, chars: text.length, noCodeLens: false };
  const never = new EventEmitter<vscode.Uri>().event as never;
  const sessions: LogSessions = { get: () => entry, find: () => entry, onDidChange: never, onDidClose: never };
  window.visibleTextEditors = [new InMemoryEditor(doc, [new Range(0, 0, 7, 0)])];
  workspace.textDocuments = [doc];
  try {
    const asked: string[] = [];
    const provider = new FileInfoLinkProvider(sessions, (_log, engine) => { asked.push(engine); return engine === 'vllm' ? VLLM : null; });
    const frames = provider.provideDocumentLinks(doc as unknown as vscode.TextDocument).filter((l) => l.target?.scheme === 'file' && l.target.fragment);
    const core = join(VLLM, 'vllm', 'v1', 'engine', 'core.py');
    assert.deepEqual(frames.map((l) => [l.range.start.line, doc.getText(l.range as unknown as Range), l.target?.fsPath, l.target?.fragment]), [
      [2, '"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 691', core, 'L691'],
      [3, '"/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 82', core, 'L82'],
      [4, '"/workspace/vllm/vllm/v1/engine/core.py", line 12', core, 'L12'],
    ], 'torch\'s frame and a file the checkout does not have get none');
    assert.equal(frames[0].tooltip, `vllm/v1/engine/core.py:691 in ${VLLM}`);
    // Without a source for the log's engine, no frame link (nothing to open).
    const none = new FileInfoLinkProvider(sessions, () => null).provideDocumentLinks(doc as unknown as vscode.TextDocument);
    assert.equal(none.filter((l) => /line \d+$/.test(doc.getText(l.range as unknown as Range))).length, 0);
  } finally { workspace.textDocuments = []; }
});
