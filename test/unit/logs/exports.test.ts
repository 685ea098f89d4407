// vLLM lines quoted inside an aggregator's export (a CSV field, a JSON string in a pretty-printed
// export or a query API's pair, a nested message field) and colour codes escaped by syslog. The
// lines are shaped as the exporters write them (test/fixtures/real-logs/exports-vllm.corpus has
// their sources; the first ones are as posted in aws-samples/amazon-sagemaker-generativeai#111).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine, primeState } from '../../../src/core/logs/parseLine';
import type { LogRecord } from '../../../src/core/logs/model';

const REF = Date.UTC(2026, 7, 22, 12, 0, 0);

/** As the editor and the CLI read a log: the first lines teach the state the engine, then every line is parsed. */
function parseAll(lines: string[]): LogRecord[] {
  const st = createParseState({ referenceTime: REF });
  primeState(st, lines.join('\n'));
  return lines.map((l, i) => parseLine(l, i + 1, 0, st));
}

test('a CSV export: the quoted field is the line, its doubled quotes read as one, syslog\'s #033 colour removed', () => {
  const [tb, raise, bare, rec, access] = parseAll([
    '1756144013378,"#033[1;36m(APIServer pid=1)#033[0;0m   File ""/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py"", line 759, in wait_for_engine_startup"',
    '1756144013378,"#033[1;36m(APIServer pid=1)#033[0;0m     raise RuntimeError(""Engine core initialization failed. """',
    '1756144014882,#033[1;36m(APIServer pid=1)#033[0;0m RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}',
    '1770982413123,"#033[1;36m(APIServer pid=90458)#033[0;0m INFO 02-13 11:33:33 [logger.py:49] Received request chatcmpl-a269fdcb7c6ce890: params: SamplingParams(n=1, stop=[""</s>""]), lora_request: None."',
    '1770982413125,"#033[1;36m(APIServer pid=90458)#033[0;0m INFO:     10.80.23.18:51408 - ""POST /v1/chat/completions HTTP/1.1"" 200 OK"',
  ]);
  assert.equal(tb.process, 'APIServer');
  assert.equal(tb.message, '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py", line 759, in wait_for_engine_startup');
  assert.equal(raise.message, '    raise RuntimeError("Engine core initialization failed. "');
  assert.equal(bare.process, 'APIServer');
  assert.equal(bare.message, 'RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}');
  assert.equal(rec.hop, 'V1');
  assert.equal(rec.rid, 'chatcmpl-a269fdcb7c6ce890');
  assert.equal(rec.fileinfo, 'logger.py');
  assert.equal(rec.message, 'Received request chatcmpl-a269fdcb7c6ce890: params: SamplingParams(n=1, stop=["</s>"]), lora_request: None.');
  assert.equal(rec.prefix, '1770982413123,"');
  assert.deepEqual(rec.wrappers, ['csv']);
  assert.equal(access.format, 'uvicorn');
  assert.equal(access.hop, 'V10');
  assert.equal(access.process, 'APIServer');
});

test('a CSV export with the time quoted too: the hop\'s id stops at the closing quote', () => {
  const [r] = parseAll(['"2026-08-21 22:30:05.123","(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-csv1-9e1f0c2d."']);
  assert.equal(r.hop, 'V2');
  assert.equal(r.rid, 'chatcmpl-csv1');
  assert.equal(r.message, 'Added request chatcmpl-csv1-9e1f0c2d.');
});

test('JSON exports: a member line, an array element, a [time, line] pair, a nested message field', () => {
  const recs = parseAll([
    '            "message": "(APIServer pid=1) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-cw2: params: SamplingParams(n=1, stop=[\\"</s>\\"]), lora_request: None.",',
    '    "textPayload": "(APIServer pid=1) INFO 08-21 22:30:15 [loggers.py:310] Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, Prefix cache hit rate: 0.0%\\n",',
    '    {"timestamp": 1755815405123, "message": "(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-cw3-9e1f0c2d.", "ingestionTime": 1755815405200},',
    '          ["1755815406000000000", "(APIServer pid=1) INFO 08-21 22:30:06 [request_logger.py:98] Generated response chatcmpl-lk1 (streaming complete): output: \'He said \\"hi\\"\', finish_reason: streaming_complete"]',
    '{"attributes":{"message":"(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-dd1-9e1f0c2d.","timestamp":"2026-08-21T22:30:05.123Z","service":"vllm"}}',
  ]);
  assert.deepEqual(recs.map((r) => r.hop), ['V1', 'V5', 'V2', 'V6', 'V2']);
  assert.deepEqual(recs.map((r) => r.rid), ['chatcmpl-cw2', null, 'chatcmpl-cw3', 'chatcmpl-lk1', 'chatcmpl-dd1']);
  assert.equal(recs[0].message, 'Received request chatcmpl-cw2: params: SamplingParams(n=1, stop=["</s>"]), lora_request: None.');
  assert.ok(recs[1].message.endsWith('Prefix cache hit rate: 0.0%'));
  assert.equal(recs[3].message, 'Generated response chatcmpl-lk1 (streaming complete): output: \'He said "hi"\', finish_reason: streaming_complete');
  assert.ok(recs.every((r) => r.wrappers?.[0] === 'json'));
});

test('an exporter\'s `{"message":"(APIServer pid=1) …` is not read as stern\'s pod and container names', () => {
  const [r] = parseAll(['{"_source":{"message":"(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-es1-9e1f0c2d.","@timestamp":"2026-08-21T22:30:05.123Z"}}']);
  assert.equal(r.rid, 'chatcmpl-es1');
  assert.equal(r.process, 'APIServer');
  assert.equal(r.prefix, '{"_source":{"message":"');
});

test('a bracketed stamp another tool writes in front (`ts \'[%Y-%m-%d %H:%M:%S]\'`) is no SGLang header when vLLM\'s line follows', () => {
  const [dated, clock, bare, sglang] = parseAll([
    '[2026-08-21 22:30:05] (APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-ts1-9e1f0c2d.',
    '[22:30:15] (APIServer pid=1) INFO 08-21 22:30:15 [loggers.py:310] Engine 000: Avg prompt throughput: 3.0 tokens/s, Avg generation throughput: 9.0 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%',
    '[2026-08-21 22:30:06] INFO 08-21 22:30:06 [pynccl.py:70] vLLM is using nccl==2.26.2',
    '[2026-08-21 22:50:10] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
  ]);
  assert.equal(dated.engine, 'vllm');
  assert.equal(dated.hop, 'V2');
  assert.equal(dated.process, 'APIServer');
  assert.equal(dated.prefix, '[2026-08-21 22:30:05] ');
  assert.equal(clock.engine, 'vllm');
  assert.equal(clock.hop, 'V5');
  assert.equal(bare.engine, 'vllm');
  assert.equal(bare.fileinfo, 'pynccl.py');
  // SGLang's own line of the same shape stays SGLang's.
  assert.equal(sglang.engine, 'sglang');
  assert.equal(sglang.hop, 'S3');
});
