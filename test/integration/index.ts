// Loaded by VS Code's extension host as the extensionTestsPath: runs every *.test.js
// here with mocha. The extension host owns console and stdout, so a small reporter writes
// spec-style lines straight into $HOPLENS_TEST_OUTPUT, which the runner outside streams.
//
// A green run must mean the whole suite ran: when fewer tests ran than the files define (a
// HOPLENS_TEST_GREP left in the environment, an `.only`, a skipped test), the run fails and
// says which filter narrowed it.
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Runner, Test, Suite } from 'mocha';

function emitter(file: string | undefined) {
  return (line: string) => {
    if (file) appendFileSync(file, line + '\n');
    console.log(line);
  };
}

interface Counts { passed: number; failed: number; skipped: number }

function fileReporterFactory(file: string | undefined, counts: Counts) {
  const emit = emitter(file);
  return class FileSpecReporter {
    constructor(runner: Runner) {
      let depth = 0;
      const failures: { title: string; err: Error }[] = [];
      runner.on('suite', (s: Suite) => { if (s.title) emit(`${'  '.repeat(depth)}${s.title}`); depth++; });
      runner.on('suite end', () => { depth--; });
      runner.on('pass', (t: Test) => { counts.passed++; emit(`${'  '.repeat(depth)}✔ ${t.title} (${t.duration ?? 0} ms)`); });
      runner.on('fail', (t: Test, err: Error) => {
        counts.failed++;
        failures.push({ title: t.fullTitle(), err });
        emit(`${'  '.repeat(depth)}✖ ${t.title}`);
      });
      runner.on('pending', (t: Test) => { counts.skipped++; emit(`${'  '.repeat(depth)}- ${t.title} (skipped)`); });
      runner.once('end', () => {
        failures.forEach((f, i) => emit(`\n${i + 1}) ${f.title}\n${f.err.stack ?? f.err.message}`));
      });
    }
  };
}

/** What narrows a run, as the person reading its output needs to see it. */
export function narrowingFilters(env: NodeJS.ProcessEnv): string[] {
  return env.HOPLENS_TEST_GREP ? [`HOPLENS_TEST_GREP=${JSON.stringify(env.HOPLENS_TEST_GREP)}`] : [];
}

/** Why a run that counted these tests is not a pass, or null when it is. */
export function verdict(label: string, defined: number, c: Counts, filters: string[]): string | null {
  const ran = c.passed + c.failed;
  if (c.failed > 0) return `${c.failed} ${label} test(s) failed`;
  if (defined === 0) return `no ${label} tests were found`;
  if (ran < defined) {
    return `only ${ran} of the ${defined} ${label} tests ran${c.skipped ? ` (${c.skipped} skipped)` : ''}`
      + (filters.length ? `, narrowed by ${filters.join(' ')}: a narrowed run is not a pass of the suite` : ': a test is skipped or marked .only');
  }
  return null;
}

/** Runs the *.test.js files of `dir`; rejects unless every test they define ran and passed. */
export function runMochaIn(dir: string, label: string): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Mocha = require('mocha') as typeof import('mocha');
  const emit = emitter(process.env.HOPLENS_TEST_OUTPUT);
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: fileReporterFactory(process.env.HOPLENS_TEST_OUTPUT, counts) as never });
  const filters = narrowingFilters(process.env);
  if (filters.length) emit(`${label}: narrowed by ${filters.join(' ')}`);
  if (process.env.HOPLENS_TEST_GREP) mocha.grep(process.env.HOPLENS_TEST_GREP);
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.test.js')).sort()) mocha.addFile(join(dir, f));
  // Loaded once, here (not again by run()), so the count is of every test the files define,
  // before a grep or an `.only` narrows it. (@types/mocha hides these two.)
  const loader = mocha as unknown as { loadFiles(): void; lazyLoadFiles(on: boolean): void };
  loader.loadFiles();
  loader.lazyLoadFiles(true);
  const defined = mocha.suite.total();
  return new Promise((resolve, reject) => {
    mocha.run(() => {
      emit(`\n${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, of ${defined} defined`);
      const why = verdict(label, defined, counts, filters);
      if (why) { emit(`${label} FAILED: ${why}`); reject(new Error(why)); } else resolve();
    });
  });
}

export function run(): Promise<void> {
  return runMochaIn(__dirname, 'integration');
}
