// Starts our fake vLLM/SGLang server (src/testing/fakeEngine) as its own process on 127.0.0.1,
// for tests that run in another process (the extension host, the browser) and for the demo.
import { spawn, ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './tools';

export interface FakeEngineProcess {
  pid: number; url: string; logFile: string;
  /** With `traceDir`: the folder of the traced engine core's file (vllm-instance-…). */
  traceInstanceDir: string | null;
  stop(): void;
}

export function startFakeEngineProcess(opts: { engine: 'vllm' | 'sglang'; logFile: string; schedule?: string; otlp?: string; traceDir?: string; traceSourceRoot?: string }): Promise<FakeEngineProcess> {
  const main = join(REPO_ROOT, 'out', 'src', 'testing', 'fakeEngine', 'main.js');
  const args = [main, '--engine', opts.engine, '--port', '0', '--log', opts.logFile];
  if (opts.schedule) args.push('--schedule', opts.schedule);
  if (opts.otlp) args.push('--otlp', opts.otlp);
  if (opts.traceDir) args.push('--trace-dir', opts.traceDir);
  if (opts.traceSourceRoot) args.push('--trace-source-root', opts.traceSourceRoot);
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => { if (child.exitCode === null) child.kill('SIGKILL'); };
  process.on('exit', stop);
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => { stop(); reject(new Error(`fake engine did not start: ${seen}`)); }, 15_000);
    child.stdout!.on('data', (d) => {
      seen += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      const traced = /engine core pid \d+ traced to (.+)\n/.exec(seen);
      if (m) { clearTimeout(timer); resolve({ pid: child.pid!, url: m[1], logFile: opts.logFile, traceInstanceDir: traced ? traced[1] : null, stop }); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`fake engine exited (${code}): ${seen}`)); });
  });
}
