// Records joined by a paste that lost its line breaks: a record ends where the next header begins,
// also when what follows is no record of its own (a uvicorn access line, a last header cut short),
// so its hop and rid come from its own words (lines of vllm-project/vllm#5697 and #34503 as
// flattened pastes keep them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import { firstRecord, nextRecordAt } from '../../../src/hops/index';
import { citedSource } from '../../../src/core/source/locate';

const ABORTS = 'issue on Github. See stack trace above for theactual cause. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request cmpl-7347d49f836c40a6b8d00fff45f5998d. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request cmpl-10f955208ce04051aeb80f37a1b930b4. INFO 06-19 11:';
const ADDED = 'lora_request: None. (APIServer pid=90458) INFO 02-13 11:33:33 [async_llm.py:382] Added request chatcmpl-a269fdcb7c6ce890-a8a65d16. (APIServer pid=90458) INFO: 10.80.23.18:51408 - "POST /v1/chat/completions HTTP/1.1" 200 OK (APIServer pid=90458) INFO 02-13 11:33:39 [loggers.py:257] Engine 000: Avg p...';

function parse(line: string) {
  return parseLine(line, 1, 0, createParseState({ referenceTime: Date.UTC(2024, 6, 1) }));
}

test('a hop whose record has another glued on is tagged with its own request id', () => {
  const a = parse(ABORTS);
  assert.equal(a.engine, 'vllm');
  assert.equal(a.hop, 'V8');
  assert.equal(a.rid, 'cmpl-7347d49f836c40a6b8d00fff45f5998d');
  const b = parse(ADDED);
  assert.equal(b.hop, 'V2');
  assert.equal(b.rid, 'chatcmpl-a269fdcb7c6ce890');
  // The access line glued after it is no record of its own: it stays in the message, shown as printed.
  assert.ok(b.message.endsWith('"POST /v1/chat/completions HTTP/1.1" 200 OK'), b.message);
});

test('the first record ends at a whole header of vLLM, SGLang or uvicorn, never at a level word or a date alone', () => {
  assert.equal(firstRecord('Aborted request cmpl-1. INFO 06-19 11:25:01 async_llm_engine.py:167] Aborted request cmpl-2.'), 'Aborted request cmpl-1.');
  assert.equal(firstRecord('Added request x. (APIServer pid=1) INFO 02-13 11:33:33 [async_llm.py:382] Added request y.'), 'Added request x.');
  assert.equal(firstRecord('Added request x. (APIServer pid=1) INFO:     10.0.0.1:5 - "POST /v1/completions HTTP/1.1" 200 OK'), 'Added request x.');
  assert.equal(firstRecord('Decode batch. #running-req: 1 [2025-02-27 04:46:41 TP0] Decode batch. #running-req: 2'), 'Decode batch. #running-req: 1');
  assert.equal(firstRecord('Aborted request cmpl-2. INFO 06-19 11:'), 'Aborted request cmpl-2.');
  assert.equal(firstRecord('Error in chat completion stream generator. ERROR 07-07 18:10:2...'), 'Error in chat completion stream generator.');
  for (const whole of [
    'Finished request cmpl-1.',
    'Setting level INFO 06-19 for the run',
    'see logs at [2025-02-27] for details',
    'INFO 06-19 11:25:01 starts the message itself',
    'Route: /v1/chat/completions, Methods: POST',
    'Set the level to INFO',
    'retrying in 5 s (INFO 3)',
  ]) assert.equal(nextRecordAt(whole), -1, whole);
});

test('without a checkout, a hop printed from another release\'s file is not cited at the pin\'s file', () => {
  // V0's async_llm_engine.py prints V8; the table cites V1's async_llm.py: line 134 of that file is no answer.
  const v0 = parse('INFO 01-17 03:11:25 async_llm_engine.py:134] Aborted request 0e89f1d2d94c4a039f868222c100cc8a.');
  assert.equal(v0.hop, 'V8');
  assert.equal(citedSource(v0), null);
  const v1 = parse('(APIServer pid=1) INFO 09-10 19:12:31 [async_llm.py:761] Aborted request(s) chatcmpl-1.');
  assert.deepEqual(citedSource(v1) && { path: citedSource(v1)!.path, line: citedSource(v1)!.line }, { path: 'vllm/v1/engine/async_llm.py', line: 761 });
});
