// A third engine added from its own folder (test/unit/engines/toyllm/) and registered here: its log
// parses, its hops are tagged with their request ids, and `hoplens map` and
// `hoplens annotate` know it, with nothing outside that folder changed. Proves the registry is the
// one place the rest of the code asks about engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineIds, isEngine } from '../../../src/engines/registry';
import { createParseState, detectEngine, parseLine } from '../../../src/core/logs/parseLine';
import { bufferIO } from '../../../src/cli/io';
import { runMap } from '../../../src/cli/map';
import { TOYLLM, TOYLLM_PROFILE } from './toyllm/profile';
import { TOYLLM_LINES_READ, TOYLLM_LOG, annotateJson, recordFields, whileRegistered } from './toyllmTesting';

const LOG = TOYLLM_LOG;

const withToyllm = (fn: () => Promise<void> | void) => whileRegistered(TOYLLM_PROFILE, fn);

test('a made-up engine registered from its folder: its lines parse, its hops are tagged with their ids', withToyllm(() => {
  assert.ok(isEngine('toyllm') && engineIds().includes(TOYLLM));
  const state = createParseState({ referenceTime: Date.UTC(2026, 11, 2) });
  const recs = LOG.map((l, i) => parseLine(l, i + 1, 0, state));
  assert.deepEqual(recs.map(recordFields), TOYLLM_LINES_READ);
  assert.equal(recs[0].time, Date.UTC(2026, 11, 2, 17, 20, 1, 123));
  assert.equal(recs[0].timeResolution, 'ms');
  assert.equal(recs[1].message, 'step 1 took 3 ms');
  assert.equal(detectEngine(LOG), TOYLLM);
}));

test('hoplens map --engine toyllm prints its hop table; annotate --json tags its hops with their request id', withToyllm(async () => {
  const io = bufferIO();
  assert.equal(await runMap(['--engine', 'toyllm'], io), 0, io.stderr);
  assert.match(io.stdout, /^Hop table — toyllm at 0123456789ab\n/);
  assert.match(io.stdout, /T1 +frontend +toyllm\/serve\.py:88 +INFO +The frontend took the request\./);
  assert.match(io.stdout, /T2 +runner +toyllm\/run\.py:31 +INFO +The runner sent the last token\./);
  assert.match(io.stdout, /toyllm serve --log-requests\n$/);

  const { code, stderr, rows } = await annotateJson(LOG);
  assert.equal(code, 0, stderr);
  const hops = rows.filter((r) => r.hop !== undefined && r.hop !== null).map((r) => [r.hop, r.rid, r.engine]);
  assert.deepEqual(hops, [['T1', 'req-7', 'toyllm'], ['T2', 'req-7', 'toyllm']]);
}));

test('without the registration the same log is no engine\'s, and map refuses the name', async () => {
  assert.ok(!isEngine('toyllm'));
  const state = createParseState();
  assert.deepEqual(LOG.map((l, i) => parseLine(l, i + 1, 0, state).engine), ['other', 'other', 'other']);
  const io = bufferIO();
  assert.equal(await runMap(['--engine', 'toyllm'], io), 2);
  assert.match(io.stderr, /--engine must be vllm or sglang \(got 'toyllm'\)/);
});
