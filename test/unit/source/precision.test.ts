// Precision of the statement index on lines as the engines print them (issue 26 items 3 and 5):
// a message kept with its trailing space, statements that changed since the printing release in
// either direction, statements that moved to another file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';

const tmp = new TempDirs();
let vllm: CheckoutSourceResolver;

// NIXL's pull worker as vLLM 0.34.0 writes it (kv_connector/v1/nixl/pull_worker.py:61): the format ends in ". ".
const PULL_WORKER = pythonFile({
  61: [
    '            logger.debug(',
    '                "start_load_kv for request %s from remote engine %s. "',
    '                "Num local_block_ids: %s. Num remote_block_ids: %s. ",',
    '                req_id,',
    '                remote_engine_id,',
    '                len(meta.local_physical_block_ids),',
    '                len(meta.remote.block_ids),',
    '            )',
  ].join('\n'),
});

before(async () => {
  const root = tmp.make();
  initRepo(root, {
    'pyproject.toml': '[project]\nname = "vllm"\n',
    'vllm/__init__.py': '"""vLLM."""\n',
    'vllm/distributed/kv_transfer/kv_connector/v1/nixl/pull_worker.py': PULL_WORKER,
  });
  vllm = await createSourceResolver(root, 'vllm', { statementIndex: 'eager' });
});
after(() => tmp.cleanup());

test('a message printed with its trailing space (NIXL start_load_kv) is found by the index, with no file named', () => {
  const message = 'start_load_kv for request chatcmpl-pd-7-1f2e3d4c from remote engine 6f1e2d3c-aaaa-bbbb-cccc-0123456789ab. Num local_block_ids: 4. Num remote_block_ids: 4. ';
  for (const hop of [null, 'V14']) {
    const loc = vllm.resolve({ engine: 'vllm', fileinfo: null, lineno: null, message, hop });
    assert.equal(loc?.path, 'vllm/distributed/kv_transfer/kv_connector/v1/nixl/pull_worker.py', String(hop));
    assert.equal(loc?.line, 61);
    assert.equal(loc?.verified, true);
  }
});
