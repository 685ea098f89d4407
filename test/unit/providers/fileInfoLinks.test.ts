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
