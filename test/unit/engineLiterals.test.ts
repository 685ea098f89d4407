// Engine knowledge lives in the engines' profiles (src/engines/<id>/): the code outside them asks
// the registry. This holds the count of 'vllm'/'sglang' literals left outside at its current
// figure, so a new one fails here and goes into a profile instead (scripts/engine-literals.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const repo = join(__dirname, '..', '..', '..');
/** Lower it when a move takes literals out; never raise it. */
const CEILING = 0;

test(`at most ${CEILING} engine literals outside src/engines`, () => {
  const r = spawnSync(process.execPath, [join(repo, 'scripts', 'engine-literals.mjs'), '--max', String(CEILING)], { encoding: 'utf8' });
  const found = /engine literals outside src\/engines: (\d+)/.exec(r.stdout);
  assert.ok(found, `the script printed no count: ${r.stdout}${r.stderr}`);
  assert.equal(r.status, 0, `${found[1]} literals, more than ${CEILING}: ${r.stderr}`);
});
