// The walkthrough's "open this file" command over a real folder on disk with real symbolic
// links: a path that stays inside the workspace by its name but leads outside it through a link
// (the file is a link, or a folder on its way is) opens nothing and says why; links that stay
// inside, and a workspace folder opened through a link, open as usual.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { Uri } from '../fakes/vscode';
import { openWalkthroughFile, resolvesInside, type WalkthroughWorkspace } from '../../../src/features/walkthrough/openWalkthroughFile';

/** A temp folder with a workspace (`ws`) and, beside it, a folder outside it (`outside`). */
function folders() {
  const top = mkdtempSync(join(tmpdir(), 'hoplens-walk-'));
  const ws = join(top, 'ws');
  const outside = join(top, 'outside');
  mkdirSync(join(ws, 'logs'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'logs', 'vllm.log'), 'INFO 12-01 07:41:20 [api_server.py:1] ready\n');
  writeFileSync(join(outside, 'secret.log'), 'not the workspace\n');
  symlinkSync(join(outside, 'secret.log'), join(ws, 'logs', 'link.log')); // the file is a link out
  symlinkSync(outside, join(ws, 'linked')); // a folder on the way is a link out
  symlinkSync(join(ws, 'logs', 'vllm.log'), join(ws, 'logs', 'inner.log')); // a link that stays inside
  symlinkSync(join(ws, 'logs', 'vllm.log'), join(outside, 'back.log'));
  symlinkSync(join(outside, 'back.log'), join(ws, 'logs', 'roundabout.log')); // out and back in: inside
  symlinkSync(ws, join(top, 'ws-link')); // the workspace opened through a link
  return { top, ws, outside, done: () => rmSync(top, { recursive: true, force: true }) };
}

/** The workspace as the extension has it for a local folder (index.ts), over the real disk. */
function disk(root: string) {
  const shown: string[] = [];
  const warnings: string[] = [];
  const ws: WalkthroughWorkspace = {
    folders: () => [Uri.file(root) as unknown as vscode.Uri],
    join: (r, segments) => Uri.joinPath(r as unknown as Uri, ...segments) as unknown as vscode.Uri,
    isFile: async (uri) => { try { return (await stat(uri.path)).isFile(); } catch { return false; } },
    inside: (r, uri) => resolvesInside(r.path, uri.path),
    show: async (uri) => { shown.push(uri.path); },
    warn: (m) => { warnings.push(m); },
  };
  return { ws, shown, warnings };
}

test('a workspace file that is a symbolic link out of the folder, or sits in a linked folder outside it, is not opened', async () => {
  const f = folders();
  try {
    for (const path of ['logs/link.log', 'linked/secret.log']) {
      const w = disk(f.ws);
      assert.equal(await openWalkthroughFile(w.ws, path, 1), undefined, path);
      assert.deepEqual(w.shown, [], path);
      assert.equal(w.warnings.length, 1);
      assert.match(w.warnings[0], new RegExp(`^HopLens: the walkthrough opens files of the workspace only; ${path.replace('.', '\\.')} leads outside the folder ws through a symbolic link`));
    }
  } finally { f.done(); }
});

test('links that stay inside the folder, and a workspace folder opened through a link, open as usual', async () => {
  const f = folders();
  try {
    for (const path of ['logs/vllm.log', 'logs/inner.log', 'logs/roundabout.log']) {
      const w = disk(f.ws);
      assert.ok(await openWalkthroughFile(w.ws, path, 1), path);
      assert.deepEqual([w.shown, w.warnings], [[join(f.ws, path)], []], path);
    }
    const through = disk(join(f.top, 'ws-link'));
    assert.ok(await openWalkthroughFile(through.ws, 'logs/vllm.log', 1));
    assert.deepEqual(through.warnings, []);
    // ws-link/linked/secret.log: still outside, whichever way the folder was reached
    assert.equal(await openWalkthroughFile(through.ws, 'linked/secret.log', 1), undefined);
  } finally { f.done(); }
});

test('resolvesInside: the folder itself, a name that only starts like it, and what cannot be resolved are not inside', async () => {
  const f = folders();
  try {
    writeFileSync(join(f.top, 'ws-other.log'), '');
    assert.equal(await resolvesInside(f.ws, f.ws), false);
    assert.equal(await resolvesInside(f.ws, join(f.top, 'ws-other.log')), false);
    assert.equal(await resolvesInside(f.ws, join(f.ws, 'logs', 'missing.log')), false);
    assert.equal(await resolvesInside(f.ws, join(f.ws, 'logs', 'vllm.log')), true);
  } finally { f.done(); }
});
