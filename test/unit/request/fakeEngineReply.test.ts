// The fake engine (and so `npm run demo`'s server) answers the prompt it was sent: its streamed
// reply names the prompt's first words, the same prompt gets the same reply, another prompt
// another one; max_tokens and the finish reasons stay as the engines give them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sendTracedRequest } from '../../../src/core/request/client';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { makeTempDir } from '../../harness/tempDirs';

type Sent = Awaited<ReturnType<typeof sendTracedRequest>>;
const textOf = (r: Sent) => r.record.frames.filter((f) => f.kind === 'content').map((f) => f.text).join('');
const finishOf = (r: Sent) => r.record.frames.map((f) => f.finishReason).filter((x) => x !== null);
const GREETING = 'Hello! How can I help you today? Café 数字 🙂';

test('vLLM chat: the reply names the prompt\'s first words; the same prompt, the same reply; another prompt, another reply', async () => {
  const log = join(makeTempDir('hoplens-fake-').path, 'vllm.log');
  const h = await startFakeEngine({ engine: 'vllm', logFile: log, schedule: 'first=5,every=1' });
  try {
    const sky = await sendTracedRequest({ url: h.url, prompt: 'Why is the sky blue? Answer in one line.', maxTokens: 24 });
    assert.equal(sky.record.error, null);
    assert.equal(textOf(sky), `${GREETING} You said: "Why is the sky blue? Answer…"\n`);
    const again = await sendTracedRequest({ url: h.url, prompt: 'Why is the sky blue? Answer in one line.', maxTokens: 24 });
    assert.equal(textOf(again), textOf(sky));
    const short = await sendTracedRequest({ url: h.url, prompt: 'Name a prime', maxTokens: 21 });
    assert.equal(textOf(short), `${GREETING} You said: "Name a prime"\n`);
    await h.idle();
    // The server log's complete line carries the same reply, as vLLM logs it.
    const complete = readFileSync(log, 'utf8').split('\n').find((l) => l.includes('(streaming complete)') && l.includes(short.record.requestId));
    assert.ok(complete?.endsWith(`output: '${GREETING} You said: "Name a prime"\\n', finish_reason: streaming_complete`), complete);
  } finally { await h.close(); }
});

test('the prompt-dependent reply keeps max_tokens and the finish reasons: length when cut, stop where the scripted reply ends', async () => {
  // The demo's schedule: the model stops after 40 tokens; the reply starts over when it is shorter.
  const h = await startFakeEngine({ engine: 'vllm', schedule: 'first=5,frames=40,every=1' });
  const s = await startFakeEngine({ engine: 'sglang', schedule: 'first=5,frames=40,every=1' });
  try {
    const cut = await sendTracedRequest({ url: h.url, prompt: 'Translate this sentence into French for me', maxTokens: 18 });
    assert.equal(cut.metrics.outputTokens, 18);
    assert.equal(textOf(cut), `${GREETING} You said: "Translate this`);
    assert.deepEqual(finishOf(cut), ['length']);
    const completion = await sendTracedRequest({ url: h.url, api: 'completions', prompt: 'The capital of France is', maxTokens: 100 });
    // 23 tokens of reply, then 17 of it again: 40, where the model stops.
    assert.equal(completion.metrics.outputTokens, 40);
    assert.equal(textOf(completion), `${GREETING} You said: "The capital of France is"\n${GREETING} You said: "The`);
    assert.deepEqual(finishOf(completion), ['stop']);
    const gen = await sendTracedRequest({ url: s.url, engine: 'sglang', api: 'sglang-generate', prompt: 'List three colours', maxTokens: 100 });
    assert.ok(textOf(gen).startsWith(`${GREETING} You said: "List three colours"\n${GREETING}`), textOf(gen));
    assert.deepEqual(finishOf(gen), ['stop']);
    const sglChat = await sendTracedRequest({ url: s.url, engine: 'sglang', prompt: 'List three colours', maxTokens: 15 });
    assert.equal(textOf(sglChat), `${GREETING} You said`);
    assert.deepEqual(finishOf(sglChat), ['length']);
  } finally { await h.close(); await s.close(); }
});
