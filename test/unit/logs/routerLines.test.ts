// SGLang's Rust router (sgl-router) in its two layouts: env_logger's `[Router (Rust)] date - LEVEL - …`
// (2024 to mid 2025, and its Python launcher's `[Router (Python)] …`), and tracing's
// `date  LEVEL target: file.rs:N: …` (mid 2025 on), whose target names the crate. Lines as
// sgl-project/sglang#11453 and #12621 and the router's older pastes printed them. Other programs'
// Rust lines in tracing's layout and another launcher's `(task, pid=N)` prefix are not SGLang's or vLLM's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

function parse(lines: string[]) {
  const st = createParseState({ referenceTime: Date.UTC(2025, 10, 4) });
  return lines.map((l, i) => parseLine(l, i + 1, 0, st));
}

test("tracing's layout with the router's target: SGLang's line, its file:line, level and target", () => {
  const [a, b] = parse([
    '2025-11-04 10:05:37  INFO sglang_router_rs::server: src/server.rs:830: Starting router on 0.0.0.0:port | mode: Regular { worker_urls: [] } | policy: CacheAware { cache_threshold: 0.5, balance_abs_threshold: 16, balance_rel_threshold: 1.5, eviction_interval_secs: 60, max_tree_size: 67108864 } | max_payload: 512MB',
    '2025-11-04 10:05:37 DEBUG sglang_router_rs::core::job_queue: src/core/job_queue.rs:142: Initializing worker job queue: capacity=1000, workers=10',
  ]);
  assert.equal(a.engine, 'sglang');
  assert.equal(a.format, 'sglang-router');
  assert.equal(a.role, 'router');
  assert.equal(a.level, 'INFO');
  assert.equal(a.logger, 'sglang_router_rs::server');
  assert.equal(a.fileinfo, 'src/server.rs');
  assert.equal(a.lineno, 830);
  assert.ok(a.message.startsWith('Starting router on 0.0.0.0:port | mode: Regular'), a.message);
  assert.equal(a.time, Date.UTC(2025, 10, 4, 10, 5, 37));
  assert.equal(b.level, 'DEBUG');
  assert.equal(b.fileinfo, 'src/core/job_queue.rs');
  assert.equal(b.lineno, 142);
  assert.equal(b.message, 'Initializing worker job queue: capacity=1000, workers=10');
});

test("the model gateway's target (`smg`, sgl-model-gateway late 2025) with SGLANG_LOG_MS milliseconds", () => {
  const [a] = parse(['2025-12-15 10:00:00.123  WARN smg::core::worker_manager: src/core/worker_manager.rs:420: Worker http://10.0.0.7:30000 failed health check']);
  assert.deepEqual([a.engine, a.level, a.logger, a.fileinfo, a.lineno, a.message], ['sglang', 'WARNING', 'smg::core::worker_manager', 'src/core/worker_manager.rs', 420, 'Worker http://10.0.0.7:30000 failed health check']);
  assert.equal(a.time, Date.UTC(2025, 11, 15, 10, 0, 0, 123));
});

test('the router coloured on a terminal and pasted inside backticks parses the same', () => {
  const [a, b] = parse([
    '2025-11-04 10:05:37 \x1b[32m INFO\x1b[0m \x1b[2msglang_router_rs::server\x1b[0m\x1b[2m:\x1b[0m \x1b[2msrc/server.rs\x1b[0m\x1b[2m:\x1b[0m\x1b[2m830:\x1b[0m Starting router on 0.0.0.0:30000',
    '`2025-10-11 05:54:14  INFO sglang_router_rs::core::worker_manager: src/core/worker_manager.rs:182: Starting worker initialization',
  ]);
  assert.deepEqual([a.engine, a.fileinfo, a.lineno, a.message], ['sglang', 'src/server.rs', 830, 'Starting router on 0.0.0.0:30000']);
  assert.deepEqual([b.engine, b.fileinfo, b.lineno, b.message, b.prefix], ['sglang', 'src/core/worker_manager.rs', 182, 'Starting worker initialization', '`']);
});

test("the router's older layout and its Python launcher: SGLang's router lines", () => {
  const [a, b, c, d] = parse([
    '[Router (Python)] 2024-11-25 21:28:33 - INFO - Launching DP server process 0 on port 31000',
    '[Router (Rust)] 2025-03-18 14:17:58 - WARN - Generate request to http://localhost:8001 failed',
    '(task, pid=2024) [Router (Rust)] 2025-04-24 06:29:08 - INFO - All workers are healthy',
    '{"log":"[Router (Rust)] 2025-05-21 03:52:00 - DEBUG - starting new connection: http://192.168.0.99:8001/\\n","stream":"stderr","time":"2025-05-21T03:52:00.40688383Z"}',
  ]);
  assert.deepEqual([a.engine, a.format, a.process, a.role, a.level, a.message], ['sglang', 'sglang-router', 'Router (Python)', 'router', 'INFO', 'Launching DP server process 0 on port 31000']);
  assert.equal(a.time, Date.UTC(2024, 10, 25, 21, 28, 33));
  assert.deepEqual([b.process, b.level], ['Router (Rust)', 'WARNING']);
  assert.deepEqual([c.engine, c.process, c.pid, c.prefix, c.message], ['sglang', 'Router (Rust)', null, '(task, pid=2024) ', 'All workers are healthy']);
  assert.deepEqual([d.engine, d.level, d.message], ['sglang', 'DEBUG', 'starting new connection: http://192.168.0.99:8001/']);
});

test("other programs' Rust lines in tracing's layout stay theirs, before and after the router's", () => {
  const recs = parse([
    '2025-12-10T13:50:30.683573Z  INFO dynamo_runtime::distributed: src/distributed.rs:120: Initialized distributed runtime',
    '2025-11-04 10:05:37  INFO sglang_router_rs::server: src/server.rs:1031: Initializing workers for routing mode: Regular { worker_urls: [] }',
    '2025-11-04 10:05:38 DEBUG hyper_util::client::legacy::pool: src/client/legacy/pool.rs:396: pooling idle connection for ("http", 127.0.0.1:30001)',
    '2025-11-04 10:05:38  INFO dynamo_runtime::distributed: src/distributed.rs:120: Initialized distributed runtime',
  ]);
  assert.deepEqual(recs.map((r) => r.engine), ['other', 'sglang', 'other', 'other']);
  assert.ok(recs.every((r) => r.hop === null));
});

test("another launcher's `(task, pid=N)` prefix is not vLLM's process prefix; a vLLM line behind it still is vLLM's", () => {
  const [a, b, c] = parse([
    '(task, pid=2024) Running setup on 1 node.',
    '(head, rank=0, pid=2024) hello from the head node',
    '(task, pid=2024) INFO 04-24 06:29:08 [api_server.py:1024] Starting vLLM API server on http://0.0.0.0:8000',
  ]);
  assert.equal(a.engine, 'other');
  assert.equal(b.engine, 'other');
  assert.deepEqual([c.engine, c.process, c.fileinfo, c.lineno, c.prefix], ['vllm', null, 'api_server.py', 1024, '(task, pid=2024) ']);
});

test("the router with --log-json (tracing's JSON layout, flattened as the router sets it, or with its fields nested): the text layout's record", () => {
  const [a, b, c, d] = parse([
    '{"timestamp":"2025-11-04 10:05:37","level":"INFO","message":"Starting worker initialization","target":"sglang_router_rs::core::worker_manager","filename":"src/core/worker_manager.rs","line_number":182}',
    '{"timestamp":"2025-12-15 10:00:00.123","level":"WARN","fields":{"message":"Worker failed health check","url":"http://10.0.0.7:30000"},"target":"smg::core::worker_manager","filename":"src/core/worker_manager.rs","line_number":420}',
    '{"timestamp":"2025-11-04 10:05:38","level":"INFO","message":"finished processing request","target":"sglang_router_rs::response","filename":"src/middleware.rs","line_number":300,"span":{"method":"POST","uri":"/generate","name":"http_request"},"spans":[{"method":"POST","uri":"/generate","name":"http_request"}]}',
    '{"log":"{\\"timestamp\\":\\"2025-11-04 10:05:37\\",\\"level\\":\\"INFO\\",\\"message\\":\\"Starting worker initialization\\",\\"target\\":\\"sglang_router_rs::core::worker_manager\\",\\"filename\\":\\"src/core/worker_manager.rs\\",\\"line_number\\":182}\\n","stream":"stdout","time":"2025-11-04T10:05:37.40688383Z"}',
  ]);
  assert.deepEqual([a.engine, a.format, a.role, a.level, a.logger, a.fileinfo, a.lineno, a.message], ['sglang', 'sglang-router', 'router', 'INFO', 'sglang_router_rs::core::worker_manager', 'src/core/worker_manager.rs', 182, 'Starting worker initialization']);
  assert.equal(a.time, Date.UTC(2025, 10, 4, 10, 5, 37));
  assert.deepEqual([b.engine, b.level, b.lineno, b.message], ['sglang', 'WARNING', 420, 'Worker failed health check url=http://10.0.0.7:30000']);
  assert.equal(b.time, Date.UTC(2025, 11, 15, 10, 0, 0, 123));
  assert.deepEqual([c.engine, c.fileinfo, c.lineno, c.message], ['sglang', 'src/middleware.rs', 300, 'finished processing request'], 'the span is no part of the message');
  assert.deepEqual([d.engine, d.fileinfo, d.lineno, d.wrappers], ['sglang', 'src/core/worker_manager.rs', 182, ['json']]);
  // Another program's JSON lines (TGI's router, a Go service) stay theirs.
  const [e, f] = parse([
    '{"timestamp":"2025-05-01T01:31:02.842858Z","level":"INFO","message":"Connected","target":"text_generation_router::server","filename":"router/src/server.rs","line_number":2266}',
    '{"level":"info","ts":1755815405.123,"caller":"server/main.go:42","msg":"listening on :8080","target":"x"}',
  ]);
  assert.equal(e.engine, 'other');
  assert.equal(f.engine, 'other');
});

test("tracing's span context between the level and the target: the router's line, its target and file:line", () => {
  const [a, b] = parse([
    '2025-11-04 10:05:38  INFO http_request{method=POST uri=/generate version=HTTP/1.1 request_id="gnt-8Xq2"}: sglang_router_rs::request: src/middleware.rs:265: started processing request',
    '2025-11-04 10:05:38 ERROR outer:http_request{method=POST uri=/v1/chat/completions}: smg::response: src/middleware.rs:290: request failed with server error',
  ]);
  assert.deepEqual([a.engine, a.format, a.logger, a.fileinfo, a.lineno, a.message], ['sglang', 'sglang-router', 'sglang_router_rs::request', 'src/middleware.rs', 265, 'started processing request']);
  assert.deepEqual([b.engine, b.level, b.logger, b.lineno, b.message], ['sglang', 'ERROR', 'smg::response', 290, 'request failed with server error']);
  // TGI's spans in the same layout: its own line.
  const [c] = parse(['2025-05-26T10:46:35.221647Z ERROR batch{batch_size=1}:prefill:prefill{id=622 size=1}: text_generation_router_v3::client: backends/v3/src/client/mod.rs:45: Server error: error trying to connect']);
  assert.equal(c.engine, 'other');
});
