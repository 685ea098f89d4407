// The fake engine must look like the real ones: chunk bytes equal to the spec's examples,
// log lines matched by the spec's hop regexes (hops.json), ids the way each engine prints
// them, and a burst that really is one socket write.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendTracedRequest } from '../../../src/core/request/client';
import { serverIdsFor } from '../../../src/core/request/serverIds';
import { SglangChatChunks, SglangGenerateChunks, VllmChunks } from '../../../src/testing/fakeEngine/frames';
import { pyRepr, pyStr } from '../../../src/testing/fakeEngine/logLines';
import { parseSchedule, contentFrameWriteMs } from '../../../src/testing/fakeEngine/schedule';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { makeTempDir } from '../../harness/tempDirs';

const fixtures = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'request');
const specLines = readFileSync(join(fixtures, 'sse_streams.txt'), 'utf8').split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));

interface Hop { id: string; regex: string }
const hops: Hop[] = (JSON.parse(readFileSync(join(fixtures, 'hops.json'), 'utf8')) as { engines: { hops: Hop[] }[] }).engines.flatMap((e) => e.hops);
/** hops.json regexes are Python's: (?P<name>…) → (?<name>…). */
function hopRegex(id: string): RegExp {
  const h = hops.find((x) => x.id === id);
  if (!h) throw new Error(`hop ${id} not in hops.json`);
  return new RegExp(h.regex.replace(/\(\?P</g, '(?<'));
}

test('chunk bodies are byte-identical to the spec examples', () => {
  const v = new VllmChunks('chatcmpl-myrun-0001', 'Qwen/Qwen3-0.6B', 1755815405, 'chat');
  assert.equal(v.role(null), specLines[0]);
  assert.equal(v.content('Hello', null), specLines[1]);
  assert.equal(v.usage({ prompt: 9, completion: 7 }).replace('vllm-0.27.1-fake', 'vllm-<version>-1a2b3c4d'), specLines[5]);
  assert.equal(VllmChunks.error('Internal server error', 'InternalServerError', 500), specLines[7]);
  const c = new VllmChunks('cmpl-5c1d8e0f2a9b4e6d8f7a6b5c4d3e2f10', 'Qwen/Qwen3-0.6B', 1755815412, 'completions');
  assert.equal(c.content(' The', null), specLines[9]);
  const s = new SglangChatChunks('my-req-1', 'Qwen/Qwen3-8B', 1755816610);
  assert.equal(s.role(), specLines[12]);
  assert.equal(s.content('Hello', null), specLines[13]);
  assert.equal(s.usage({ prompt: 9, completion: 52 }), specLines[15]);
  const g = new SglangGenerateChunks('gen-7', 2);
  assert.equal(g.frame('Hello!', [9707, 0], 2, null), specLines[18]);
  assert.equal(g.frame('Hello', [9707], 1, null, { response_sent_to_client_ts: 1755816610.651 }), specLines[17]);
});

test('Python repr of strings and dicts, as the engines print them', () => {
  assert.equal(pyStr("it's"), `"it's"`);
  assert.equal(pyStr('a\nb\'c"'), `'a\\nb\\'c"'`);
  assert.equal(pyRepr({ messages: [{ role: 'user', content: 'Hi' }], stream: true, rid: null }), `{'messages': [{'role': 'user', 'content': 'Hi'}], 'stream': True, 'rid': None}`);
});

test('schedule text: burst frames share the write time of the burst\'s last frame', () => {
  const s = parseSchedule('first=150,frames=10,every=20,burst=3@4,stall=100@8');
  assert.deepEqual(contentFrameWriteMs(s, 10), [150, 170, 190, 210, 270, 270, 270, 290, 410, 430]);
  assert.throws(() => parseSchedule('first=abc'), /first.*number/);
  assert.throws(() => parseSchedule('wobble'), /unknown item 'wobble'/);
});

test('vLLM chat: log lines match the hop regexes and carry the ids the client predicts', async () => {
  const log = join(makeTempDir('hoplens-fake-').path, 'vllm.log');
  const h = await startFakeEngine({ engine: 'vllm', logFile: log, schedule: 'first=5,every=2,burst=3@2', pid: 2101 });
  try {
    const rid = 'hoplens-20260101T000000-aaaaaa';
    const { record } = await sendTracedRequest({ url: h.url, requestId: rid, maxTokens: 6 });
    assert.equal(record.error, null);
    await h.idle();
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const ids = serverIdsFor('vllm', 'chat', rid);
    const byHop = (id: string) => lines.filter((l) => hopRegex(id).test(l));
    assert.equal(hopRegex('V1').exec(byHop('V1')[0])?.groups?.rid, `chatcmpl-${rid}`);
    assert.match(hopRegex('V2').exec(byHop('V2')[0])?.groups?.internal_rid ?? '', new RegExp(`^chatcmpl-${rid}-[0-9a-f]{8}$`));
    assert.equal(hopRegex('V10').exec(byHop('V10')[0])?.groups?.status, '200');
    assert.equal(byHop('V6').length, 7); // 6 deltas + the complete line
    assert.match(byHop('V6').at(-1)!, /\(streaming complete\): output: 'Hello! How can I help', finish_reason: streaming_complete$/);
    for (const l of lines.filter((x) => !x.includes('INFO:     '))) assert.match(l, ids.pattern, `line without the request's id: ${l}`);
    assert.ok(lines.every((l) => l.startsWith('(APIServer pid=2101) ')));
    // The burst: frames 2, 3, 4 went out in one write.
    const w = h.writesFor(rid);
    assert.deepEqual(w?.writes.map((x) => x.frames), [1, 1, 1, 3, 1, 1, 1, 1]); // role, c0, c1, burst, c5, finish, usage, [DONE]
  } finally { await h.close(); }
});

test('vLLM completions: the request log shows cmpl-<id>-0 and no output lines', async () => {
  const log = join(makeTempDir('hoplens-fake-').path, 'vllm.log');
  const h = await startFakeEngine({ engine: 'vllm', logFile: log, schedule: 'first=5,every=2' });
  try {
    const rid = 'hoplens-20260101T000000-bbbbbb';
    const { record } = await sendTracedRequest({ url: h.url, api: 'completions', requestId: rid, maxTokens: 3 });
    assert.equal(record.error, null);
    assert.equal(record.frames[0].serverId, `cmpl-${rid}`);
    const text = readFileSync(log, 'utf8');
    assert.match(text, new RegExp(`Received request cmpl-${rid}-0: params: SamplingParams\\(`));
    assert.match(text, new RegExp(`Added request cmpl-${rid}-0-[0-9a-f]{8}\\.`));
    assert.doesNotMatch(text, /Generated response/);
    assert.ok(serverIdsFor('vllm', 'completions', rid).ids.includes(`cmpl-${rid}-0`));
  } finally { await h.close(); }
});

test('SGLang chat and /generate: request-logger and scheduler lines match the hop regexes; rid is raw', async () => {
  const log = join(makeTempDir('hoplens-fake-').path, 'sgl.log');
  const h = await startFakeEngine({ engine: 'sglang', logFile: log, schedule: 'first=5,every=1' });
  try {
    const chat = await sendTracedRequest({ url: h.url, requestId: 'hoplens-20260101T000000-cccccc', maxTokens: 41 });
    assert.equal(chat.record.error, null);
    assert.equal(chat.record.frames[0].serverId, 'hoplens-20260101T000000-cccccc');
    const gen = await sendTracedRequest({ url: h.url, api: 'sglang-generate', requestId: 'hoplens-20260101T000000-dddddd', maxTokens: 4 });
    assert.equal(gen.record.error, null);
    assert.deepEqual(gen.record.frames.filter((f) => f.kind === 'content').map((f) => f.text), ['Hello', '!', ' How', ' can']);
    await h.idle();
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    const has = (hop: string, rid?: string) => lines.some((l) => hopRegex(hop).test(l) && (!rid || l.includes(rid)));
    assert.ok(has('S1', 'cccccc'), 'Receive OpenAI');
    assert.ok(has('S2', 'cccccc') && has('S2', 'dddddd'), 'Receive');
    assert.ok(has('S3'), 'Prefill batch');
    assert.ok(has('S4'), 'Decode batch (every 40 tokens)');
    assert.ok(has('S5', 'cccccc'), 'ReqTimeStats');
    assert.ok(has('S6', 'dddddd'), 'Finish');
    assert.equal(hopRegex('S2').exec(lines.find((l) => l.includes('Receive: obj=') && l.includes('dddddd'))!)?.groups?.rid, 'hoplens-20260101T000000-dddddd');
  } finally { await h.close(); }
});

test('SGLang /generate with --incremental-streaming-output sends deltas; the client reads them right', async () => {
  const h = await startFakeEngine({ engine: 'sglang', schedule: 'first=5,every=1,incremental,tokens=2' });
  try {
    const { record, metrics } = await sendTracedRequest({ url: h.url, api: 'sglang-generate', maxTokens: 10 });
    assert.deepEqual(record.frames.filter((f) => f.kind === 'content').map((f) => f.text), ['Hello!', ' How can', ' I help', ' you today', '? Café']);
    assert.equal(metrics.outputTokens, 10);
    // Read from the token counts, not the timing: frames 1 ms apart on a busy machine may also show a hiccup.
    const sawtooth = metrics.signatures.find((s) => s.kind === 'sawtooth');
    assert.match(sawtooth?.explanation ?? '', /every 2 tokens \(--stream-interval 2\)/, JSON.stringify(metrics.signatures));
  } finally { await h.close(); }
});

test('max_tokens ends the stream with finish_reason "length"; a reply that ends first says "stop", as the engines do', async () => {
  // The demo's schedule: a 40-token reply. Asked for 32 tokens, vLLM streams 32 and says `length`.
  const h = await startFakeEngine({ engine: 'vllm', schedule: 'first=5,frames=40,every=1' });
  const s = await startFakeEngine({ engine: 'sglang', schedule: 'first=5,frames=40,every=1' });
  try {
    const finishOf = (r: Awaited<ReturnType<typeof sendTracedRequest>>) => r.record.frames.map((f) => f.finishReason).filter((x) => x !== null);
    const contentTokens = (r: Awaited<ReturnType<typeof sendTracedRequest>>) => r.record.frames.filter((f) => f.kind === 'content' && f.chars > 0).length;
    const cut = await sendTracedRequest({ url: h.url, maxTokens: 32 });
    assert.equal(contentTokens(cut), 32);
    assert.deepEqual(finishOf(cut), ['length']);
    assert.equal(cut.metrics.outputTokens, 32);
    const whole = await sendTracedRequest({ url: h.url, maxTokens: 64 });
    assert.equal(contentTokens(whole), 40);
    assert.deepEqual(finishOf(whole), ['stop']);
    const completions = await sendTracedRequest({ url: h.url, api: 'completions', maxTokens: 7 });
    assert.equal(contentTokens(completions), 7);
    assert.deepEqual(finishOf(completions), ['length']);
    // SGLang: the finish chunk names the stop token it matched; /generate's meta_info says why it ended.
    const sglChat = await sendTracedRequest({ url: s.url, engine: 'sglang', maxTokens: 100 });
    assert.equal(contentTokens(sglChat), 40);
    assert.deepEqual(finishOf(sglChat), ['stop']);
    const gen = await sendTracedRequest({ url: s.url, engine: 'sglang', api: 'sglang-generate', maxTokens: 5 });
    assert.equal(contentTokens(gen), 5);
    assert.deepEqual(finishOf(gen), ['length']);
  } finally { await h.close(); await s.close(); }
});
