// The in-host runner of the integration suites (test/integration/index.ts), run here on small
// real mocha files: it passes only when every test the files define ran and passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMochaIn, verdict } from '../../integration/index';

function suite(files: Record<string, string>): { dir: string; output: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-runner-'));
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  return { dir, output: join(dir, 'output.txt'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function runIn(files: Record<string, string>, env: Record<string, string> = {}): Promise<{ error: string | null; output: string }> {
  const s = suite(files);
  const saved = { grep: process.env.HOPLENS_TEST_GREP, out: process.env.HOPLENS_TEST_OUTPUT };
  delete process.env.HOPLENS_TEST_GREP;
  Object.assign(process.env, { HOPLENS_TEST_OUTPUT: s.output }, env);
  const log = console.log;
  console.log = () => undefined; // the runner echoes its lines to the console for the host
  try {
    const error = await runMochaIn(s.dir, 'integration').then(() => null, (e: Error) => e.message);
    return { error, output: readFileSync(s.output, 'utf8') };
  } finally {
    console.log = log;
    for (const [k, v] of [['HOPLENS_TEST_GREP', saved.grep], ['HOPLENS_TEST_OUTPUT', saved.out]] as const) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
    s.remove();
  }
}

const TWO = `describe('logs', () => { it('annotates', () => {}); it('exports', () => {}); });\n`;

test('every test ran and passed: a pass', async () => {
  const r = await runIn({ 'a.test.js': TWO });
  assert.equal(r.error, null, r.output);
  assert.match(r.output, /integration: 2 passed, 0 failed, 0 skipped, of 2 defined/);
});

test('a stray HOPLENS_TEST_GREP: the run says so and fails', async () => {
  const r = await runIn({ 'a.test.js': TWO }, { HOPLENS_TEST_GREP: 'exports' });
  assert.match(r.output, /^integration: narrowed by HOPLENS_TEST_GREP="exports"$/m);
  assert.equal(r.error, 'only 1 of the 2 integration tests ran, narrowed by HOPLENS_TEST_GREP="exports": a narrowed run is not a pass of the suite');
});

test('a skipped test or an .only: fails, naming the count', async () => {
  const skipped = await runIn({ 'a.test.js': TWO.replace("it('exports'", "it.skip('exports'") });
  assert.equal(skipped.error, 'only 1 of the 2 integration tests ran (1 skipped): a test is skipped or marked .only');
  const only = await runIn({ 'a.test.js': TWO.replace("it('exports'", "it.only('exports'") });
  assert.equal(only.error, 'only 1 of the 2 integration tests ran: a test is skipped or marked .only');
});

test('no test files, or a failing test: fails', async () => {
  assert.equal((await runIn({ 'readme.txt': 'x' })).error, 'no integration tests were found');
  const failing = await runIn({ 'a.test.js': TWO.replace("it('exports', () => {})", "it('exports', () => { throw new Error('boom'); })") });
  assert.equal(failing.error, '1 integration test(s) failed');
  assert.match(failing.output, /1\) logs exports\nError: boom/);
});

test('the verdict in words', () => {
  assert.equal(verdict('integration', 31, { passed: 31, failed: 0, skipped: 0 }, []), null);
  assert.equal(verdict('integration', 31, { passed: 0, failed: 0, skipped: 0 }, ['HOPLENS_TEST_GREP="nothing"']),
    'only 0 of the 31 integration tests ran, narrowed by HOPLENS_TEST_GREP="nothing": a narrowed run is not a pass of the suite');
});
