// vLLM's moves table (EngineCheckout.moves in src/engines/vllm/source.ts) names the release a
// statement's file was renamed in, and the hover says it (`moved from vllm/entrypoints/logger.py
// (in …)`). Checked against the real release trees of the matrix: before that release the old file
// prints the statement and the new one does not exist; from it on, the new file prints it and the
// old one no longer does. The request logger left entrypoints/logger.py in 0.23.0 (the 0.11.2,
// 0.12.0, 0.14.1, 0.18.0, 0.21.0 and 0.22.1 wheels still print it there; 0.23.0's and 0.24.0's
// print it in entrypoints/serve/utils/request_logger.py), not in 0.11.2 as the table said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareVersions, type ReleaseSpec } from '../../../src/core/source/release';
import { VLLM_CHECKOUT } from '../../../src/engines/vllm/source';
import { realReleaseTrees } from './releaseTrees';

const VLLM: ReleaseSpec[] = ['0.4.3', '0.6.6.post1', '0.8.5', '0.10.2', '0.11.2', '0.34.0'].map((version) => ({ engine: 'vllm', version }));

/** The request logger's INFO statement (`Received request %s: …`), as every release since 0.4 words its start. */
const prints = (root: string, path: string): boolean => existsSync(join(root, path)) && /logger\.info\(\s*(?:f?["'])?Received request/.test(readFileSync(join(root, path), 'utf8'));

test('every move of the request logger happened in the release the table names (real release trees)', async (t) => {
  const roots = await realReleaseTrees(t, VLLM);
  if (!roots) return;
  const moves = (VLLM_CHECKOUT.moves ?? []).filter((m) => /^\d+(?:\.\d+)+$/.test(m.when));
  assert.ok(moves.some((m) => m.from === 'vllm/entrypoints/logger.py'), 'the logger.py move is in the table');
  const wrong: string[] = [];
  for (const m of moves) {
    // Each file prints it from the move into it until the move out of it.
    const into = moves.find((x) => x.to === m.from)?.when;
    const outOf = moves.find((x) => x.from === m.to)?.when;
    for (const [i, spec] of VLLM.entries()) {
      const root = roots[i];
      if ((into && compareVersions(spec.version, into) < 0) || (outOf && compareVersions(spec.version, outOf) >= 0)) continue;
      if (compareVersions(spec.version, m.when) < 0) {
        if (!prints(root, m.from)) wrong.push(`${spec.version} (before ${m.when}): ${m.from} does not print it`);
        if (existsSync(join(root, m.to)) && prints(root, m.to)) wrong.push(`${spec.version} (before ${m.when}): ${m.to} already prints it`);
      } else {
        if (!prints(root, m.to)) wrong.push(`${spec.version} (from ${m.when}): ${m.to} does not print it`);
        if (prints(root, m.from)) wrong.push(`${spec.version} (from ${m.when}): ${m.from} still prints it`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test('the combined move names the same two releases as the two single moves', () => {
  const moves = VLLM_CHECKOUT.moves ?? [];
  const single = (from: string, to: string): string | undefined => moves.find((m) => m.from === from && m.to === to)?.when;
  const first = single('vllm/engine/async_llm_engine.py', 'vllm/entrypoints/logger.py');
  const second = single('vllm/entrypoints/logger.py', 'vllm/entrypoints/serve/utils/request_logger.py');
  assert.equal(second, '0.23.0');
  assert.equal(single('vllm/engine/async_llm_engine.py', 'vllm/entrypoints/serve/utils/request_logger.py'), `${first} and ${second}`);
});
