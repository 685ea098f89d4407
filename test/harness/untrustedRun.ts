// The integration run in an untrusted workspace: workspace trust on, the test folder not
// trusted, and its .vscode/settings.json pointing every request and path setting somewhere
// else — a recorder server that notes each request it gets, the fake engine's own log, a
// checkout and a trace folder outside the workspace. The tests in test/integration/untrusted
// check that none of it changed where a request went or which file was read.
import { runTests } from '@vscode/test-electron';
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './tools';
import { prepareWorkspace } from './workspace';
import { makeTempDir } from './tempDirs';

/** What the in-host tests of this run read from HOPLENS_UNTRUSTED_RUN. */
export interface UntrustedRunFixture {
  /** The server the user's settings name (a fake vLLM engine). */
  engineUrl: string;
  /** The log that engine writes; only the workspace settings name it. */
  engineLog: string;
  /** Where the workspace settings send requests: it appends `METHOD path` per request to `recorderLog`. */
  recorderUrl: string;
  recorderLog: string;
  /** A vLLM checkout and a trace folder outside the workspace, named only by its settings. */
  outsideCheckout: string;
  outsideTraceDir: string;
}

export async function runUntrustedWorkspaceSuite(engine: { url: string; logFile: string }): Promise<void> {
  const dir = makeTempDir('hoplens-it-untrusted-');
  const recorderLog = join(dir.path, 'recorded-requests.txt');
  writeFileSync(recorderLog, '');
  const recorder = http.createServer((req, res) => {
    appendFileSync(recorderLog, `${req.method} ${req.url}\n`);
    req.resume();
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"recorder"}');
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', () => r()));
  const recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  const outsideCheckout = join(dir.path, 'vllm');
  cpSync(join(REPO_ROOT, 'test', 'fixtures', 'source', 'vllm-checkout'), outsideCheckout, { recursive: true });
  const outsideTraceDir = join(dir.path, 'traces', 'vllm-instance-7');
  mkdirSync(outsideTraceDir, { recursive: true });
  writeFileSync(join(outsideTraceDir, 'VLLM_TRACE_FUNCTION_for_process_7_thread_8_at_2026-08-21_22:30:01.123456.log'),
    '2026-08-21 22:30:01.000010 Call to step in /x/vllm/v1/engine/core.py:1 from  in :0\n');

  const ws = prepareWorkspace({
    'hoplens.server.url': recorderUrl,
    'hoplens.serverLog': engine.logFile,
    'hoplens.checkouts.vllm': outsideCheckout,
    'hoplens.traceDirs': [join(dir.path, 'traces')],
    'hoplens.traces.queryUrl': recorderUrl,
  });
  const fixture: UntrustedRunFixture = { engineUrl: engine.url, engineLog: engine.logFile, recorderUrl, recorderLog, outsideCheckout, outsideTraceDir: join(dir.path, 'traces') };
  process.stdout.write(`\n=== integration, untrusted workspace (trust on; ${ws.root} not trusted; its settings point at ${recorderUrl} and ${dir.path})\n`);
  try {
    await runTests({
      vscodeExecutablePath: join(REPO_ROOT, 'test', 'harness', 'code-shim.sh'),
      extensionDevelopmentPath: REPO_ROOT,
      extensionTestsPath: join(REPO_ROOT, 'out', 'test', 'integration', 'untrusted', 'index.js'),
      launchArgs: [ws.root],
      extensionTestsEnv: {
        HOPLENS_WORKSPACE_TRUST: 'untrusted',
        // What the user set for themselves: the server to trace. No log, no checkout.
        HOPLENS_USER_SETTINGS: JSON.stringify({ 'hoplens.server.url': engine.url, 'hoplens.server.engine': 'vllm' }),
        HOPLENS_FIXTURE_WORKSPACE: JSON.stringify(ws),
        HOPLENS_UNTRUSTED_RUN: JSON.stringify(fixture),
      },
    });
  } finally {
    await new Promise((r) => recorder.close(r));
    ws.dispose();
    dir.remove();
  }
}
