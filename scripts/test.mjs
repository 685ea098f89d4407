#!/usr/bin/env node
// `npm test`: compile, then run the three layers in order (unit, integration, e2e).
// `node scripts/test.mjs unit|integration|e2e` runs one layer. Fails when any layer fails.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const layers = process.argv.slice(2).length ? process.argv.slice(2) : ['unit', 'integration', 'e2e'];

function run(label, cmd, args, opts = {}) {
  process.stderr.write(`\n=== ${label}: ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    process.stderr.write(`\n=== ${label} FAILED (exit ${r.status ?? r.signal})\n`);
    process.exit(r.status || 1);
  }
}

if (layers.some((l) => l !== 'unit') && !process.env.HOPLENS_CODE_SERVER_DIR) {
  // Installs Chromium and the pinned code-server when missing; prints the cached folder last.
  const r = spawnSync(process.execPath, [join(repo, 'scripts', 'ensure-tools.mjs')], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) process.exit(r.status || 1);
  process.env.HOPLENS_CODE_SERVER_DIR = r.stdout.trim().split('\n').pop();
}

run('build', process.execPath, ['esbuild.mjs']);
run('compile tests', process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.test.json']);
for (const layer of layers) {
  if (layer === 'unit') {
    run('unit', process.execPath, ['--test', '--test-reporter=spec', 'out/test/unit/']);
  } else if (layer === 'integration') {
    run('integration', process.execPath, ['out/test/harness/runIntegration.js']);
  } else if (layer === 'e2e') {
    run('package', process.execPath, ['scripts/package.mjs']);
    run('e2e', process.execPath, [join(repo, 'node_modules/mocha/bin/mocha.js'), '--timeout', '120000', 'out/test/e2e/**/*.e2e.js']);
  } else {
    process.stderr.write(`unknown layer '${layer}' (unit | integration | e2e)\n`);
    process.exit(2);
  }
}
