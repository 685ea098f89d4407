// The streamed view of a log too large for the editor, without a VS Code host: read in slices
// from disk on the byte fast path, it lists the same requests and hops as the string parser,
// and a slice around any line starts at that line's neighbours.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { Uri } from '../fakes/vscode';
import { LargeLog } from '../../../src/features/logs/largeLogs';
import { annotateText } from '../../../src/core/session/logSession';
import { makeTempDir } from '../../harness/tempDirs';

const SAMPLE = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8')
  .split('\n').filter((l) => l.startsWith('(APIServer'));

test('a large log read in slices on the fast path lists what the string parser lists, and cuts slices at the right lines', async () => {
  const dir = makeTempDir('hoplens-large-');
  try {
    const lines: string[] = [];
    for (let r = 0; lines.length < 40_000; r++) {
      const n = String(r).padStart(6, '0');
      for (const l of SAMPLE) lines.push(l.replace(/myrun-0001/g, `big-${n}`).replace(/5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10/g, `b${n}`));
    }
    const text = lines.join('\n') + '\n';
    const file = join(dir.path, 'huge.log');
    writeFileSync(file, text);
    const large = new LargeLog(Uri.file(file) as unknown as vscode.Uri);
    let progress = 0;
    await large.readAppended(() => { progress++; });
    assert.ok(progress > 10, `read in slices (${progress} of them)`);
    const parsed = annotateText(text, 'auto', { referenceTime: Date.now() });
    assert.equal(large.linesRead, lines.length);
    assert.equal(large.tracker.requestCount, parsed.tracker.requestCount);
    assert.deepEqual(Object.fromEntries(large.tracker.counts), Object.fromEntries(parsed.tracker.counts));
    const rid = 'chatcmpl-big-000999';
    assert.deepEqual(large.tracker.get(rid)?.hops.map((h) => [h.line, h.hop]), parsed.tracker.get(rid)?.hops.map((h) => [h.line, h.hop]));
    for (const line of [1, 1024, 1025, 20_000, lines.length]) {
      const slice = await large.slice(line);
      const at = slice.text.split('\n')[line - slice.firstLine];
      assert.equal(at, lines[line - 1], `line ${line}`);
    }
  } finally { dir.remove(); }
});
