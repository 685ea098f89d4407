// A third hand-written header grammar, from its engine's folder (test/unit/engines/toyllm/grammar.ts)
// and one registration call: the parser reads the engine's lines through it (engine detected, hops
// tagged, request ids found, the statement cited), finds its header behind a pod's name through
// its anchor, and forgets it when the registration is taken back. Nothing outside that folder names
// ToyLLM: the parser's tables (grammars.ts) and the registry's views are derived from what is registered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINE_IDS, ENGINE_PROFILES, HOP_TABLES, SHAPED_PROFILES, engineProfiles, registerEngine } from '../../../src/engines/registry';
import { GRAMMARS, HEADER_ANCHORS } from '../../../src/engines/grammars';
import { createParseState, detectEngine, parseLine } from '../../../src/core/logs/parseLine';
import { TOYLLM } from './toyllm/profile';
import { TOYLLM_LINES_READ, TOYLLM_LOG, annotateJson, recordFields, whileRegistered } from './toyllmTesting';
import { TOYLLM_GRAMMAR, TOYLLM_WITH_GRAMMAR } from './toyllm/grammar';

const LOG = TOYLLM_LOG;


const withGrammar = (fn: () => Promise<void> | void) => whileRegistered(TOYLLM_WITH_GRAMMAR, fn);

test('a registered engine\'s own grammar reads its lines: engine detected, hops tagged with their request ids', withGrammar(() => {
  assert.ok(GRAMMARS.includes(TOYLLM_GRAMMAR), 'the registration hands the grammar to the parser');
  assert.ok(!SHAPED_PROFILES.some((p) => p.id === TOYLLM), 'no line shapes: the grammar alone reads its lines');
  const state = createParseState({ referenceTime: Date.UTC(2026, 11, 2) });
  const recs = LOG.map((l, i) => parseLine(l, i + 1, 0, state));
  assert.deepEqual(recs.map(recordFields), TOYLLM_LINES_READ);
  assert.equal(recs[2].time, Date.UTC(2026, 11, 2, 17, 20, 1, 456));
  assert.equal(recs[2].timeResolution, 'ms');
  assert.equal(recs[1].message, 'step 1 took 3 ms');
  assert.equal(state.detected, TOYLLM);
  assert.equal(detectEngine(LOG), TOYLLM);
}));

test('its header further into a line is found through its anchor (a pod\'s name in front)', withGrammar(() => {
  const state = createParseState({ referenceTime: Date.UTC(2026, 11, 2) });
  const rec = parseLine(`frontend-0 ${LOG[0]}`, 1, 0, state);
  assert.deepEqual(recordFields(rec), ['toyllm', 'toyllm', 'frontend', 4242, 'frontend', 'INFO', 'serve.py', 88, 'T1', 'req-7']);
  assert.equal(rec.message, 'accepted request req-7');
  assert.match(HEADER_ANCHORS.header.source, /toyllm\\\[/, 'the parser\'s anchor holds the grammar\'s');
}));

test('hoplens annotate --json: its hops, ids and cited statements, with no --engine', withGrammar(async () => {
  const { code, stderr, rows } = await annotateJson(LOG);
  assert.equal(code, 0, stderr);
  const lines = rows.filter((r) => r.kind === 'line');
  assert.deepEqual(lines.map((r) => [r.line, r.engine, r.hop, r.rid, r.source]), [
    [1, 'toyllm', 'T1', 'req-7', { path: 'toyllm/serve.py', line: 88, verified: false, drift: 0 }],
    [2, 'toyllm', null, null, null],
    [3, 'toyllm', 'T2', 'req-7', { path: 'toyllm/run.py', line: 31, verified: false, drift: 0 }],
  ]);
}));

test('taking the registration back takes the grammar, its anchor and the registry\'s views with it', () => {
  const before = { anchor: HEADER_ANCHORS.header.source, grammars: [...GRAMMARS], ids: [...ENGINE_IDS] };
  const unregister = registerEngine(TOYLLM_WITH_GRAMMAR);
  assert.deepEqual(ENGINE_PROFILES, engineProfiles());
  assert.equal(ENGINE_PROFILES[ENGINE_PROFILES.length - 1], TOYLLM_WITH_GRAMMAR);
  assert.equal(HOP_TABLES[TOYLLM], TOYLLM_WITH_GRAMMAR.hops);
  assert.notEqual(HEADER_ANCHORS.header.source, before.anchor);
  unregister();
  assert.deepEqual({ anchor: HEADER_ANCHORS.header.source, grammars: [...GRAMMARS], ids: [...ENGINE_IDS] }, before);
  assert.equal(HOP_TABLES[TOYLLM], undefined);
  const state = createParseState();
  assert.deepEqual(LOG.map((l, i) => parseLine(l, i + 1, 0, state).engine), ['other', 'other', 'other']);
});

test('a registered grammar\'s behindPrefix hook: vLLM asks it, so its header behind a vLLM process prefix is its line', async () => {
  const line = `(EngineCore_DP0 pid=41820) ${LOG[0]}`;
  const read = () => parseLine(line, 1, 0, createParseState({ referenceTime: Date.UTC(2026, 11, 2) }));
  // Without the hook the prefix is vLLM's own process name, so the line is that process's plain output.
  await withGrammar(() => assert.deepEqual([read().engine, read().format], ['vllm', 'vllm-output']))();
  const behindPrefix: NonNullable<typeof TOYLLM_GRAMMAR.behindPrefix> = (rest, rec, state) =>
    TOYLLM_GRAMMAR.starts[0].read(rest, { ...rec }, state);
  const hooked = { ...TOYLLM_WITH_GRAMMAR, grammar: { ...TOYLLM_GRAMMAR, behindPrefix } };
  await whileRegistered(hooked, () => {
    const r = read();
    assert.deepEqual([...recordFields(r), r.prefix], [...TOYLLM_LINES_READ[0], '(EngineCore_DP0 pid=41820) ']);
  })();
  assert.equal(read().engine, 'vllm', 'the hook leaves with the registration');
});
