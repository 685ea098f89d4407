// Starts code-server (VS Code 1.139 in a browser) quietly and hermetically on 127.0.0.1,
// in its own process group so that stop() ends it and every child it forked.
import { spawn, ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestTools } from './tools';

export interface CodeServerOptions {
  tools: TestTools;
  /** Extra environment for the server and so for the extension host (e.g. test output file). */
  env?: Record<string, string>;
  /** Turn on the smoke-test driver so the workbench honours test payloads. */
  smokeTestDriver?: boolean;
  /** Install these .vsix files into the fresh extensions dir before starting. */
  installVsix?: string[];
  /** User settings merged over the quiet defaults. */
  settings?: Record<string, unknown>;
  startTimeoutMs?: number;
  /** Keep the temp folder (user data, logs) after stop. */
  keepTemp?: boolean;
  onOutput?: (text: string) => void;
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  /** Workspace trust on: folders open in Restricted Mode (untrusted), without the prompt. Off by default. */
  workspaceTrust?: boolean;
}

export interface RunningCodeServer {
  /** Leader of its process group (its forked watchers and extension hosts are in the group). */
  pid: number;
  port: number;
  url: string;
  temp: string;
  stop(): Promise<void>;
}

const QUIET_SETTINGS = {
  'workbench.startupEditor': 'none',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'workbench.enableExperiments': false,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'editor.codeLens': true,
};

const live = new Set<ChildProcess>();
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
}
let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // Killed first, then their temp folders removed: a SIGKILLed group writes nothing more.
  process.on('exit', () => {
    for (const c of live) killGroup(c);
    for (const t of tempsToRemove) rmSync(t, { recursive: true, force: true });
  });
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => process.exit(130));
}
const tempsToRemove = new Set<string>();

function hermeticEnv(temp: string, extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  env.EXTENSIONS_GALLERY = '{}';
  env.XDG_CONFIG_HOME = join(temp, 'xdg-config');
  env.XDG_DATA_HOME = join(temp, 'xdg-data');
  env.TMPDIR = join(temp, 'tmp');
  delete env.VSCODE_IPC_HOOK_CLI;
  delete env.ELECTRON_RUN_AS_NODE;
  return env;
}

function runToEnd(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    live.add(child);
    let output = '';
    child.stdout!.on('data', (d) => { output += d; });
    child.stderr!.on('data', (d) => { output += d; });
    const timer = setTimeout(() => { killGroup(child); reject(new Error(`timed out after ${timeoutMs} ms: ${args.join(' ')}\n${output}`)); }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      live.delete(child);
      if (code === 0) resolve(); else reject(new Error(`exit ${code}: ${args.join(' ')}\n${output}`));
    });
  });
}

export async function startCodeServer(opts: CodeServerOptions): Promise<RunningCodeServer> {
  installExitHooks();
  const temp = mkdtempSync(join(tmpdir(), 'hoplens-cs-'));
  if (!opts.keepTemp) tempsToRemove.add(temp);
  for (const d of ['user-data/User', 'extensions', 'xdg-config', 'xdg-data', 'tmp']) mkdirSync(join(temp, d), { recursive: true });
  const trust = opts.workspaceTrust ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.banner': 'never' } : {};
  writeFileSync(join(temp, 'user-data', 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...trust, ...opts.settings }, null, 2));
  // code-server's workbench is a remote window: settings of machine scope (hoplens.server.url is
  // machine-overridable) are taken from the server's Machine settings, and the User file's copy
  // is dropped once the extension's schema says so, which made a run see the default :8000.
  if (opts.settings) {
    mkdirSync(join(temp, 'user-data', 'Machine'), { recursive: true });
    writeFileSync(join(temp, 'user-data', 'Machine', 'settings.json'), JSON.stringify(opts.settings, null, 2));
  }
  writeFileSync(join(temp, 'config.yaml'), 'auth: none\n');
  const env = hermeticEnv(temp, opts.env);
  const common = ['--user-data-dir', join(temp, 'user-data'), '--extensions-dir', join(temp, 'extensions'), '--config', join(temp, 'config.yaml')];

  for (const vsix of opts.installVsix ?? []) {
    await runToEnd(opts.tools.node24, [opts.tools.codeServerEntry, ...common, '--install-extension', vsix, '--force'], env, 120_000);
  }

  const args = [opts.tools.codeServerEntry, '--auth', 'none', '--bind-addr', `127.0.0.1:${opts.port ?? 0}`, '--disable-telemetry',
    '--disable-update-check', ...(opts.workspaceTrust ? [] : ['--disable-workspace-trust']), '--disable-getting-started-override', '--ignore-last-opened', ...common];
  if (opts.smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
  const child = spawn(opts.tools.node24, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  live.add(child);

  const stop = async (): Promise<void> => {
    killGroup(child);
    live.delete(child);
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.once('exit', r)));
    if (!opts.keepTemp) rmSync(temp, { recursive: true, force: true });
    tempsToRemove.delete(temp);
  };

  const timeoutMs = opts.startTimeoutMs ?? 60_000;
  let seen = '';
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`code-server did not start within ${timeoutMs} ms. Output:\n${seen}`)), timeoutMs);
      const onData = (d: Buffer) => {
        const text = d.toString();
        seen += text;
        opts.onOutput?.(text);
        const m = /HTTP server listening on https?:\/\/127\.0\.0\.1:(\d+)/.exec(seen);
        if (m) { clearTimeout(timer); resolve(Number(m[1])); }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`code-server exited (${code ?? signal}) before listening. Output:\n${seen}`)); });
    });
    return { pid: child.pid!, port, url: `http://127.0.0.1:${port}/`, temp, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
