// The design's one hard rule about layering: the pure engines never touch VS Code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const repo = join(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : name.endsWith('.ts') ? [p] : [];
  });
}

const IMPORTS_VSCODE = /(?:from\s+['"]vscode['"]|require\(\s*['"]vscode['"]\s*\)|import\(\s*['"]vscode['"]\s*\))/;

for (const folder of ['src/core', 'src/engines', 'src/cli', 'src/workers']) {
  test(`nothing under ${folder} imports vscode`, () => {
    // A layer that moved or was renamed must fail here, not pass with nothing checked.
    assert.ok(existsSync(join(repo, folder)), `${folder} is missing: update this test with the layer's new place`);
    const files = tsFiles(join(repo, folder));
    assert.ok(files.length > 0, `${folder} holds no .ts file`);
    const offenders = files.filter((f) => IMPORTS_VSCODE.test(readFileSync(f, 'utf8'))).map((f) => relative(repo, f));
    assert.deepEqual(offenders, [], `these files import vscode: ${offenders.join(', ')}`);
  });
}

test('the import rule itself catches the forms TypeScript emits', () => {
  assert.ok(IMPORTS_VSCODE.test(`import * as vscode from 'vscode';`));
  assert.ok(IMPORTS_VSCODE.test(`const v = require("vscode")`));
  assert.ok(!IMPORTS_VSCODE.test(`import { x } from './vscodeish';`));
});

// ---- the import graph of the core ----------------------------------------------------------

/**
 * The modules of src/core in layers, lowest first: a module imports only from a lower layer (or
 * its own folder), so no arrow points up and no two modules import each other. src/engines (the
 * engines' facts as data, one folder per engine) is below all of them and imports nothing from src/core. A new folder
 * of src/core must be placed here.
 */
const CORE_LAYERS: Record<string, number> = {
  'bytes.ts': 0, 'clock.ts': 0, text: 0,
  logs: 1, calltrace: 1,
  source: 2, request: 2, otlp: 2,
  session: 3,
  timeline: 4,
};

const IMPORT_FROM = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"](\.[^'"]+)['"]/g;

/** The core module (first path part under src/core) a file belongs to, or 'engines' for src/engines. */
function moduleOf(file: string): string | null {
  const rel = relative(join(repo, 'src'), file).split(/[\\/]/);
  if (rel[0] === 'engines' || rel[0] === 'engines.ts') return 'engines'; // `../../engines` names its index
  if (rel[0] !== 'core') return null;
  return rel[1];
}

function importEdges(): { from: string; to: string; file: string }[] {
  const edges: { from: string; to: string; file: string }[] = [];
  for (const file of [...tsFiles(join(repo, 'src', 'core')), ...tsFiles(join(repo, 'src', 'engines'))]) {
    const from = moduleOf(file)!;
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT_FROM)) {
      const to = moduleOf(join(file, '..', m[1]) + (m[1].endsWith('.ts') ? '' : '.ts'));
      const target = to ?? 'outside';
      if (target !== from) edges.push({ from, to: target.replace(/^(bytes|clock)$/, '$1.ts'), file: relative(repo, file) });
    }
  }
  return edges;
}

test('src/core imports downward only: no upward arrow, no two-way pair, nothing outside src/core and src/engines', () => {
  const edges = importEdges();
  assert.ok(edges.length > 10, 'the import scan found the imports');
  const unknown = edges.filter((e) => [e.from, e.to].some((m) => m !== 'engines' && !(m in CORE_LAYERS))).map((e) => `${e.file}: ${e.from} → ${e.to}`);
  assert.deepEqual(unknown, [], `place these in CORE_LAYERS (or they import from outside the core):\n${unknown.join('\n')}`);
  const rank = (m: string) => (m === 'engines' ? -1 : CORE_LAYERS[m]);
  const upward = edges.filter((e) => rank(e.to) >= rank(e.from)).map((e) => `${e.file}: ${e.from} → ${e.to}`);
  assert.deepEqual(upward, [], `imports that do not point down:\n${upward.join('\n')}`);
  const pairs = new Set(edges.map((e) => `${e.from}→${e.to}`));
  const twoWay = [...pairs].filter((p) => { const [a, b] = p.split('→'); return pairs.has(`${b}→${a}`); });
  assert.deepEqual(twoWay, [], `modules that import each other: ${twoWay.join(', ')}`);
});

test('the import scan sees the forms the sources use, and a module placed above one it imports fails', () => {
  const src = `import type { A } from '../logs/model';\nexport { b } from './b';\nimport { c } from '../../engines/index';\n`;
  assert.deepEqual([...src.matchAll(IMPORT_FROM)].map((m) => m[1]), ['../logs/model', './b', '../../engines/index']);
  assert.equal(moduleOf(join(repo, 'src', 'core', 'logs', 'x.ts')), 'logs');
  assert.equal(moduleOf(join(repo, 'src', 'core', 'bytes.ts')), 'bytes.ts');
  assert.ok(CORE_LAYERS.source > CORE_LAYERS.logs && CORE_LAYERS.session > CORE_LAYERS.source, 'sources read records; a session reads both');
});
