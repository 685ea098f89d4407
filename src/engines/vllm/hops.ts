// vLLM's request path as a hop table. Citations are the spec's (hops.json, with its
// corrections): read at cd5035379c4c, believed identical at the pin a556f3fccb70.
import type { HopDef, HopTable } from '../types';

const REQUEST_LOGGER = 'vllm/entrypoints/serve/utils/request_logger.py';
const ASYNC_LLM = 'vllm/v1/engine/async_llm.py';
const SCHEDULER = 'vllm/v1/core/sched/scheduler.py';
const LOG_REQUESTS_OFF = '--enable-log-requests was not passed, or VLLM_LOGGING_LEVEL is above INFO.';

function hop(h: Omit<HopDef, 'engine'>): HopDef {
  return { engine: 'vllm', ...h };
}

export const VLLM_HOPS: HopDef[] = [
  hop({
    id: 'V0a', since: '0.34.0', labId: null, role: 'api-server', process: 'APIServer', level: 'WARNING',
    file: REQUEST_LOGGER, line: 22,
    format: '`--enable-log-requests` is set but the minimum log level is higher than INFO. No request information will be logged.',
    fileBasenames: ['request_logger.py'],
    startsWith: ['`--enable-log-requests` is set but the minimum log level is higher than INFO'],
    patterns: [/^`--enable-log-requests` is set but the minimum log level is higher than INFO\. No request information will be logged\.$/],
    ridKind: null, scope: 'startup', flags: ['--enable-log-requests', 'VLLM_LOGGING_LEVEL=WARNING|ERROR'],
    gate: '--enable-log-requests with VLLM_LOGGING_LEVEL above INFO; printed once at startup',
    meaning:
      'Printed once at startup when request logging was asked for but the log level hides it. If you see this, no request hop below will appear: lower ' +
      'VLLM_LOGGING_LEVEL to INFO or DEBUG.',
    missing: { kind: 'startup', text: 'Printed only once at startup, and only when the level hides request logging.' },
  }),
  hop({
    id: 'V0b', since: null, labId: null, role: 'api-server', process: 'APIServer', level: 'INFO',
    file: REQUEST_LOGGER, line: 28,
    format:
      '`--enable-log-requests` is set but the minimum log level is higher than DEBUG. Only limited information will be logged to minimize overhead. To ' +
      'view more details, set `VLLM_LOGGING_LEVEL=DEBUG`.',
    fileBasenames: ['request_logger.py'],
    startsWith: ['`--enable-log-requests` is set but the minimum log level is higher than DEBUG'],
    patterns: [/^`--enable-log-requests` is set but the minimum log level is higher than DEBUG\..*$/],
    ridKind: null, scope: 'startup', flags: ['--enable-log-requests'],
    gate: '--enable-log-requests at INFO level; printed once at startup',
    meaning:
      'Startup notice: request logging is on at INFO, so each request gets its "Received" and "Added" lines but not the DEBUG line with the prompt text ' +
      'and token ids.',
    missing: { kind: 'startup', text: 'Printed only once at startup, and only at INFO level with --enable-log-requests.' },
  }),
  hop({
    id: 'V1b', since: '0.11.2', labId: '1b', role: 'api-server', process: 'APIServer', level: 'DEBUG',
    file: REQUEST_LOGGER, line: 53,
    format: 'Request %s details: prompt: %r, prompt_token_ids: %s, prompt_embeds shape: %s.',
    fileBasenames: ['request_logger.py', 'logger.py'],
    startsWith: ['Request '],
    patterns: [/^Request (?<rid>\S+) details: prompt: .*$/],
    ridKind: 'external', scope: 'request', flags: ['--enable-log-requests', 'VLLM_LOGGING_LEVEL=DEBUG'],
    gate: '--enable-log-requests and VLLM_LOGGING_LEVEL=DEBUG; prompt and ids cut to --max-log-len',
    meaning:
      'The DEBUG half of the request logger: the rendered prompt and its token ids as the API server will submit them, under the external request id. Use ' +
      'it to check the chat template produced what you expected.',
    missing: { kind: 'level', text: 'DEBUG only: start the server with VLLM_LOGGING_LEVEL=DEBUG and --enable-log-requests.' },
  }),
  hop({
    id: 'V1', since: '0.4.3', labId: '1', role: 'api-server', process: 'APIServer', level: 'INFO',
    file: REQUEST_LOGGER, line: 63,
    format: 'Received request %s: params: %s, lora_request: %s.',
    fileBasenames: ['request_logger.py', 'logger.py', 'async_llm_engine.py'],
    startsWith: ['Received request '],
    // Every wording starts `Received request <id>: ` and a field name; a line cut short after it is still the hop.
    patterns: [/^Received request (?<rid>\S+): (?:prompt|params|sampling[ _]params): /],
    wordings: [
      {
        text: 'Received request …: params: …, lora_request: ….',
        versions:
          '0.11.2 and later (entrypoints/logger.py to 0.22.1, entrypoints/serve/utils/request_logger.py from 0.23.0; ' +
          'the prompt moved to the DEBUG line, vllm#29208)',
        example: 'Received request chatcmpl-a269fdcb7c6ce890: params: SamplingParams(n=1, temperature=0.7), lora_request: None.',
      },
      {
        text: 'Received request …: prompt: …, params: …, prompt_token_ids: …, prompt_embeds shape: …, lora_request: ….',
        versions: '0.10 (entrypoints/logger.py:41 at 0.10.2, read in the release)',
        example:
          "Received request cmpl-5f0c1e2a-0: prompt: 'How to make pizza', params: SamplingParams(n=1), prompt_token_ids: [1, 1128], prompt_embeds shape: " +
          "None, lora_request: None.",
      },
      {
        text: 'Received request …: prompt: …, params: …, prompt_token_ids: …, lora_request: …, prompt_adapter_request: ….',
        versions: '0.5 to 0.11.1 (entrypoints/logger.py; seen in vllm#9023, vllm#10102, vllm#18916)',
        example:
          "Received request cmpl-c52dbd9a95114d1cbfa182e588138c86-0: prompt: 'How to make pizza', params: SamplingParams(n=1), prompt_token_ids: [1, " +
          "1128], lora_request: None, prompt_adapter_request: None.",
      },
      {
        text: 'Received request …: prompt: …, params: …, prompt_token_ids: …, lora_request: ….',
        versions: 'about 0.4.3 to 0.5 (engine/async_llm_engine.py, before the request logger moved to entrypoints/logger.py; seen in vllm#5162)',
        example:
          'Received request 411b759f6c074472a345a558c475ce1b: prompt: None, params: SamplingParams(n=1, max_tokens=1), prompt_token_ids: [128000, 3947, ' +
          '374], lora_request: None.',
      },
      {
        text: 'Received request …: prompt: …, sampling_params: …, prompt_token_ids: …, lora_request: ….',
        versions: '0.4 to 0.4.2 (engine/async_llm_engine.py; seen in vllm#4966, vllm#5060)',
        example:
          "Received request cmpl-10dff83cb4b6422ba8c64213942a7e46: prompt: 'Question: Is Korea the name of a Nation?', sampling_params: " +
          "SamplingParams(n=1, temperature=0.0), prompt_token_ids: [5, 5, 255000], lora_request: None.",
      },
      {
        text: 'Received request …: prompt: …, prefix_pos: …,sampling_params: …, prompt_token_ids: …, lora_request: ….',
        versions: '0.3 (engine/async_llm_engine.py; seen in vllm#2947)',
        example:
          "Received request d9e65a86be2a42a4917ba9fee5e97d9e: prompt: 'hello', prefix_pos: None,sampling_params: SamplingParams(n=1), prompt_token_ids: " +
          "None, lora_request: None.",
      },
    ],
    ridKind: 'external', scope: 'request', flags: ['--enable-log-requests'],
    gate: '--enable-log-requests',
    meaning:
      'The API server accepted and rendered the request and is about to submit it. The id is the external one: chatcmpl-<id> for chat, cmpl-<id>-<prompt ' +
      'index> for completions, where <id> is X-Request-Id, the body request_id, or a random uuid. The sampling parameters show what the server actually ' +
      'used.',
    missing: { kind: 'gate', text: LOG_REQUESTS_OFF },
  }),
  hop({
    id: 'V2', since: '0.6.6.post1', labId: '2', role: 'api-server', process: 'APIServer', level: 'INFO',
    file: ASYNC_LLM, line: 439,
    format: 'Added request %s.',
    fileBasenames: ['async_llm.py', 'async_llm_engine.py', 'engine.py'],
    startsWith: ['Added request '],
    patterns: [/^Added request (?<internal_rid>\S+?)\.?$/],
    wordings: [
      {
        text: 'Added request <external id>-<8 hex>.',
        versions: 'V1 engine, about 0.15 and later (v1/engine/async_llm.py)',
        example: 'Added request chatcmpl-a269fdcb7c6ce890-a8a65d16.',
      },
      {
        text: 'Added request <external id>.',
        versions:
          'V1 engine 0.8 to about 0.14 (v1/engine/async_llm.py; seen in vllm#18916, vllm#34503); V0 engine 0.4 to 0.10 (engine/async_llm_engine.py, ' +
          'engine/multiprocessing/engine.py; seen in vllm#8031)',
        example: 'Added request chatcmpl-df5dce913d1b4e408c36957694a9163c.',
      },
    ],
    ridKind: 'internal', scope: 'request', flags: ['--enable-log-requests'],
    gate: '--enable-log-requests',
    meaning:
      'AsyncLLM registered the request with its output processor and sent it over ZMQ to the engine-core process: from here on the request lives in two ' +
      'processes. The id is the internal one, the external id plus "-<8 hex>"; with n>1 each child is logged as "<index>_<internal id>".',
    missing: { kind: 'gate', text: LOG_REQUESTS_OFF },
  }),
  hop({
    id: 'V3', since: '0.8.5', labId: '3', role: 'engine-core', process: 'EngineCore (or EngineCore_DP<k>)', level: 'DEBUG',
    file: 'vllm/v1/engine/core.py', line: 1429,
    format: 'EngineCore waiting for work.',
    fileBasenames: ['core.py'],
    startsWith: ['EngineCore waiting for work'],
    patterns: [/^EngineCore waiting for work\.$/],
    ridKind: null, scope: 'batch', flags: ['VLLM_LOGGING_LEVEL=DEBUG'],
    gate: 'VLLM_LOGGING_LEVEL=DEBUG only',
    meaning:
      'The engine-core busy loop has nothing scheduled and blocks on its input queue. Carries no request id: it marks the idle side of the process ' +
      'boundary.',
    missing: { kind: 'level', text: 'DEBUG only (VLLM_LOGGING_LEVEL=DEBUG); printed when the engine goes idle, not per request.' },
  }),
  hop({
    id: 'V4', since: '0.8.5', labId: '4', role: 'engine-core', process: 'EngineCore (or EngineCore_DP<k>)', level: 'DEBUG',
    file: 'vllm/v1/engine/core.py', line: 1441,
    format: 'EngineCore loop active.',
    fileBasenames: ['core.py'],
    startsWith: ['EngineCore loop active'],
    patterns: [/^EngineCore loop active\.$/],
    ridKind: null, scope: 'batch', flags: ['VLLM_LOGGING_LEVEL=DEBUG'],
    gate: 'VLLM_LOGGING_LEVEL=DEBUG only; once per idle-to-busy transition',
    meaning:
      'Work arrived on the engine-core input queue and the loop woke up. The time from "Added request" to this line is the ZMQ and msgpack hand-off ' +
      'between the processes (at whole-second resolution unless you use a logging config with milliseconds).',
    missing: { kind: 'level', text: 'DEBUG only (VLLM_LOGGING_LEVEL=DEBUG); printed when the engine wakes from idle, so busy servers print it rarely.' },
  }),
  hop({
    id: 'V5', since: '0.4.3', labId: '5', role: 'api-server', process: 'APIServer (stat logger)', level: 'INFO (DEBUG when idle)',
    file: 'vllm/v1/metrics/loggers.py', line: 310,
    format:
      "{'Engine %03d: ' | '%d Engines Aggregated: '}Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, " +
      "Waiting: %d reqs, …, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%…",
    fileBasenames: ['loggers.py', 'metrics.py', 'llm_engine.py'],
    // `<n> Engines Aggregated: …` starts with a digit.
    startsWith: ['Engine ', 'Avg prompt throughput: ', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
    // Accepts the V0 form without an engine prefix (and its Swapped/Pending/CPU KV fields).
    // The constant words are all it takes: a line cut short after the first figure is still the hop.
    patterns: [/^(?:Engine (?<engine>\d{3}): |(?<n_engines>\d+) Engines Aggregated: )?Avg prompt throughput: [\d.]+ tokens\/s/],
    wordings: [
      {
        text:
          'Engine 000: Avg prompt throughput: … tokens/s, Avg generation throughput: … tokens/s, Running: … reqs, Waiting: … reqs, GPU KV cache usage: …%, ' +
          'Prefix cache hit rate: …%',
        versions: 'V1 engine, about 0.9 and later (v1/metrics/loggers.py; seen in vllm#19483, vllm#43295)',
        example:
          'Engine 000: Avg prompt throughput: 72.5 tokens/s, Avg generation throughput: 33.7 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache ' +
          'usage: 0.7%, Prefix cache hit rate: 24.5%',
      },
      {
        text: '<N> Engines Aggregated: Avg prompt throughput: … tokens/s, …',
        versions: 'V1 with data parallel, when the stats of all engines are logged as one line',
        example:
          '2 Engines Aggregated: Avg prompt throughput: 512.3 tokens/s, Avg generation throughput: 1024.5 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU ' +
          'KV cache usage: 10.2%, Prefix cache hit rate: 40.0%',
      },
      {
        text:
          'Avg prompt throughput: … tokens/s, Avg generation throughput: … tokens/s, Running: … reqs, Waiting: … reqs, GPU KV cache usage: …%, Prefix ' +
          'cache hit rate: …%',
        versions: 'V1 engine 0.8 (v1/metrics/loggers.py)',
        example:
          'Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 12.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%, ' +
          'Prefix cache hit rate: 0.0%',
      },
      {
        text:
          'Avg prompt throughput: … tokens/s, Avg generation throughput: … tokens/s, Running: … reqs, Swapped: … reqs, Pending: … reqs, GPU KV cache ' +
          'usage: …%, CPU KV cache usage: …%',
        versions:
          'V0 engine: 0.2 to 0.3 (engine/llm_engine.py; seen in vllm#1935, vllm#2595), 0.4 to 0.10 (engine/metrics.py; seen in vllm#3094, vllm#6737, ' +
          'vllm#21422)',
        example:
          'Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 44.9 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 3 reqs, GPU KV cache ' +
          'usage: 82.1%, CPU KV cache usage: 0.0%',
      },
    ],
    ridKind: null, scope: 'batch', flags: ['(default on; off with --disable-log-stats)', 'VLLM_LOG_STATS_INTERVAL'],
    gate: 'stats on (no --disable-log-stats); every VLLM_LOG_STATS_INTERVAL (10 s); DEBUG when idle',
    meaning:
      'The periodic summary of the last interval for one engine (or all engines aggregated): prompt and generation throughput, running and waiting ' +
      'requests, KV-cache usage and prefix-cache hits. Not about one request; it tells you what the request shared the GPU with.',
    missing: { kind: 'context', text: 'Periodic (every 10 s) and about the whole engine; shown as context for requests in its window.' },
  }),
  hop({
    id: 'V6', since: '0.10.2', labId: '6', role: 'api-server', process: 'APIServer', level: 'INFO',
    file: REQUEST_LOGGER, line: 98,
    format: 'Generated response %s%s: output: %r, finish_reason: %s',
    fileBasenames: ['request_logger.py', 'logger.py'],
    startsWith: ['Generated response '],
    // The output itself may be cut (--max-log-len, a paste limit): the words before it decide.
    patterns: [/^Generated response (?<rid>\S+?)(?<stream> \(streaming (?:delta|complete)\))?: output: /],
    wordings: [
      {
        text: 'Generated response …{ (streaming delta)| (streaming complete)}: output: …, output_token_ids: …, finish_reason: …',
        versions: '0.10.2 to 0.11.2 (entrypoints/logger.py:77 at 0.11.2, read in the release)',
        example: "Generated response chatcmpl-p1 (streaming complete): output: 'Hello there', output_token_ids: [9707, 1052], finish_reason: stop",
      },
      {
        text: 'Generated response …{ (streaming delta)| (streaming complete)}: output: …, finish_reason: …',
        versions: '0.10.1 and later, with --enable-log-outputs (vllm#20707)',
        example: "Generated response chatcmpl-p1 (streaming delta): output: 'Hello', finish_reason: None",
      },
    ],
    ridKind: 'external', scope: 'request', flags: ['--enable-log-requests', '--enable-log-outputs'],
    gate: '--enable-log-outputs (needs --enable-log-requests); chat and Responses only; deltas need --enable-log-deltas (default on)',
    meaning:
      'The frontend logs the text it sends, after detokenisation, so the time is the API server\'s, not the GPU\'s. When streaming, one "(streaming ' +
      'delta)" line per chunk and a final "(streaming complete)" line with the whole text; otherwise one line with the real finish reason.',
    missing: { kind: 'gate', text: '--enable-log-outputs was not passed (it also needs --enable-log-requests).' },
  }),
  hop({
    id: 'V7', since: '0.8.5', labId: '7', role: 'api-server', process: 'APIServer', level: 'INFO',
    file: ASYNC_LLM, line: 623,
    format: 'Request %s aborted.',
    fileBasenames: ['async_llm.py', 'async_llm_engine.py'],
    startsWith: ['Request '],
    patterns: [/^Request (?<rid>\S+) aborted\.$/],
    ridKind: 'external', scope: 'request', flags: ['--enable-log-requests'],
    gate: '--enable-log-requests; only when generate() is cancelled',
    meaning:
      'The generate() stream for this external id was cancelled, usually because the client went away. On a disconnect it comes right after "Aborted ' +
      'request(s)" (which names the internal id). The lab cites L900, which is the same line in encode() for pooling requests.',
    missing: { kind: 'path', text: 'Path not taken: printed only when the request is cancelled (client disconnect).' },
  }),
  hop({
    id: 'V8', since: '0.4.3', labId: '8', role: 'api-server', process: 'APIServer', level: 'INFO',
    file: ASYNC_LLM, line: 761,
    format: 'Aborted request(s) %s.',
    fileBasenames: ['async_llm.py', 'async_llm_engine.py', 'engine.py'],
    startsWith: ['Aborted request'],
    // V0 printed the singular `Aborted request <id>.`.
    patterns: [/^Aborted request(?:\(s\))? (?<rids>\S+?)\.?$/],
    wordings: [
      { text: 'Aborted request(s) <id>,<id>….', versions: 'V1 engine (v1/engine/async_llm.py)', example: 'Aborted request(s) chatcmpl-p1-0a1b2c3d.' },
      {
        text: 'Aborted request <id>.',
        versions: 'V0 engine, 0.3 to 0.10 (engine/async_llm_engine.py, engine/multiprocessing/engine.py)',
        example: 'Aborted request chatcmpl-160b4b31df464a208e6499d66071e79f.',
      },
    ],
    ridKind: 'list', scope: 'request', flags: ['--enable-log-requests'],
    gate: '--enable-log-requests; only when a request is aborted',
    meaning:
      'AsyncLLM.abort() dropped the frontend state and sent ABORT to the engine core for these internal ids (comma-joined), so both copies of the request ' +
      'end here.',
    missing: { kind: 'path', text: 'Path not taken: printed only when the request is aborted (client disconnect or a stop string found in the frontend).' },
  }),
  hop({
    id: 'V9', since: '0.34.0', labId: null, role: 'api-server', process: 'APIServer', level: 'ERROR',
    file: 'vllm/entrypoints/generate/base/serving.py', line: 175,
    format: 'Request %s failed with an internal error during generation',
    // OpenAIServing._raise_if_error in entrypoints/openai/serving_engine.py before the serving
    // code moved into per-API packages (vLLM's own test of it imports GenerationError from there).
    fileBasenames: ['serving.py', 'serving_engine.py'],
    startsWith: ['Request '],
    patterns: [/^Request (?<rid>\S+) failed with an internal error during generation$/],
    wordings: [
      {
        text: 'Request … failed with an internal error during generation',
        versions: 'the pin (generate/base/serving.py); late 2025 (entrypoints/openai/serving_engine.py)',
        example: 'Request chatcmpl-8da6fc665494abe1 failed with an internal error during generation',
      },
    ],
    ridKind: 'external', scope: 'request', flags: [],
    gate: 'always, when the engine finishes a request with finish_reason "error"',
    meaning: 'The engine returned an error for this request; the client receives an InternalServerError frame and then [DONE].',
    missing: { kind: 'path', text: 'Path not taken: printed only when the request fails inside the engine.' },
  }),
  hop({
    id: 'V10', since: null, labId: null, role: 'api-server', process: 'APIServer (uvicorn)', level: 'INFO',
    file: 'vllm/logging_utils/access_log_filter.py', line: null,
    format: '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s',
    fileBasenames: null,
    startsWith: [],
    // Pastes often drop the client address (redacted, or unknown to uvicorn): `INFO:     - "POST …`,
    // `INFO:     "POST …`. Only uvicorn lines are matched against this, so the request line suffices.
    // A blog or a word processor may have made the quotes typographic (“POST … HTTP/1.1”), and a
    // page's HTML source escapes them (&quot;, &#34;: rendered notebooks, a blog's source).
    patterns: [/^(?:(?<client>\S+) )?(?:- )?(?:["“]|&quot;|&#34;)(?<method>[A-Z]+) (?<path>\S+) HTTP\/[\d.]+(?:["”]|&quot;|&#34;) (?<status>\d{3})/],
    ridKind: null, scope: 'http', flags: ['(default on; off with --disable-uvicorn-access-log)'],
    gate: 'unless --disable-uvicorn-access-log',
    meaning:
      'uvicorn\'s access line, printed when the response headers go out (for streaming, before the first token). It has no request id, so HopLens only ' +
      'places it by time.',
    missing: { kind: 'context', text: 'Carries no request id; placed by time only.' },
  }),
  // P/D disaggregation (a KV connector: NIXL, LMCache, Mooncake…; engine-facts has no section on
  // it: citations read at cd5035379c4c). The scheduler's two lines name the engine-internal id,
  // the external id plus -<8 hex>, on the prefill and the decode instance of the same request.
  hop({
    id: 'V12', since: '0.9.0', labId: null, role: 'engine-core', process: 'EngineCore (or EngineCore_DP<k>), prefill instance', level: 'DEBUG',
    file: SCHEDULER, line: 2831, pd: 'prefill',
    format: 'Finished sending KV transfer for request %s',
    fileBasenames: ['scheduler.py'],
    startsWith: ['Finished sending KV transfer for request '],
    patterns: [/^Finished sending KV transfer for request (?<internal_rid>\S+?)\.?$/],
    wordings: [
      {
        text: 'Finished sending KV transfer for request <internal id>',
        versions: 'V1 scheduler with a KV connector, 0.9 and later (v1/core/sched/scheduler.py)',
        example: 'Finished sending KV transfer for request cmpl-pd-7-0-1f2e3d4c',
      },
    ],
    ridKind: 'internal', scope: 'request', flags: ['--kv-transfer-config (kv_role kv_producer or kv_both)', 'VLLM_LOGGING_LEVEL=DEBUG'],
    gate: 'VLLM_LOGGING_LEVEL=DEBUG on a prefill instance of a P/D deployment (a KV connector in --kv-transfer-config)',
    meaning:
      'The prefill instance\'s scheduler heard from its KV connector that the request\'s KV cache has gone to the decode instance, and frees the ' +
      'request\'s blocks. In a P/D log this is often the last line, or the only DEBUG line, that names the request on the prefill side.',
    missing: { kind: 'level', text: 'DEBUG only, and only on the prefill instance of a P/D (disaggregated prefill) deployment.' },
  }),
  hop({
    id: 'V13', since: '0.9.0', labId: null, role: 'engine-core', process: 'EngineCore (or EngineCore_DP<k>), decode instance', level: 'DEBUG',
    file: SCHEDULER, line: 2822, pd: 'decode',
    format: 'Finished recving KV transfer for request %s',
    fileBasenames: ['scheduler.py'],
    startsWith: ['Finished recving KV transfer for request '],
    patterns: [/^Finished recving KV transfer for request (?<internal_rid>\S+?)\.?$/],
    wordings: [
      {
        text: 'Finished recving KV transfer for request <internal id>',
        versions: 'V1 scheduler with a KV connector, 0.9 and later (v1/core/sched/scheduler.py; seen at scheduler.py:862 in a public llm-d P/D log of 2025-05)',
        example: 'Finished recving KV transfer for request cmpl-0dec7ca2-42c8-4b79-a753-d355181114f2-0',
      },
    ],
    ridKind: 'internal', scope: 'request', flags: ['--kv-transfer-config (kv_role kv_consumer or kv_both)', 'VLLM_LOGGING_LEVEL=DEBUG'],
    gate: 'VLLM_LOGGING_LEVEL=DEBUG on a decode instance of a P/D deployment',
    meaning:
      'The decode instance\'s scheduler heard from its KV connector that the request\'s KV cache has arrived from the prefill instance: the request leaves ' +
      'WAITING_FOR_REMOTE_KVS and is scheduled for decoding in the next step.',
    missing: { kind: 'level', text: 'DEBUG only, and only on the decode instance of a P/D (disaggregated prefill) deployment.' },
  }),
  hop({
    id: 'V14', since: '0.9.0', labId: null, role: 'worker', process: 'Worker (model runner), decode instance', level: 'DEBUG',
    file: 'vllm/distributed/kv_transfer/kv_connector/v1/nixl/pull_worker.py', line: 55, pd: 'decode',
    format: 'start_load_kv for request %s from remote engine %s. Num local_block_ids: %s. Num remote_block_ids: %s. ',
    fileBasenames: ['pull_worker.py', 'push_worker.py', 'nixl_connector.py'],
    startsWith: ['start_load_kv '],
    patterns: [/^start_load_kv (?:\(push\) )?for request (?<internal_rid>\S+) from remote engine /],
    wordings: [
      {
        text: 'start_load_kv for request … from remote engine …. Num local_block_ids: …. Num remote_block_ids: …. ',
        versions:
          'NIXL connector in pull mode: the pin (kv_connector/v1/nixl/pull_worker.py); before 2026-04 kv_connector/v1/nixl_connector.py (from 0.9.0, ' +
          'read in the 0.9.0, 0.10.2 and 0.11.2 wheels)',
        example:
          'start_load_kv for request chatcmpl-pd-7-1f2e3d4c from remote engine 6f1e2d3c-aaaa-bbbb-cccc-0123456789ab. Num local_block_ids: 4. Num ' +
          'remote_block_ids: 4. ',
      },
      {
        text: 'start_load_kv (push) for request … from remote engine …. Num local_block_ids: …. Num remote_block_ids: …. ',
        versions: 'NIXL connector in push mode: the pin (kv_connector/v1/nixl/push_worker.py:169)',
        example:
          'start_load_kv (push) for request chatcmpl-pd-7-1f2e3d4c from remote engine 6f1e2d3c-aaaa-bbbb-cccc-0123456789ab. Num local_block_ids: 4. Num ' +
          'remote_block_ids: 4. ',
      },
    ],
    ridKind: 'internal', scope: 'request', flags: ['--kv-transfer-config \'{"kv_connector":"NixlConnector",…}\'', 'VLLM_LOGGING_LEVEL=DEBUG'],
    gate: 'VLLM_LOGGING_LEVEL=DEBUG on a decode instance with the NIXL connector',
    meaning:
      'The decode instance\'s worker starts reading the request\'s KV blocks from the prefill engine named here over NIXL. The gap from here to "Finished ' +
      'recving KV transfer" is the KV transfer time of this request.',
    missing: { kind: 'level', text: 'DEBUG only, and only on the decode instance of a P/D deployment with the NIXL connector.' },
  }),
  hop({
    id: 'V11', since: '0.4.3', until: '0.10.2', labId: null, role: 'api-server', process: 'APIServer (V0 engine)', level: 'INFO',
    file: 'vllm/engine/async_llm_engine.py', line: null,
    format: 'Finished request %s.',
    fileBasenames: ['async_llm_engine.py', 'llm_engine.py', 'engine.py'],
    startsWith: ['Finished request '],
    patterns: [/^Finished request (?<internal_rid>\S+?)\.?$/],
    wordings: [
      {
        text: 'Finished request <id>.',
        versions: 'V0 engine, 0.2 to 0.10 (engine/async_llm_engine.py, with --enable-log-requests)',
        example: 'Finished request chatcmpl-df5dce913d1b4e408c36957694a9163c.',
      },
    ],
    ridKind: 'internal', scope: 'request', flags: ['--enable-log-requests'],
    gate: 'V0 engine (vLLM before the V1 engine became the only one) with --enable-log-requests',
    meaning: 'Older vLLM (V0 engine) printed this when a request finished normally. Current vLLM has no such line; accepted so older logs still group.',
    missing: { kind: 'path', text: 'Only printed by the V0 engine of older vLLM releases.' },
    legacy: true,
  }),
];

export const VLLM_TABLE: HopTable = {
  engine: 'vllm',
  pinnedSha: 'a556f3fccb701e5618d84d547ff454c56a1bfdfb',
  shaRead: 'cd5035379c4c565fc9265cf121bc1c8364bc5eca',
  pinNote: 'Citations read at cd5035379c4c (2026-08-20), about 70 commits before the pin; the request-path files are believed unchanged in between.',
  repoUrl: 'https://github.com/vllm-project/vllm',
  hops: VLLM_HOPS,
  launchHint: `VLLM_LOGGING_LEVEL=DEBUG vllm serve <model> \\
    --enable-log-requests --enable-log-outputs \\
    --max-log-len 256 \\
    2>&1 | tee vllm.log

# milliseconds and full paths (HopLens: Create Logging Config writes the file):
VLLM_LOGGING_CONFIG_PATH=$PWD/hoplens-vllm-logging.json vllm serve <model> --enable-log-requests 2>&1 | tee vllm.log

# ground truth, one file per process and thread, very slow:
VLLM_TRACE_FUNCTION=1 VLLM_LOGGING_LEVEL=DEBUG vllm serve <model> --enforce-eager`,
};
