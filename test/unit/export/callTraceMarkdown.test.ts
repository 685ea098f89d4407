// "Export Call Trace Hop Sequence as Markdown" of a trace file whose function names, file
// names and callers are hostile (a trace folder is data, whoever wrote it): text, no link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTraceFolder } from '../../../src/core/calltrace/callTraceIndex';
import { hopSequenceMarkdown } from '../../../src/core/calltrace/export';
import { activeMarkup, formattingMarkup, renderMarkdown } from '../text/markdownRender';
import { callLine, returnLine, tempDir, writeTrace } from '../calltrace/helpers';

test('hostile function, file and caller names export as text in their columns', async () => {
  // A traced name is one token (the tracer prints `Call to <name> in <file>:<line> from …`).
  const names = ['[x](command:workbench.action.terminal.new)', '<img/src=x/onerror=alert(1)>', 'a`b``c|d', '**b**_e_', '<https://evil.example>'];
  const file = '/srv/[f](command:x)/`v`/vllm/v1/engine/core.py';
  const lines: string[] = [];
  names.forEach((fn, i) => {
    lines.push(callLine(`01.00${i}010`, fn, file, 10 + i, names[(i + 1) % names.length], file, 900));
    lines.push(returnLine(`01.00${i}510`, fn, file, 20 + i, names[(i + 1) % names.length], file, 900));
  });
  const dir = tempDir();
  writeTrace(dir, lines);
  const index = await openTraceFolder(dir, { mode: 'in-process' });
  const md = hopSequenceMarkdown(index, names);
  const r = renderMarkdown(md);
  assert.deepEqual(activeMarkup(r), [], md);
  assert.deepEqual(formattingMarkup(r).filter((t) => t !== '<h1>' && t !== '<h2>'), [], r.html);
  const rows = r.elements.filter((e) => e.tagName === 'tr' && e.childNodes.filter((c) => 'tagName' in c && c.tagName === 'td').length === 5);
  assert.equal(rows.length, names.length, r.html);
  for (const [i, fn] of names.entries()) {
    assert.ok(r.codeTexts.includes(fn), `function ${fn}: ${r.codeTexts.join(' ‖ ')}`);
    assert.ok(r.codeTexts.includes(names[(i + 1) % names.length]), `caller of ${fn}`);
  }
});
