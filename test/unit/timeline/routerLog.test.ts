// sgl-router's request lines, as its tracing subscriber writes them to its log file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRouterLine, routerLineOf } from '../../../src/core/timeline/routerLog';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';

const STARTED = '2026-08-21 22:30:01  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="pd-0017"}: sglang_router_rs::request: src/middleware.rs:230: started processing request';
const FINISHED = '2026-08-21 22:30:02  INFO http_request{method=POST uri=/v1/chat/completions version=HTTP/1.1 request_id="pd-0017" status_code=200 latency="812.345678ms"}: sglang_router_rs::response: src/middleware.rs:272: finished processing request';

test('"started" and "finished processing request" with the request id, whole seconds of the router clock', () => {
  const a = parseRouterLine(STARTED)!;
  assert.deepEqual({ ...a, message: a.message }, { requestId: 'pd-0017', event: 'received', time: Date.UTC(2026, 7, 21, 22, 30, 1), resolution: 's', timeIsUtc: false, message: 'started processing request' });
  const b = parseRouterLine(FINISHED)!;
  assert.equal(b.event, 'responded');
  assert.equal(b.requestId, 'pd-0017');
  assert.equal(b.time, Date.UTC(2026, 7, 21, 22, 30, 2));
});

test('the default RFC 3339 timer keeps its fraction and zone; a 5xx is a response too', () => {
  const r = parseRouterLine('2026-08-21T22:30:01.123456Z ERROR http_request{method=POST uri=/generate version=HTTP/1.1 request_id="gnt-AbC"}: sglang_router_rs::response: request failed with server error')!;
  assert.equal(r.event, 'responded');
  assert.equal(r.resolution, 'us');
  assert.equal(r.timeIsUtc, true);
  assert.equal(r.time, Date.UTC(2026, 7, 21, 22, 30, 1) + 123.456);
  const z = parseRouterLine('2026-08-21T22:30:01+02:00  INFO http_request{request_id=abc}: x: started processing request')!;
  assert.equal(z.time, Date.UTC(2026, 7, 21, 20, 30, 1));
  assert.equal(z.requestId, 'abc');
});

test('the JSON layer (--log-json) is read too', () => {
  const r = parseRouterLine('{"timestamp":"2026-08-21 22:30:01","level":"INFO","message":"started processing request","target":"sglang_router_rs::request","filename":"src/middleware.rs","line_number":230,"span":{"method":"POST","request_id":"pd-0017","uri":"/v1/chat/completions","version":"HTTP/1.1","name":"http_request"},"spans":[]}')!;
  assert.equal(r.requestId, 'pd-0017');
  assert.equal(r.event, 'received');
});

test('lines that name no request are not router lines', () => {
  for (const line of [
    '2026-08-21 22:30:01  INFO sglang_router_rs::server: src/server.rs:500: Starting router on 0.0.0.0:30000',
    '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-x-9e1f0c2d.',
    'INFO:     127.0.0.1:5555 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    '',
  ]) assert.equal(parseRouterLine(line), null, line);
});

test('the router\'s lines parsed as SGLang\'s (its span and JSON layouts) name the same request as their text', () => {
  const json = '{"timestamp":"2026-08-21 22:30:01","level":"INFO","message":"started processing request","target":"sglang_router_rs::request","filename":"src/middleware.rs","line_number":230,"span":{"method":"POST","request_id":"pd-0017","uri":"/v1/chat/completions","version":"HTTP/1.1","name":"http_request"},"spans":[]}';
  const st = createParseState({ referenceTime: Date.UTC(2026, 7, 22) });
  for (const line of [STARTED, FINISHED, json]) {
    const rec = parseLine(line, 1, 0, st);
    assert.equal(rec.engine, 'sglang', line);
    assert.deepEqual(routerLineOf(rec), parseRouterLine(line), line);
  }
  const startup = parseLine('2026-08-21 22:30:01  INFO sglang_router_rs::server: src/server.rs:500: Starting router on 0.0.0.0:30000', 2, 0, st);
  assert.equal(routerLineOf(startup), null);
});
