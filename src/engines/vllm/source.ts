// vLLM's code on disk: the commit its hop table is pinned to, how a checkout or an installed
// package looks, and the start-up lines that state its version (each read from a real release tree).
import type { EngineCheckout, EnginePin } from '../types';

export const VLLM_PIN: EnginePin = {
  engine: 'vllm',
  sha: 'a556f3fccb701e5618d84d547ff454c56a1bfdfb',
  citationsReadAt: 'cd5035379c4c565fc9265cf121bc1c8364bc5eca',
  repo: 'vllm-project/vllm',
  packageDir: 'vllm',
  rustDirs: [],
};

export const VLLM_CHECKOUT: EngineCheckout = {
  shapes: [{
    packageDir: 'vllm',
    marks: [{ path: 'vllm/logger.py', kind: 'file' }, { path: 'vllm/__init__.py', kind: 'file' }],
    layout: { repoWhenAny: [{ path: 'pyproject.toml', kind: 'file' }, { path: 'setup.py', kind: 'file' }, { path: '.git', kind: 'dir' }] },
  }],
  packageMarks: [{ path: 'logger.py', kind: 'file' }],
  notFound: 'a vLLM checkout (no vllm/__init__.py or vllm/logger.py)',
  releasePrefix: '',
  exampleRelease: '0.8.5',
  // The request logger was in engine/async_llm_engine.py until about 0.5 (hops.ts, V1 and V6), in entrypoints/logger.py
  // from 0.5 to 0.22.1, and in entrypoints/serve/utils/request_logger.py from 0.23.0 (read in the release wheels:
  // 0.11.2, 0.12.0, 0.14.1, 0.18.0, 0.21.0, 0.22.1 print it in logger.py; 0.23.0, 0.24.0, 0.34.0 in request_logger.py).
  moves: [
    { from: 'vllm/entrypoints/logger.py', to: 'vllm/entrypoints/serve/utils/request_logger.py', when: '0.23.0' },
    { from: 'vllm/engine/async_llm_engine.py', to: 'vllm/entrypoints/logger.py', when: '0.5' },
    { from: 'vllm/engine/async_llm_engine.py', to: 'vllm/entrypoints/serve/utils/request_logger.py', when: '0.5 and 0.23.0' },
  ],
  // V1's engine under vllm/v1/ beside V0's engine/, worker/, executor/: in the real releases (0.6.6 to 0.34.0) some V0
  // text that only V1 prints later was printed beside V1's own copy (worker.py's `Sleep mode freed …`, engine.py's
  // `Added request …`), and some moved into v1/ (executor/ray_utils.py): a printed name without the folder cannot tell.
  parallelTrees: ['vllm/v1/'],
  // `vLLM API server version %s` — entrypoints/openai/api_server.py:177 (0.4.3), :712 (0.6.6.post1), :1896 (0.10.2),
  // :1977 (0.11.2); `vLLM server version %s, serving model %s` — entrypoints/common/startup.py:18 (0.34.0);
  // `Initializing an LLM engine (v%s) with config:` — engine/llm_engine.py:162 (0.4.3), :235 (0.6.6.post1);
  // `Initializing a V0 LLM engine (v%s)` — engine/llm_engine.py:222 (0.10.2); `Initializing a V1 LLM engine (v%s)` —
  // v1/engine/core.py:76 (0.10.2), :94 (0.11.2), :154 (0.34.0).
  releaseStated: (version) => [
    new RegExp(String.raw`\bvLLM (?:API )?server version ${version}`),
    new RegExp(String.raw`\bInitializing an? (?:V[01] )?LLM engine \(v${version}\)`),
  ],
};

/** Path of a vLLM fileinfo (`[fileinfo:lineno]`) relative to the repo, when it is unambiguous. */
export function vllmPathFromFileinfo(fileinfo: string): string | null {
  const norm = fileinfo.includes('\\') ? fileinfo.replace(/\\/g, '/') : fileinfo;
  const i = norm.lastIndexOf('/vllm/');
  if (i >= 0) return norm.slice(i + 1); // full path from our logging config
  if (norm.startsWith('vllm/')) return norm;
  if (norm.includes('...') || !norm.includes('/')) return null; // shrunk or basename: needs a checkout
  return `vllm/${norm}`;
}
