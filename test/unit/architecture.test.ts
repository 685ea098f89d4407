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

for (const folder of ['src/core', 'src/hops', 'src/cli', 'src/workers']) {
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
