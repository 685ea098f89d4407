// The .vsix whitelist must ship every bundle the extension loads at run time, workers included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(__dirname, '..', '..', '..');

test('.vscodeignore re-includes every worker bundle built from src/workers', () => {
  const rules = readFileSync(join(repo, '.vscodeignore'), 'utf8').split('\n').map((l) => l.trim());
  const workers = readdirSync(join(repo, 'src', 'workers')).filter((f) => f.endsWith('.ts')).map((f) => `dist/${f.replace(/\.ts$/, '.js')}`);
  assert.ok(workers.length > 0);
  for (const w of workers) assert.ok(rules.includes(`!${w}`), `${w} is not re-included in .vscodeignore, so the packaged extension would run without it`);
  assert.ok(rules.includes('!dist/extension.js') && rules.includes('**'), 'the whitelist starts by excluding everything');
});

test('every contributed command has the HopLens category and every view an icon', () => {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  for (const c of pkg.contributes.commands) assert.equal(c.category, 'HopLens', c.command);
  for (const v of pkg.contributes.views.hoplens) assert.ok(v.icon && v.contextualTitle, v.id);
  assert.ok(!pkg.activationEvents.includes('*'), 'no eager activation');
  for (const s of pkg.capabilities.untrustedWorkspaces.restrictedConfigurations) assert.ok(pkg.contributes.configuration.properties[s], `${s} is restricted but not contributed`);
});
