// A release's own source in a real extension host: "Use a Release's Own Source…" resolves the
// engine's logs in the release unpacked in the tool cache (no network: it is there already, as
// after a first fetch), and "Remove Cached Release Sources" deletes it and goes back to the checkout.
// Two logs of two releases fetched before (real trees of vLLM 0.8.5 and 0.10.2, copied from the
// unit layer's test cache, fetched there when missing) each resolve in their own release.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchRelease, type ReleaseSpec } from '../../src/core/source/release';
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

  it('two open logs of two vLLM releases each resolve in their own release source, fetched before', async function () {
    this.timeout(180_000);
    const api = await hoplens();
    const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
    const releases = join(cache, 'hoplens', 'releases');
    const put = async (spec: ReleaseSpec) => {
      const tree = (await fetchRelease(spec, { cacheRoot: join(cache, 'hoplens', 'test-releases') })).root;
      const dir = join(releases, `vllm-${spec.version}`);
      if (!existsSync(dir)) cpSync(tree, dir, { recursive: true });
      return dir;
    };
    const [dir085, dir0102] = [await put({ engine: 'vllm', version: '0.8.5' }), await put({ engine: 'vllm', version: '0.10.2' })];
    const logs = mkdtempSync(join(tmpdir(), 'hoplens-two-releases-'));
    const write = (name: string, version: string, apiLine: number, addedLine: number) => {
      const path = join(logs, name);
      writeFileSync(path, `INFO 05-01 10:00:02 [api_server.py:${apiLine}] vLLM API server version ${version}\n`
        + `INFO 05-01 10:00:09 [async_llm.py:${addedLine}] Added request chatcmpl-${name}.\n`);
      return vscode.Uri.file(path);
    };
    try {
      const opened = [
        { uri: write('old.log', '0.8.5', 1043, 252), dir: dir085, line: 252 },
        { uri: write('newer.log', '0.10.2', 1896, 321), dir: dir0102, line: 321 },
      ];
      for (const o of opened) {
        const doc = await vscode.workspace.openTextDocument(o.uri);
        await vscode.window.showTextDocument(doc, { preview: false });
        await until(`${o.uri.fsPath} in its release`, async () => ((await api.logs.checkoutFor(doc))?.root === o.dir ? true : undefined), 60_000);
        await (await api.logs.checkoutFor(doc))!.indexReady;
        const src = await until('its Added request line located', async () => {
          const s = (await api.logs.session(doc))?.source(1);
          return s?.file?.startsWith(o.dir) ? s : undefined;
        });
        assert.equal(src.file, join(o.dir, 'vllm', 'v1', 'engine', 'async_llm.py'));
        assert.equal(src.location.line, o.line);
      }
      // The first log still resolves in its own release once the second's is in use.
      const first = await vscode.workspace.openTextDocument(opened[0].uri);
      assert.equal((await api.logs.checkoutFor(first))?.root, dir085);
      assert.equal((await api.logs.session(first))?.source(1)?.file, join(dir085, 'vllm', 'v1', 'engine', 'async_llm.py'));
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('hoplens.removeReleaseSources');
    }
  });
});
