// Finding checkouts, reading HEAD, the pin comparison, the public link, and cloning a
// given commit (from a local bare repository made here: never the network).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloneError, clonePinnedCheckout, comparePin, detectCheckout, discoverCheckouts, inspectCheckout, PINS, publicSourceUrl } from '../../../src/core/source';
import { commitAll, git, initRepo, insertLines, SGLANG_FILES, TempDirs, VLLM_FILES, writeFiles } from './fixtureCheckout';

const tmp = new TempDirs();
after(() => tmp.cleanup());

test('detects a vLLM repo, an SGLang repo, a site-packages folder and a package folder given directly', () => {
  const repo = tmp.make();
  writeFiles(repo, VLLM_FILES);
  assert.deepEqual(detectCheckout(repo), { engine: 'vllm', layout: 'repo', packageDir: 'vllm', root: repo });
  assert.equal(detectCheckout(join(repo, 'vllm'))?.root, repo, 'the package folder maps to its parent');

  const site = tmp.make();
  writeFiles(site, { 'vllm/__init__.py': '', 'vllm/logger.py': '', 'torch/__init__.py': '', 'sglang/srt/__init__.py': '' });
  assert.deepEqual(detectCheckout(site, 'vllm'), { engine: 'vllm', layout: 'site-packages', packageDir: 'vllm', root: site });
  assert.deepEqual(detectCheckout(site, 'sglang'), { engine: 'sglang', layout: 'site-packages', packageDir: 'sglang', root: site });

  const sgl = tmp.make();
  writeFiles(sgl, SGLANG_FILES);
  assert.deepEqual(detectCheckout(sgl), { engine: 'sglang', layout: 'repo', packageDir: 'python/sglang', root: sgl });
  assert.equal(detectCheckout(join(sgl, 'python', 'sglang'))?.root, sgl);
  assert.equal(detectCheckout(tmp.make()), null);
});

test('discovery: the setting first, then workspace folders and their sub-folders; HEAD read with git', async () => {
  const workspace = tmp.make();
  const vllmDir = join(workspace, 'vllm-src');
  mkdirSync(vllmDir);
  const head = initRepo(vllmDir, VLLM_FILES);
  const sglDir = join(workspace, 'sglang');
  mkdirSync(sglDir);
  writeFiles(sglDir, SGLANG_FILES); // not a git repository
  writeFiles(workspace, { 'notes.txt': 'x', 'node_modules/vllm/vllm/__init__.py': '' });
  const inside = await discoverCheckouts([join(vllmDir, 'vllm', 'v1', 'engine')]);
  assert.equal(inside.vllm?.root, vllmDir, 'a workspace opened inside the checkout finds it');
  const found = await discoverCheckouts(['', join(workspace, 'missing'), workspace]);
  assert.equal(found.vllm?.root, vllmDir);
  assert.equal(found.vllm?.head, head);
  assert.deepEqual(found.vllm?.dirtyPaths, []);
  assert.equal(found.sglang?.root, sglDir);
  assert.equal(found.sglang?.head, null);
  assert.equal(found.sglang?.headProblem, 'not a git repository');
});

test('discovery: a checkout two levels down is found when its folder is named after the engine', async () => {
  const workspace = tmp.make();
  const vllmDir = join(workspace, 'checkouts', 'vllm');
  mkdirSync(vllmDir, { recursive: true });
  initRepo(vllmDir, VLLM_FILES);
  const sglDir = join(workspace, 'third_party', 'sglang-main');
  mkdirSync(sglDir, { recursive: true });
  writeFiles(sglDir, SGLANG_FILES);
  // A copy under a folder not named after an engine, two levels down, is not searched for.
  writeFiles(join(workspace, 'data', 'misc'), VLLM_FILES);
  const found = await discoverCheckouts([workspace]);
  assert.equal(found.vllm?.root, vllmDir);
  assert.equal(found.sglang?.root, sglDir);
  const other = tmp.make();
  writeFiles(join(other, 'data', 'misc'), VLLM_FILES);
  assert.equal((await discoverCheckouts([other])).vllm, undefined);
});

test('a site-packages folder inside some other git repository does not borrow its HEAD', async () => {
  const outer = tmp.make();
  initRepo(outer, { 'README.md': 'x', 'venv/lib/site-packages/vllm/__init__.py': '', 'venv/lib/site-packages/vllm/logger.py': '' });
  const info = await inspectCheckout(join(outer, 'venv/lib/site-packages'), 'vllm');
  assert.ok(!('error' in info));
  assert.equal(info.head, null);
  assert.match(info.headProblem ?? '', /inside another git repository/);
});

test('pin comparison: at the pin says nothing; elsewhere says so once, with ahead/behind when git knows the pin', async () => {
  const root = tmp.make();
  const first = initRepo(root, VLLM_FILES);
  insertLines(root, 'vllm/v1/engine/async_llm.py', 10, 1);
  commitAll(root, 'second');
  insertLines(root, 'vllm/v1/engine/async_llm.py', 10, 1);
  const third = commitAll(root, 'third');
  const info = await inspectCheckout(root, 'vllm');
  assert.ok(!('error' in info));
  assert.equal(info.head, third);
  assert.equal((await comparePin({ ...info, head: PINS.vllm.sha })).message, null);
  assert.equal((await comparePin({ ...info, head: PINS.vllm.citationsReadAt })).state, 'citations-commit');
  const differs = await comparePin(info);
  assert.equal(differs.state, 'differs');
  assert.equal(differs.ahead, null, 'the pin commit is not in this repository');
  assert.match(differs.message ?? '', new RegExp(`at ${third.slice(0, 10)}; the hop table is pinned to a556f3fccb`));
  // With the pin present in history (here: the first commit stands in for it), counts are reported.
  const counted = await comparePin(info, { pinSha: first });
  assert.deepEqual([counted.ahead, counted.behind], [2, 0]);
  assert.match(counted.message ?? '', /2 commits ahead, 0 behind/);
});

test('public link: the file at the pinned commit with a line anchor', () => {
  assert.equal(publicSourceUrl('vllm', 'vllm/v1/engine/async_llm.py', 439), 'https://github.com/vllm-project/vllm/blob/a556f3fccb701e5618d84d547ff454c56a1bfdfb/vllm/v1/engine/async_llm.py#L439');
  assert.equal(publicSourceUrl('sglang', 'python/sglang/srt/managers/scheduler.py', 1095), 'https://github.com/sgl-project/sglang/blob/7d893255c359bb8ab74d2870c8ac865fb57230d6/python/sglang/srt/managers/scheduler.py#L1095');
  assert.equal(publicSourceUrl('vllm', 'vllm/a b.py', null, 'abc'), 'https://github.com/vllm-project/vllm/blob/abc/vllm/a%20b.py');
});

function bareRepoWithHistory(): { bare: string; first: string; second: string } {
  const work = tmp.make();
  const first = initRepo(work, VLLM_FILES);
  insertLines(work, 'vllm/v1/engine/async_llm.py', 100, 5);
  const second = commitAll(work, 'move');
  const bare = join(tmp.make(), 'vllm.git');
  git(work, 'clone', '-q', '--bare', work, bare);
  return { bare, first, second };
}

test('clone: checks out exactly the requested commit from a local bare repository', async () => {
  const { bare, first } = bareRepoWithHistory();
  const target = join(tmp.make(), 'checkouts', 'vllm');
  const stages: string[] = [];
  const info = await clonePinnedCheckout('vllm', target, { url: bare, sha: first, onProgress: (s) => stages.push(s) });
  assert.equal(info.head, first);
  assert.equal(info.engine, 'vllm');
  assert.match(readFileSync(join(target, 'vllm/v1/engine/async_llm.py'), 'utf8').split('\n')[439 - 1], /Added request %s\./);
  assert.equal(stages[stages.length - 1], 'done');
});

test('clone errors: target not empty, commit not in the remote, unreachable remote, not hex', async () => {
  const { bare } = bareRepoWithHistory();
  const busy = tmp.make();
  writeFileSync(join(busy, 'keep.txt'), 'mine');
  await assert.rejects(clonePinnedCheckout('vllm', busy, { url: bare, sha: 'a'.repeat(40) }), (e: unknown) => e instanceof CloneError && e.kind === 'target-not-empty');
  assert.deepEqual(readdirSync(busy), ['keep.txt'], 'the user\'s files are untouched');

  const t1 = join(tmp.make(), 'x');
  await assert.rejects(clonePinnedCheckout('vllm', t1, { url: bare, sha: 'deadbeef'.repeat(5) }), (e: unknown) => e instanceof CloneError && e.kind === 'sha-not-found');
  assert.equal(existsSync(t1), false, 'a failed clone leaves nothing behind');

  const t2 = join(tmp.make(), 'y');
  await assert.rejects(clonePinnedCheckout('vllm', t2, { url: join(tmp.make(), 'no-such.git'), sha: 'deadbeef'.repeat(5) }), (e: unknown) => e instanceof CloneError && e.kind === 'network' && /cannot reach/.test(e.message));

  await assert.rejects(clonePinnedCheckout('vllm', join(tmp.make(), 'z'), { url: bare, sha: 'HEAD; rm -rf /' }), (e: unknown) => e instanceof CloneError && /not a commit id/.test(e.message));
});

test('clone of a repository that is not the engine is reported, not accepted', async () => {
  const work = tmp.make();
  const sha = initRepo(work, { 'README.md': 'not an engine' });
  const target = join(tmp.make(), 'c');
  await assert.rejects(clonePinnedCheckout('vllm', target, { url: work, sha }), (e: unknown) => e instanceof CloneError && e.kind === 'not-a-checkout');
});

test('the static fixture checkouts used by integration tests match the generated ones and resolve', async () => {
  const fixtures = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source');
  for (const [dir, files] of [['vllm-checkout', VLLM_FILES], ['sglang-checkout', SGLANG_FILES]] as const) {
    for (const [rel, text] of Object.entries(files)) assert.equal(readFileSync(join(fixtures, dir, rel), 'utf8'), text, `${dir}/${rel} is stale: regenerate it from fixtureCheckout.ts`);
  }
  const info = await inspectCheckout(join(fixtures, 'vllm-checkout'), 'vllm');
  assert.ok(!('error' in info) && info.head === null);
});

test('without git on PATH: the checkout still works (no HEAD, says why) and clone says to install git', async () => {
  const root = tmp.make();
  writeFiles(root, VLLM_FILES);
  const savedPath = process.env.PATH;
  process.env.PATH = tmp.make('empty-path-');
  try {
    const info = await inspectCheckout(root, 'vllm');
    assert.ok(!('error' in info));
    assert.equal(info.head, null);
    assert.equal(info.headProblem, 'git was not found on PATH');
    await assert.rejects(clonePinnedCheckout('vllm', join(tmp.make(), 'c')), (e: unknown) => e instanceof CloneError && e.kind === 'git-missing' && /install git/.test(e.message));
  } finally {
    process.env.PATH = savedPath;
  }
});

test('clone falls back to a full fetch when the server refuses to serve a single commit', async () => {
  const { bare, first } = bareRepoWithHistory();
  git(bare, 'config', 'uploadpack.allowReachableSHA1InWant', 'false');
  git(bare, 'config', 'uploadpack.allowAnySHA1InWant', 'false');
  // Protocol v0 honours those settings: `first` is not a branch tip, so asking for it alone fails.
  const saved = { c: process.env.GIT_CONFIG_COUNT, k: process.env.GIT_CONFIG_KEY_0, v: process.env.GIT_CONFIG_VALUE_0 };
  Object.assign(process.env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'protocol.version', GIT_CONFIG_VALUE_0: '0' });
  try {
    const stages: string[] = [];
    const info = await clonePinnedCheckout('vllm', join(tmp.make(), 'v'), { url: bare, sha: first, onProgress: (s) => stages.push(s) });
    assert.equal(info.head, first);
    assert.ok(stages.some((s) => /whole history/.test(s)), stages.join(' | '));
  } finally {
    for (const [k, v] of [['GIT_CONFIG_COUNT', saved.c], ['GIT_CONFIG_KEY_0', saved.k], ['GIT_CONFIG_VALUE_0', saved.v]] as const) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  }
});

test('dirty paths from git status include both sides of a staged rename', async () => {
  const root = tmp.make();
  initRepo(root, VLLM_FILES);
  git(root, 'mv', 'vllm/v1/utils.py', 'vllm/v1/engine_utils.py');
  writeFiles(root, { 'vllm/v1/new_module.py': 'x = 1\n' });
  const info = await inspectCheckout(root, 'vllm');
  assert.ok(!('error' in info));
  assert.deepEqual([...(info.dirtyPaths ?? [])].sort(), ['vllm/v1/engine_utils.py', 'vllm/v1/new_module.py', 'vllm/v1/utils.py']);
});
