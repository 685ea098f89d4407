// Traits the generic code asks of a profile instead of naming an engine: which table has the uvicorn
// access-log hop (matchHop), and whether another engine with a grammar of its own is forced or
// detected (SGLang's grammar asks these of the registry's grammars, not of vLLM's name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchHop } from '../../../src/engines/index';
import type { Engine, HopDef } from '../../../src/engines/types';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import { TOYLLM, TOYLLM_PROFILE, TOYLLM_TABLE } from './toyllm/profile';
import { TOYLLM_WITH_GRAMMAR } from './toyllm/grammar';
import { TOYLLM_LOG, whileRegistered } from './toyllmTesting';

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

/** SGLang's forms without their whole header: one that lost its `[`, one whose date a platform took off, its request logger's message alone. */
const HEADERLESS = [
  '```2025-02-19 11:45:37 TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
  'sglang-0 | INFO TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0',
  "Receive: obj=GenerateReqInput(rid='abc123', text='hi', sampling_params={'max_new_tokens': 8})",
];
const WHOLE = '[2025-02-19 11:45:37 TP0] Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0';

/** engine/format/hop of each line, read in order as one log with `--engine engine`. */
function read(engine: Engine | 'auto', lines: readonly string[]): string[] {
  const state = createParseState({ engine, referenceTime: Date.UTC(2026, 11, 2) });
  return lines.map((l, i) => { const r = parseLine(l, i + 1, 0, state); return `${r.engine}/${r.format}/${r.hop}`; });
}
const SGLANGS = ['sglang/sglang/S3', 'sglang/sglang/S3', 'sglang/sglang-request/S2'];
const NONE = ['other/other/null', 'other/other/null', 'other/other/null'];

test('SGLang\'s headerless forms are read unless another engine with a grammar of its own is forced', async () => {
  assert.deepEqual(read('auto', HEADERLESS), SGLANGS);
  assert.deepEqual(read('sglang', HEADERLESS), SGLANGS);
  assert.deepEqual(read('vllm', HEADERLESS), NONE);
  // Forced to an engine read by its line shapes only: SGLang's grammar still reads the log, as it does its whole headers.
  await whileRegistered(TOYLLM_PROFILE, () => {
    assert.deepEqual(read(TOYLLM, HEADERLESS), SGLANGS);
    assert.deepEqual(read(TOYLLM, [WHOLE]), ['sglang/sglang/S3']);
  })();
  // Forced to an engine with a grammar of its own: SGLang reads none of it, its whole headers nor these.
  await whileRegistered(TOYLLM_WITH_GRAMMAR, () => {
    assert.deepEqual(read(TOYLLM, [WHOLE]), ['other/other/null']);
    assert.deepEqual(read(TOYLLM, HEADERLESS), NONE);
  })();
});

test('a bare bracketed stamp in a log already known to be another engine\'s is a launcher\'s, not an SGLang line', async () => {
  const LAUNCHER = '[2026-12-02 17:20:05]   Still loading...';
  for (const profile of [TOYLLM_PROFILE, TOYLLM_WITH_GRAMMAR]) {
    await whileRegistered(profile, () => {
      assert.deepEqual(read('auto', [TOYLLM_LOG[0], LAUNCHER]), ['toyllm/toyllm/T1', 'other/other/null']);
      // Alone, or forced to SGLang, it is SGLang's bare-date header.
      assert.deepEqual(read('auto', [LAUNCHER]), ['sglang/sglang/null']);
      assert.deepEqual(read('sglang', [TOYLLM_LOG[0], LAUNCHER]), ['other/other/null', 'sglang/sglang/null']);
    })();
  }
});
