// The log annotation feature in a real extension host: lenses, links, hovers, the Requests
// view and the commands, on the constructed engine logs and the fixture checkouts.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { fixture, hoplens, until } from './fixture';

async function openLog(path: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  return vscode.window.showTextDocument(doc);
}

async function lensesOf(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 1000)) ?? [];
}

describe('Server log annotation', () => {
  before(async () => {
    const api = await hoplens();
    await api.logs.checkout('vllm');
    await api.logs.checkout('sglang');
  });

  it('puts a hop lens on every vLLM request line and opens the checkout at the printed line', async () => {
    const ws = fixture();
    const editor = await openLog(ws.vllmLog);
    const lenses = await until('lenses resolved into the checkout', async () => {
      const ls = await lensesOf(editor.document.uri);
      return ls.some((l) => l.command?.title.includes('async_llm.py:439') && !l.command.title.endsWith('↗')) ? ls : undefined;
    });
    const added = lenses.find((l) => l.command?.title.startsWith('hop 2 · api-server · v1/engine/async_llm.py:439'));
    assert.ok(added, `lens titles: ${lenses.map((l) => l.command?.title).join(' | ')}`);
    assert.equal(editor.document.lineAt(added.range.start.line).text.includes('Added request chatcmpl-myrun-0001-9e1f0c2d.'), true);
    // Received request (63), Added (439), 4 Generated (98), second request: Received, Added, Aborted (761), aborted (623).
    const cited = lenses.map((l) => /\S+\.py:\d+/.exec(l.command?.title ?? '')?.[0]);
    for (const c of ['request_logger.py:63', 'v1/engine/async_llm.py:439', 'request_logger.py:98', 'v1/engine/async_llm.py:761', 'v1/engine/async_llm.py:623', 'v1/metrics/loggers.py:310']) {
      assert.ok(cited.some((x) => x?.endsWith(c)), `no lens cites ${c}: ${cited.join(', ')}`);
    }

    assert.equal(added.command!.command, 'hoplens.openSource');
    await vscode.commands.executeCommand(added.command!.command, ...(added.command!.arguments ?? []));
    const target = await until('the checkout file to open', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath.endsWith('vllm/v1/engine/async_llm.py') ? e : undefined;
    });
    assert.equal(target.selection.active.line + 1, 439);
    assert.match(target.document.lineAt(438).text, /logger\.info\(/);
    assert.ok(target.document.uri.fsPath.startsWith(ws.vllmCheckout), target.document.uri.fsPath);
  });

  it('links vLLM\'s own [file:line] bracket to the checkout, including lines that are not hops', async () => {
    const ws = fixture();
    const editor = await openLog(ws.vllmDebugLog);
    const links = await until('links', async () => {
      const ls = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', editor.document.uri, 1000);
      return ls && ls.length > 0 && ls.every((l) => l.target) ? ls : undefined;
    });
    const worker = links.find((l) => editor.document.getText(l.range) === 'v1/executor/multiproc_executor.py:1050');
    assert.ok(worker, `link ranges: ${links.map((l) => editor.document.getText(l.range)).join(', ')}`);
    assert.equal(worker.target!.scheme, 'file');
    assert.ok(worker.target!.fsPath.endsWith('vllm/v1/executor/multiproc_executor.py'), worker.target!.fsPath);
    assert.equal(worker.target!.fragment, 'L1050');
  });

  it('explains a hop on hover, with its gate flag', async () => {
    const ws = fixture();
    const editor = await openLog(ws.vllmLog);
    const line = editor.document.getText().split('\n').findIndex((l) => l.includes('Added request chatcmpl-myrun-0001'));
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(line, 30));
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : (c as vscode.MarkdownString).value))).join('\n');
    assert.match(text, /HopLens · hop 2/);
    assert.match(text, /--enable-log-requests/);
    assert.match(text, /chatcmpl-myrun-0001/);
  });

  it('lists the log\'s requests in the Requests view, each with its hops in order and the missing ones', async () => {
    const api = await hoplens();
    const ws = fixture();
    const editor = await openLog(ws.vllmLog);
    await vscode.commands.executeCommand('hoplens.annotateLog');
    const listed = await until('requests', () => {
      const r = api.logs.requests();
      return r && r.uri.toString() === editor.document.uri.toString() && r.rids.length >= 2 ? r : undefined;
    });
    assert.ok(listed.rids.includes('chatcmpl-myrun-0001'), listed.rids.join(', '));
    // The rows' words (hop 1 · …, not printed, ≤1 s) are unit-tested on the same log (test/unit/providers).
    const group = (await api.logs.session(editor.document))!.tracker.get('chatcmpl-myrun-0001')!;
    assert.deepEqual(group.hops.slice(0, 2).map((h) => h.hop), ['V1', 'V2']);
    assert.ok(group.missing.length > 0, 'missing hops are listed');
    assert.ok(group.hops.some((h) => h.sincePrevious?.text === '≤1 s'), 'deltas state whole-second resolution honestly');
  });

  it('resolves SGLang lines (no file:line printed) through the checkout\'s statement index', async () => {
    const api = await hoplens();
    const ws = fixture();
    const r = await api.logs.checkout('sglang');
    assert.ok(r, 'sglang checkout opened');
    await r.indexReady;
    const editor = await openLog(ws.sglangLog);
    const lenses = await until('sglang lenses', async () => {
      const ls = await lensesOf(editor.document.uri);
      return ls.some((l) => l.command?.title.includes('srt/utils/request_logger.py:109')) ? ls : undefined;
    });
    const titles = lenses.map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => t.includes('scheduler_components/metrics_reporter.py')), titles.join(' | '));
    const receive = lenses.find((l) => l.command?.title.includes('request_logger.py:109'))!;
    await vscode.commands.executeCommand(receive.command!.command, ...(receive.command!.arguments ?? []));
    const target = await until('request_logger.py to open', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath.endsWith('srt/utils/request_logger.py') ? e : undefined;
    });
    assert.equal(target.selection.active.line + 1, 109);
  });
});

describe('SGLang lines that are no hop', () => {
  it('link their [time rank] header to the statement the checkout index finds for the text', async () => {
    const api = await hoplens();
    const ws = fixture();
    const r = await api.logs.checkout('sglang');
    assert.ok(r, 'sglang checkout opened');
    await r.indexReady;
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const path = join(ws.root, 'logs', 'sgl-startup.log');
    writeFileSync(path, [
      '[2026-08-21 22:49:40.101 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, avail mem=62.61 GB, mem usage=15.38 GB.',
      '[2026-08-21 22:49:41 TP0] something this checkout never logs 12345',
      '[2026-08-21 22:50:10.215 TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00',
    ].join('\n') + '\n');
    const editor = await openLog(path);
    const links = await until('the start-up line\'s link', async () => {
      const ls = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', editor.document.uri, 100);
      return ls?.some((l) => l.range.start.line === 0 && l.target) ? ls : undefined;
    });
    const load = links.find((l) => l.range.start.line === 0)!;
    assert.equal(editor.document.getText(load.range), '[2026-08-21 22:49:40.101 TP0]');
    assert.ok(load.target!.fsPath.endsWith('python/sglang/srt/model_executor/model_runner.py'), load.target!.fsPath);
    assert.equal(load.target!.fragment, 'L880');
    assert.ok(!links.some((l) => l.range.start.line === 1), 'a line no statement prints gets no link');
    assert.ok(!links.some((l) => l.range.start.line === 2), 'a hop line has its lens, not a header link');
  });
});

describe('A checkout at another commit than the server', () => {
  it('finds each statement by its text, opens it where it is now, and shows the drift', async () => {
    const api = await hoplens();
    const ws = fixture();
    // Copy the checkout and insert three lines at the top of async_llm.py: every statement moves down by 3.
    const { cpSync, readFileSync, writeFileSync, mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const moved = join(mkdtempSync(join(tmpdir(), 'hoplens-it-drift-')), 'vllm');
    cpSync(ws.vllmCheckout, moved, { recursive: true });
    const file = join(moved, 'vllm', 'v1', 'engine', 'async_llm.py');
    writeFileSync(file, '# one\n# two\n# three\n' + readFileSync(file, 'utf8'));
    const config = vscode.workspace.getConfiguration('hoplens');
    await config.update('checkouts.vllm', moved, vscode.ConfigurationTarget.Workspace);
    try {
      const r = await until('resolver on the moved checkout', async () => {
        const res = await api.logs.checkout('vllm');
        return res && res.root === moved ? res : undefined;
      });
      await r.indexReady;
      const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.file(ws.vllmLog)));
      const lens = await until('a lens with drift', async () => {
        const ls = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri, 1000)) ?? [];
        return ls.find((l) => l.command?.title.includes('v1/engine/async_llm.py:442'));
      });
      assert.match(lens.command!.title, /^hop 2 · api-server · v1\/engine\/async_llm\.py:442 \(\+3 lines\)$/);
      await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
      const target = await until('moved file open', () => {
        const e = vscode.window.activeTextEditor;
        return e && e.document.uri.fsPath === file ? e : undefined;
      });
      assert.equal(target.selection.active.line + 1, 442);
      assert.match(target.document.lineAt(441).text, /logger\.info\("Added request %s\."/);
    } finally {
      await config.update('checkouts.vllm', ws.vllmCheckout, vscode.ConfigurationTarget.Workspace);
    }
  });
});
