// Trace discovery (file naming, temp-dir rules) and path display / checkout mapping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultTraceRoots, discoverTraceFiles, parseTraceFileName, pythonTempDirCandidates, pythonUserName, traceFolderCandidates } from '../../../src/core/calltrace/discovery';
import { displayPath, engineRelativePath, localTracedFile, mapToCheckout } from '../../../src/core/calltrace/paths';
import { tempDir } from './helpers';

test('file names: current vLLM, the VLLM_TRACE_FRAME era and SGLang diffusion wording', () => {
  assert.deepEqual(parseTraceFileName('VLLM_TRACE_FUNCTION_for_process_4567_thread_139872651200320_at_2026-08-21_22:30:01.123456.log'),
    { pid: 4567, tid: 139872651200320, tidText: '139872651200320', startedAt: '2026-08-21_22:30:01.123456', flavor: 'vllm' });
  assert.equal(parseTraceFileName('vllm_trace_frame_for_process_1_thread_2_at_2024-03-01_10:00:00.log')?.flavor, 'vllm-legacy-frame');
  assert.equal(parseTraceFileName('SGLANG_DIFFUSION_TRACE_FUNCTION_for_process_1_thread_2_at_x.log')?.flavor, 'sglang-diffusion');
  assert.equal(parseTraceFileName('VLLM_TRACE_FUNCTION_for_process_x_thread_2_at_y.log'), null);
  assert.equal(parseTraceFileName('vllm.log'), null);
});

test('Python temp-dir order: TMPDIR, TEMP, TMP, then /tmp; traces live under <tmp>/<user>/vllm', () => {
  assert.deepEqual(pythonTempDirCandidates({ TMP: '/c', TMPDIR: '/a', TEMP: '/b' }, 'linux').slice(0, 4), ['/a', '/b', '/c', '/tmp']);
  const dir = tempDir();
  assert.deepEqual(defaultTraceRoots('alice', { TMPDIR: dir }, 'linux'), [join(dir, 'alice', 'vllm'), join(dir, 'vllm')]);
  assert.equal(pythonUserName({ USER: 'carol', LOGNAME: 'dave' }), 'dave', 'LOGNAME comes first, as in getpass.getuser()');
  // A TMPDIR that does not exist is skipped, as Python does.
  assert.equal(defaultTraceRoots('bob', { TMPDIR: join(dir, 'missing'), TEMP: dir }, 'linux')[0], join(dir, 'bob', 'vllm'));
});

test('discovery groups files by vllm-instance folder and lists other files as ignored', async () => {
  const root = tempDir();
  const a = join(root, 'me', 'vllm', 'vllm-instance-111');
  const b = join(root, 'me', 'vllm', 'vllm-instance-222');
  mkdirSync(a, { recursive: true }); mkdirSync(b, { recursive: true });
  writeFileSync(join(a, 'VLLM_TRACE_FUNCTION_for_process_20_thread_5_at_2026-08-21_22:30:01.1.log'), 'x');
  writeFileSync(join(a, 'VLLM_TRACE_FUNCTION_for_process_10_thread_5_at_2026-08-21_22:30:01.1.log'), 'xy');
  writeFileSync(join(b, 'VLLM_TRACE_FUNCTION_for_process_30_thread_7_at_2026-08-21_22:30:02.1.log'), '');
  writeFileSync(join(b, 'notes.log'), '');
  const r = await discoverTraceFiles([root]);
  assert.deepEqual(r.instances.map((i) => [i.id, i.files.map((f) => f.pid)]), [['111', [10, 20]], ['222', [30]]]);
  assert.equal(r.instances[0].files[0].size, 2);
  assert.deepEqual(r.ignored.map((i) => i.path), [join(b, 'notes.log')]);
});

test('engine-relative display: checkout, site-packages, container and SGLang paths', () => {
  assert.equal(displayPath('/home/me/src/vllm/vllm/v1/engine/core.py'), 'vllm/v1/engine/core.py');
  assert.equal(displayPath('/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py'), 'vllm/v1/engine/core.py');
  assert.equal(displayPath('/workspace/vllm/vllm/entrypoints/openai/api_server.py'), 'vllm/entrypoints/openai/api_server.py');
  assert.deepEqual(engineRelativePath('/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py'), { engine: 'sglang', relative: 'python/sglang/srt/managers/scheduler.py' });
  assert.deepEqual(engineRelativePath('/opt/venv/lib/python3.11/site-packages/sglang/multimodal_gen/runtime/x.py'), { engine: 'sglang', relative: 'python/sglang/multimodal_gen/runtime/x.py' });
  assert.equal(engineRelativePath('/usr/lib/python3.12/threading.py'), null);
  assert.equal(displayPath('/usr/lib/python3.12/threading.py'), '/usr/lib/python3.12/threading.py');
});

test('mapping onto a checkout: explicit mappings first, then the package marker, else as written', () => {
  const settings = { checkouts: { vllm: '/home/me/vllm', sglang: '/home/me/sglang' }, mappings: [{ from: '/workspace/patched/', to: '/home/me/patched' }] };
  assert.deepEqual(mapToCheckout('/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py', settings), { path: join('/home/me/vllm', 'vllm/v1/engine/core.py'), via: 'checkout' });
  assert.deepEqual(mapToCheckout('/opt/venv/site-packages/sglang/srt/server.py', settings), { path: join('/home/me/sglang', 'python/sglang/srt/server.py'), via: 'checkout' });
  assert.deepEqual(mapToCheckout('/workspace/patched/vllm/x.py', settings), { path: join('/home/me/patched', 'vllm/x.py'), via: 'mapping' });
  assert.deepEqual(mapToCheckout('/usr/lib/python3.12/threading.py', settings), { path: '/usr/lib/python3.12/threading.py', via: 'as-written' });
  assert.equal(mapToCheckout('/x/vllm/core.py', {}).via, 'as-written');
});

test('the Call Traces view lists configured folders that exist, then vLLM\'s default places, then folders the user opened', () => {
  const here = new Set(['/data/traces', '/tmp/me/vllm']);
  const exists = (p: string) => here.has(p);
  assert.deepEqual(
    traceFolderCandidates(['/data/traces', '', '/gone'], ['/opened/run-3', '/data/traces'], { defaults: ['/tmp/me/vllm', '/tmp/vllm'], exists }),
    ['/data/traces', '/tmp/me/vllm', '/opened/run-3'],
  );
});

test('a traced file opens where it ran when it is on this machine, else mapped onto the checkout; neither: not found', () => {
  const here = new Set(['/srv/vllm/vllm/v1/engine/core.py', '/home/me/vllm/vllm/v1/core/sched/scheduler.py']);
  const exists = (p: string) => here.has(p);
  const checkouts = { checkouts: { vllm: '/home/me/vllm' } };
  assert.deepEqual(localTracedFile('/srv/vllm/vllm/v1/engine/core.py', checkouts, exists), { path: '/srv/vllm/vllm/v1/engine/core.py', found: true });
  assert.deepEqual(localTracedFile('/usr/lib/python3/site-packages/vllm/v1/core/sched/scheduler.py', checkouts, exists),
    { path: '/home/me/vllm/vllm/v1/core/sched/scheduler.py', found: true });
  assert.deepEqual(localTracedFile('/workspace/vllm/vllm/v1/engine/llm_engine.py', checkouts, exists), { path: '/home/me/vllm/vllm/v1/engine/llm_engine.py', found: false });
  assert.deepEqual(localTracedFile('/opt/app/server.py', {}, exists), { path: '/opt/app/server.py', found: false });
});

test('paths from another machine open the same file by its package-relative path, whatever the local layout', () => {
  // A vLLM release source (the package at the root), an installed SGLang (site-packages/sglang, no python/ folder).
  const here = new Set([
    '/cache/releases/vllm-0.8.5/vllm/v1/engine/core.py',
    '/venv/site-packages/sglang/srt/managers/scheduler.py',
    '/home/me/vllm/tests/test_config.py',
  ]);
  const exists = (p: string) => here.has(p);
  assert.deepEqual(localTracedFile('/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py', { checkouts: { vllm: '/cache/releases/vllm-0.8.5' } }, exists),
    { path: '/cache/releases/vllm-0.8.5/vllm/v1/engine/core.py', found: true });
  for (const traced of ['/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py', '/usr/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py']) {
    assert.deepEqual(localTracedFile(traced, { checkouts: { sglang: '/venv/site-packages' } }, exists), { path: '/venv/site-packages/sglang/srt/managers/scheduler.py', found: true }, traced);
  }
  // A container's checkout at /workspace/vllm: its tests/ folder is the checkout's, not the package's.
  assert.deepEqual(localTracedFile('/workspace/vllm/tests/test_config.py', { checkouts: { vllm: '/home/me/vllm' } }, exists), { path: '/home/me/vllm/tests/test_config.py', found: true });
  // Not here at all: the checkout's path, said to be missing (never another file).
  assert.deepEqual(localTracedFile('/workspace/vllm/vllm/nope.py', { checkouts: { vllm: '/home/me/vllm' } }, exists), { path: '/home/me/vllm/vllm/nope.py', found: false });
});
