import { test } from 'node:test';
import assert from 'node:assert/strict';
import { markdownCell, markdownCode, markdownCodeBlock } from '../../../src/core/text/markdown';
import { forTerminal } from '../../../src/core/text/terminal';
import { HOSTILE } from './hostile';
import { activeMarkup, formattingMarkup, renderMarkdown } from './markdownRender';

test('the renderer finds links, HTML and formatting in raw hostile text (so the checks below can fail)', () => {
  const raw = renderMarkdown(HOSTILE.join('\n\n'));
  assert.ok(activeMarkup(raw).includes('<a>'), raw.html);
  assert.ok(activeMarkup(raw).includes('<img>'), raw.html);
  assert.ok(formattingMarkup(raw).includes('<strong>'), raw.html);
});

test('in a code span every hostile text reads exactly as printed and nothing in it acts', () => {
  for (const h of HOSTILE) {
    const r = renderMarkdown(`Request ${markdownCode(h)} in the log.`);
    assert.deepEqual(activeMarkup(r), [], `${JSON.stringify(h)} → ${r.html}`);
    assert.deepEqual(formattingMarkup(r), [], `${JSON.stringify(h)} → ${r.html}`);
    assert.deepEqual(r.codeTexts, [forTerminal(h)], JSON.stringify(h));
  }
});

test('in a table cell too: the row keeps its columns and each cell shows its text', () => {
  const rows = HOSTILE.map((h) => `| L1: ${markdownCell(h)} | ${markdownCell(h)} | +1 s |`);
  const r = renderMarkdown(['| observed line | file:line | Δ |', '|---|---|---|', ...rows].join('\n'));
  assert.deepEqual(activeMarkup(r), [], r.html);
  assert.deepEqual(formattingMarkup(r), [], r.html);
  const cells = r.elements.filter((e) => e.tagName === 'td');
  assert.equal(cells.length, HOSTILE.length * 3, 'no row gained or lost a column');
  assert.deepEqual(r.codeTexts, HOSTILE.flatMap((h) => [forTerminal(h), forTerminal(h)]));
});

test('a fenced block holds lines that contain fences of their own', () => {
  const text = HOSTILE.join('\n');
  const r = renderMarkdown(`# report\n\n${markdownCodeBlock(text)}\nafter`);
  assert.deepEqual(activeMarkup(r), [], r.html);
  assert.deepEqual(r.codeTexts, [`${text.split(/\r?\n/).map(forTerminal).join('\n')}\n`]);
});

test('plain ids stay as they are, in backticks', () => {
  assert.equal(markdownCode('chatcmpl-myrun-0001'), '`chatcmpl-myrun-0001`');
  assert.equal(markdownCell('vllm/v1/engine/async_llm.py:439'), '`vllm/v1/engine/async_llm.py:439`');
  assert.equal(markdownCode('a`b'), '``a`b``');
  assert.equal(markdownCode('`x`'), '`` `x` ``');
  assert.equal(markdownCode(''), '` `');
  assert.equal(markdownCode('abcdef', { maxChars: 4 }), '`abc…`');
});
