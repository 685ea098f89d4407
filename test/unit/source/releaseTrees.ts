// Real release trees for tests: the matrix's test cache (`<tool cache>/hoplens/test-releases`),
// each release's wheel fetched once by the real pip (only its .py files kept). A test that needs
// one reads it from there, fetching it when missing (as CI does on its empty cache). Without
// python3/pip or the package index the test is skipped with one line; under CI=true that fails.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fetchRelease, ReleaseSourceError, type ReleaseSpec } from '../../../src/core/source/release';

export function testReleaseCache(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens', 'test-releases');
}

/** The unpacked trees of these releases, or null when the test was skipped (no pip or index here). */
export async function realReleaseTrees(t: TestContext, specs: readonly ReleaseSpec[]): Promise<string[] | null> {
  const roots: string[] = [];
  for (const spec of specs) {
    try {
      roots.push((await fetchRelease(spec, { cacheRoot: testReleaseCache() })).root);
    } catch (e) {
      if (e instanceof ReleaseSourceError && ['offline', 'no-python', 'no-pip'].includes(e.kind)) {
        const why = `real release trees unavailable: ${e.message}`;
        if (process.env.CI === 'true') assert.fail(`${why} (CI=true: the test must run)`);
        t.skip(why);
        return null;
      }
      throw e;
    }
  }
  return roots;
}
