// Issue 24's size rule for code a reader must hold in their head at once: no function, method,
// constructor, accessor or arrow in src/ runs over 150 lines (first line to last, nested ones
// included). The TypeScript parser finds them, so a long arrow inside an object literal or a
// class counts as well as a top-level declaration; parsing only (no type check) keeps it under a
// second on an idle machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

const repo = join(__dirname, '..', '..', '..');
const MAX_FUNCTION_LINES = 150;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : name.endsWith('.ts') ? [p] : [];
  });
}

interface LongFunction { where: string; name: string; lines: number }

/** A readable name for a function node: its own name, the variable or property it is assigned to, or its kind. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) return `callback of ${parent.expression.getText().slice(0, 40)}`;
  return ts.SyntaxKind[node.kind];
}

/** Every function-like node in one source text whose span is over the limit. */
export function longFunctions(fileName: string, text: string, limit = MAX_FUNCTION_LINES): LongFunction[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit) found.push({ where: `${fileName}:${first + 1}`, name: functionName(node as ts.FunctionLikeDeclaration), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines`, () => {
  const files = tsFiles(join(repo, 'src'));
  assert.ok(files.length > 100, `src/ holds only ${files.length} .ts files: is this the repository root?`);
  const long = files.flatMap((f) => longFunctions(relative(repo, f), readFileSync(f, 'utf8')));
  const list = long.map((l) => `${l.where} ${l.name} (${l.lines} lines)`).join('\n  ');
  assert.deepEqual(long, [], `split these by concern:\n  ${list}`);
});

test('the checker sees declarations, methods, arrows in object literals and callbacks', () => {
  const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = [
    `function declared() {\n${body(151)}\n}`,
    `class Holder { method() {\n${body(151)}\n} }`,
    `const table = { arrow: () => {\n${body(151)}\n} };`,
    `run(function () {\n${body(151)}\n});`,
    `function fits() {\n${body(150)}\n}`,
  ].join('\n');
  const names = longFunctions('probe.ts', text).map((l) => `${l.name}:${l.lines}`);
  assert.deepEqual(names, ['declared:151', 'method:151', 'arrow:151', 'callback of run:151']);
});
