// Shared helpers for the call-trace tests: run our Python tracer, write hand-made trace files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every temp folder a test makes is removed when the test process ends.
const made: string[] = [];
process.on('exit', () => { for (const d of made) rmSync(d, { recursive: true, force: true }); });

export const repoRoot = join(__dirname, '..', '..', '..', '..');
export const makeTraceScript = join(repoRoot, 'test', 'fixtures', 'calltrace', 'make_trace.py');

export interface PythonTrace {
  instanceDir: string;
  files: string[];
  engineRoot: string;
  sleepMs: number;
  outDir: string;
}

/** Runs test/fixtures/calltrace/make_trace.py (real sys.settrace) into a fresh temp folder. */
export function runPythonTracer(scenario: 'normal' | 'stuck' | 'midstack', extra: string[] = []): PythonTrace {
  const outDir = mkdtempSync(join(tmpdir(), `hoplens-ct-${scenario}-`));
  made.push(outDir);
  const stdout = execFileSync('python3', [makeTraceScript, outDir, '--scenario', scenario, ...extra], { encoding: 'utf8' });
  return { ...JSON.parse(stdout.trim().split('\n').pop()!), outDir };
}

export function tempDir(prefix = 'hoplens-ct-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes a trace file with vLLM's naming into dir/vllm-instance-<id>/ and returns its path. */
export function writeTrace(dir: string, lines: string[] | string,
  opts: { pid?: number; tid?: number; instance?: string; trailingNewline?: boolean } = {}): string {
  const inst = join(dir, `vllm-instance-${opts.instance ?? '42'}`);
  mkdirSync(inst, { recursive: true });
  const path = join(inst, `VLLM_TRACE_FUNCTION_for_process_${opts.pid ?? 100}_thread_${opts.tid ?? 200}_at_2026-08-21_22:30:01.123456.log`);
  const text = typeof lines === 'string' ? lines : lines.join('\n') + (opts.trailingNewline === false ? '' : '\n');
  writeFileSync(path, text);
  return path;
}

const V = '/usr/lib/python3/site-packages/vllm';
/** One call line exactly as vLLM prints it. */
export function callLine(ts: string, fn: string, file: string, line: number, cfn: string, cfile: string, cline: number): string {
  return `2026-08-21 22:30:${ts} Call to ${fn} in ${file}:${line} from ${cfn} in ${cfile}:${cline}`;
}
export function returnLine(ts: string, fn: string, file: string, line: number, cfn: string, cfile: string, cline: number): string {
  return `2026-08-21 22:30:${ts} Return from ${fn} in ${file}:${line} to ${cfn} in ${cfile}:${cline}`;
}
export const CORE = `${V}/v1/engine/core.py`;
export const SCHED = `${V}/v1/core/sched/scheduler.py`;
