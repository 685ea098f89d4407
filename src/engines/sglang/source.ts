// SGLang's code on disk: the commit its hop table is pinned to, how a checkout (python/sglang/)
// or an installed package looks, and the lines that state its version.
import type { EngineCheckout, EnginePin } from '../types';

export const SGLANG_PIN: EnginePin = {
  engine: 'sglang',
  sha: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
  citationsReadAt: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
  repo: 'sgl-project/sglang',
  packageDir: 'python/sglang',
  // The router: sgl-router/ until late 2025, then sgl-model-gateway/ (before it left the repository).
  rustDirs: ['sgl-router/src', 'sgl-model-gateway/src'],
};

export const SGLANG_CHECKOUT: EngineCheckout = {
  shapes: [
    { packageDir: 'python/sglang', marks: [{ path: 'python/sglang', kind: 'dir' }], layout: 'repo' },
    { packageDir: 'sglang', marks: [{ path: 'sglang/srt', kind: 'dir' }], layout: 'site-packages' },
  ],
  packageMarks: [{ path: 'srt', kind: 'dir' }],
  notFound: 'an SGLang checkout (no python/sglang/ folder)',
  // A release's files go under python/, where a clone keeps the package.
  releasePrefix: 'python',
  exampleRelease: '0.5.1',
  // SGLang prints no version in its start-up log lines (0.4.10.post2, 0.5.1, 0.5.23); it is in `/get_server_info`'s
  // JSON (`"version": …`, entrypoints/http_server.py:369 at 0.5.1), which a log may carry pasted, and
  // `sglang version: %s` (cli/main.py:8 at 0.5.23, `sglang version`).
  releaseStated: (version) => [
    new RegExp(String.raw`\bsglang version: ${version}`),
    new RegExp(String.raw`"version":\s*"${version}"[^\n]*"(?:tokenizer_path|model_path|tp_size)"`
      + String.raw`|"(?:tokenizer_path|model_path|tp_size)"[^\n]*"version":\s*"${version}"`),
  ],
};

/** Path of an SGLang pathname (our logging config) relative to the repo. */
export function sglangPathFromFileinfo(fileinfo: string): string | null {
  const norm = fileinfo.replace(/\\/g, '/');
  const i = norm.lastIndexOf('/sglang/');
  return i >= 0 ? `python${norm.slice(i)}` : null;
}
