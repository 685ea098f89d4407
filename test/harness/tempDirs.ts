// Temp folders of the harness (workspaces, server logs): made under the OS temp folder and
// removed by their owner when it stops, or at the latest when this process exits, pass or fail.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const pending = new Set<string>();
let hooked = false;

export interface TempDir { path: string; remove(): void }

export function makeTempDir(prefix: string): TempDir {
  if (!hooked) {
    hooked = true;
    process.on('exit', () => { for (const p of pending) rmSync(p, { recursive: true, force: true }); });
  }
  const path = mkdtempSync(join(tmpdir(), prefix));
  pending.add(path);
  return { path, remove: () => { rmSync(path, { recursive: true, force: true }); pending.delete(path); } };
}
