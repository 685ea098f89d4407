// Traits the generic code asks of a profile instead of naming an engine: which table has the uvicorn
// access-log hop (matchHop), and whether another engine with a grammar of its own is forced or
// detected (SGLang's grammar asks these of the registry's grammars, not of vLLM's name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchHop } from '../../../src/engines/index';
import type { HopDef } from '../../../src/engines/types';
import { TOYLLM, TOYLLM_PROFILE, TOYLLM_TABLE } from './toyllm/profile';
import { whileRegistered } from './toyllmTesting';

/** An access line as uvicorn prints it behind `INFO:     ` (the parser passes the message). */
const ACCESS = '127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200';

const TOY_ACCESS: HopDef = {
  ...TOYLLM_TABLE.hops[0], id: 'T0', role: 'frontend', file: 'toyllm/http.py', line: 12, format: '%s - "%s" %d', startsWith: [],
  fileBasenames: null, scope: 'http', ridKind: null, patterns: [/^(?<client>\S+) - "(?<method>[A-Z]+) (?<path>\S+) HTTP\/[\d.]+" (?<status>\d{3})/],
  meaning: 'The HTTP server answered.',
};
const WITH_ACCESS = { ...TOYLLM_PROFILE, hops: { ...TOYLLM_TABLE, hops: [TOY_ACCESS, ...TOYLLM_TABLE.hops] } };

test('a uvicorn access line is the hop its engine\'s profile names (vLLM: V10), and no hop of an engine that names none', async () => {
  const vllm = matchHop('vllm', ACCESS, null, 'uvicorn');
  assert.equal(vllm?.hop.id, 'V10');
  assert.deepEqual({ ...vllm?.groups }, { client: '127.0.0.1:51234', method: 'POST', path: '/v1/chat/completions', status: '200' });
  assert.equal(matchHop('sglang', ACCESS, null, 'uvicorn'), null);
  // The same table, with and without the trait: only the profile's word makes the hop the access line's.
  await whileRegistered(WITH_ACCESS, () => assert.equal(matchHop(TOYLLM, ACCESS, null, 'uvicorn'), null))();
  await whileRegistered({ ...WITH_ACCESS, accessLogHop: 'T0' }, () => {
    const m = matchHop(TOYLLM, ACCESS, null, 'uvicorn');
    assert.equal(m?.hop.id, 'T0');
    assert.equal(m?.groups.path, '/v1/chat/completions');
  })();
  // Taken away again: the view is rebuilt.
  assert.equal(matchHop(TOYLLM_PROFILE.id, ACCESS, null, 'uvicorn'), null);
});
