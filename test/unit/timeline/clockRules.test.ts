// Which orderings hold between sources, on small logs written exactly as the engines print.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRequestLogs } from '../../../src/core/timeline/requestLogs';
import { collectOrderings, inferRoles } from '../../../src/core/timeline/clockRules';
import { solveOffsets } from '../../../src/core/timeline/clockOffsets';
import { makeTempDir } from '../../harness/tempDirs';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import { decodeOtlpJson } from '../../../src/core/otlp/decode';

/** Logs written on 2026-08-22 (vLLM's stamps take their year from that). */
function logs(files: Record<string, string[]>): string[] {
  const dir = makeTempDir('hoplens-rules-').path;
  const written = new Date(Date.UTC(2026, 7, 22));
  return Object.entries(files).map(([name, lines]) => {
    const p = join(dir, name);
    writeFileSync(p, lines.join('\n') + '\n');
    utimesSync(p, written, written);
    return p;
  });
}

const SP = (mt: number) => `SamplingParams(n=1, temperature=0.7, top_p=1.0, max_tokens=${mt}, min_tokens=0, extra_args=None)`;

test('vLLM prefill/decode without kv_transfer_params in the params: the instance with max_tokens=1 is the prefill', async () => {
  const paths = logs({
    'p.log': [
      `(APIServer pid=1) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-x1: params: ${SP(1)}, lora_request: None.`,
      '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-x1-0a0b0c0d.',
    ],
    'd.log': [
      `(APIServer pid=2) INFO 08-21 22:30:09 [request_logger.py:63] Received request chatcmpl-x1: params: ${SP(64)}, lora_request: None.`,
    ],
  });
  const r = await readRequestLogs(paths, 'x1');
  assert.deepEqual(inferRoles(r.logs), ['prefill', 'decode']);
  const set = collectOrderings({ key: r.key, logs: r.logs.map((log, i) => ({ domain: `log:${i}`, log, role: inferRoles(r.logs)[i] })), client: null, spans: null });
  const pd = set.get('log:0', 'log:1')!;
  assert.match(pd.note!.rule, /only after the prefill instance answered/);
  // d's clock − p's clock < 22:30:09 + 1 s − 22:30:05 = 5 s; nothing bounds it from below.
  assert.equal(pd.c, 5000);
  assert.equal(set.get('log:1', 'log:0'), null);
});

test('SGLang prefill/decode: the prefill had the request before the decode finished', async () => {
  const paths = logs({
    'prefill.log': [
      "[2026-08-21 22:30:01] Receive: obj=GenerateReqInput(rid='r9', session_id=None, text=None, stream=True)",
      '[2026-08-21 22:30:01.250 TP0] ReqTimeStats(rid=r9, bootstrap_room=77, input_len=9, cached_input_len=0, output_len=1, attempts=1, type=prefill): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1787351401.030',
    ],
    'decode.log': [
      "[2026-08-21 22:30:04] Receive: obj=GenerateReqInput(rid='r9', session_id=None, text=None, stream=True)",
      '[2026-08-21 22:30:04.900 TP0] ReqTimeStats(rid=r9, bootstrap_room=77, input_len=9, cached_input_len=0, output_len=40, attempts=1, type=decode): queue_duration=0.40ms, forward_duration=500.00ms, entry_time=1787351404.300',
    ],
  });
  const r = await readRequestLogs(paths, 'r9');
  const roles = inferRoles(r.logs);
  assert.deepEqual(roles, ['prefill', 'decode']);
  const set = collectOrderings({ key: r.key, logs: r.logs.map((log, i) => ({ domain: `log:${i}`, log, role: roles[i] })), client: null, spans: null });
  const pd = set.get('log:0', 'log:1')!;
  assert.match(pd.note!.rule, /decode finishes only after the prefill instance/);
  assert.equal(pd.c, 3901, 'decode ReqTimeStats 04.900 + 1 ms − prefill Receive 01 (a whole second)');
});

test('a router, a single instance, a client: orderings both ways bracket the instance\'s clock', async () => {
  const paths = logs({
    'router.log': [
      '2026-08-21 22:30:01  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="q1"}: sglang_router_rs::request: src/middleware.rs:230: started processing request',
      '2026-08-21 22:30:01  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="q1" status_code=200 latency="40ms"}: sglang_router_rs::response: src/middleware.rs:272: finished processing request',
    ],
    'vllm.log': [`(APIServer pid=2) INFO 08-21 22:30:31 [request_logger.py:63] Received request chatcmpl-q1: params: ${SP(16)}, lora_request: None.`],
  });
  const r = await readRequestLogs(paths, 'chatcmpl-q1');
  const roles = inferRoles(r.logs);
  assert.deepEqual(roles, ['router', 'instance']);
  const set = collectOrderings({ key: r.key, logs: r.logs.map((log, i) => ({ domain: `log:${i}`, log, role: roles[i] })), client: null, spans: null });
  const sol = solveOffsets(['log:0', 'log:1'], 'log:0', set);
  const o = sol.offsets.get('log:1')!;
  // The instance's clock is 30 s ahead: 31 − 1 − 1 s < offset < 31 + 1 − 1 s.
  assert.deepEqual([o.min, o.max], [29000, 31000]);
  assert.equal(o.ms, 30000);
});

/** One llm_request span as vLLM's exporter sends it in OTLP/JSON, from the process `pid` (its resource's vllm.process_id). */
function llmRequestSpan(pid: number, requestId: string, startMs: number, endMs: number): string {
  const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
  return JSON.stringify({
    resourceSpans: [{
      resource: { attributes: [
        { key: 'service.name', value: { stringValue: 'vllm' } }, { key: 'vllm.process_id', value: { intValue: String(pid) } },
      ] },
      scopeSpans: [{
        scope: { name: 'vllm.llm_engine' },
        spans: [{
          traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'llm_request', kind: 2,
          startTimeUnixNano: ns(startMs), endTimeUnixNano: ns(endMs),
          attributes: [{ key: 'gen_ai.request.id', value: { stringValue: requestId } }, { key: 'gen_ai.latency.e2e', value: { doubleValue: 1.5 } }],
        }],
      }],
    }],
  });
}

test('vLLM prefill/decode with one llm_request span: the span\'s process id says which instance\'s log it orders against', async () => {
  const paths = logs({
    'p.log': [
      `(APIServer pid=1) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-x2: params: ${SP(1)}, lora_request: None.`,
      '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-x2-0a0b0c0d.',
    ],
    'd.log': [
      `(APIServer pid=2) INFO 08-21 22:30:09 [request_logger.py:63] Received request chatcmpl-x2: params: ${SP(64)}, lora_request: None.`,
      '(APIServer pid=2) INFO 08-21 22:30:09 [async_llm.py:439] Added request chatcmpl-x2-1a1b1c1d.',
    ],
  });
  const r = await readRequestLogs(paths, 'x2');
  const roles = inferRoles(r.logs);
  const store = new SpanStore();
  store.add(decodeOtlpJson(llmRequestSpan(2, 'chatcmpl-x2', Date.UTC(2026, 7, 21, 22, 30, 9, 100), Date.UTC(2026, 7, 21, 22, 30, 10, 600))).spans);
  const set = collectOrderings({
    key: r.key, logs: r.logs.map((log, i) => ({ domain: `log:${i}`, log, role: roles[i] })), client: null, spans: { domain: 'spans', store },
  });
  // The decode instance's API server (pid 2) exported it: its Added request line is ordered against the span, the prefill's is not.
  assert.match(set.get('log:1', 'spans')?.note?.rule ?? '', /the span ends when the request finishes/);
  assert.equal(set.get('log:0', 'spans'), null);
  assert.equal(set.get('spans', 'log:0'), null);
});
