// What the ToyLLM tests share: its three lines, how a parsed line is read back, a registration
// taken back after the test, and hoplens annotate --json on the lines.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerEngine, type EngineProfile } from '../../../src/engines/registry';
import type { LogRecord } from '../../../src/engines/record';
import { bufferIO } from '../../../src/cli/io';
import { runAnnotate } from '../../../src/cli/annotate';
/** What a test reads of a parsed line: engine, format, process, pid, role, level, file, line, hop, request id. */
export function recordFields(r: LogRecord): unknown[] {
  return [r.engine, r.format, r.process, r.pid, r.role, r.level, r.fileinfo, r.lineno, r.hop, r.rid];
}

/** The three ToyLLM lines the tests parse, as either way of reading them (line shapes, its own grammar) must read them. */
export const TOYLLM_LINES_READ: unknown[][] = [
  ['toyllm', 'toyllm', 'frontend', 4242, 'frontend', 'INFO', 'serve.py', 88, 'T1', 'req-7'],
  ['toyllm', 'toyllm', 'runner', 4243, 'runner', 'DEBUG', 'loop.py', 12, null, null],
  ['toyllm', 'toyllm', 'runner', 4243, 'runner', 'INFO', 'run.py', 31, 'T2', 'req-7'],
];

/** Three lines as ToyLLM prints them: a receipt (T1), a step line (no hop), a finish (T2), all of req-7. */
export const TOYLLM_LOG = [
  '2026-12-02 17:20:01.123 toyllm[frontend:4242] INFO serve.py:88 | accepted request req-7',
  '2026-12-02 17:20:01.130 toyllm[runner:4243] DEBUG loop.py:12 | step 1 took 3 ms',
  '2026-12-02 17:20:01.456 toyllm[runner:4243] INFO run.py:31 | finished request req-7 in 333 ms',
];

/** A test body run with `profile` registered, and the registry as it was afterwards. */
export function whileRegistered(profile: EngineProfile, fn: () => Promise<void> | void): () => Promise<void> {
  return async () => {
    const unregister = registerEngine(profile);
    try { await fn(); } finally { unregister(); }
  };
}

/** `hoplens annotate LOG --json` on the lines written to a file: its exit code, stderr and rows. */
export async function annotateJson(lines: readonly string[]): Promise<{ code: number; stderr: string; rows: Record<string, unknown>[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-toyllm-'));
  try {
    const log = join(dir, 'toyllm.log');
    writeFileSync(log, lines.join('\n') + '\n');
    const out = bufferIO();
    const code = await runAnnotate([log, '--json'], out);
    const rows = out.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    return { code, stderr: out.stderr, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
