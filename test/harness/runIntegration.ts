// Runs test/integration inside a real VS Code extension host through @vscode/test-electron.
// Offline (the default here) the "VS Code executable" is our shim that drives code-server;
// with HOPLENS_DESKTOP_VSCODE=1 on a machine with internet, test-electron downloads desktop VS Code.
import { runTests } from '@vscode/test-electron';
import { join } from 'node:path';
import { REPO_ROOT } from './tools';
import { prepareWorkspace } from './workspace';
import { startFakeEngineProcess } from './fakeEngineProcess';
import { makeTempDir } from './tempDirs';
import { runUntrustedWorkspaceSuite } from './untrustedRun';
import { fleetBinaries } from './fleetServers';

async function main(): Promise<void> {
  // A local server that streams like vLLM and writes vLLM's log lines as it serves.
  const logDir = makeTempDir('hoplens-it-server-');
  const logFile = join(logDir.path, 'live-vllm.log');
  const engine = await startFakeEngineProcess({ engine: 'vllm', logFile, schedule: 'first=120,frames=12,every=40,burst=6@3' });
  const ws = prepareWorkspace({ 'hoplens.server.url': engine.url, 'hoplens.server.engine': 'vllm', 'hoplens.serverLog': logFile });
  const workspace = ws.root;
  const desktop = process.env.HOPLENS_DESKTOP_VSCODE === '1';
  // The real VictoriaLogs and Jaeger for test/integration/fleet.test.ts, found here in plain Node (the extension host starts them).
  const fleet = fleetBinaries();
  const fleetEnv = typeof fleet === 'string' ? {} : { HOPLENS_FLEET_JAEGER: fleet.jaeger, HOPLENS_FLEET_VICTORIALOGS: fleet.victorialogs };
  if (process.env.HOPLENS_TEST_GREP) process.stdout.write(`=== integration narrowed by HOPLENS_TEST_GREP=${JSON.stringify(process.env.HOPLENS_TEST_GREP)}: the run fails unless every test ran\n`);
  const failures: unknown[] = [];
  try {
    await runTests({
      vscodeExecutablePath: desktop ? undefined : join(REPO_ROOT, 'test', 'harness', 'code-shim.sh'),
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: join(REPO_ROOT, 'out', 'test', 'integration', 'index.js'),
      launchArgs: [workspace],
      extensionTestsEnv: { HOPLENS_FIXTURE_WORKSPACE: JSON.stringify(ws), HOPLENS_FAKE_ENGINE_URL: engine.url, HOPLENS_FAKE_ENGINE_LOG: logFile, ...fleetEnv },
    }).catch((e: unknown) => failures.push(e));
    // The same extension in an untrusted workspace (code-server here; desktop VS Code's trust prompt needs a person).
    if (!desktop) await runUntrustedWorkspaceSuite({ url: engine.url, logFile }).catch((e: unknown) => failures.push(e));
  } finally {
    ws.dispose();
    engine.stop();
    logDir.remove();
  }
  if (failures.length) throw failures[0];
}

main().catch((e: unknown) => {
  process.stderr.write(`integration tests failed: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
