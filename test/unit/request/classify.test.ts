// Frame classification on the engines' real stream shapes (spec/constructed-examples/sse_streams.txt),
// fed as bytes split at awkward places: every byte, mid-UTF-8 sequence, mid "data:" line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StreamRecorder } from '../../../src/core/request/recorder';
import type { Api, Frame } from '../../../src/core/request/types';

const fixtures = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'request');

/** The spec file's sections: heading → SSE body exactly as the server sends it. */
function sections(): Map<string, string> {
  const text = readFileSync(join(fixtures, 'sse_streams.txt'), 'utf8');
  const out = new Map<string, string>();
  let name: string | null = null;
  let body: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('### ')) {
      if (name) out.set(name, body.join('\n'));
      name = line.slice(4);
      body = [];
    } else if (name && !line.startsWith('#')) body.push(line);
  }
  if (name) out.set(name, body.join('\n'));
  return out;
}

function section(prefix: string): string {
  for (const [k, v] of sections()) if (k.startsWith(prefix)) return v.replace(/\n*$/, '\n\n');
  throw new Error(`no section ${prefix}`);
}

/** Feeds bytes in pieces ending at `cuts`, stamping piece i at time 10·i. */
function record(api: Api, body: string | Buffer, cuts: number[]): { frames: Frame[]; rec: StreamRecorder } {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const rec = new StreamRecorder(api);
  let from = 0;
  let i = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < bytes.length).sort((a, b) => a - b), bytes.length]) {
    rec.push(bytes.subarray(from, c), 10 * i++);
    from = c;
  }
  rec.end(10 * i);
  return { frames: rec.frames, rec };
}

function everyByte(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i + 1);
}

test('vLLM chat: empty role frame first, then content, finish, usage, [DONE]', () => {
  const body = section('vLLM POST /v1/chat/completions');
  const { frames, rec } = record('chat', body, []);
  assert.deepEqual(frames.map((f) => f.kind), ['role-only', 'content', 'content', 'content', 'finish', 'usage', 'done']);
  assert.deepEqual(frames.filter((f) => f.kind === 'content').map((f) => f.text), ['Hello', '!', ' How can I help?']);
  assert.equal(frames[4].finishReason, 'stop');
  assert.equal(frames[5].cumulativeTokens, 7);
  assert.equal(frames[0].serverId, 'chatcmpl-myrun-0001');
  assert.equal(rec.sawDone, true);
  // bytes = the data field's UTF-8 length
  assert.equal(frames[6].bytes, '[DONE]'.length);
});

test('the same vLLM stream split at every byte gives the same frames', () => {
  const body = section('vLLM POST /v1/chat/completions');
  const whole = record('chat', body, []).frames;
  const split = record('chat', body, everyByte(Buffer.byteLength(body))).frames;
  assert.deepEqual(split.map((f) => [f.kind, f.text, f.bytes]), whole.map((f) => [f.kind, f.text, f.bytes]));
});

test('a frame is stamped with the arrival of the chunk that completed it, not the one that began it', () => {
  const body = section('vLLM POST /v1/chat/completions');
  const firstEnd = body.indexOf('\n\n') + 2;
  // Cut inside "data:" of frame 2 and inside the JSON of frame 1.
  const { frames } = record('chat', body, [20, firstEnd - 1, firstEnd + 3]);
  assert.equal(frames[0].t, 20); // completed by the third piece (stamped 20), begun in the first
  assert.equal(frames[0].chunk, 2);
  assert.equal(frames[1].t, 30);
});

test('a UTF-8 sequence split across chunks is decoded intact', () => {
  const json = (s: string) => `data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(s)}},"logprobs":null,"finish_reason":null,"token_ids":null}]}\n\n`;
  const body = Buffer.from(json(' 数字 🙂 Café') + 'data: [DONE]\n\n', 'utf8');
  const emoji = body.indexOf(Buffer.from('🙂', 'utf8'));
  const han = body.indexOf(Buffer.from('数', 'utf8'));
  const { frames } = record('chat', body, [han + 1, han + 2, emoji + 1, emoji + 3]);
  assert.equal(frames[0].text, ' 数字 🙂 Café');
  assert.equal(frames[0].chars, 10); // code points, as Python's len() counts them
  assert.equal(frames[0].bytes, Buffer.byteLength(json(' 数字 🙂 Café').slice(6, -2)));
});

test('vLLM mid-stream error (json.dumps with spaces) is an error frame with the server message', () => {
  const { frames } = record('chat', section('vLLM error in the middle'), [7, 8, 9]);
  assert.deepEqual(frames.map((f) => f.kind), ['error', 'done']);
  assert.match(frames[0].errorMessage ?? '', /InternalServerError.*500.*Internal server error/);
});

test('vLLM completions: no role frame, text in choices[].text, finish on the last text frame', () => {
  const { frames } = record('completions', section('vLLM POST /v1/completions'), [100]);
  assert.deepEqual(frames.map((f) => f.kind), ['content', 'content', 'done']);
  assert.deepEqual(frames.map((f) => f.text), [' The', ' end.', '']);
  assert.equal(frames[1].finishReason, 'length');
  assert.equal(frames[0].serverId, 'cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10');
});

test('SGLang chat: reasoning_content null is not reasoning; separate finish chunk; usage with nulls', () => {
  const { frames } = record('chat', section('SGLang POST /v1/chat/completions'), everyByte(400).filter((x) => x % 37 === 0));
  assert.deepEqual(frames.map((f) => f.kind), ['role-only', 'content', 'finish', 'usage', 'done']);
  assert.equal(frames[1].text, 'Hello');
  assert.equal(frames[2].finishReason, 'stop');
  assert.equal(frames[3].cumulativeTokens, 52);
  assert.equal(frames[0].serverId, 'my-req-1'); // raw rid, no chatcmpl- prefix
});

test('SGLang /generate cumulative text becomes deltas, with per-frame token counts from meta_info', () => {
  const { frames } = record('sglang-generate', section('SGLang POST /generate'), []);
  assert.deepEqual(frames.map((f) => f.kind), ['content', 'content', 'content', 'done']);
  assert.deepEqual(frames.map((f) => f.text), ['Hello', '!', ' How', '']);
  assert.deepEqual(frames.slice(0, 3).map((f) => f.tokens), [1, 1, 1]);
  assert.equal(frames[2].finishReason, 'length');
  assert.equal(frames[0].serverId, 'gen-7');
});

test('SGLang /generate with --incremental-streaming-output: deltas pass through, a merged frame shows several tokens', () => {
  const f = (text: string, ids: number[], n: number) => `data: ${JSON.stringify({ text, output_ids: ids, meta_info: { id: 'g', finish_reason: null, prompt_tokens: 2, weight_version: 'default', num_retractions: 0, reasoning_tokens: 0, completion_tokens: n, cached_tokens: 0 } })}\n\n`;
  // "Hello" then "Hello" again: cumulative reading would drop the second one.
  const body = f('Hello', [1], 1) + f('Hello', [1], 2) + f(' wo', [2], 3) + f('rld!', [3, 4], 5) + 'data: [DONE]\n\n';
  const { frames } = record('sglang-generate', body, []);
  assert.deepEqual(frames.map((x) => x.text), ['Hello', 'Hello', ' wo', 'rld!', '']);
  assert.deepEqual(frames.slice(0, 4).map((x) => x.tokens), [1, 1, 1, 2]);
});

test('SGLang error frames: chat shape with "object": "error" and /generate shape', () => {
  const chat = 'data: {"error": {"object": "error", "message": "Requested token count exceeds the model\'s maximum context length", "type": "BadRequestError", "param": null, "code": 400}}\n\ndata: [DONE]\n\n';
  const gen = 'data: {"error":{"message":"bad sampling params","type":"invalid_request_error","code":400,"retryable":false}}\n\ndata: [DONE]\n\n';
  const a = record('chat', chat, [30]).frames;
  const b = record('sglang-generate', gen, [30]).frames;
  assert.equal(a[0].kind, 'error');
  assert.match(a[0].errorMessage ?? '', /BadRequestError \(400\): Requested token count/);
  assert.equal(b[0].kind, 'error');
  assert.match(b[0].errorMessage ?? '', /bad sampling params/);
});

test('reasoning and tool-call deltas are their own kinds; junk data is unparseable; comments are not frames', () => {
  const head = '"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"m"';
  const body = `: keep-alive\n\ndata: {${head},"choices":[{"index":0,"delta":{"reasoning":"think"},"logprobs":null,"finish_reason":null}]}\n\n`
    + `data: {${head},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\""}}]},"logprobs":null,"finish_reason":null}]}\n\n`
    + 'data: {"id":"chatcmpl-x","object":\n\n'
    + `data: {${head},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":null}]}\n\n`;
  const { frames, rec } = record('chat', body, [5, 60]);
  assert.deepEqual(frames.map((f) => f.kind), ['reasoning', 'tool-call', 'unparseable', 'empty']);
  assert.equal(frames[0].text, 'think');
  assert.equal(frames[1].text, 'get_weather{"city"');
  assert.equal(rec.comments, 1);
  assert.equal(rec.sawDone, false);
});

test('CRLF line endings (some proxies) parse the same', () => {
  const body = section('vLLM POST /v1/chat/completions').replace(/\n/g, '\r\n');
  const { frames } = record('chat', body, everyByte(Buffer.byteLength(body)).filter((x) => x % 13 === 0));
  assert.equal(frames.length, 7);
  assert.equal(frames[6].kind, 'done');
});
