// A request API only one engine's server answers (SGLang's /generate: `--api sglang-generate`) is
// its profile's (`request.ownApis`): asked for another engine, Send Traced Request refuses before
// sending — named on the command line, or found by asking the server (a real HTTP exchange with the
// fake vLLM server on 127.0.0.1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateOptions } from '../../../src/core/request/build';
import { sendTracedRequest } from '../../../src/core/request/client';
import { apiOwner, engineProfile } from '../../../src/engines/registry';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';

test('the API an engine alone answers is its profile\'s; asked of another engine it is refused before sending', () => {
  assert.equal(apiOwner('sglang-generate'), engineProfile('sglang'));
  assert.equal(apiOwner('chat'), undefined);
  const url = 'http://127.0.0.1:8000';
  assert.ok(validateOptions({ url, api: 'sglang-generate', engine: 'vllm' }).includes('api sglang-generate needs an SGLang server (engine is vllm)'));
  assert.deepEqual(validateOptions({ url, api: 'sglang-generate', engine: 'sglang' }), []);
  assert.deepEqual(validateOptions({ url, api: 'sglang-generate', engine: 'auto' }), []);
  assert.deepEqual(validateOptions({ url, api: 'chat', engine: 'vllm' }), []);
});

test('a server found to be vLLM is not sent an sglang-generate request: the error names both engines', async () => {
  const h = await startFakeEngine({ engine: 'vllm' });
  try {
    const { record } = await sendTracedRequest({ url: h.url, api: 'sglang-generate', maxTokens: 3 });
    assert.equal(record.error?.kind, 'bad-input');
    assert.equal(record.error?.message, 'The sglang-generate API needs an SGLang server, and this one is vLLM.');
    assert.equal(record.error?.hint, 'Use api chat or completions.');
  } finally {
    await h.close();
  }
});
