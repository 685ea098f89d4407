// Showing trace paths relative to the engine root, and mapping them onto a local checkout.
// The tracer writes absolute paths of wherever the engine ran: a source checkout, a
// site-packages install, or a container path. The package folder (`vllm/`, `sglang/`) is the
// anchor common to all of them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import type { BuiltInEngine, Engine } from '../../engines/types';
import { ENGINE_PROFILES, packageParent } from '../../engines/registry';

/** An engine's name (the one Engine type; kept under this name for the call-trace code). */
export type EngineName = Engine;

export interface EnginePath {
  /** The engine whose package folder the trace path names (a built-in one: the checkout settings are theirs). */
  engine: BuiltInEngine;
  /** Path relative to the checkout root, forward slashes: `vllm/v1/engine/core.py`, `python/sglang/srt/…`. */
  relative: string;
}

/** The engine-relative form of an absolute trace path, or null for code outside the engines' packages. */
export function engineRelativePath(file: string): EnginePath | null {
  const p = file.replace(/\\/g, '/');
  // A clone's package folder inside a folder of its own (SGLang's python/sglang/) names its engine wherever it stands.
  for (const prof of ENGINE_PROFILES) {
    const dir = prof.pin?.packageDir;
    if (dir === undefined || !dir.includes('/')) continue;
    const at = p.lastIndexOf(`/${dir}/`);
    if (at >= 0) return { engine: prof.id as BuiltInEngine, relative: p.slice(at + 1) };
  }
  // Else the package folder named last: an installed package has no `python/` folder (the checkout keeps
  // SGLang's under python/); in a checkout at …/vllm/vllm/x.py the last marker is the package, and an
  // outer folder named vllm followed by a non-package path (…/vllm/tests/x.py) is kept as is.
  let best: Engine | null = null;
  let bestAt = -1;
  for (const prof of ENGINE_PROFILES) {
    const dir = prof.pin?.packageDir;
    if (dir === undefined) continue;
    const at = p.lastIndexOf(`/${dir.slice(dir.lastIndexOf('/') + 1)}/`);
    if (at > bestAt) { best = prof.id; bestAt = at; }
  }
  return best === null ? null : { engine: best as BuiltInEngine, relative: packageParent(best) + p.slice(bestAt + 1) };
}

/** Short form for display: engine-relative when possible, else the path as written. */
export function displayPath(file: string): string {
  return engineRelativePath(file)?.relative ?? file;
}

export interface CheckoutSettings {
  /** Local checkout roots per engine (the folder that holds its package folder: its profile's `pin.packageDir`). */
  checkouts?: Partial<Record<EngineName, string>>;
  /** Explicit prefix rewrites tried first, e.g. container `/workspace/vllm` → `/home/me/vllm`. */
  mappings?: ReadonlyArray<{ from: string; to: string }>;
  /**
   * The source of the release that ran the trace, per engine (its version known from the log of
   * the same process): a path not on this machine opens there before the checkout, whose lines
   * are another version's.
   */
  releases?: Partial<Record<EngineName, string>>;
}

export interface MappedPath {
  /** The local path to open. */
  path: string;
  /** How it was found: an explicit mapping, the engine package marker, or unmapped (as written). */
  via: 'mapping' | 'checkout' | 'as-written';
}

/** Where to open a traced file locally: explicit mapping, then the engine checkout, else the path as written. */
export function mapToCheckout(file: string, settings: CheckoutSettings): MappedPath {
  for (const m of settings.mappings ?? []) {
    const from = m.from.replace(/[\\/]+$/, '');
    if (file === from || file.startsWith(from + '/') || file.startsWith(from + '\\')) {
      return { path: join(m.to, file.slice(from.length)), via: 'mapping' };
    }
  }
  const rel = engineRelativePath(file);
  const root = rel ? settings.checkouts?.[rel.engine] : undefined;
  if (rel && root) return { path: join(root, ...rel.relative.split('/')), via: 'checkout' };
  return { path: file, via: 'as-written' };
}

/**
 * The local file a traced path opens at: the file that ran, when it is on this machine (its lines
 * are the ones traced); else the path mapped onto the checkout (a trace from a container or another
 * host). `found` is false when neither is here.
 */
export function localTracedFile(file: string, settings: CheckoutSettings, exists: (path: string) => boolean = existsSync): { path: string; found: boolean } {
  if (exists(file)) return { path: file, found: true };
  const inRelease = releaseFile(file, settings, exists);
  if (inRelease) return { path: inRelease, found: true };
  const mapped = mapToCheckout(file, settings);
  if (mapped.via !== 'checkout' || exists(mapped.path)) return { path: mapped.path, found: exists(mapped.path) };
  const rel = engineRelativePath(file)!;
  for (const other of packageRelativeCandidates(file, rel.engine)) {
    const p = join(settings.checkouts![rel.engine]!, ...other.split('/'));
    if (exists(p)) return { path: p, found: true };
  }
  return { path: mapped.path, found: false };
}

/** The traced file in the source of the release that ran it, by its package-relative path; null when none has it. */
function releaseFile(file: string, settings: CheckoutSettings, exists: (path: string) => boolean): string | null {
  const rel = engineRelativePath(file);
  const root = rel ? settings.releases?.[rel.engine] : undefined;
  if (!rel || !root) return null;
  for (const candidate of [rel.relative, ...packageRelativeCandidates(file, rel.engine)]) {
    const p = join(root, ...candidate.split('/'));
    if (exists(p)) return p;
  }
  return null;
}

/**
 * The other places a path from another machine may enter a local tree, in order: at each earlier
 * package marker (`/workspace/vllm/tests/x.py` from a container checkout at /workspace/vllm is the
 * checkout's `tests/x.py`, not `vllm/tests/x.py`), and, for SGLang, the package without the
 * repository's python/ folder (an installed SGLang: `site-packages/sglang/…`).
 */
export function packageRelativeCandidates(file: string, engine: EngineName): string[] {
  const p = file.replace(/\\/g, '/');
  const marker = `/${engine}/`;
  // The folder a clone keeps the package in (SGLang's python/), '' when the package is at the root.
  const parent = packageParent(engine);
  const out: string[] = [];
  for (let at = p.lastIndexOf(marker); at > 0; at = p.lastIndexOf(marker, at - 1)) {
    const inPackage = p.slice(at + 1);
    const afterRoot = p.slice(at + marker.length);
    if (parent) {
      out.push(inPackage, afterRoot.startsWith(`${parent}${engine}/`) ? afterRoot.slice(parent.length) : `${parent}${inPackage}`);
    } else out.push(inPackage);
    out.push(afterRoot);
  }
  return [...new Set(out)];
}
