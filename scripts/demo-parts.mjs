// What `npm run demo` and `npm run demo:fleet` share: the build steps (the test tools, the
// compiled tests whose harness starts the servers, the packaged .vsix), the demo workspace's
// checkouts made git repositories, and code-server on 127.0.0.1 with HopLens installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** A progress line on stderr, tagged with the demo's name. */
export function say(tag, text) { process.stderr.write(`[${tag}] ${text}\n`); }

function step(tag, label, args) {
  say(tag, label);
  const r = spawnSync(process.execPath, args, { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) { say(tag, `${label} failed (exit ${r.status})`); process.exit(r.status || 1); }
}

/**
 * code-server and Chromium in the tool cache, the compiled tests and dist/hoplens.vsix.
 * HOPLENS_DEMO_PREBUILT=1 skips compiling and packaging when a caller has just done both (the
 * E2E layer packages before its tests run).
 */
export function buildDemo(tag) {
  const tools = spawnSync(process.execPath, ['scripts/ensure-tools.mjs'], { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (tools.status !== 0) process.exit(tools.status || 1);
  process.env.HOPLENS_CODE_SERVER_DIR = tools.stdout.trim().split('\n').pop();
  const prebuilt = process.env.HOPLENS_DEMO_PREBUILT === '1' && existsSync(join(repo, 'dist', 'hoplens.vsix')) && existsSync(join(repo, 'out', 'test', 'harness'));
  if (prebuilt) { say(tag, 'using the compiled tests and dist/hoplens.vsix as they are (HOPLENS_DEMO_PREBUILT=1)'); return; }
  step(tag, 'compiling', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.test.json']);
  step(tag, 'packaging dist/hoplens.vsix', ['scripts/package.mjs']);
}

/** A module of the compiled test harness (out/test/harness/<name>.js). */
export function harness(name) {
  return require(join(repo, 'out', 'test', 'harness', `${name}.js`));
}

/**
 * The checkouts are git repositories with one commit, as a clone would be: HopLens then reads
 * their HEAD instead of warning that they are not git repositories.
 */
export function commitCheckouts(tag, dirs) {
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'HopLens demo', GIT_AUTHOR_EMAIL: 'demo@hoplens.invalid', GIT_COMMITTER_NAME: 'HopLens demo',
    GIT_COMMITTER_EMAIL: 'demo@hoplens.invalid', GIT_CONFIG_NOSYSTEM: '1' };
  for (const dir of dirs) {
    try {
      for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'HopLens demo: constructed stand-in checkout']]) {
        execFileSync('git', args, { cwd: dir, env: gitEnv, stdio: 'ignore' });
      }
    } catch (e) {
      say(tag, `${dir} is not a git repository (git failed: ${e.message.split('\n')[0]})`);
    }
  }
}

/**
 * code-server with the packaged HopLens, on HOPLENS_DEMO_PORT (default any free port). The first
 * screen is the workspace README, the secondary side bar closed. Ctrl+C (SIGINT/SIGTERM): the
 * harness's exit hooks end code-server's process group as the process exits.
 */
export async function startDemoCodeServer() {
  const { startCodeServer } = harness('codeServer');
  const { resolveTools } = harness('tools');
  return startCodeServer({
    tools: resolveTools(), installVsix: [join(repo, 'dist', 'hoplens.vsix')], startTimeoutMs: 90000, port: Number(process.env.HOPLENS_DEMO_PORT || 0),
    settings: { 'workbench.startupEditor': 'readme', 'workbench.secondarySideBar.defaultVisibility': 'hidden' },
  });
}
