// The first screen of a big vLLM log, as a user meets it: the log is opened from the Explorer
// (with "Open Anyway" when VS Code asks), then the HopLens container is shown, and the page is
// watched for the first visible log line, the first `[file:line]` link, the first hop lens — or,
// above VS Code's 20 MiB large-file limit where no extension gets CodeLens, the hop note HopLens
// puts at the start of the line instead — and for the Requests view listing every request.
// Times are printed as ratios to the time the text became visible, never asserted (timing on a
// shared machine is noise); what is asserted is that hop information reaches the screen.
//
//   HOPLENS_FIRST_SCREEN_MIB=1,10,19,21 (the default) picks the generated sizes.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/tools';
import { useWorkbench, type WorkbenchSession, type FirstScreenTimes } from './workbench';
import { writeVllmLog, type GeneratedLog } from './generatedLog';

const SIZES_MIB = (process.env.HOPLENS_FIRST_SCREEN_MIB ?? '1,10,19,21').split(',').map(Number);

interface Row { name: string; log: GeneratedLog; times: FirstScreenTimes; handedOverMs: number | null; cliMs: number }

function seconds(ms: number | null): string {
  return ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`;
}

function ratio(ms: number | null, textMs: number | null): string {
  return ms === null || textMs === null ? 'never' : `${seconds(ms)} (${(ms / textMs).toFixed(2)}×)`;
}

describe('The first screen of a big vLLM log, opened from the Explorer', function () {
  this.timeout(300_000);
  const session = useWorkbench();
  let s: WorkbenchSession;
  const rows: Row[] = [];
  const logs = new Map<string, { path: string; log: GeneratedLog }>();
  // The demo's small log first: HopLens activates on it, as when a user starts with the demo.
  const names = ['vllm.log', ...SIZES_MIB.map((mib) => `vllm-${mib}mib.log`)];

  before(async () => {
    s = session();
    const demo = s.workspace.vllmLog;
    logs.set('vllm.log', { path: demo, log: { bytes: statSync(demo).size, lines: readFileSync(demo, 'utf8').split('\n').length - 1, requests: 2 } });
    for (const mib of SIZES_MIB) {
      const path = join(s.workspace.root, 'logs', `vllm-${mib}mib.log`);
      logs.set(`vllm-${mib}mib.log`, { path, log: await writeVllmLog(path, mib * 1024 * 1024) });
    }
  });

  after(() => {
    if (rows.length === 0) return;
    const lines = rows.map((r) => `    ${r.name} (${(r.log.bytes / 1048576).toFixed(r.log.bytes < 1048576 ? 3 : 1)} MiB, ${r.log.lines.toLocaleString('en-US')} lines, ${r.log.requests.toLocaleString('en-US')} requests) | ${seconds(r.times.textMs)} | ${ratio(r.handedOverMs, r.times.textMs)} | ${ratio(r.times.linkMs, r.times.textMs)} | ${ratio(r.times.hopMs, r.times.textMs)}${r.times.lensMs === null ? ' (no CodeLens: the hop column)' : ''} | ${ratio(r.times.requestsMs, r.times.textMs)} | ${seconds(r.cliMs)}`);
    process.stdout.write(`\n    first screen, from the click in the Explorer (× = ratio to the time the text became visible):\n    log | text visible | extension host has the text | first link | first hop information | all requests listed | hoplens annotate --json (CLI)\n${lines.join('\n')}\n`);
  });

  for (const name of names) {
    it(`${name}: links and hop information on the first screen, and every request in the Requests view`, async () => {
      const { path, log } = logs.get(name)!;
      await s.runCommand('View: Close All Editors');
      const times = await s.openFromExplorerAndWatch(`logs/${name}`, log.requests, 120_000);
      const status = await s.largeLogStatus();
      // VS Code's copy of the document to the extension host, as HopLens's output channel saw it.
      const handedOver = await s.extensionLogTime(`${name}: VS Code handed over`);
      await s.screenshot(`first-screen-${name}`);
      const t0 = Date.now();
      const cli = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'annotate', path, '--json'], { stdio: ['ignore', 'ignore', 'pipe'] });
      rows.push({ name, log, times, handedOverMs: handedOver === null ? null : handedOver - times.openedAt, cliMs: Date.now() - t0 });
      assert.equal(cli.status, 0, cli.stderr.toString());
      assert.notEqual(times.textMs, null, 'the log text never became visible');
      assert.notEqual(times.linkMs, null, 'no [file:line] link on the first screen');
      assert.notEqual(times.hopMs, null, 'no hop information on the first screen');
      // As a lens reads: the hop, the process, and the source line it opens; the column where
      // VS Code shows no lens names the hop (the hover says the rest).
      assert.match(times.hopText ?? '', times.lensMs === null ? /^hop [A-Za-z0-9]+$/ : /^hop [A-Za-z0-9]+ · api-server · [\w/]+\.py:\d+/);
      assert.notEqual(times.requestsMs, null, `the Requests view never said it lists all ${log.requests} requests`);
      if (log.bytes > 20 * 1024 * 1024) {
        assert.equal(times.lensMs, null, 'a lens on a log VS Code handles as a large file: the size limit moved, update editorLimits.ts');
        assert.match(status ?? '', /no CodeLens/, 'the status bar does not say why there are no lenses');
      } else {
        assert.notEqual(times.lensMs, null, 'no CodeLens');
        assert.equal(status, null, `status bar says '${status}' on a log that has lenses`);
      }
    });
  }
});
