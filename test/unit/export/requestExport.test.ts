import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { annotateText, citedSource } from '../../../src/core/logs/annotate';
import { redactMessage, requestHopTableMarkdown } from '../../../src/core/logs/requestExport';

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
  assert.match(md, /Added request chatcmpl-myrun-0001-9e1f0c2d\. \| vllm\/v1\/engine\/async_llm\.py:439 \| APIServer \|/);
  assert.ok(!md.includes('Hello! How can I help?'), 'output text must be redacted by default');
  const withText = requestHopTableMarkdown(group, rows, { includeText: true, logName: 'vllm.log' });
  assert.ok(withText.includes('Hello! How can I help?'));
});
