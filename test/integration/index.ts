// Loaded by VS Code's extension host as the extensionTestsPath: runs every *.test.js
// here with mocha. The extension host owns console and stdout, so a small reporter writes
// spec-style lines straight into $HOPLENS_TEST_OUTPUT, which the runner outside streams.
import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Runner, Test, Suite } from 'mocha';

function fileReporterFactory(file: string | undefined) {
  const emit = (line: string) => {
    if (file) appendFileSync(file, line + '\n');
    console.log(line);
  };
  return class FileSpecReporter {
    constructor(runner: Runner) {
      let passed = 0;
      let failed = 0;
      let depth = 0;
      const failures: { title: string; err: Error }[] = [];
      runner.on('suite', (s: Suite) => { if (s.title) emit(`${'  '.repeat(depth)}${s.title}`); depth++; });
      runner.on('suite end', () => { depth--; });
      runner.on('pass', (t: Test) => { passed++; emit(`${'  '.repeat(depth)}✔ ${t.title} (${t.duration ?? 0} ms)`); });
      runner.on('fail', (t: Test, err: Error) => {
        failed++;
        failures.push({ title: t.fullTitle(), err });
        emit(`${'  '.repeat(depth)}✖ ${t.title}`);
      });
      runner.on('pending', (t: Test) => emit(`${'  '.repeat(depth)}- ${t.title} (skipped)`));
      runner.once('end', () => {
        failures.forEach((f, i) => emit(`\n${i + 1}) ${f.title}\n${f.err.stack ?? f.err.message}`));
        emit(`\nintegration: ${passed} passed, ${failed} failed`);
      });
    }
  };
}

export function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Mocha = require('mocha') as typeof import('mocha');
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: fileReporterFactory(process.env.HOPLENS_TEST_OUTPUT) as never });
  const grep = process.env.HOPLENS_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const f of readdirSync(__dirname).filter((n) => n.endsWith('.test.js')).sort()) mocha.addFile(join(__dirname, f));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
