// Runs the real `git` binary with a timeout; never through a shell.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** "git-missing" when the binary is not on PATH, "timeout", or "exit". */
  failure: 'git-missing' | 'timeout' | 'exit' | null;
}

export interface GitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  maxBuffer?: number;
}

export function runGit(cwd: string, args: string[], opts: GitOptions = {}): Promise<GitResult> {
  // A missing working folder also fails with ENOENT: say so rather than "git not found".
  if (!existsSync(cwd)) return Promise.resolve({ ok: false, stdout: '', stderr: `${cwd} does not exist`, failure: 'exit' });
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      {
        cwd,
        timeout: opts.timeoutMs ?? 10_000,
        maxBuffer: opts.maxBuffer ?? 64 * 1024 * 1024,
        signal: opts.signal,
        windowsHide: true,
        // Never prompt for credentials: a clone must fail with a message, not hang.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'echo', LC_ALL: 'C' },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ ok: true, stdout, stderr, failure: null });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; signal?: string };
        const failure = e.code === 'ENOENT' && !stderr ? 'git-missing' : e.killed || e.signal === 'SIGTERM' ? 'timeout' : 'exit';
        resolve({ ok: false, stdout: String(stdout ?? ''), stderr: String(stderr ?? e.message), failure });
      },
    );
  });
}
