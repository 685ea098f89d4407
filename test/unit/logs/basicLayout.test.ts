// vLLM lines through layouts with `LEVEL:name` glued by a colon: Python logging's default
// (`INFO:vllm.config:…`, basicConfig with VLLM_CONFIGURE_LOGGING=0) and a framework's layout with
// the process and thread as `p:N t:N:` (a public ms-swift training note). The logger names the
// engine and its module; other libraries' lines in the same layouts stay theirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

function parse(lines: string[]) {
  const st = createParseState({ referenceTime: Date.UTC(2025, 7, 11) });
  return lines.map((l, i) => parseLine(l, i + 1, 0, st));
}

test('logging\'s default layout with a vLLM logger: the engine\'s line, its module and its hop', () => {
  const [a, b] = parse(['INFO:vllm.v1.engine.async_llm:Added request chatcmpl-b1.', 'WARNING:vllm.config:Casting torch.bfloat16 to torch.float16.']);
  assert.equal(a.engine, 'vllm');
  assert.equal(a.logger, 'vllm.v1.engine.async_llm');
  assert.equal(a.hop, 'V2');
  assert.equal(a.rid, 'chatcmpl-b1');
  assert.equal(b.level, 'WARNING');
  assert.equal(b.message, 'Casting torch.bfloat16 to torch.float16.');
});

test('the same layout with another logger, or a sentence that names vLLM, is no vLLM line', () => {
  for (const r of parse(['INFO:root:Loaded 1200 documents', 'WARNING:urllib3.connectionpool:Retrying', 'INFO vllm.config is deprecated', 'ERROR:vllm is not installed'])) {
    assert.equal(r.engine, 'other', r.message);
  }
});

test('file:line, LEVEL:name, p:pid t:thread: all header; the message starts after them', () => {
  const [a, b] = parse([
    '2025-08-11 16:11:32 block_pool.py:321 INFO:vllm.v1.core.block_pool p:475097 t:140589927618368: Successfully reset prefix cache',
    '2025-08-11 16:17:42 import_utils.py:87 DEBUG:transformers.utils.import_utils p:475091 t:139650923292480: Detected flash_attn version: 2.8.2',
  ]);
  assert.equal(a.engine, 'vllm');
  assert.equal(a.fileinfo, 'block_pool.py');
  assert.equal(a.lineno, 321);
  assert.equal(a.pid, 475097);
  assert.equal(a.message, 'Successfully reset prefix cache');
  assert.equal(b.engine, 'other');
});
