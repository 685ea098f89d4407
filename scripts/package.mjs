#!/usr/bin/env node
// Builds the production bundles and packages dist/hoplens.vsix with @vscode/vsce.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [cmd, args] of [
  [process.execPath, ['esbuild.mjs', '--production']],
  [process.execPath, ['node_modules/@vscode/vsce/vsce', 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', 'dist/hoplens.vsix']],
]) {
  const r = spawnSync(cmd, args, { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status || 1);
}
