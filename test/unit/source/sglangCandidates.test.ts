// Text that several statements of a real SGLang release print (issue 26 item 4): the candidates,
// none verified; text one statement prints: that statement, verified. Read in the real release
// trees (the matrix's test cache), not in a constructed checkout: SGLang's `server_args=` (twice in
// entrypoints/engine.py), the P/D transfer messages of the mooncake and NIXL backends, and the
// custom all-reduce warnings (one statement each; the quick all-reduce prints its own words).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceResolver } from '../../../src/core/source';
import type { SourceLocation } from '../../../src/core/source/types';
import { realReleaseTrees, testReleaseCache } from './releaseTrees';
import { join } from 'node:path';

const SRT = 'python/sglang/srt';
const SERVER_ARGS = "server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tokenizer_path='Qwen/Qwen3-8B', tp_size=1)";
const KV_ARGS = 'Register KVArgs from 10.0.0.5:40123 successfully';
const SENDING = 'sending kvcache to 10.0.0.6:41234 with notif 8187430311370125826_0_1';
const REGISTERED = 'Prefill successfully registered to bootstrap server.';
const PCIE = "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.";
const PCIE_0523 = "CustomAllreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly.";
const QUICK = 'Custom quick allreduce is disabled because this process group spans across nodes.';

/** Per release: message → the verified statement (`path:line`), its candidates (`[path:line, …]`, best first) or none (null). */
const EXPECTED: Record<string, Array<[string, string | string[] | null]>> = {
  '0.4.10.post2': [
    [SERVER_ARGS, [`${SRT}/entrypoints/engine.py:120`, `${SRT}/entrypoints/engine.py:688`]],
    [KV_ARGS, [`${SRT}/disaggregation/mooncake/conn.py:673`, `${SRT}/disaggregation/nixl/conn.py:371`]],
    [REGISTERED, [`${SRT}/disaggregation/common/conn.py:100`, `${SRT}/disaggregation/mooncake/conn.py:876`]],
    // NIXL's send_kvcache logs it; its callers pass only values, and mooncake's own send_kvcache logs nothing like it.
    [SENDING, `${SRT}/disaggregation/nixl/conn.py:205`],
    [PCIE, `${SRT}/distributed/device_communicators/custom_all_reduce.py:149`],
    [QUICK, `${SRT}/distributed/device_communicators/quick_all_reduce.py:118`],
  ],
  '0.5.1': [
    [SERVER_ARGS, [`${SRT}/entrypoints/engine.py:123`, `${SRT}/entrypoints/engine.py:719`]],
    [KV_ARGS, [`${SRT}/disaggregation/mooncake/conn.py:825`, `${SRT}/disaggregation/nixl/conn.py:371`]],
    [REGISTERED, [`${SRT}/disaggregation/common/conn.py:100`, `${SRT}/disaggregation/mooncake/conn.py:1053`]],
    [SENDING, `${SRT}/disaggregation/nixl/conn.py:205`],
    [PCIE, `${SRT}/distributed/device_communicators/custom_all_reduce.py:149`],
    [QUICK, `${SRT}/distributed/device_communicators/quick_all_reduce.py:118`],
  ],
  '0.5.23': [
    [SERVER_ARGS, [`${SRT}/entrypoints/engine.py:311`, `${SRT}/entrypoints/engine.py:1185`]],
    [KV_ARGS, [`${SRT}/disaggregation/mooncake/conn.py:3010`, `${SRT}/disaggregation/nixl/conn.py:3390`]],
    [REGISTERED, `${SRT}/disaggregation/common/conn.py:1641`],
    [SENDING, `${SRT}/disaggregation/nixl/conn.py:2162`],
    // custom_all_reduce_utils.py logs `{cls_name} is disabled …`; the call passing cls_name="CustomAllreduce" prints this text.
    [PCIE_0523, `${SRT}/distributed/device_communicators/custom_all_reduce.py:87`],
    [QUICK, `${SRT}/distributed/device_communicators/quick_all_reduce.py:111`],
    // An older release's `Using {backend} as attention backend` (helpers-sglang.corpus): not multimodal_gen's
    // `Using {backend_name} attention backend{reason_suffix}` (its field would hold `fa3 as`), nor model_hook.py's
    // `Using {backend} as attention backend for {model_arch}.` (a whole line, not one cut short): no statement here.
    ['Using fa3 as attention backend', null],
    ['Using fa3 attention backend', 'python/sglang/multimodal_gen/runtime/layers/attention/selector.py:437'],
    ['Using fa3 as attention backend for Olmo3ForCausalLM.', `${SRT}/arg_groups/model_hook.py:694`],
  ],
};

function shown(loc: SourceLocation | null): string | string[] | null {
  if (!loc) return null;
  if (loc.verified) return `${loc.path}:${loc.line}`;
  return loc.candidates ? loc.candidates.map((c) => `${c.path}:${c.line}`) : `unverified ${loc.path}:${loc.line}`;
}

test('real SGLang releases: text several statements print gets its candidates, text one prints is verified there', async (t) => {
  const versions = Object.keys(EXPECTED);
  const roots = await realReleaseTrees(t, versions.map((version) => ({ engine: 'sglang', version })));
  if (!roots) return;
  for (const [i, version] of versions.entries()) {
    const r = await createSourceResolver(roots[i], 'sglang', { statementIndex: 'eager', cacheDir: join(testReleaseCache(), '.statements') });
    for (const [message, want] of EXPECTED[version]) {
      const loc = r.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message, hop: null, level: null, module: null });
      assert.deepEqual(shown(loc), want, `${version}: ${message}`);
      if (Array.isArray(want)) assert.equal(loc?.verified, false);
    }
    // A layout that names the logger decides between the candidates: that file's statement, verified.
    const kv = EXPECTED[version].find(([m]) => m === KV_ARGS)![1] as string[];
    const nixl = r.resolve({ engine: 'sglang', fileinfo: null, lineno: null, message: KV_ARGS, hop: null, level: 'DEBUG', module: 'sglang.srt.disaggregation.nixl.conn' });
    assert.equal(shown(nixl), kv.find((p) => p.includes('/nixl/')), `${version}: named logger`);
  }
});
