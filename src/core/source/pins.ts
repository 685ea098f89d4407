// The engine commits HopLens's hop tables were read at, and where their code lives.
// Facts from spec/engine-facts.md §0 and spec/hops.json.
import type { Engine } from '../logs/model';

export interface EnginePin {
  engine: Engine;
  /** The commit the hop table is pinned to. */
  sha: string;
  /** The commit the citations were actually read at (vLLM's pin was not available as a git object). */
  citationsReadAt: string;
  /** Public repository, owner/name. */
  repo: string;
  /** Path inside the checkout of the engine's Python package. */
  packageDir: string;
}

export const PINS: Record<Engine, EnginePin> = {
  vllm: {
    engine: 'vllm',
    sha: 'a556f3fccb701e5618d84d547ff454c56a1bfdfb',
    citationsReadAt: 'cd5035379c4c565fc9265cf121bc1c8364bc5eca',
    repo: 'vllm-project/vllm',
    packageDir: 'vllm',
  },
  sglang: {
    engine: 'sglang',
    sha: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
    citationsReadAt: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
    repo: 'sgl-project/sglang',
    packageDir: 'python/sglang',
  },
};

export interface HopCitation {
  /** Path relative to the checkout root. */
  path: string;
  /** 1-based line the hop table cites (the call line for vLLM, the string line for SGLang). */
  line: number;
}

/**
 * Citations of the hop tables (hops.json, with its corrections: V7 is L623, not L900).
 * The resolver accepts a replacement map so the hop-table module stays the owner of this data.
 */
export const DEFAULT_HOP_CITATIONS: Record<Engine, Record<string, HopCitation>> = {
  vllm: {
    V0a: { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 22 },
    V0b: { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 28 },
    V1b: { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 53 },
    V1: { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 63 },
    V2: { path: 'vllm/v1/engine/async_llm.py', line: 439 },
    V3: { path: 'vllm/v1/engine/core.py', line: 1429 },
    V4: { path: 'vllm/v1/engine/core.py', line: 1441 },
    V5: { path: 'vllm/v1/metrics/loggers.py', line: 310 },
    V6: { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 98 },
    V7: { path: 'vllm/v1/engine/async_llm.py', line: 623 },
    V8: { path: 'vllm/v1/engine/async_llm.py', line: 761 },
    V9: { path: 'vllm/entrypoints/generate/base/serving.py', line: 175 },
  },
  sglang: {
    S1: { path: 'python/sglang/srt/utils/request_logger.py', line: 156 },
    S2: { path: 'python/sglang/srt/utils/request_logger.py', line: 110 },
    S3: { path: 'python/sglang/srt/managers/scheduler_components/metrics_reporter.py', line: 604 },
    S4: { path: 'python/sglang/srt/managers/scheduler_components/metrics_reporter.py', line: 811 },
    S5: { path: 'python/sglang/srt/managers/schedule_batch.py', line: 1804 },
    S6: { path: 'python/sglang/srt/utils/request_logger.py', line: 191 },
    S7: { path: 'python/sglang/srt/managers/tokenizer_manager.py', line: 1619 },
    S8: { path: 'python/sglang/srt/managers/tokenizer_manager.py', line: 3128 },
    S9: { path: 'python/sglang/srt/managers/scheduler.py', line: 1095 },
  },
};

/**
 * The cited file at a commit on the engine's public repository, for when no checkout is
 * configured. `line` adds a `#L<n>` anchor.
 */
export function publicSourceUrl(engine: Engine, path: string, line: number | null, sha: string = PINS[engine].sha): string {
  const clean = path.replace(/\\/g, '/').replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');
  return `https://github.com/${PINS[engine].repo}/blob/${sha}/${clean}${line && line > 0 ? `#L${line}` : ''}`;
}

/** The clone URL of the engine's public repository. */
export function publicCloneUrl(engine: Engine): string {
  return `https://github.com/${PINS[engine].repo}.git`;
}
