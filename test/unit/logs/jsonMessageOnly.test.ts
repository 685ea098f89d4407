// JSON records that carry only `message` (a JSON formatter on the root logger, in the shape of
// BerriAI/litellm#4248's `json.dumps({"message": record.getMessage()})`, or python-json-logger with
// `%(asctime)s %(levelname)s %(message)s`): they name no logger, so whose line it is is the message's to say.
// Such a formatter prints every library's records in the same keys, so a hop message is the engine's line
// and anything else is left alone. The lines below were rendered by Python 3's logging and json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

function parse(lines: string[], forced?: 'vllm' | 'sglang') {
  const st = createParseState({ referenceTime: Date.UTC(2026, 4, 20), ...(forced ? { engine: forced } : {}) });
  return lines.map((l, i) => parseLine(l, i + 1, 0, st));
}

const RECEIVED = String.raw`{"message": "Received request chatcmpl-e7a7de3c-532e-4a4f-bf3b-670fad52ee33: prompt: '<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n', params: SamplingParams(n=1, temperature=0.7, top_p=0.8, top_k=20, max_tokens=16353), prompt_token_ids: None, prompt_embeds shape: None, lora_request: None."}`;
const ADDED = '{"message": "Added request chatcmpl-017ee87d69ed40e9b67198e5c5e0ee7d."}';
const HTTPX = String.raw`{"message": "HTTP Request: POST http://127.0.0.1:8000/v1/chat/completions \"HTTP/1.1 200 OK\""}`;
const TEMPLATE = `{"message": "Detected the chat template content format to be 'string'. You can set \`--chat-template-content-format\` to override this."}`;
const PREFILL = '{"asctime": "2026-05-20 08:02:44,796", "levelname": "INFO", "message": "Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, '
  + 'token usage: 0.08, #running-req: 31, #queue-req: 0, cuda graph: True, input throughput (token/s): 559.53"}';

test("a message-only JSON record whose message is an engine's hop is that engine's line, with its rid; other messages are no one's", () => {
  const [template, rec, added, httpx] = parse([TEMPLATE, RECEIVED, ADDED, HTTPX]);
  assert.deepEqual([rec.engine, rec.hop, rec.rid], ['vllm', 'V1', 'chatcmpl-e7a7de3c-532e-4a4f-bf3b-670fad52ee33']);
  assert.ok(rec.message.startsWith('Received request chatcmpl-'), rec.message);
  assert.deepEqual([added.engine, added.hop, added.rid], ['vllm', 'V2', 'chatcmpl-017ee87d69ed40e9b67198e5c5e0ee7d']);
  // vLLM's own non-hop statement and httpx's record look alike in these keys: neither is claimed.
  assert.deepEqual([template.engine, template.hop], ['other', null]);
  assert.deepEqual([httpx.engine, httpx.hop], ['other', null]);
});

test("python-json-logger's asctime and levelname are read; the log's engine, once known, is the only one a message may be", () => {
  const [prefill] = parse([PREFILL]);
  assert.deepEqual([prefill.engine, prefill.hop, prefill.level], ['sglang', 'S3', 'INFO']);
  assert.equal(prefill.time, Date.UTC(2026, 4, 20, 8, 2, 44, 796));
  // In a log known to be vLLM's (forced, or detected from its first hop), SGLang's words are not claimed.
  assert.equal(parse([PREFILL], 'vllm')[0].engine, 'other');
  assert.deepEqual(parse([ADDED, PREFILL]).map((r) => r.engine), ['vllm', 'other']);
});

test("a message-only record quoting an engine's whole header is read as that line, as an export's is", () => {
  const [quoted] = parse(['{"message": "INFO 05-14 17:45:10 [async_llm_engine.py:211] Added request chatcmpl-017ee87d69ed40e9b67198e5c5e0ee7d."}']);
  assert.deepEqual([quoted.engine, quoted.hop, quoted.fileinfo, quoted.lineno], ['vllm', 'V2', 'async_llm_engine.py', 211]);
});

// uvicorn's access record through such a formatter: `record.getMessage()` of uvicorn.access is `'%s - "%s %s HTTP/%s" %d'`
// (rendered by Python 3's logging over uvicorn's access call: no level prefix, no status phrase).
const ACCESS = '{"asctime": "2026-05-20 08:02:44,996", "levelname": "INFO", "message": "127.0.0.1:40052 - \\"POST /v1/chat/completions HTTP/1.1\\" 200"}';

test("uvicorn's access record naming no logger is the server's in a log known to be an engine's (vLLM: its access hop)", () => {
  const [, sglang] = parse([PREFILL, ACCESS]);
  assert.deepEqual([sglang.engine, sglang.format, sglang.role, sglang.level], ['sglang', 'uvicorn', 'api-server', 'INFO']);
  const [, vllm] = parse([ADDED, ACCESS]);
  assert.deepEqual([vllm.engine, vllm.hop], ['vllm', 'V10']);
  // Nothing known of the log yet: no one's, as uvicorn's named records are.
  assert.deepEqual([parse([ACCESS])[0].engine, parse([ACCESS])[0].hop], ['other', null]);
  // Other servers' access lines (gunicorn's, with `- - [date]`; a client without its port) and other loggers' records stay no one's.
  const gunicorn = '{"message": "127.0.0.1 - - [20/May/2026:08:02:44 +0000] \\"POST /v1/chat/completions HTTP/1.1\\" 200 512 \\"-\\" \\"curl/8.5.0\\""}';
  const noPort = '{"message": "127.0.0.1 - \\"POST /v1/chat/completions HTTP/1.1\\" 200"}';
  const named = '{"name": "litellm.proxy", "message": "127.0.0.1:40052 - \\"POST /v1/chat/completions HTTP/1.1\\" 200"}';
  assert.deepEqual(parse([PREFILL, gunicorn, noPort, named]).slice(1).map((r) => r.engine), ['other', 'other', 'other']);
});
