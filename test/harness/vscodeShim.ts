// Accepts VS Code's command line as @vscode/test-electron passes it
// (--extensionDevelopmentPath=, --extensionTestsPath=, a folder) and runs the extension tests
// inside code-server's real extension host instead of a desktop VS Code: the test payload
// must come from the browser, so we open the workbench in Chromium with the smoke-test driver on.
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTools, REPO_ROOT } from './tools';
import { startCodeServer, RunningCodeServer } from './codeServer';
import { launchBrowser } from './browser';
import type { Browser } from 'playwright-core';

function argValue(args: string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  const hit = args.find((a) => a.startsWith(prefix));
  return hit?.slice(prefix.length);
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const devPath = argValue(args, 'extensionDevelopmentPath');
  const testsPath = argValue(args, 'extensionTestsPath');
  const folder = args.find((a) => !a.startsWith('-'));
  if (!devPath || !testsPath) {
    process.stderr.write('vscodeShim: needs --extensionDevelopmentPath= and --extensionTestsPath=\n');
    return 2;
  }
  const timeoutMs = Number(process.env.HOPLENS_INTEGRATION_TIMEOUT_MS || 600_000);
  const resultsDir = join(REPO_ROOT, 'test-results', 'integration');
  mkdirSync(resultsDir, { recursive: true });
  const outputFile = join(resultsDir, 'mocha-output.txt');
  writeFileSync(outputFile, '');

  const tools = resolveTools();
  let browser: Browser | undefined;
  let server: RunningCodeServer | undefined;
  let tail: NodeJS.Timeout | undefined;
  let position = 0;
  const pump = () => {
    // Stream what the in-host mocha runner writes, so the test output is readable live.
    const fd = openSync(outputFile, 'r');
    try {
      const buf = Buffer.alloc(65536);
      for (;;) {
        const n = readSync(fd, buf, 0, buf.length, position);
        if (n <= 0) break;
        position += n;
        process.stdout.write(buf.subarray(0, n));
      }
    } finally { closeSync(fd); }
  };
  try {
    browser = await launchBrowser(tools); // first, so a browser failure leaves no server behind
    server = await startCodeServer({
      tools, smokeTestDriver: true, env: { HOPLENS_TEST_OUTPUT: outputFile, ...passThroughEnv() },
      // The untrusted-workspace run (test/harness/untrustedRun.ts): trust on, its own user settings.
      workspaceTrust: process.env.HOPLENS_WORKSPACE_TRUST === 'untrusted',
      settings: process.env.HOPLENS_USER_SETTINGS ? JSON.parse(process.env.HOPLENS_USER_SETTINGS) as Record<string, unknown> : undefined,
    });
    const remote = (p: string) => `vscode-remote://127.0.0.1:${server!.port}${p}`;
    const payload = JSON.stringify([['extensionDevelopmentPath', remote(devPath)], ['extensionTestsPath', remote(testsPath)]]);
    const url = `${server.url}?${folder ? `folder=${encodeURIComponent(folder)}&` : ''}payload=${encodeURIComponent(payload)}`;
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const exited = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => resolve(Number(code)));
    });
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => { if (process.env.HOPLENS_DEBUG_HOST) process.stderr.write('[host ' + type + '] ' + JSON.stringify(args).slice(0, 500) + '\n'); });
    tail = setInterval(pump, 200);
    await page.goto(url, { timeout: 60_000 });
    const timedOut = new Promise<number>((resolve) => setTimeout(() => resolve(-1), timeoutMs).unref());
    const code = await Promise.race([exited, timedOut]);
    pump();
    if (code === -1) {
      await page.screenshot({ path: join(resultsDir, 'timeout.png') }).catch(() => undefined);
      process.stderr.write(`vscodeShim: the extension tests did not finish within ${timeoutMs} ms (screenshot: test-results/integration/timeout.png)\n`);
      return 1;
    }
    return code;
  } finally {
    if (tail) clearInterval(tail);
    await browser?.close().catch(() => undefined);
    await server?.stop();
  }
}

/** Variables the in-host tests read (fixtures, ports of helper servers started by the runner). */
function passThroughEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('HOPLENS_') && v !== undefined) env[k] = v;
  return env;
}

main().then((code) => process.exit(code), (e: unknown) => {
  process.stderr.write(`vscodeShim: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
