// vLLM 0.11.2 … 0.34.0 print the stats line (hop V5) from a list of format parts joined at run time
// (v1/metrics/loggers.py): `log_parts = ["Avg prompt throughput: %.1f tokens/s", …]`, parts appended
// under conditions, then `log_fn(self.log_prefix + ", ".join(log_parts), *log_args)`. The index reads
// the list's items joined by the separator, with anything after them when the list grows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import { initRepo, pythonFile, TempDirs } from './fixtureCheckout';

const tmp = new TempDirs();
let vllm: CheckoutSourceResolver;

const LOGGERS = pythonFile({
  276: [
    '    def log(self):',
    '        log_fn = logger.debug if self.engine_is_idle else logger.info',
    '        log_parts = [',
    '            "Avg prompt throughput: %.1f tokens/s",',
    '            "Avg generation throughput: %.1f tokens/s",',
    '            "Running: %d reqs",',
    '            "Waiting: %d reqs",',
    '        ]',
    '        log_args: list[int | float | str] = [a, b, c, d]',
    '        if self.num_preemptions > 0:',
    '            log_parts.append("Preemptions: %d")',
    '            log_args.append(self.num_preemptions)',
    '        log_parts.append("%s KV cache usage: %.1f%%")',
    '        if not self.prefix_caching_metrics.empty:',
    '            log_parts.append("Prefix cache hit rate: %.1f%%")',
    '        log_fn(',
    '            self.log_prefix + ", ".join(log_parts),',
    '            *log_args,',
    '        )',
    '',
    '    def other(self, names):',
    '        parts = [n for n in names]',
    '        logger.info(", ".join(parts))',
  ].join('\n'),
});

before(async () => {
  const root = tmp.make();
  initRepo(root, { 'pyproject.toml': '[project]\nname = "vllm"\n', 'vllm/__init__.py': '"""vLLM."""\n', 'vllm/v1/metrics/loggers.py': LOGGERS });
  vllm = await createSourceResolver(root, 'vllm', { statementIndex: 'eager' });
});
after(() => tmp.cleanup());

test("the stats line joined from a list's parts is verified at its call, with or without the parts appended later", () => {
  for (const message of [
    'Engine 000: Avg prompt throughput: 0.8 tokens/s, Avg generation throughput: 4.6 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%',
    'Engine 001: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 2 reqs, Waiting: 1 reqs, Preemptions: 3, GPU KV cache usage: 91.2%',
  ]) {
    for (const hop of ['V5', null]) {
      const loc = vllm.resolve({ engine: 'vllm', fileinfo: 'loggers.py', lineno: 257, message, hop });
      assert.deepEqual([loc?.path, loc?.line, loc?.verified], ['vllm/v1/metrics/loggers.py', 291, true], `${hop} ${message}`);
    }
  }
});

test("V0's stats line (Swapped, Pending) is not verified at the joined parts: its third part is not theirs", () => {
  const v0 = 'Avg prompt throughput: 0.3 tokens/s, Avg generation throughput: 0.1 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.3%, CPU KV cache usage: 0.0%.';
  const loc = vllm.resolve({ engine: 'vllm', fileinfo: 'loggers.py', lineno: 291, message: v0, hop: 'V5' });
  assert.notEqual(loc?.verified, true);
});
