// The release's own source: the version a log states (lines exactly as vLLM prints them), the
// engine installed for a Python (read without importing it), and a release's wheel fetched by the
// real pip from a package index on 127.0.0.1, unpacked once into the cache, used by
// `hoplens source fetch` and `hoplens annotate --checkout vllm==VERSION`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { bufferIO } from '../../../src/cli/io';
import {
  fetchRelease, installedRelease, listReleaseSources, parseReleaseSpec, removeReleaseSources, ReleaseSourceError, statedRelease,
} from '../../../src/core/source/release';
import { inspectCheckout } from '../../../src/core/source/checkout';
import { TempDirs, VLLM_FILES, writeFiles } from './fixtureCheckout';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'source');
const tmp = new TempDirs();
let server: Server;
let index = '';
let wheels = '';
const served: string[] = [];

/** A wheel as pip expects one (METADATA, WHEEL, RECORD), made with Python's zipfile. */
function makeWheel(dir: string, name: string, version: string, files: Record<string, string>): string {
  const file = `${name}-${version}-py3-none-any.whl`;
  const members: Record<string, string> = {
    ...files,
    [`${name}-${version}.dist-info/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
    [`${name}-${version}.dist-info/WHEEL`]: 'Wheel-Version: 1.0\nGenerator: hoplens-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    [`${name}-${version}.dist-info/RECORD`]: '',
  };
  const script = 'import sys, json, zipfile\nz = zipfile.ZipFile(sys.argv[1], "w")\nfor k, v in json.load(sys.stdin).items(): z.writestr(k, v)\nz.close()';
  execFileSync('python3', ['-c', script, join(dir, file)], { input: JSON.stringify(members) });
  return file;
}

before(async () => {
  wheels = tmp.make();
  const vllmFiles: Record<string, string> = {};
  for (const [k, v] of Object.entries(VLLM_FILES)) if (k.startsWith('vllm/')) vllmFiles[k] = v;
  makeWheel(wheels, 'vllm', '9.9.9', { ...vllmFiles, 'vllm/_C.abi3.so': 'not python', 'vllm/README.txt': 'not python' });
  makeWheel(wheels, 'sglang', '8.8.8', { 'sglang/__init__.py': '', 'sglang/srt/server_args.py': 'import logging\nlogger = logging.getLogger(__name__)\n' });
  // PEP 503's simple index, as an index (or a proxy of one) serves it.
  server = createServer((req, res) => {
    served.push(req.url ?? '');
    const m = /^\/simple\/([a-z]+)\/$/.exec(req.url ?? '');
    if (m) {
      const links = readdirSync(wheels).filter((f) => f.startsWith(`${m[1]}-`)).map((f) => `<a href="/files/${f}">${f}</a>`);
      if (!links.length) { res.writeHead(404).end(); return; }
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!DOCTYPE html><html><body>${links.join('\n')}</body></html>`);
      return;
    }
    const f = /^\/files\/([^/]+\.whl)$/.exec(req.url ?? '');
    if (f && existsSync(join(wheels, f[1]))) { res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(join(wheels, f[1]))); return; }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  index = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple`;
  // The user's pip settings are environment and config; here only this index is looked at.
  process.env.PIP_INDEX_URL = index;
  process.env.PIP_FIND_LINKS = '';
  process.env.PIP_NO_INDEX = '';
  process.env.PIP_CONFIG_FILE = '/dev/null';
});
after(() => { server.close(); tmp.cleanup(); });

test('the version a vLLM log states, from each wording the releases print', () => {
  const cases: Array<[string, string]> = [
    ['INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5', '0.8.5'],
    ['INFO 06-10 08:12:01 api_server.py:177] vLLM API server version 0.4.3', '0.4.3'],
    ['(APIServer pid=1) INFO 11-20 09:00:00 [startup.py:25] vLLM server version 0.34.0, serving model Qwen/Qwen3-0.6B', '0.34.0'],
    ['INFO 12-20 10:00:00 llm_engine.py:235] Initializing an LLM engine (v0.6.6.post1) with config: model=\'m\', speculative_config=None', '0.6.6.post1'],
    ['(EngineCore_DP0 pid=9) INFO 09-20 10:00:00 [core.py:76] Initializing a V1 LLM engine (v0.10.2) with config: model=\'m\'', '0.10.2'],
  ];
  for (const [line, version] of cases) assert.deepEqual(statedRelease(['noise', line]), { engine: 'vllm', version, line: 2 }, line);
  assert.equal(statedRelease(['INFO 05-01 10:00:00 [loader.py:1] Loading weights version 3 of the model']), null);
  assert.deepEqual(statedRelease(['sglang version: 0.5.23']), { engine: 'sglang', version: '0.5.23', line: 1 });
  assert.deepEqual(parseReleaseSpec('vllm==0.8.5.post1'), { engine: 'vllm', version: '0.8.5.post1' });
  assert.equal(parseReleaseSpec('vllm>=0.8'), null);
  assert.equal(parseReleaseSpec('vllm==0.8; rm -rf /'), null);
});

test('the installed engine: its version and package folder, read without importing it', async () => {
  const site = tmp.make();
  // Importing this package would fail: the answer must come from its metadata and find_spec alone.
  writeFiles(site, { 'vllm/__init__.py': 'raise RuntimeError("imported")\n', 'vllm/logger.py': '', 'vllm-0.8.5.dist-info/METADATA': 'Metadata-Version: 2.1\nName: vllm\nVersion: 0.8.5\n' });
  const saved = process.env.PYTHONPATH;
  process.env.PYTHONPATH = site;
  try {
    const got = await installedRelease('python3', 'vllm');
    assert.deepEqual(got && { version: got.version, root: got.root }, { version: '0.8.5', root: site });
    assert.equal(await installedRelease('python3', 'sglang'), null);
  } finally { process.env.PYTHONPATH = saved ?? ''; }
  assert.equal(await installedRelease('/no/such/python3', 'vllm'), null);
});

test('a release is fetched once through pip, only its Python files kept, renamed into place', async () => {
  const cacheRoot = join(tmp.make(), 'releases');
  const steps: string[] = [];
  const got = await fetchRelease({ engine: 'vllm', version: '9.9.9' }, { cacheRoot, onProgress: (l) => steps.push(l) });
  assert.equal(got.fromCache, false);
  assert.equal(got.root, join(cacheRoot, 'vllm-9.9.9'));
  assert.ok(existsSync(join(got.root, 'vllm/v1/engine/async_llm.py')));
  assert.ok(!existsSync(join(got.root, 'vllm/_C.abi3.so')) && !existsSync(join(got.root, 'vllm/README.txt')), 'only .py files are kept');
  assert.deepEqual(readdirSync(cacheRoot), ['vllm-9.9.9'], 'no temporary folder or wheel is left');
  assert.ok(steps.some((s) => /vllm-9\.9\.9-py3-none-any\.whl/.test(s)), steps.join('\n'));
  const info = await inspectCheckout(got.root, 'vllm');
  assert.ok(!('error' in info) && info.release?.version === '9.9.9');
  served.length = 0;
  const again = await fetchRelease({ engine: 'vllm', version: '9.9.9' }, { cacheRoot });
  assert.equal(again.fromCache, true);
  assert.deepEqual(served, [], 'the second time asks the index nothing');
  // SGLang's package goes under python/, as in its repository (the hop table's paths hold).
  const sgl = await fetchRelease({ engine: 'sglang', version: '8.8.8' }, { cacheRoot });
  assert.ok(existsSync(join(sgl.root, 'python/sglang/srt/server_args.py')));
  assert.deepEqual(listReleaseSources(cacheRoot).map((r) => `${r.engine}==${r.version}`), ['sglang==8.8.8', 'vllm==9.9.9']);
  assert.equal(removeReleaseSources(cacheRoot).length, 2);
  assert.deepEqual(readdirSync(cacheRoot), []);
});

test('an unknown release or an unreachable index is a clear error, in bounded time, and leaves nothing behind', async () => {
  const cacheRoot = join(tmp.make(), 'releases');
  await assert.rejects(fetchRelease({ engine: 'vllm', version: '0.0.1' }, { cacheRoot }),
    (e: unknown) => e instanceof ReleaseSourceError && e.kind === 'not-found' && /vllm==0\.0\.1 is not a release/.test(e.message));
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const saved = process.env.PIP_INDEX_URL;
  process.env.PIP_INDEX_URL = `http://127.0.0.1:${port}/simple`;
  process.env.PIP_RETRIES = '0';
  process.env.PIP_TIMEOUT = '3';
  const t0 = Date.now();
  try {
    await assert.rejects(fetchRelease({ engine: 'vllm', version: '9.9.9' }, { cacheRoot }),
      (e: unknown) => e instanceof ReleaseSourceError && e.kind === 'offline' && /cannot reach its package index/.test(e.message));
  } finally { process.env.PIP_INDEX_URL = saved; }
  assert.ok(Date.now() - t0 < 60_000);
  assert.deepEqual(readdirSync(cacheRoot), []);
  const ctl = new AbortController();
  const p = fetchRelease({ engine: 'vllm', version: '9.9.9' }, { cacheRoot, signal: ctl.signal });
  ctl.abort();
  await assert.rejects(p, (e: unknown) => e instanceof ReleaseSourceError && e.kind === 'cancelled');
  assert.deepEqual(readdirSync(cacheRoot), []);
});

test('hoplens source fetch prints the folder; annotate --checkout vllm==VERSION resolves against it', async () => {
  const cache = tmp.make();
  const saved = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = cache;
  try {
    let io = bufferIO();
    assert.equal(await main(['source', 'fetch', 'vllm==9.9.9'], io), 0, io.stderr);
    const folder = join(cache, 'hoplens', 'releases', 'vllm-9.9.9');
    assert.equal(io.stdout, `${folder}\n`);
    assert.match(io.stderr, /Python files of vllm-9\.9\.9-py3-none-any\.whl/);
    io = bufferIO();
    assert.equal(await main(['source', 'fetch', 'vllm>=1'], io), 2);
    io = bufferIO();
    const code = await main(['annotate', join(FIXTURES, 'vllm_info_chat_and_abort.log'), '--checkout', 'vllm==9.9.9', '--json'], io);
    assert.equal(code, 0, io.stderr);
    assert.match(io.stderr, /vLLM 9\.9\.9 · release source/);
    const objs = io.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const added = objs.find((o) => o.hop === 'V2') as { source: unknown };
    assert.deepEqual(added.source, { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: true, drift: 0 });
    const summary = objs.find((o) => o.kind === 'summary') as { release: unknown };
    assert.deepEqual(summary.release, { engine: 'vllm', version: '9.9.9', source: folder });
    // A release that cannot be had: one line why, and the run goes on with the hop table.
    io = bufferIO();
    assert.equal(await main(['annotate', join(FIXTURES, 'vllm_info_chat_and_abort.log'), '--checkout', 'vllm==0.0.1', '--json'], io), 0);
    assert.match(io.stderr, /vLLM 0\.0\.1: vllm==0\.0\.1 is not a release .*; sources come from the hop table/);
    io = bufferIO();
    assert.equal(await main(['source', 'clean'], io), 0);
    assert.ok(!existsSync(folder));
  } finally { process.env.XDG_CACHE_HOME = saved ?? ''; }
});

test('annotate without --checkout names the release the log states', async () => {
  const dir = tmp.make();
  mkdirSync(dir, { recursive: true });
  const log = join(dir, 'v.log');
  writeFileSync(log, 'INFO 05-01 10:00:00 [api_server.py:1043] vLLM API server version 0.8.5\n');
  const io = bufferIO();
  await main(['annotate', log, '--json'], io);
  assert.match(io.stderr, /the log states vLLM 0\.8\.5 \(line 1\); --checkout vllm==0\.8\.5 resolves against that release's own source/);
});
