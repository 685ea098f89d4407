// A user expands a call trace in the HopLens sidebar and clicks a call: its source opens at the line.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useWorkbench, type WorkbenchSession } from './workbench';
import { REPO_ROOT } from '../harness/tools';
import { makeTempDir } from '../harness/tempDirs';

describe('Call Traces, in the browser', function () {
  this.timeout(180_000);
  let made: { instanceDir: string; engineRoot: string };
  before(() => {
    const out = makeTempDir('hoplens-e2e-trace-').path;
    const stdout = execFileSync('python3', [join(REPO_ROOT, 'test', 'fixtures', 'calltrace', 'make_trace.py'), out, '--sleep-ms', '20'], { encoding: 'utf8' });
    made = JSON.parse(stdout.trim().split('\n').pop()!);
  });
  const session = useWorkbench(() => ({ workspaceSettings: { 'hoplens.traceDirs': [made.instanceDir] } }));
  let s: WorkbenchSession;
  beforeEach(() => { s = session(); });

  const row = (text: string | RegExp) => s.page.locator('.pane-body .monaco-list-row', { hasText: text }).first();
  const expand = async (text: string | RegExp) => {
    const r = row(text);
    await r.waitFor({ timeout: 30_000 });
    if ((await r.getAttribute('aria-expanded')) !== 'true') await r.locator('.monaco-tl-twistie').click();
  };

  it('expands folder → process → thread → calls and opens the clicked call at its definition line', async () => {
    await s.openHopLens();
    const instance = made.instanceDir.split('/').pop()!;
    await expand(instance);
    await expand(/pid \d+ · /);
    // The engine-core thread is the one whose first call is run_busy_loop.
    const threads = s.page.locator('.pane-body .monaco-list-row', { hasText: /^thread \d+/ });
    await threads.first().waitFor({ timeout: 30_000 });
    const n = await threads.count();
    let opened = false;
    for (let i = 0; i < n && !opened; i++) {
      await threads.nth(i).locator('.monaco-tl-twistie').click();
      const busy = row(/^run_busy_loop/);
      if (await busy.isVisible().catch(() => false) || await busy.waitFor({ timeout: 3_000 }).then(() => true, () => false)) opened = true;
    }
    assert.ok(opened, 'a thread shows run_busy_loop');
    await expand(/^run_busy_loop/);
    // Three identical consecutive step() calls are collapsed as one "step ×3" row; open the first.
    await expand(/^step ×3/);
    const firstStep = s.page.locator('.pane-body .monaco-list-row').filter({ has: s.page.locator('.label-name', { hasText: /^step$/ }) }).first();
    await firstStep.waitFor();
    await firstStep.locator('.monaco-tl-twistie').click();
    const exec = row(/^execute_model/);
    await exec.waitFor();
    const desc = await exec.innerText();
    assert.match(desc, /ms/, `execute_model row: ${desc}`);
    await s.screenshot('call-traces-tree');
    await exec.click();
    await s.page.locator('.tab.active', { hasText: 'core.py' }).waitFor({ timeout: 15_000 });
    const src = readFileSync(join(made.engineRoot, 'vllm', 'v1', 'engine', 'core.py'), 'utf8').split('\n');
    const defLine = src.findIndex((l) => l.startsWith('def execute_model')) + 1;
    await s.page.locator('[id="status.editor.selection"]', { hasText: `Ln ${defLine},` }).waitFor({ timeout: 15_000 });
    assert.deepEqual(await s.cursorPosition(), { line: defLine, column: 1 });
    await s.screenshot('call-trace-source');
  });
});
