// The logging config round-trips through real python3 logging: Python writes the lines with the
// generated dictConfig from files at known lines, and the parser reads them back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { loggingConfig } from '../../../src/core/logs/loggingConfig';
import { annotateText } from '../../../src/core/session/logSession';
import { citedSource } from '../../../src/core/source/locate';

function runPython(cwd: string, script: string): string {
  const r = spawnSync('python3', ['-c', script], { cwd, encoding: 'utf8', env: { ...process.env, PYTHONPATH: cwd, PYTHONDONTWRITEBYTECODE: '1' } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('vLLM config: milliseconds, year and full path; hop and source read back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-logcfg-'));
  try {
    const cfg = loggingConfig('vllm', { level: 'DEBUG', path: join(dir, 'cfg.json') });
    assert.equal(cfg.envVar, 'VLLM_LOGGING_CONFIG_PATH');
    assert.ok(cfg.launchLine.startsWith(`VLLM_LOGGING_CONFIG_PATH=${join(dir, 'cfg.json')} vllm serve`));
    writeFileSync(join(dir, 'cfg.json'), cfg.json);
    // A stand-in module at the real path with the real statement at a known line (line 5).
    mkdirSync(join(dir, 'vllm', 'v1', 'engine'), { recursive: true });
    writeFileSync(join(dir, 'vllm', '__init__.py'), '');
    writeFileSync(join(dir, 'vllm', 'v1', '__init__.py'), '');
    writeFileSync(join(dir, 'vllm', 'v1', 'engine', '__init__.py'), '');
    writeFileSync(join(dir, 'vllm', 'v1', 'engine', 'async_llm.py'),
      'import logging\nlogger = logging.getLogger(__name__)\n\ndef add(request_id):\n    logger.info("Added request %s.", request_id)\n\ndef idle():\n    logger.debug("EngineCore waiting for work.")\n');
    const out = runPython(dir, [
      'import json, logging.config',
      `logging.config.dictConfig(json.load(open(${JSON.stringify(join(dir, 'cfg.json'))})))`,
      'from vllm.v1.engine import async_llm',
      'async_llm.add("chatcmpl-abc-0a1b2c3d")',
      'async_llm.idle()',
    ].join('\n'));
    // vLLM adds the process prefix by patching stdout; the formatter output follows it.
    const text = out.split('\n').filter(Boolean).map((l) => `(APIServer pid=${process.pid}) ${l}`).join('\n');
    const a = annotateText(text, 'auto');
    const [added, idle] = a.records;
    assert.equal(added.format, 'vllm-hoplens');
    assert.equal(added.timeResolution, 'ms');
    assert.equal(added.hop, 'V2');
    assert.equal(added.rid, 'chatcmpl-abc');
    assert.equal(added.lineno, 5);
    assert.ok(added.fileinfo!.endsWith('/vllm/v1/engine/async_llm.py'));
    assert.deepEqual(citedSource(added), { path: 'vllm/v1/engine/async_llm.py', line: 5, verified: false, drift: 0, method: 'fileinfo' });
    assert.equal(new Date(added.time!).getUTCFullYear() >= 2024, true);
    assert.equal(idle.level, 'DEBUG');
    assert.equal(idle.lineno, 8);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('SGLang config: the main logger gets ms, pid, level and path; hops still match', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-logcfg-'));
  try {
    const cfg = loggingConfig('sglang');
    assert.equal(cfg.envVar, 'SGLANG_LOGGING_CONFIG_PATH');
    writeFileSync(join(dir, 'cfg.json'), cfg.json);
    mkdirSync(join(dir, 'sglang', 'srt', 'managers'), { recursive: true });
    for (const d of ['sglang', 'sglang/srt', 'sglang/srt/managers']) writeFileSync(join(dir, d, '__init__.py'), '');
    writeFileSync(join(dir, 'sglang', 'srt', 'managers', 'tokenizer_manager.py'),
      'import logging\nlogger = logging.getLogger(__name__)\n\ndef abort(rid):\n    logger.info(\n        "Abort request for rid=%s not found in rid_to_state; likely already finished/removed.", rid\n    )\n');
    const out = runPython(dir, [
      'import json, logging.config',
      `logging.config.dictConfig(json.load(open(${JSON.stringify(join(dir, 'cfg.json'))})))`,
      'from sglang.srt.managers import tokenizer_manager',
      'tokenizer_manager.abort("my-req-1")',
    ].join('\n'));
    const [r] = annotateText(out, 'auto').records;
    assert.equal(r.format, 'sglang-hoplens');
    assert.equal(r.engine, 'sglang');
    assert.equal(r.timeResolution, 'ms');
    assert.equal(r.hop, 'S8');
    assert.equal(r.rid, 'my-req-1');
    assert.equal(r.lineno, 5, 'Python >= 3.11 reports the first line of a multi-line call');
    assert.equal(citedSource(r)!.path, 'python/sglang/srt/managers/tokenizer_manager.py');
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
