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
  /** Folders of a repository checkout holding Rust sources whose log lines are the engine's (SGLang's router). */
  rustDirs: string[];
}

export const PINS: Record<Engine, EnginePin> = {
  vllm: {
    engine: 'vllm',
    sha: 'a556f3fccb701e5618d84d547ff454c56a1bfdfb',
    citationsReadAt: 'cd5035379c4c565fc9265cf121bc1c8364bc5eca',
    repo: 'vllm-project/vllm',
    packageDir: 'vllm',
    rustDirs: [],
  },
  sglang: {
    engine: 'sglang',
    sha: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
    citationsReadAt: '7d893255c359bb8ab74d2870c8ac865fb57230d6',
    repo: 'sgl-project/sglang',
    packageDir: 'python/sglang',
    // The router: sgl-router/ until late 2025, then sgl-model-gateway/ (before it left the repository).
    rustDirs: ['sgl-router/src', 'sgl-model-gateway/src'],
  },
};

export interface HopCitation {
  /** Path relative to the checkout root. */
  path: string;
  /** 1-based line the hop table cites: the first line of the logging call, for both engines. */
  line: number;
}

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
