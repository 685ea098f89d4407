// Real logs in the editor: a vLLM log of mixed wrappers (journald, docker, compose, Slurm, a
// JSON log file, markdown, colour remnants, a progress bar glued on by its CR) and versions
// (V0 lines, a custom logging layout) gets its lenses on the right lines, citing the checkout
// lines that printed them, and its requests in the Requests view; a CRLF document gets the
// lenses of its LF copy.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { fixture, hoplens, until } from './fixture';
import { findHop } from '../../src/engines/index';

async function lensesOf(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 1000)) ?? [];
}

// [line as written, text that finds it in the document, checkout file:line its lens cites (null: a hop lens, cited or not), or false: no lens]
const MIXED: Array<[string, string, string | null | false]> = [
  ['Aug 21 22:30:05 gpu-node-3 vllm[2101]: (APIServer pid=2101) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-w1: params: SamplingParams(n=1), lora_request: None.', 'Received request chatcmpl-w1', 'request_logger.py:63'],
  ['2026-08-21T22:30:05.123456789Z (APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-w1-9e1f0c2d.', 'Added request chatcmpl-w1-', 'v1/engine/async_llm.py:439'],
  ['vllm-openai-1  | (APIServer pid=2101) INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK', 'POST /v1/chat/completions', null],
  ['> ^[[0;36m(EngineCore pid=2150)^[[0;0m DEBUG 08-21 22:30:05 [v1/engine/core.py:1441] EngineCore loop active.', 'EngineCore loop active.', 'v1/engine/core.py:1441'],
  ['Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:05<00:00,  1.25s/it]\r(EngineCore pid=2150) DEBUG 08-21 22:30:05 [v1/engine/core.py:1429] EngineCore waiting for work.', 'EngineCore waiting for work.', 'v1/engine/core.py:1429'],
  ['[1;36m(APIServer pid=2101)[0;0m INFO 08-21 22:30:06 [async_llm.py:761] Aborted request(s) chatcmpl-w1-9e1f0c2d.', 'Aborted request(s) chatcmpl-w1', 'v1/engine/async_llm.py:761'],
  ['`(APIServer pid=2101) INFO 08-21 22:30:06 [async_llm.py:623] Request chatcmpl-w1 aborted.`', 'Request chatcmpl-w1 aborted.', 'v1/engine/async_llm.py:623'],
  ['0: (APIServer pid=2101) INFO 08-21 22:30:15 [loggers.py:310] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%', 'Engine 000: Avg prompt', 'v1/metrics/loggers.py:310'],
  ['{"log":"(APIServer pid=2101) INFO 08-21 22:30:16 [async_llm.py:439] Added request chatcmpl-w2-1a2b3c4d.\\n","stream":"stdout","time":"2026-08-21T22:30:16.000000001Z"}', 'Added request chatcmpl-w2-', 'v1/engine/async_llm.py:439'],
  ['INFO 04-11 12:45:10 [async_llm_engine.py:211] Added request chatcmpl-v0old.', 'Added request chatcmpl-v0old', null],
  ['2026-08-21 22:30:17,001 - vllm.v1.engine.async_llm - INFO - Added request chatcmpl-w3-2a3b4c5d.', 'Added request chatcmpl-w3-', 'v1/engine/async_llm.py:439'],
  ['2026-08-21 22:30:18,004 - vllm.v1.utils - INFO - Waiting for 1 local, 0 remote core engine proc(s) to start.', 'Waiting for 1 local', false],
  ['10.0.0.5 - - [21/Aug/2026:22:30:05 +0000] "POST /v1/chat/completions HTTP/1.1" 200 1532 "-" "python-requests/2.32.3"', 'python-requests', false],
  ['INFO:root:Loaded 1200 documents into the vector store', 'INFO:root:Loaded', false],
];

describe('Real logs: mixed wrappers and versions in the editor', () => {
  before(async () => {
    const api = await hoplens();
    const r = await api.logs.checkout('vllm');
    await r?.indexReady;
  });

  it('puts each lens on the line of its engine line, citing the checkout line that printed it', async () => {
    const ws = fixture();
    const path = join(ws.root, 'logs', 'mixed-wrappers.log');
    writeFileSync(path, MIXED.map(([line]) => line).join('\n') + '\n');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
    await vscode.window.showTextDocument(doc);
    const lines = doc.getText().split(/\r?\n/);
    // The progress bar's CR ends a line in the editor: the engine line after it is a line of its own.
    assert.equal(doc.lineCount, MIXED.length + 2, 'one more line for the CR, one for the final newline');
    const lineOf = (needle: string) => {
      const i = lines.findIndex((l) => l.includes(needle));
      assert.ok(i >= 0, needle);
      return i;
    };
    const cited = MIXED.filter(([, , c]) => typeof c === 'string').map(([, needle, c]) => [lineOf(needle), c as string] as const);
    const all = await until('every lens resolved into the checkout', async () => {
      const ls = await lensesOf(doc.uri);
      return cited.every(([line, c]) => ls.some((l) => l.range.start.line === line && l.command?.title.includes(c))) ? ls : undefined;
    });
    // A request's first line also has Timeline beside its hop lens; the hop lenses are checked below.
    const isTimeline = (l: vscode.CodeLens) => l.command?.command === 'hoplens.showRequestTimeline';
    const timelines = all.filter(isTimeline);
    assert.ok(timelines.some((l) => l.range.start.line === lineOf('Received request chatcmpl-w1') && l.command?.arguments?.[0] === 'chatcmpl-w1'));
    assert.ok(!timelines.some((l) => l.range.start.line === lineOf('Added request chatcmpl-w1-')), 'not on the request\'s later lines');
    assert.equal(new Set(timelines.map((l) => l.command?.arguments?.[0])).size, timelines.length, 'once per request');
    const lenses = all.filter((l) => !isTimeline(l));
    for (const [, needle, c] of MIXED) {
      const at = lenses.filter((l) => l.range.start.line === lineOf(needle));
      if (c === false) assert.equal(at.length, 0, `no lens on: ${needle}`);
      else assert.equal(at.length, 1, `one lens on: ${needle} (got ${at.map((l) => l.command?.title).join(' | ')})`);
    }
    assert.equal(lenses.length, MIXED.filter(([, , c]) => c !== false).length);
    assert.ok(!lenses.some((l) => l.range.start.line === lineOf('Loading safetensors')), 'the progress bar itself is no hop');

    // The lens opens the checkout at the cited line.
    const aborted = lenses.find((l) => l.range.start.line === lineOf('Request chatcmpl-w1 aborted.'))!;
    await vscode.commands.executeCommand(aborted.command!.command, ...(aborted.command!.arguments ?? []));
    const target = await until('async_llm.py to open', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath.endsWith('vllm/v1/engine/async_llm.py') ? e : undefined;
    });
    assert.equal(target.selection.active.line + 1, 623);
  });

  it('links the printed file:line behind any wrapper, and the logger name a layout printed, to the statement', async () => {
    const ws = fixture();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(join(ws.root, 'logs', 'mixed-wrappers.log')));
    const lines = doc.getText().split(/\r?\n/);
    const docker = lines.findIndex((l) => l.includes('Added request chatcmpl-w1-'));
    const layout = lines.findIndex((l) => l.includes('Waiting for 1 local'));
    const links = await until('links on the wrapped line and the layout line', async () => {
      const ls = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri, 1000);
      return ls?.some((l) => l.range.start.line === layout && l.target) && ls.some((l) => l.range.start.line === docker) ? ls : undefined;
    });
    const d = links.find((l) => l.range.start.line === docker)!;
    assert.equal(doc.getText(d.range), 'async_llm.py:439');
    const n = links.find((l) => l.range.start.line === layout)!;
    assert.equal(doc.getText(n.range), 'vllm.v1.utils');
    assert.ok(n.target!.fsPath.endsWith('vllm/v1/utils.py'), n.target!.fsPath);
    assert.equal(n.target!.fragment, 'L232');
  });

  it('lists the requests of the mixed log in the Requests view, hops in order', async () => {
    const api = await hoplens();
    const ws = fixture();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(join(ws.root, 'logs', 'mixed-wrappers.log')));
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('hoplens.annotateLog');
    await until('requests of the mixed log', () => {
      const rids = api.logs.requests()?.rids ?? [];
      return ['chatcmpl-w1', 'chatcmpl-w2', 'chatcmpl-w3'].every((id) => rids.includes(id)) || undefined;
    });
    const group = (await api.logs.session(doc))!.tracker.get('chatcmpl-w1')!;
    const hops = group.hops.map((h) => findHop('vllm', h.hop)?.labId ?? h.hop);
    assert.ok(hops[0] === '1' && hops[1] === '2', hops.join(' | '));
    assert.ok(hops.includes('8') && hops.includes('7'), hops.join(' | '));
  });

  it('shows each record a paste put on one line where it stands: the hover under the cursor, a link on each [file:line]', async () => {
    const ws = fixture();
    const path = join(ws.root, 'logs', 'pasted.log');
    // vllm-project/vllm#34503's lines as an issue paste outside a code block shows them: one line.
    const records = ['(APIServer pid=7) INFO 08-21 22:30:06 [async_llm.py:439] Added request chatcmpl-p-0a1b2c3d. ',
      '(APIServer pid=7) INFO 08-21 22:30:06 [async_llm.py:623] Request chatcmpl-p aborted.'];
    writeFileSync(path, records.join('') + '\n');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
    await vscode.window.showTextDocument(doc);
    const links = await until('a resolved link on each record', async () => {
      const ls = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri, 1000);
      return ls?.length === 2 && ls.every((l) => l.target?.scheme === 'file') ? ls : undefined;
    });
    assert.deepEqual(links.map((l) => [doc.getText(l.range), l.target!.fragment]), [['async_llm.py:439', 'L439'], ['async_llm.py:623', 'L623']]);
    const hoverAt = async (column: number) => {
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, column));
      return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : (c as vscode.MarkdownString).value))).join('\n');
    };
    assert.match(await hoverAt(records[0].length + 70), /HopLens · hop 7[\s\S]*async\\?_llm\\?\.py:623/);
    assert.match(await hoverAt(70), /HopLens · hop 2[\s\S]*async\\?_llm\\?\.py:439/);
  });

  it('gives a CRLF document the lenses of its LF copy (Windows, docker logs of a -t container)', async () => {
    const ws = fixture();
    const crlf = join(ws.root, 'logs', 'vllm-crlf.log');
    writeFileSync(crlf, '\ufeff' + readFileSync(ws.vllmLog, 'utf8').replace(/\n/g, '\r\n'));
    const lf = await vscode.workspace.openTextDocument(vscode.Uri.file(ws.vllmLog));
    const win = await vscode.workspace.openTextDocument(vscode.Uri.file(crlf));
    await vscode.window.showTextDocument(win);
    assert.equal(win.eol, vscode.EndOfLine.CRLF);
    const want = await until('LF lenses', async () => {
      const ls = await lensesOf(lf.uri);
      return ls.length >= 12 && ls.every((l) => l.command && !l.command.title.endsWith('↗')) ? ls : undefined;
    });
    const key = (ls: vscode.CodeLens[]) => ls.map((l) => `${l.range.start.line} ${l.command?.title ?? ''}`).sort();
    const got = await until('the CRLF document\'s lenses', async () => {
      const ls = await lensesOf(win.uri);
      return ls.length === want.length && ls.every((l) => l.command && !l.command.title.endsWith('↗')) ? ls : undefined;
    });
    assert.deepEqual(key(got), key(want));
  });
});
