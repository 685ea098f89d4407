// Source resolution: log line → the checkout line that printed it. Everything here is
// plain Node (no vscode); the editor and the CLI call the same functions.
export { createSourceResolver, SourceResolverError, type CheckoutSourceResolver, type ResolverOptions, type IndexState } from './resolver';
export { detectCheckout, inspectCheckout, discoverCheckouts, comparePin, type CheckoutInfo, type CheckoutLayout, type PinStatus, type PinState } from './checkout';
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
