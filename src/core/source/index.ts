// Source resolution: log line → the checkout line that printed it. Everything here is
// plain Node (no vscode); the editor and the CLI call the same functions.
//
//   const r = await createSourceResolver(dir, engine, { statementIndex: 'background', cacheDir, workerScript });
//   r.pin.message            → say once when HEAD is not the pin (null at the pin)
//   await r.indexReady       → after this, resolve() never reads a file on the calling thread
//   r.resolve({ engine, fileinfo, lineno, message, hop, continuation })
//     → { path, line, verified, drift, method } | null   (synchronous, ~0.3 µs on repeated lines)
export {
  createSourceResolver, defaultCacheDir, SourceResolverError,
  type CheckoutSourceResolver, type StatementDescription, type ResolverOptions, type IndexState,
} from './resolver';
export {
  detectCheckout, inspectCheckout, discoverCheckouts, comparePin,
  type CheckoutInfo, type CheckoutLayout, type PinStatus, type PinState,
} from './checkout';
export { FileIndex, listPythonFiles } from './fileIndex';
export { findLogStatements, type LogStatement, type MessageVariant } from './logStatements';
export { compilePattern, matchesPattern, patternText, WILD, type Pattern, type CompiledPattern } from './messagePattern';
export {
  StatementIndex,
  buildStatementIndex,
  statementCacheKey,
  loadCachedIndex,
  saveCachedIndex,
  cacheFilePath,
  INDEX_FORMAT,
  type StatementIndexData,
  type IndexedStatement,
  type StatementMatch,
  type BuildProgress,
} from './statementIndex';
export { PINS, publicSourceUrl, publicCloneUrl, type EnginePin, type HopCitation } from './pins';
export { clonePinnedCheckout, CloneError, type CloneOptions } from './clone';
export type { SourceQuery, SourceLocation, SourceResolver } from './types';
export {
  parseReleaseSpec, statedRelease, releaseLabel, releaseCacheRoot, releaseDir, cachedRelease, listReleaseSources, removeReleaseSources,
  installedRelease, fetchRelease, releaseSource, releaseManifestOf, ReleaseSourceError,
  type ReleaseSpec, type StatedRelease, type ReleaseManifest, type InstalledRelease, type FetchedRelease, type FetchOptions,
} from './release';
