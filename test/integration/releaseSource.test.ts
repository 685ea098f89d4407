// A release's own source in a real extension host: "Use a Release's Own Source…" resolves the
// engine's logs in the release unpacked in the tool cache (no network: it is there already, as
// after a first fetch), and "Remove Cached Release Sources" deletes it and goes back to the checkout.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fixture, hoplens, until } from './fixture';

describe('release source', () => {
  it('resolves in a cached release when asked, and goes back to the checkout when the cache is removed', async () => {
    const api = await hoplens();
    const releases = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'hoplens', 'releases');
    const dir = join(releases, 'vllm-9.9.7');
    mkdirSync(dir, { recursive: true });
    // The tree as fetchRelease leaves it: the package's .py files and the manifest.
    cpSync(join(fixture().vllmCheckout, 'vllm'), join(dir, 'vllm'), { recursive: true });
    writeFileSync(join(dir, 'hoplens-release.json'), JSON.stringify({ engine: 'vllm', version: '9.9.7', wheel: 'vllm-9.9.7-py3-none-any.whl', files: 1, pythonBytes: 1, fetchedAt: '2026-12-02T00:00:00Z' }));
    const before = (await api.logs.checkout('vllm'))?.root ?? null;
    const root = await vscode.commands.executeCommand<string | null>('hoplens.useReleaseSource', 'vllm==9.9.7');
    assert.equal(root, dir);
    await until('the release source in use', async () => ((await api.logs.checkout('vllm'))?.root === dir ? true : undefined));
    const n = await vscode.commands.executeCommand<number>('hoplens.removeReleaseSources');
    assert.equal(n, 1);
    assert.ok(!existsSync(dir));
    await until('the checkout back in use', async () => ((await api.logs.checkout('vllm'))?.root ?? null) === before ? true : undefined);
  });
});
