import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { annotateText } from '../../../src/core/session/logSession';
import { citedSource } from '../../../src/core/source/locate';
import { redactMessage, requestHopTableMarkdown } from '../../../src/core/session/requestExport';
import { forTerminal } from '../../../src/core/text/terminal';
import { activeMarkup, formattingMarkup, renderMarkdown } from '../text/markdownRender';

const SPEC = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs');

test('redaction removes vLLM prompts and outputs but keeps ids and finish reasons', () => {
  const details = `Request chatcmpl-4e2b details: prompt: '<|im_start|>user\\nHi<|im_end|>', prompt_token_ids: [151644, 872], prompt_embeds shape: None.`;
  const r = redactMessage(details);
  assert.ok(!r.includes('Hi<|im_end|>') && !r.includes('151644'), r);
  assert.ok(r.startsWith('Request chatcmpl-4e2b details: prompt: ‹redacted›'), r);
  const out = redactMessage(`Generated response chatcmpl-myrun-0001 (streaming complete): output: 'Hello! How can I help?', finish_reason: streaming_complete`);
  assert.equal(out, `Generated response chatcmpl-myrun-0001 (streaming complete): output: ‹redacted›, finish_reason: streaming_complete`);
});

test('redaction removes SGLang request text, token ids and output text', () => {
  const line = `Finish: obj=GenerateReqInput(rid='my-req-1', session_id=None, text='<|im_start|>user\\nHi', input_ids=[151644, 872], stream=True), out={'text': 'Hello! How can I help you today?', 'output_ids': [9707, 0, 2585], 'meta_info': {'id': 'my-req-1', 'completion_tokens': 52}}`;
  const r = redactMessage(line);
  for (const secret of ['Hello! How', '151644', '9707', 'user\\nHi']) assert.ok(!r.includes(secret), `${secret} leaked: ${r}`);
  assert.ok(r.includes(`rid='my-req-1'`) && r.includes(`'completion_tokens': 52`), r);
});

test('a request from the constructed vLLM log exports as a Markdown hop table', () => {
  const text = readFileSync(join(SPEC, 'vllm_info_chat_and_abort.log'), 'utf8');
  const ann = annotateText(text, 'auto');
  const group = ann.tracker.get('chatcmpl-myrun-0001');
  assert.ok(group, `requests: ${[...ann.tracker.rids()].join(', ')}`);
  const rows = group.hops.map((h) => { const record = ann.records[h.line - 1]; return { record, source: citedSource(record) }; });
  const md = requestHopTableMarkdown(group, rows, { includeText: false, logName: 'vllm.log' });
  assert.match(md, /\| observed line \| file:line \| process \| Δ \|/);
  assert.match(md, /\| L11: `Added request chatcmpl-myrun-0001-9e1f0c2d\.` \| `vllm\/v1\/engine\/async_llm\.py:439` \| `APIServer` \| \+≤1 s \|/);
  assert.match(md, /^### Request `chatcmpl-myrun-0001` \(vllm\) in `vllm\.log`$/m);
  assert.ok(!md.includes('Hello! How can I help?'), 'output text must be redacted by default');
  const withText = requestHopTableMarkdown(group, rows, { includeText: true, logName: 'vllm.log' });
  assert.ok(withText.includes('Hello! How can I help?'));
});

test('a request whose client-chosen id is link, HTML or code-span syntax exports as text: no link, ids readable', () => {
  // vLLM prints the X-Request-Id a client sent, after its own prefix: the id is the client's text.
  const fixture = readFileSync(join(SPEC, 'vllm_info_chat_and_abort.log'), 'utf8').split('\n').filter((l) => l.includes('myrun-0001'));
  const ids = ['[x](command:workbench.action.terminal.new)', '[run](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22id%5Cn%22%7D)',
    '[j](javascript:alert(1))', '<img/src=x/onerror=alert(1)>', 'a`b``c|d', '<https://evil.example>', '**bold**_em_'];
  const exportFor = (id: string, includeText: boolean) => {
    const ann = annotateText(fixture.map((l) => l.replaceAll('myrun-0001', id)).join('\n') + '\n', 'auto');
    const group = ann.tracker.get(`chatcmpl-${id}`);
    assert.ok(group, `${id}: requests ${[...ann.tracker.rids()].join(', ')}`);
    const rows = group.hops.map((h) => { const record = ann.records[h.line - 1]; return { record, source: citedSource(record) }; });
    return requestHopTableMarkdown(group, rows, { includeText, logName: `${id}.log` });
  };
  const tags = (html: ReturnType<typeof renderMarkdown>) => html.elements.map((e) => e.tagName).join(' ');
  for (const includeText of [false, true]) {
    const plain = renderMarkdown(exportFor('myrun-0001', includeText));
    for (const id of ids) {
      const md = exportFor(id, includeText);
      const r = renderMarkdown(md);
      assert.deepEqual(activeMarkup(r), [], `${id}:\n${md}\n${r.html}`);
      // The same document as for a plain id: no element more or less (no emphasis, no extra column).
      assert.equal(tags(r), tags(plain), `${id}:\n${r.html}`);
      assert.deepEqual(formattingMarkup(r), formattingMarkup(plain));
      // The heading names the id and the log exactly as printed.
      assert.deepEqual(r.codeTexts.slice(0, 2), [forTerminal(`chatcmpl-${id}`), `${id}.log`]);
      assert.ok(r.codeTexts.includes(`Added request chatcmpl-${id}-9e1f0c2d.`), r.codeTexts.join('\n'));
    }
  }
});
