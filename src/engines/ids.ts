// The external form of a request id an engine-side line printed (an engine whose profile is not
// `ridsVerbatim`: vLLM's engine core adds "-<8 hex>" to the id the serving layer chose, n>1
// children are "<idx>_<internal id>"). In the bottom layer: the core's id rules
// (core/logs/requestIds.ts) and an engine's byte fast path both take it.

const ENGINE_SUFFIX = /-[0-9a-f]{8}$/;
const CHILD_PREFIX = /^\d+_/;

/** External form of an id printed by an engine-side line. */
export function externalFromInternal(id: string): string {
  let s = id;
  if (CHILD_PREFIX.test(s)) s = s.replace(CHILD_PREFIX, '');
  return s.replace(ENGINE_SUFFIX, '');
}
