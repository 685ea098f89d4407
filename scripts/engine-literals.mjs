#!/usr/bin/env node
// Counts where the code outside src/engines/ still names an engine: the literals 'vllm' and
// 'sglang' (any quote), and identifiers with vllm/sglang in them. Engine knowledge belongs in the
// engines' profiles (issue 24); this is the figure that shows how much is left, before and after.
//
//   node scripts/engine-literals.mjs [--root DIR] [--files] [--max N]
//
// --root counts another tree (e.g. an older commit unpacked with `git archive`); --files lists the
// literals per file; --max N exits 1 when more than N literals remain (test/unit/engineLiterals.test.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const root = opt('--root') ?? join(dirname(fileURLToPath(import.meta.url)), '..');
const max = opt('--max');

const LITERAL = /(['"`])(?:vllm|sglang)\1/g;
const IDENTIFIER = /\b[A-Za-z_$][\w$]*\b/g;
const NAMES_ENGINE = /vllm|sglang/i;

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

const src = join(root, 'src');
const engines = join(src, 'engines') + sep;
let literals = 0;
let identifiers = 0;
const perFile = [];
for (const file of sourceFiles(src)) {
  if (file.startsWith(engines)) continue;
  const text = readFileSync(file, 'utf8');
  const found = text.match(LITERAL)?.length ?? 0;
  literals += found;
  for (const id of text.match(IDENTIFIER) ?? []) if (NAMES_ENGINE.test(id)) identifiers++;
  if (found) perFile.push([found, relative(root, file)]);
}

if (argv.includes('--files')) for (const [n, f] of perFile.sort((a, b) => b[0] - a[0])) console.log(`${String(n).padStart(4)}  ${f}`);
console.log(`engine literals outside src/engines: ${literals}`);
console.log(`identifiers naming an engine outside src/engines (words in comments and strings included): ${identifiers}`);
if (max !== undefined && literals > Number(max)) {
  console.error(`more than ${max} engine literals outside src/engines: move the knowledge into its engine's profile`);
  process.exit(1);
}
