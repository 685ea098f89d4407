// Issue 26 items 4 and 5 in the lens's words: several candidates are counted, and a source that is
// not the statement that printed the line says how (moved, similar, changed since), never a bare path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sourceWords } from '../../../src/features/logs/hopPresentation';
import type { SourceLocation } from '../../../src/core/source/types';

const at = (extra: Partial<SourceLocation>): SourceLocation => ({ path: 'vllm/v1/engine/async_llm.py', line: 439, verified: false, drift: 0, method: 'x', ...extra });

test('lens words: verified place, moved, similar, changed since, N candidates', () => {
  assert.equal(sourceWords(at({ verified: true })), 'v1/engine/async_llm.py:439');
  assert.equal(sourceWords(at({ movedFrom: 'vllm/entrypoints/logger.py' })), 'v1/engine/async_llm.py:439 (moved)');
  assert.equal(sourceWords(at({ similar: true })), 'v1/engine/async_llm.py:439 (similar)');
  assert.equal(sourceWords(at({ changed: true })), 'v1/engine/async_llm.py:439 (changed since)');
  assert.equal(sourceWords(at({ candidates: [{ path: 'a.py', line: 1 }, { path: 'b.py', line: 2 }] })), '2 candidates');
  assert.equal(sourceWords(at({})), 'v1/engine/async_llm.py:439', 'unverified without a reason: the place as before');
});
