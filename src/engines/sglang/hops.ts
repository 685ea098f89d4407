// SGLang's request path as a hop table, read at the exact pin 7d893255c359 (spec hops.json).
// SGLang prints no file:line, so these citations are the only link back to the source. Each
// cites the first line of the logging call (what Python's %(lineno)d prints, as vLLM's
// `[file:line]` does), not the line where the message text starts: the prefill and decode
// lines are built in a `msg` variable and logged by `logger.info(msg)` further down.
import type { HopDef, HopTable } from '../types';

const REQUEST_LOGGER = 'python/sglang/srt/utils/request_logger.py';
const METRICS_REPORTER = 'python/sglang/srt/managers/scheduler_components/metrics_reporter.py';
const TOKENIZER_MANAGER = 'python/sglang/srt/managers/tokenizer_manager.py';

function hop(h: Omit<HopDef, 'engine' | 'fileBasenames'>): HopDef {
  return { engine: 'sglang', fileBasenames: null, ...h };
}

export const SGLANG_HOPS: HopDef[] = [
  hop({
    id: 'S1', since: '0.5.23', labId: '1', role: 'tokenizer', process: 'main (HTTP server / TokenizerManager)', level: 'INFO (request logger)',
    file: REQUEST_LOGGER, line: 155,
    format: 'Receive OpenAI: obj={request body as a dict}{, headers={…}}',
    startsWith: ['Receive OpenAI: '],
    patterns: [/^Receive OpenAI: obj=\{(?:.*?'rid': '(?<rid>[^']+)')?/],
    wordings: [
      {
        text: 'Receive OpenAI: obj={…}{, headers={…}}',
        versions: 'the pin (utils/request_logger.py; proposed in sglang#20605, March 2026)',
        example: "Receive OpenAI: obj={'model': 'default', 'messages': [{'role': 'user', 'content': 'Hi'}], 'stream': True}",
      },
    ],
    ridKind: 'sglang', scope: 'request', flags: ['--log-requests', '--log-requests-level 2 (default) or 3'],
    gate: '--log-requests with --log-requests-level >= 2; OpenAI-compatible routes only',
    meaning:
      'The OpenAI-style request body exactly as the client sent it, before SGLang converts it to its internal GenerateReqInput. Printed by the request ' +
      'logger in its own format (whole seconds, no rank tag). The rid appears only if the client put one in the body.',
    missing: { kind: 'gate', text: 'Needs --log-requests with --log-requests-level >= 2, and only OpenAI-compatible routes print it (not native /generate).' },
  }),
  hop({
    id: 'S2', since: '0.4.10.post2', labId: '2', role: 'tokenizer', process: 'main (TokenizerManager)', level: 'INFO (request logger)',
    file: REQUEST_LOGGER, line: 109,
    format: 'Receive: obj={GenerateReqInput(rid=…, …)}{, headers={…}}',
    startsWith: ['Receive: '],
    // The rid is a field of the dataclass wherever it stands (first at the pin, after text and input_ids before).
    patterns: [/^Receive: obj=\w+\((?:(?:.*?, )?rid=(?:\[(?<rids>'[^\]]*)\]|'?(?<rid>[^',)[\]\s]+)))?/],
    wordings: [
      {
        text: "Receive: obj=GenerateReqInput(rid='…', …)",
        versions: 'the pin (utils/request_logger.py)',
        example: "Receive: obj=GenerateReqInput(rid='pin-req-1', session_id=None, text='Hi', stream=True)",
      },
      {
        text: "Receive: obj=GenerateReqInput(text=…, input_ids=[…], …, rid='…', …)",
        versions: '0.4 to 0.5 (managers/tokenizer_manager.py; seen in sglang#4045, sglang#8756)',
        example: "Receive: obj=GenerateReqInput(text=None, input_ids=[151646, 198], input_embeds=None, rid='ced00776101841e180bf04c8dbdc4ec2', stream=True)",
      },
      {
        text: "Receive: obj=GenerateReqInput(text=[…], …, rid=['…', '…'], …)",
        versions: '0.4 and later, a batch (several prompts in one request: each gets its rid)',
        example:
          "Receive: obj=GenerateReqInput(text=['Hi', 'Bye'], input_ids=None, rid=['53b7e9ce96c24d36ae58a27eac23cd55', '6a0f3c2d9b8e4f71a2c5d6e7f8091a2b'], " +
          "stream=False)",
      },
    ],
    ridKind: 'sglang', scope: 'request', flags: ['--log-requests'],
    gate: '--log-requests (levels 0/1 leave out the text and ids)',
    meaning:
      'The TokenizerManager received the internal request; its rid is fixed from here on and is the key for every later line. At --log-requests-level 3 ' +
      'the whole prompt is printed.',
    missing: { kind: 'gate', text: '--log-requests was not passed.' },
  }),
  hop({
    id: 'S3', since: '0.4.10.post2', labId: '3', role: 'scheduler', process: 'scheduler (attention-TP rank 0)', level: 'INFO',
    file: METRICS_REPORTER, line: 653,
    format:
      'Prefill batch{ [iter]}, #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: %.2f, #running-req: %d, #queue-req: %d, #pending-token: %d, … ' +
      '{cuda|cpu|npu|musa} graph: {bool}, input throughput (token/s): %.2f',
    startsWith: ['Prefill batch', '[gpu'],
    patterns: [/^(?:\[gpu(?:_id)?=\d+\] )?Prefill batch(?: \[(?<iter>[^[\]]{1,40})\])?[,.] #new-seq: \d+/],
    wordings: [
      {
        text:
          'Prefill batch, #new-seq: …, #new-token: …, #cached-token: …, token usage: …, #running-req: …, #queue-req: …, #pending-token: …, cuda graph: …, ' +
          'input throughput (token/s): …',
        versions: '0.5.23 (scheduler_components/metrics_reporter.py:754, the message built in `msg` and logged at :805; read in the release)',
        example:
          'Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, token usage: 0.08, #running-req: 31, #queue-req: 0, #pending-token: 0, cuda ' +
          'graph: True, input throughput (token/s): 559.53',
      },
      {
        text:
          'Prefill batch, #new-seq: …, #new-token: …, #cached-token: …, token usage: …, #running-req: …, #queue-req: …, cuda graph: …, ' +
          'input throughput (token/s): …',
        versions: 'late 2025 to 2026-04 (scheduler_components/metrics_reporter.py, before `#pending-token`; seen in sglang#22166, sglang#36081)',
        example:
          'Prefill batch, #new-seq: 1, #new-token: 158, #cached-token: 0, token usage: 0.08, #running-req: 31, #queue-req: 0, cuda graph: True, input ' +
          'throughput (token/s): 559.53',
      },
      {
        text: 'Prefill batch. #new-seq: …, #new-token: …, #cached-token: …, [cache hit rate: …%, ]token usage: …, #running-req: …, #queue-req: …',
        versions: '0.3 to 0.5 (managers/scheduler.py; seen in sglang#4045)',
        example: 'Prefill batch. #new-seq: 1, #new-token: 63, #cached-token: 1, cache hit rate: 1.41%, token usage: 0.00, #running-req: 0, #queue-req: 0',
      },
      {
        text: '[gpu=N] Prefill batch. #new-seq: …',
        versions: '2024 releases before 0.3 (tp_worker.py)',
        example: '[gpu=0] Prefill batch. #new-seq: 1, #new-token: 12, #cached-token: 0, cache hit rate: 0.00%, #running-req: 0, #queue-req: 0',
      },
    ],
    ridKind: null, scope: 'batch', flags: ['(always)', 'SGLANG_LOG_FORWARD_ITERS=1 adds the iteration'],
    gate: 'every prefill batch, on attention-TP rank 0 only',
    meaning:
      'The scheduler ran a prefill (extend) batch: how many new sequences and tokens, how many tokens the radix cache saved (#cached-token), pool usage ' +
      'and queue depth. It names no request; HopLens shows it as context for requests whose prompt could be in it.',
    missing: { kind: 'context', text: 'Batch-level: names no request; shown as context for requests active at that time.' },
  }),
  hop({
    id: 'S4', since: '0.4.10.post2', labId: '4', role: 'scheduler', process: 'scheduler (attention-TP rank 0)', level: 'INFO',
    file: METRICS_REPORTER, line: 916,
    format: 'Decode batch{ [iter]}, #running-req: %d, #token: %d, token usage: %.2f, … {graph} graph: {bool}, gen throughput (token/s): %.2f, #queue-req: %d',
    startsWith: ['Decode batch', '[gpu'],
    patterns: [/^(?:\[gpu(?:_id)?=\d+\] )?Decode batch(?: \[(?<iter>[^[\]]{1,40})\])?[,.] #running-req: \d+/],
    wordings: [
      {
        text: 'Decode batch, #running-req: …, #token: …, token usage: …, cuda graph: …, gen throughput (token/s): …, #queue-req: …',
        versions: 'late 2025 and later (scheduler_components/metrics_reporter.py; seen in sglang#22331)',
        example: 'Decode batch, #running-req: 5, #token: 20800, token usage: 0.29, cuda graph: True, gen throughput (token/s): 144.95, #queue-req: 0',
      },
      {
        text: 'Decode batch. #running-req: …, #token: …, token usage: …, cuda graph: …, gen throughput (token/s): …, #queue-req: …, ',
        versions:
          '0.4.10 to 0.5.x (managers/scheduler_metrics_mixin.py:193 at 0.4.10.post2 and 0.5.1, built with `msg += …` before one logger call; ' +
          'read in the releases)',
        example: 'Decode batch. #running-req: 8, #token: 62531, token usage: 0.12, cuda graph: True, gen throughput (token/s): 186.64, #queue-req: 0, ',
      },
      {
        text: 'Decode batch. #running-req: …, #token: …, token usage: …, gen throughput (token/s): …, #queue-req: …[, ]',
        versions: '0.3 to 0.5 (managers/scheduler.py; seen in sglang#1270, sglang#3909, sglang#4407)',
        example: 'Decode batch. #running-req: 8, #token: 62531, token usage: 0.12, gen throughput (token/s): 186.64, #queue-req: 0',
      },
      {
        text: 'Decode batch [first graph replay], #running-req: …, cuda graph: …, #queue-req: …',
        versions: '2026 (scheduler_components/metrics_reporter.py: the first decode batch a captured graph replays, logged before the interval)',
        example: 'Decode batch [first graph replay], #running-req: 32, cuda graph: True, #queue-req: 0',
      },
      {
        text: '[gpu=N] Decode batch. #running-req: …',
        versions: '2024 releases before 0.3 (tp_worker.py)',
        example: '[gpu=0] Decode batch. #running-req: 1, #token: 120, token usage: 0.00, gen throughput (token/s): 40.12, #queue-req: 0',
      },
    ],
    ridKind: null, scope: 'batch', flags: ['--decode-log-interval N (default 40)'],
    gate: 'every --decode-log-interval decode iterations (default 40), on attention-TP rank 0',
    meaning:
      'A decode summary printed once every --decode-log-interval steps (40 by default), not once per step: running requests, tokens in the KV pool, ' +
      'generation throughput and queue depth. A short request can finish between two of these and never appear near one.',
    missing: {
      kind: 'frequency',
      text:
        'Frequency-gated: printed every --decode-log-interval (default 40) decode steps, so a short request may fall between two; use ' +
        '--decode-log-interval 1 to see every step.',
    },
  }),
  hop({
    id: 'S5', since: '0.4.10.post2', labId: '5', role: 'scheduler', process: 'scheduler (attention-TP rank 0)', level: 'INFO',
    file: 'python/sglang/srt/managers/schedule_batch.py', line: 1812,
    format:
      'ReqTimeStats(rid={rid}[, bootstrap_room={n}], input_len={n}, cached_input_len={n}, output_len={n}, attempts={n}, type={unified|prefill|decode}): ' +
      '{durations}',
    startsWith: ['ReqTimeStats(rid=', 'Req Time Stats(rid='],
    patterns: [/^Req ?Time ?Stats\(rid=(?<rid>[^,)\s]+)/],
    wordings: [
      {
        text: 'ReqTimeStats(rid=…, input_len=…, cached_input_len=…, output_len=…, attempts=…, type=…): …',
        versions: 'the pin (managers/schedule_batch.py)',
        example:
          'ReqTimeStats(rid=pin-req-1, input_len=9, cached_input_len=0, output_len=52, attempts=1, type=unified): queue_duration=0.41ms, ' +
          'forward_duration=574.93ms, entry_time=1755816610.215',
      },
      {
        text: 'Req Time Stats(rid=…[, bootstrap_room=…], input len=…, output len=…, type=…): queue_duration=…ms, forward_duration=…ms, start_time=…',
        versions: '2025 (managers/schedule_batch.py)',
        example:
          'Req Time Stats(rid=23b2f003434b476aa6d3bf6706e710c0, input len=38, output len=484, type=unified): queue_duration=0.00ms, ' +
          'forward_duration=12.38ms, start_time=0.0',
      },
    ],
    ridKind: 'sglang', scope: 'request', flags: ['--enable-request-time-stats-logging'],
    gate: '--enable-request-time-stats-logging; once per finished request',
    meaning:
      'The scheduler\'s own timing for one finished request: time in the queue and in forward passes (milliseconds), token counts and how many attempts it ' +
      'took. This is the engine-side view, without HTTP or detokenisation.',
    missing: { kind: 'gate', text: '--enable-request-time-stats-logging was not passed.' },
  }),
  hop({
    id: 'S6', since: '0.4.10.post2', labId: '6', role: 'tokenizer', process: 'main (TokenizerManager)', level: 'INFO (request logger)',
    file: REQUEST_LOGGER, line: 190,
    format: "Finish: obj={GenerateReqInput(…)}{headers}, out={'text': …, 'output_ids': […], 'meta_info': {…}}",
    startsWith: ['Finish: ', 'in='],
    patterns: [
      /^Finish: obj=\w+\((?:(?:.*?, )?rid=(?:\[(?<rids>'[^\]]*)\]|'?(?<rid>[^',)[\]\s]+)))?/,
      /^in=\w+ReqInput\((?:(?:.*?, )?rid=(?:\[(?<rids>'[^\]]*)\]|'?(?<rid>[^',)[\]\s]+)))?.*, out=\{/,
    ],
    wordings: [
      {
        text: 'Finish: obj=GenerateReqInput(…), out={…}',
        versions: '0.4 and later (utils/request_logger.py at the pin, managers/tokenizer_manager.py before)',
        example: "Finish: obj=GenerateReqInput(rid='pin-req-1', stream=True), out={'text': 'Hello', 'meta_info': {'id': 'pin-req-1'}}",
      },
      {
        text: 'in=GenerateReqInput(…), out={…}',
        versions: 'before 0.4 (managers/tokenizer_manager.py)',
        example:
          "in=GenerateReqInput(text='Hi', sampling_params={'max_new_tokens': 16}, rid='a1b2', stream=False), out={'text': 'Hello', 'meta_info': " +
          "{'prompt_tokens': 3, 'completion_tokens': 2}}",
      },
    ],
    ridKind: 'sglang', scope: 'request', flags: ['--log-requests'],
    gate: '--log-requests; skipped when SGLANG_LOG_REQUEST_EXCEEDED_MS > 0 and the request was faster',
    meaning:
      'Back in the main process after the detokenizer handed over the text: the request is done. meta_info carries the finish reason, token counts and the ' +
      'end-to-end latency.',
    missing: { kind: 'gate', text: '--log-requests was not passed, or SGLANG_LOG_REQUEST_EXCEEDED_MS hid a fast request (or it was aborted).' },
  }),
  hop({
    id: 'S7', since: '0.5.23', labId: '7', role: 'tokenizer', process: 'main (TokenizerManager)', level: 'WARNING',
    file: TOKENIZER_MANAGER, line: 1619,
    format: 'Streaming backlog: rid=%s, coalescing %d queued chunks into one. This may inflate P99 ITL for affected requests.',
    startsWith: ['Streaming backlog: '],
    patterns: [/^Streaming backlog: rid=(?<rid>\S+?), coalescing \d+ queued chunks into one\..*$/],
    ridKind: 'sglang', scope: 'request', flags: ['--incremental-streaming-output'],
    gate: 'only with --incremental-streaming-output, when 20 or more chunks queued for one request',
    meaning:
      'The HTTP side fell behind this request and merged many queued deltas into one frame. Tokens are intact, but per-token timing seen by the client is ' +
      'no longer real.',
    missing: { kind: 'path', text: 'Path not taken: needs --incremental-streaming-output and a consumer that fell 20+ chunks behind.' },
  }),
  hop({
    id: 'S8', since: '0.5.23', labId: '8', role: 'tokenizer', process: 'main (TokenizerManager)', level: 'INFO',
    file: TOKENIZER_MANAGER, line: 3128,
    format: 'Abort request for rid=%s not found in rid_to_state; likely already finished/removed.',
    startsWith: ['Abort request for rid='],
    patterns: [/^Abort request for rid=(?<rid>\S+) not found in rid_to_state.*$/],
    ridKind: 'sglang', scope: 'request', flags: [],
    gate: 'always; when an abort arrives after the request finished',
    meaning:
      'An abort for this request arrived after it had already finished and been removed: the abort lost a race with the finish. One now and then is ' +
      'normal; many at once usually mean a client or load balancer timing out in bulk.',
    missing: { kind: 'path', text: 'Path not taken: printed only when an abort races the finish.' },
  }),
  hop({
    id: 'S9', since: '0.4.10.post2', labId: '9', role: 'scheduler', process: 'scheduler (tp_rank 0), startup', level: 'INFO',
    file: 'python/sglang/srt/managers/scheduler.py', line: 1095,
    format: 'max_total_num_tokens={}, chunked_prefill_size={}, max_prefill_tokens={}, max_running_requests={}, context_len={}, available_gpu_mem={:.2f} GB',
    startsWith: ['max_total_num_tokens='],
    patterns: [/^max_total_num_tokens=\d+, /],
    ridKind: null, scope: 'startup', flags: ['(always, once)'],
    gate: 'startup, tp_rank 0',
    meaning:
      'Printed once after memory profiling: how many tokens the KV pool holds and the scheduler\'s limits. Not per request, but it bounds everything the ' +
      'request lines show.',
    missing: { kind: 'startup', text: 'Startup only, printed once.' },
  }),
];

export const SGLANG_TABLE: HopTable = {
  engine: 'sglang',
  pinnedSha: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
  shaRead: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
  pinNote: 'Citations read at the exact pin.',
  repoUrl: 'https://github.com/sgl-project/sglang',
  hops: SGLANG_HOPS,
  launchHint: `SGLANG_LOG_MS=1 SGLANG_LOG_FORWARD_ITERS=1 python3 -m sglang.launch_server \\
    --model-path <model> \\
    --log-requests --log-requests-level 3 \\
    --enable-request-time-stats-logging \\
    --decode-log-interval 1 \\
    2>&1 | tee sgl.log

# milliseconds, level and full paths (HopLens: Create Logging Config writes the file):
SGLANG_LOGGING_CONFIG_PATH=$PWD/hoplens-sglang-logging.json python3 -m sglang.launch_server --model-path <model> --log-requests 2>&1 | tee sgl.log`,
};
