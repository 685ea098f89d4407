// One bundler script: the extension (loaded by VS Code, `vscode` external) and the
// `hoplens` command line, both CommonJS for Node. Type checking is `npm run typecheck`.
import * as esbuild from 'esbuild';
import { chmodSync, existsSync, readdirSync } from 'node:fs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'warning',
};

const builds = [
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
];
// Worker threads run off the extension host's thread: every src/workers/*.ts is its own bundle.
if (existsSync('src/workers')) {
  for (const f of readdirSync('src/workers').filter((n) => n.endsWith('.ts'))) {
    builds.push({ ...common, entryPoints: [`src/workers/${f}`], outfile: `dist/${f.replace(/\.ts$/, '.js')}` });
  }
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching');
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  chmodSync('dist/cli.js', 0o755);
}
