// The "Get started with HopLens" walkthrough: the first hour's path in order, each step with a
// button that runs it (a HopLens command, or the walkthrough's command that opens the demo's
// file), its page present in the package, and the fleet step shown only when a fleet store is
// configured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(__dirname, '..', '..', '..');
interface Step { id: string; title: string; description: string; media: { markdown?: string }; when?: string }
const manifest = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[]; walkthroughs: { id: string; steps: Step[] }[]; views: Record<string, { id: string }[]> };
};

test('the walkthrough walks the demo path in order, each step with a button that runs it', () => {
  const [w] = manifest.contributes.walkthroughs;
  assert.deepEqual(w.steps.map((s) => s.id), ['openLog', 'clickLens', 'sendRequest', 'timeline', 'callTraces', 'findInFleet']);
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  const viewFocus = new Set(Object.values(manifest.contributes.views).flat().map((v) => `${v.id}.focus`));
  for (const s of w.steps) {
    const links = [...s.description.matchAll(/\]\(command:([\w.]+)(?:\?([^)]*))?\)/g)];
    assert.equal(links.length, 1, `${s.id}: one button`);
    const [, id, args] = links[0];
    assert.notEqual(id, 'workbench.action.quickOpen', `${s.id}: Quick Open closes as the walkthrough takes the focus back`);
    const opened = id === 'hoplens.walkthrough.openFile' ? (JSON.parse(decodeURIComponent(args)) as unknown[])[0] : 'logs/vllm.log';
    assert.equal(opened, 'logs/vllm.log', `${s.id} opens the demo's log`);
    if (id !== 'hoplens.findRequestInFleet') assert.ok(contributed.has(id) || viewFocus.has(id), `${s.id}: ${id} is a HopLens command or view`);
    assert.ok(s.media.markdown && existsSync(join(repo, s.media.markdown)), `${s.id}: its page ${s.media.markdown} is in media/`);
  }
  const fleet = w.steps.find((s) => s.id === 'findInFleet')!;
  assert.match(fleet.description, /command:hoplens\.findRequestInFleet\)/);
  assert.equal(fleet.when, 'hoplens.fleetConfigured', 'shown only when a store is configured (the fleet feature sets the key)');
});

test('the lens step lands on the Added line of the demo log', () => {
  const log = readFileSync(join(repo, 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8').split('\n');
  const step = manifest.contributes.walkthroughs[0].steps.find((s) => s.id === 'clickLens')!;
  const [, args] = /\]\(command:hoplens\.walkthrough\.openFile\?([^)]*)\)/.exec(step.description)!;
  const [path, line] = JSON.parse(decodeURIComponent(args)) as [string, number];
  assert.equal(path, 'logs/vllm.log');
  assert.match(log[line - 1], /\[async_llm\.py:439\] Added request chatcmpl-myrun-0001-/);
});

test('the lens step is done when a source opens: on the key Open Source sets (a lens click is never seen as onCommand)', () => {
  const step = manifest.contributes.walkthroughs[0].steps.find((s) => s.id === 'clickLens')! as Step & { completionEvents: string[] };
  assert.ok(step.completionEvents.includes('onContext:hoplens.sourceOpened'), 'completed on the context key');
  const commands = readFileSync(join(repo, 'src', 'features', 'logs', 'logCommands.ts'), 'utf8');
  assert.match(commands, /SOURCE_OPENED_KEY = 'hoplens\.sourceOpened'/);
});
