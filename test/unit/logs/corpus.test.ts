// Every line of the real-shapes corpus (test/fixtures/real-logs, one file per class of issue 10)
// gets the answer it is labelled with: the engine's lines parsed as that engine's, hops tagged
// with their request id, the statement resolved (and verified) in a git checkout of the engine,
// and other programs' lines left alone. The editor's annotator and `annotate --json --checkout`
// are both checked, since they share the core.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { bufferIO } from '../../../src/cli/io';
import { annotateText } from '../../../src/core/session/logSession';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { createSourceResolver } from '../../../src/core/source/resolver';
import { buildCheckout, CORPUS_WRITTEN, emptyScore, logText, outcomeKey, outcomesFromJson, readCorpus, scoreLine, scoreUnlabelled } from '../../corpus/corpus';

const corpus = readCorpus();
let work = '';
const checkouts = new Map<string, { dir: string; engine: 'vllm' | 'sglang' }>();

before(() => {
  work = mkdtempSync(join(tmpdir(), 'hoplens-corpus-'));
  process.env.HOPLENS_CACHE_DIR = join(work, 'cache');
});
after(() => rmSync(work, { recursive: true, force: true }));

test('the corpus covers every class of the issue with labelled lines', () => {
  const names = corpus.map((f) => f.name);
  for (const n of ['prefixes-vllm', 'prefixes-sglang', 'colour', 'vllm-eras', 'layouts-sglang', 'layouts-vllm', 'hops-vllm-v0', 'hops-vllm-v1',
    'hops-sglang-0.4', 'hops-sglang-pin', 'drift-vllm', 'line-endings', 'foreign', 'foreign-in-vllm', 'helpers-sglang', 'cut-sglang', 'relayout-sglang', 'joined-sglang', 'joined-vllm', 'cut-vllm', 'flattened-vllm', 'flattened-vllm-v0', 'cut-hops-vllm', 'wrappers-sglang', 'router-sglang', 'ray-sglang', 'lostbracket-sglang', 'foreign-sweep', 'foreign-sglang', 'pasted-vllm', 'pasted-sglang', 'real-shapes-sglang', 'real-shapes-sglang-04', 'real-shapes-vllm-03', 'rayserve-vllm', 'stamps-vllm']) assert.ok(names.includes(n), n);
  assert.ok(corpus.reduce((n, f) => n + f.lines.length, 0) > 200);
});

/** The corpus file's checkout, built once (null when the file names none). */
function checkoutOf(file: (typeof corpus)[number]): { dir: string; engine: 'vllm' | 'sglang' } | null {
  if (!file.checkout) return null;
  let built = checkouts.get(file.checkout);
  if (!built) {
    const dir = join(work, 'checkouts', file.checkout);
    built = { dir, engine: buildCheckout(file.checkout, dir) };
    checkouts.set(file.checkout, built);
  }
  return built;
}

for (const file of corpus) {
  test(`${file.name}: the editor's annotator parses and tags every line as labelled`, async () => {
    const { records } = annotateText(logText(file), 'auto', { referenceTime: CORPUS_WRITTEN.getTime() });
    const checkout = checkoutOf(file);
    if (checkout) {
      // The editor asks each line's source (lens, hover): a line of a wrapper's layout the checkout shows to be its engine's becomes its.
      const resolver = await createSourceResolver(checkout.dir, checkout.engine, { statementIndex: 'eager' });
      const locator = new RecordSourceLocator({ ready: (e) => (e === checkout.engine ? resolver : null) });
      for (const r of records) if (r.engine === 'other') locator.locate(r);
    }
    assert.equal(records.length, file.lines.filter((l) => l.part === 1).length);
    const wrong: string[] = [];
    for (const l of file.lines) {
      const r = l.part === 1 ? records[l.n - 1] : records[l.n - 1].glued?.[l.part - 2];
      if (!r) { wrong.push(`line ${l.n} part ${l.part}: no such record`); continue; }
      const parts = file.lines.filter((x) => x.n === l.n).length;
      if (l.part === 1 && (r.glued?.length ?? 0) !== parts - 1) wrong.push(`line ${l.n}: ${1 + (r.glued?.length ?? 0)} records, want ${parts}`);
      const engine = r.engine === 'other' ? 'other' : r.engine;
      const missed = engine !== l.engine || r.hop !== l.hop || (l.rid !== null && r.rid !== l.rid);
      if (l.knownMiss) { if (!missed) wrong.push(`line ${l.n}: labelled known-miss but now right (remove the marker)`); continue; }
      if (engine !== l.engine) wrong.push(`line ${l.n}: engine ${engine}, want ${l.engine}`);
      if (r.hop !== l.hop) wrong.push(`line ${l.n}: hop ${r.hop}, want ${l.hop}`);
      if (l.rid !== null && r.rid !== l.rid) wrong.push(`line ${l.n}: rid ${r.rid}, want ${l.rid}`);
      if (l.time !== undefined && (r.time === null ? null : new Date(r.time).toISOString().slice(0, 19)) !== l.time.slice(0, 19)) {
        wrong.push(`line ${l.n}: time ${r.time === null ? null : new Date(r.time).toISOString()}, want ${l.time}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  test(`${file.name}: annotate --json --checkout resolves every labelled statement and claims nothing wrong`, async () => {
    const dir = checkoutOf(file)?.dir;
    const log = join(work, `${file.name}.log`);
    writeFileSync(log, logText(file));
    utimesSync(log, CORPUS_WRITTEN, CORPUS_WRITTEN);
    const io = bufferIO();
    await main(['annotate', log, '--json', ...(dir ? ['--checkout', dir] : [])], io);
    const outcomes = outcomesFromJson(io.stdout);
    assert.equal(outcomes.size, file.lines.length, io.stderr);
    const score = emptyScore();
    for (const l of file.lines) scoreLine(score, l, outcomes.get(outcomeKey(l)));
    scoreUnlabelled(score, file, outcomes);
    // A known miss must still miss (and claim nothing wrong); every other label must hold.
    const known = new Set(file.lines.filter((l) => l.knownMiss).map(outcomeKey));
    assert.deepEqual(score.misses.filter((m) => !known.has(m.n)), []);
    assert.deepEqual([...known].filter((k) => !score.misses.some((m) => m.n === k)), [], 'labelled known-miss but now right (remove the marker)');
    assert.equal(score.wrong, 0);
  });
}
