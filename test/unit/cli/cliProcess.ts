// Runs the built command line (dist/cli.js, from `node esbuild.mjs`) as a child process, the
// way a shell does: real pipes, real exit codes, real stderr.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const REPO = join(__dirname, '..', '..', '..', '..');
/** HOPLENS_TEST_CLI points the tests at another build (e.g. main's, to see a test fail before a fix). */
export const CLI = process.env.HOPLENS_TEST_CLI ?? join(REPO, 'dist', 'cli.js');
export const LOG_FIXTURES = join(REPO, 'test', 'fixtures', 'logs');

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`node esbuild.mjs\` first (npm run test:unit does)`);
}

export interface Finished { code: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: string }

/** Starts `node dist/cli.js ...args`; stdout is piped unless `options.stdio` says otherwise. */
export function startCli(args: string[], options: SpawnOptions = {}): ChildProcess {
  assertBuilt();
  return spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

/** Collects what a started CLI prints and how it ends. */
export function finished(child: ChildProcess, opts: { collectStdout?: boolean } = {}): Promise<Finished> {
  const out: Buffer[] = [];
  let err = '';
  if (opts.collectStdout !== false) child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => { err += b.toString('utf8'); });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: err }));
  });
}

export async function runCli(args: string[], options: SpawnOptions & { input?: Buffer | string } = {}): Promise<Finished> {
  const { input, ...spawnOptions } = options;
  const child = startCli(args, { ...spawnOptions, stdio: [input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  const done = finished(child);
  if (input !== undefined) child.stdin!.end(input);
  return done;
}

/** Reads stdout until its first newline, then closes the pipe like `| head -1` does. */
export function headOne(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (b: Buffer): void => {
      text += b.toString('utf8');
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        child.stdout!.off('data', onData);
        child.stdout!.destroy();
        resolve(text.slice(0, nl));
      }
    };
    child.stdout!.on('data', onData);
    child.stdout!.on('error', reject);
  });
}
