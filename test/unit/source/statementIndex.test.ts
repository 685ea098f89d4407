// The statement index: built in a worker thread or in-process, cached per checkout state,
// rebuilt when HEAD moves or the tree is edited, cancellable, and robust to bad files.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { buildStatementIndex, createSourceResolver, listPythonFiles, SourceResolverError } from '../../../src/core/source';
import { commitAll, initRepo, pythonFile, SGLANG_FILES, TempDirs, VLLM_FILES, writeFiles } from './fixtureCheckout';

const tmp = new TempDirs();
after(() => tmp.cleanup());
const REPO = join(__dirname, '..', '..', '..', '..');

const PREFILL = 'Prefill batch, #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00';

/** The real worker bundle, built the way esbuild.mjs builds dist/statementIndex.js. */
function bundleWorker(): string {
  const out = join(tmp.make('hoplens-worker-'), 'statementIndex.js');
  buildSync({ entryPoints: [join(REPO, 'src/workers/statementIndex.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile: out, logLevel: 'silent' });
  return out;
}

test('the worker thread builds the same index as the in-process fallback, with progress to the end', async () => {
  const root = tmp.make();
  initRepo(root, VLLM_FILES);
  const files = await listPythonFiles(root, 'vllm', { git: true });
  const progress: number[] = [];
  const viaWorker = await buildStatementIndex(root, files, 'vllm', 'k', { workerScript: bundleWorker(), onProgress: (p) => progress.push(p.done / p.total) });
  const inProcess = await buildStatementIndex(root, files, 'vllm', 'k', { workerScript: null });
  assert.deepEqual(viaWorker.statements, inProcess.statements);
  assert.ok(viaWorker.statements.some((s) => s.path === 'vllm/v1/engine/async_llm.py' && s.line === 439));
  assert.equal(progress[progress.length - 1], 1);
});

test('cache: built once per commit, reused, rebuilt on a new commit and on uncommitted edits', async () => {
  const root = tmp.make();
  const cacheDir = tmp.make('hoplens-cache-');
  const first = initRepo(root, SGLANG_FILES);
  const a = await createSourceResolver(root, 'sglang', { cacheDir, workerScript: null });
  assert.equal(a.indexInfo().source, 'built');
  assert.deepEqual(readdirSync(cacheDir), [`statements-sglang-${first}.json`]);

  const b = await createSourceResolver(root, 'sglang', { cacheDir, workerScript: null });
  assert.equal(b.indexInfo().source, 'cache');
  assert.equal(b.indexInfo().statements, a.indexInfo().statements);

  // A new statement in a new commit: a new index that knows it.
  writeFiles(root, { 'python/sglang/srt/managers/io_thread.py': pythonFile({ 20: '    logger.info(f"IO thread {name} started with {n} workers")' }) });
  const second = commitAll(root, 'add io thread');
  const c = await createSourceResolver(root, 'sglang', { cacheDir, workerScript: null });
  assert.equal(c.indexInfo().source, 'built');
  assert.equal(c.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: 'IO thread detok started with 4 workers', hop: null })?.path, 'python/sglang/srt/managers/io_thread.py');
  assert.ok(existsSync(join(cacheDir, `statements-sglang-${second}.json`)));

  // An uncommitted edit: keyed by HEAD plus the dirty files, so it is not served the clean index.
  writeFiles(root, { 'python/sglang/srt/managers/io_thread.py': pythonFile({ 30: '    logger.info(f"IO thread {name} stopped")' }) });
  const d = await createSourceResolver(root, 'sglang', { cacheDir, workerScript: null });
  assert.equal(d.indexInfo().source, 'built');
  assert.equal(d.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: 'IO thread detok stopped', hop: null })?.line, 30);
  assert.ok(readdirSync(cacheDir).some((f) => f.startsWith(`statements-sglang-${second}+`)));
});

test('editor mode (background, no file reads on the calling thread): unverified at first, verified once the index is ready', async () => {
  const root = tmp.make();
  initRepo(root, VLLM_FILES);
  const r = await createSourceResolver(root, 'vllm', { statementIndex: 'background', syncFileReads: false, workerScript: bundleWorker(), cacheDir: null });
  const q = { engine: 'vllm' as const, fileinfo: 'async_llm.py', lineno: 439, message: 'Added request chatcmpl-1-0a1b2c3d.', hop: 'V2' };
  for (let i = 0; i < 4; i++) {
    assert.deepEqual(r.resolve(q), { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: false, drift: 0, method: 'fileinfo', note: 'the checkout is still being indexed' });
  }
  await r.indexReady;
  assert.deepEqual(r.resolve(q), { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: true, drift: 0, method: 'fileinfo' });
});

test('background mode returns at once and resolves through the index when it is ready', async () => {
  const root = tmp.make();
  initRepo(root, SGLANG_FILES);
  const r = await createSourceResolver(root, 'sglang', { statementIndex: 'background', workerScript: bundleWorker(), cacheDir: null });
  assert.equal(r.indexState(), 'building');
  const index = await r.indexReady;
  assert.ok(index && index.size > 10);
  assert.equal(r.indexState(), 'ready');
  assert.equal(r.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: PREFILL, hop: null })?.line, 653);
});

test('cancelling the build (AbortSignal) stops it and reports "cancelled"', async () => {
  const root = tmp.make();
  initRepo(root, SGLANG_FILES);
  const files = await listPythonFiles(root, 'python/sglang', { git: true });
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(buildStatementIndex(root, files, 'sglang', 'k', { signal: ac.signal, workerScript: null }), { name: 'AbortError' });

  const ac2 = new AbortController();
  const pending = buildStatementIndex(root, files, 'sglang', 'k', { signal: ac2.signal, workerScript: bundleWorker() });
  ac2.abort();
  await assert.rejects(pending, { name: 'AbortError' });
});

test('binary, huge, unreadable and invalid-UTF-8 .py files are skipped with reasons; the rest still resolves', async () => {
  const root = tmp.make();
  writeFiles(root, {
    ...VLLM_FILES,
    'vllm/_C.py': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]),
    'vllm/huge_table.py': 'logger.info("big")\n' + '# x\n'.repeat(1_200_000),
    'vllm/latin1.py': Buffer.concat([Buffer.from('logger.info("caf'), Buffer.from([0xe9]), Buffer.from(' open %s", x)\n')]),
  });
  symlinkSync(join(root, 'missing-target.py'), join(root, 'vllm/broken_link.py'));
  const r = await createSourceResolver(root, 'vllm', { workerScript: null, cacheDir: null });
  assert.equal(r.checkout.head, null, 'not a git repository');
  assert.equal(r.pin.state, 'unknown');
  const skipped = Object.fromEntries((await r.indexReady)!.data.skipped.map((s) => [s.path, s.reason]));
  assert.match(skipped['vllm/_C.py'], /not Python source/);
  assert.match(skipped['vllm/huge_table.py'], /larger than 4 MB/);
  assert.match(skipped['vllm/broken_link.py'], /unreadable/);
  assert.equal(r.resolve({ engine: 'vllm', fileinfo: 'latin1.py', lineno: 1, message: 'caf\uFFFD open x', hop: null })?.verified, true);
  assert.deepEqual(r.resolve({ engine: 'vllm', fileinfo: '_C.py', lineno: 1, message: 'x', hop: null })?.verified, false);
  assert.equal(r.resolve({ engine: 'vllm', fileinfo: 'async_llm.py', lineno: 439, message: 'Added request r-1.', hop: null })?.verified, true);
});

test('a folder that is not a checkout is refused with a message that says what was expected', async () => {
  const empty = tmp.make();
  await assert.rejects(createSourceResolver(empty, 'vllm'), (e: unknown) => e instanceof SourceResolverError && /not a vLLM checkout/.test((e as Error).message));
  await assert.rejects(createSourceResolver(join(empty, 'nope'), 'sglang'), /does not exist/);
  const sgl = tmp.make();
  writeFiles(sgl, SGLANG_FILES);
  await assert.rejects(createSourceResolver(sgl, 'vllm'), /not a vLLM checkout/);
  writeFileSync(join(empty, 'x.txt'), 'hello');
  await assert.rejects(createSourceResolver(empty, 'sglang'), /not an SGLang checkout/);
});

test('the cache keeps the most recent indexes per engine and deletes older ones', async () => {
  const root = tmp.make();
  const cacheDir = tmp.make('hoplens-cache-');
  const head = initRepo(root, SGLANG_FILES);
  for (let i = 0; i < 10; i++) {
    const f = join(cacheDir, `statements-sglang-${String(i).padStart(40, '0')}.json`);
    writeFileSync(f, '{}');
    utimesSync(f, new Date(Date.now() - (20 - i) * 60_000), new Date(Date.now() - (20 - i) * 60_000));
  }
  writeFileSync(join(cacheDir, 'statements-vllm-other.json'), '{}');
  await createSourceResolver(root, 'sglang', { cacheDir, workerScript: null });
  const left = readdirSync(cacheDir).sort();
  assert.equal(left.filter((n) => n.startsWith('statements-sglang-')).length, 8);
  assert.ok(left.includes(`statements-sglang-${head}.json`), 'the new index is kept');
  assert.ok(!left.includes(`statements-sglang-${'0'.repeat(40)}.json`), 'the oldest is gone');
  assert.ok(left.includes('statements-vllm-other.json'), 'other engines are untouched');
});

test('a worker script that is not the worker (or dies) falls back to building in-process instead of hanging', async () => {
  const root = tmp.make();
  initRepo(root, VLLM_FILES);
  const files = await listPythonFiles(root, 'vllm', { git: true });
  const notAWorker = join(tmp.make(), 'statementIndex.js');
  writeFileSync(notAWorker, 'module.exports = {};\n');
  const data = await buildStatementIndex(root, files, 'vllm', 'k', { workerScript: notAWorker });
  assert.ok(data.statements.some((s) => s.path === 'vllm/v1/engine/async_llm.py' && s.line === 439));
  // And the default, from compiled (not bundled) code, does not pick up the core module as a worker.
  const r = await createSourceResolver(root, 'vllm', { cacheDir: null });
  assert.equal(r.indexState(), 'ready');
});
