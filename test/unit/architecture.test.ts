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
 * engines' knowledge: their facts as data and their header grammars, one folder per engine) is below
 * all of them and imports nothing from src/core. A new folder of src/core must be placed here.
 */
const CORE_LAYERS: Record<string, number> = {
  'bytes.ts': 0, 'clock.ts': 0, text: 0,
  logs: 1, calltrace: 1,
  source: 2, request: 2, otlp: 2,
  session: 3,
  timeline: 4,
  fleet: 5,
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

/**
 * The core reaches an engine's knowledge through the registry and the grammars (src/engines/registry.ts,
 * grammars.ts, index.ts), never an engine's own folder: not even the byte fast path, which is a hook of
 * the engine's grammar (src/engines/vllm/fastPath.ts) the core asks for through grammars.ts.
 */
const ENGINE_FOLDER = /(?:^|\/)engines\/[^/]+\//;

test("no module of src/core imports an engine's own folder (src/engines/<id>/)", () => {
  const offenders: string[] = [];
  for (const file of tsFiles(join(repo, 'src', 'core'))) {
    const rel = relative(repo, file).split(/[\\/]/).join('/');
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT_FROM)) {
      const target = relative(join(repo, 'src'), join(file, '..', m[1])).split(/[\\/]/).join('/');
      if (ENGINE_FOLDER.test(target)) offenders.push(`${rel} → ${target}`);
    }
  }
  assert.deepEqual(offenders, [], `ask the registry or the grammars instead:\n${offenders.join('\n')}`);
  assert.ok(ENGINE_FOLDER.test('engines/vllm/lines') && !ENGINE_FOLDER.test('engines/registry'), 'the rule tells an engine folder from the registry');
});

// ---- the features (src/features/<name>/) -------------------------------------------------------

const FEATURES = join(repo, 'src', 'features');
/** The module features may share (contracts between features, the webview page, the open logs' types). */
const SHARED = 'shared';

/** The files under src/features a source file imports (resolved, relative to src/features), with its own path. */
function featureImports(file: string): { file: string; target: string }[] {
  const out: { file: string; target: string }[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT_FROM)) {
    const target = relative(FEATURES, join(file, '..', m[1])).split(/[\\/]/).join('/');
    if (!target.startsWith('..')) out.push({ file: relative(repo, file), target });
  }
  return out;
}

/** The feature folder a path relative to src/features names. */
const featureOfPath = (rel: string): string => rel.split('/')[0];

test('no layer below the features imports one: core, engines, cli, workers, testing, util', () => {
  const offenders: string[] = [];
  for (const folder of ['src/core', 'src/engines', 'src/cli', 'src/workers', 'src/testing', 'src/util']) {
    assert.ok(existsSync(join(repo, folder)), `${folder} is missing: update this test with the layer's new place`);
    for (const f of tsFiles(join(repo, folder))) for (const e of featureImports(f)) offenders.push(`${e.file} → features/${e.target}`);
  }
  assert.deepEqual(offenders, [], `these import a feature:\n${offenders.join('\n')}`);
});

test('a feature imports another only through src/features/shared, and shared imports no feature', () => {
  const folders = readdirSync(FEATURES).filter((n) => statSync(join(FEATURES, n)).isDirectory());
  for (const f of ['logs', 'send', 'callTraces', 'traces', 'timeline', SHARED]) assert.ok(folders.includes(f), `src/features/${f} is missing`);
  const crossing: string[] = [];
  for (const folder of folders) {
    for (const file of tsFiles(join(FEATURES, folder))) {
      for (const e of featureImports(file)) {
        const to = featureOfPath(e.target);
        if (to !== folder && to !== SHARED) crossing.push(`${e.file} → features/${e.target}`);
      }
    }
  }
  assert.deepEqual(crossing, [], `features importing each other (put the interface in src/features/shared/contracts.ts):\n${crossing.join('\n')}`);
});

test('every feature has a register(context, services), and extension.ts reaches a feature only through it', () => {
  for (const folder of readdirSync(FEATURES).filter((n) => n !== SHARED && statSync(join(FEATURES, n)).isDirectory())) {
    const index = join(FEATURES, folder, 'index.ts');
    assert.ok(existsSync(index), `src/features/${folder} has no index.ts`);
    assert.match(readFileSync(index, 'utf8'), /export function register\(context: vscode\.ExtensionContext, services: FeatureServices\)/, `src/features/${folder}/index.ts exports no register()`);
  }
  const extension = join(repo, 'src', 'extension.ts');
  const deep = featureImports(extension).filter((e) => !/^[^/]+\/index$/.test(e.target) && e.target !== `${SHARED}/contracts`).map((e) => e.target);
  assert.deepEqual(deep, [], `extension.ts imports inside a feature: ${deep.join(', ')}`);
});

test('the feature rule sees a crossing import: features/send importing features/logs is one', () => {
  const send = join(FEATURES, 'send', 'x.ts');
  const target = relative(FEATURES, join(send, '..', '../logs/logDocuments')).split(/[\\/]/).join('/');
  assert.equal(featureOfPath(target), 'logs');
  const src = `import { a } from '../logs/logDocuments';\nimport type { B } from '../shared/contracts';\n`;
  assert.deepEqual([...src.matchAll(IMPORT_FROM)].map((m) => m[1]), ['../logs/logDocuments', '../shared/contracts']);
});
