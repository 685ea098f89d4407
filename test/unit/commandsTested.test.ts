// Every command HopLens contributes runs in at least one test of a real VS Code: an integration
// test executes it by id, or a browser test runs it from the palette by its title. A command
// added without one fails here, named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? tsFiles(p) : name.endsWith('.ts') ? [p] : [];
  });
}

test('every contributed command is run by an integration or browser test', () => {
  const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { contributes: { commands: { command: string; title: string; category: string }[] } };
  const integration = tsFiles(join(repo, 'test', 'integration')).map((f) => readFileSync(f, 'utf8')).join('\n');
  const browser = tsFiles(join(repo, 'test', 'e2e')).map((f) => readFileSync(f, 'utf8')).join('\n');
  const untested = manifest.contributes.commands.filter((c) =>
    !integration.includes(`'${c.command}'`) && !browser.includes(`'${c.category}: ${c.title}'`));
  assert.deepEqual(untested.map((c) => `${c.command} (${c.category}: ${c.title})`), []);
});
