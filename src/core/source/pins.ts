// The engine commits HopLens's hop tables were read at, and where their code lives (the facts are in
// the engines' profiles, from spec/engine-facts.md §0 and spec/hops.json): the public URLs they give.
import type { Engine } from '../logs/model';
import { PINS } from '../../engines/registry';

/** The pins live in the engines' profiles (src/engines/<id>/source.ts); this is the registry's view of them. */
export { PINS } from '../../engines/registry';
export type { EnginePin } from '../../engines/types';

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
