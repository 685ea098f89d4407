// What the runner prepared (test/harness/workspace.ts), as seen from inside the extension host.
import * as vscode from 'vscode';
import type { FixtureWorkspace } from '../harness/workspace';
import type { HopLensApi } from '../../src/extension';

export function fixture(): FixtureWorkspace {
  const raw = process.env.HOPLENS_FIXTURE_WORKSPACE;
  if (!raw) throw new Error('HOPLENS_FIXTURE_WORKSPACE is not set: run through test/harness/runIntegration');
  return JSON.parse(raw) as FixtureWorkspace;
}

export async function hoplens(): Promise<HopLensApi> {
  const ext = vscode.extensions.getExtension<HopLensApi>('hoplens.hoplens');
  if (!ext) throw new Error('HopLens is not installed in this extension host');
  return ext.activate();
}

export async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (e) { last = e; }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A line in the test run's output (figures a benchmark-style test prints). */
export function report(line: string): void {
  const file = process.env.HOPLENS_TEST_OUTPUT;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (file) require('node:fs').appendFileSync(file, line + '\n');
  console.log(line);
}
