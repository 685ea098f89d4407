// "Copy as Markdown" of a traced request whose server sent hostile text (model, ids, every
// content frame, the error): pasted into an issue or a preview it shows that text, no link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toMarkdown } from '../../../src/core/request/export';
import { forTerminal } from '../../../src/core/text/terminal';
import { HOSTILE } from '../text/hostile';
import { activeMarkup, renderMarkdown } from '../text/markdownRender';
import { hostileTracedRequest, HOSTILE_MODEL } from '../webview/hostileEngine';

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

test('the Markdown report of a hostile stream: every frame and the error as text, the table intact', async () => {
  const { record, metrics } = await hostileTracedRequest('stream');
  const md = toMarkdown(record, metrics);
  const r = renderMarkdown(md);
  assert.deepEqual(activeMarkup(r), [], md);
  for (const h of HOSTILE) assert.ok(r.codeTexts.includes(forTerminal(clip(h, 80))), `frame ${JSON.stringify(h)}`);
  assert.ok(r.codeTexts.some((t) => t.includes(HOSTILE_MODEL)), 'the model as named');
  assert.ok(r.codeTexts.includes(forTerminal(record.error!.message)), 'the error as sent');
  const frameRows = r.elements.filter((e) => e.tagName === 'tr' && e.childNodes.filter((c) => 'tagName' in c && c.tagName === 'td').length === 6);
  assert.equal(frameRows.length, record.frames.length);
  const redacted = renderMarkdown(toMarkdown(record, metrics, { redactText: true }));
  assert.deepEqual(activeMarkup(redacted), []);
  // Redacted, the text column holds only '…' for frames that had output.
  const rows = redacted.elements.filter((e) => e.tagName === 'tr').slice(-record.frames.length);
  const lastCellTexts = rows.map((tr) => {
    const td = tr.childNodes.filter((c) => 'tagName' in c && c.tagName === 'td').pop();
    return td && 'childNodes' in td ? td.childNodes.map((c) => ('value' in c ? c.value : '')).join('') : '?';
  });
  assert.deepEqual([...new Set(lastCellTexts)].sort(), ['', '…']);
});

test('the Markdown report of a hostile HTTP error', async () => {
  const { record, metrics } = await hostileTracedRequest('http-error');
  const r = renderMarkdown(toMarkdown(record, metrics));
  assert.deepEqual(activeMarkup(r), []);
  assert.ok(r.codeTexts.some((t) => t.includes(forTerminal(`${HOSTILE[1]} ${HOSTILE[4]}`))), r.html);
});
