// Fixture prefixes against the engine's own logging set-up: each real vLLM release tree of the
// matrix's test cache renders records with its vllm/logger.py and formatter (python3, standard
// library only, no GPU: test/fixtures/render/render_vllm.py), and the forms the project writes by
// hand (the fake engine's lines, the per-version prefixes below) must be exactly what it prints,
// and parse back to the same level, file, line, time and message. Fails when either drifts.
// Cost: one python3 run per release (~0.1 s each) once the trees are in the cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseLine } from '../../../src/core/logs/parseLine';
import { createParseState } from '../../../src/core/logs/parseState';
import { sglangLine, vllmApiServerLine } from '../../../src/testing/fakeEngine/logLines';
import { realReleaseTrees } from '../source/releaseTrees';

const RENDER_DIR = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'render');
const RENDER = join(RENDER_DIR, 'render_vllm.py');
/** 2026-12-02 19:04:18.5 UTC (the renderer runs with TZ=UTC). */
const AT = Date.UTC(2026, 11, 2, 19, 4, 18, 500);
const RECORD = {
  level: 'INFO', name: 'vllm.v1.engine.async_llm', pathname: '/usr/local/lib/python3.12/site-packages/vllm/v1/engine/async_llm.py',
  lineno: 252, msg: 'Added request chatcmpl-7f3a.', created: AT / 1000, process: 4242, processName: 'APIServer',
};

/** The prefix each release prints at INFO, as the project's fixtures and engine-facts write it. */
const HAND_WRITTEN: Record<string, string> = {
  '0.4.3': 'INFO 12-02 19:04:18 async_llm.py:252] ',
  '0.6.6.post1': 'INFO 12-02 19:04:18 async_llm.py:252] ',
  '0.8.5': 'INFO 12-02 19:04:18 [async_llm.py:252] ',
  '0.10.2': 'INFO 12-02 19:04:18 [async_llm.py:252] ',
  '0.11.2': 'INFO 12-02 19:04:18 [async_llm.py:252] ',
  // From 0.34.0 the process name and pid are in vLLM's own format, not added by the process's output.
  '0.34.0': '(APIServer pid=4242) INFO 12-02 19:04:18 [async_llm.py:252] ',
};

test('each vLLM release\'s own logging set-up prints the prefixes the fixtures write, and they parse back', async (t) => {
  const versions = Object.keys(HAND_WRITTEN);
  const trees = await realReleaseTrees(t, versions.map((version) => ({ engine: 'vllm' as const, version })));
  if (!trees) return;
  for (const [i, version] of versions.entries()) {
    const out = execFileSync('python3', ['-S', '-E', RENDER, trees[i]], {
      input: JSON.stringify(RECORD) + '\n', encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TZ: 'UTC' }, timeout: 30_000,
    });
    const rendered = JSON.parse(out.trim().split('\n').pop()!) as string;
    assert.equal(rendered, HAND_WRITTEN[version] + RECORD.msg, `vLLM ${version}'s own formatter`);
    const rec = parseLine(rendered, 1, 0, createParseState({ referenceTime: AT }));
    assert.deepEqual([rec.engine, rec.level, rec.fileinfo, rec.lineno, rec.message, rec.time], ['vllm', 'INFO', 'async_llm.py', 252, RECORD.msg, AT - 500],
      `vLLM ${version}'s line parses back`);
    if (version === '0.34.0') assert.equal(rec.pid, 4242);
  }
  // The fake engine's lines are the newest release's, byte for byte (its stamp is the Date's local fields, as vLLM's asctime is local).
  const at = new Date(2026, 11, 2, 19, 4, 18, 500);
  assert.equal(vllmApiServerLine(4242, 'INFO', at, 'async_llm.py:252', RECORD.msg), HAND_WRITTEN['0.34.0'] + RECORD.msg);
});

/** SGLang's prefix per release, rank tag ` TP0` (a TP rank's scheduler), without and with SGLANG_LOG_MS=1. */
const SGLANG_HAND_WRITTEN: Record<string, [string, string]> = {
  // SGLANG_LOG_MS is not read by these two releases' configure_logger: no milliseconds either way.
  '0.4.10.post2': ['[2026-12-02 19:04:18 TP0] ', '[2026-12-02 19:04:18 TP0] '],
  '0.5.1': ['[2026-12-02 19:04:18 TP0] ', '[2026-12-02 19:04:18 TP0] '],
  '0.5.23': ['[2026-12-02 19:04:18 TP0] ', '[2026-12-02 19:04:18.500 TP0] '],
};

test('each SGLang release\'s own configure_logger prints the prefixes the fixtures write, and they parse back', async (t) => {
  const versions = Object.keys(SGLANG_HAND_WRITTEN);
  const trees = await realReleaseTrees(t, versions.map((version) => ({ engine: 'sglang' as const, version })));
  if (!trees) return;
  const msg = 'Decode batch, #running-req: 1, #token: 40, token usage: 0.00, cuda graph: True, gen throughput (token/s): 10.00, #queue-req: 0';
  for (const [i, version] of versions.entries()) {
    for (const [ms, expected] of SGLANG_HAND_WRITTEN[version].entries()) {
      const out = execFileSync('python3', ['-S', '-E', join(RENDER_DIR, 'render_sglang.py'), trees[i], String(ms), ' TP0'], {
        input: JSON.stringify({ level: 'INFO', name: 'sglang.srt.managers.scheduler', msg, created: AT / 1000 }) + '\n',
        encoding: 'utf8', env: { PATH: process.env.PATH ?? '', TZ: 'UTC' }, timeout: 30_000,
      });
      const rendered = JSON.parse(out.trim().split('\n').pop()!) as string;
      assert.equal(rendered, expected + msg, `SGLang ${version}'s own configure_logger, SGLANG_LOG_MS=${ms}`);
      const rec = parseLine(rendered, 1, 0, createParseState({ referenceTime: AT }));
      assert.deepEqual([rec.engine, rec.message, rec.ranks, rec.time], ['sglang', msg, { TP: 0 }, ms && version === '0.5.23' ? AT : AT - 500],
        `SGLang ${version}'s line parses back`);
    }
  }
  // The fake engine's scheduler lines (TP=1: no rank tag) are the newest release's with SGLANG_LOG_MS=1.
  const at = new Date(2026, 11, 2, 19, 4, 18, 500);
  assert.equal(sglangLine(at, true, ' TP0', msg), SGLANG_HAND_WRITTEN['0.5.23'][1] + msg);
});
