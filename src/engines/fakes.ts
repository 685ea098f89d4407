// The engines the fake engine (src/testing/fakeEngine) can imitate, each one's imitation in its own
// folder (<id>/fake.ts, the interface in fake.ts). Only the fake engine imports this list, so no
// imitation goes into the product's bundles. The first is the one it imitates when told none.
import type { EngineImitation } from './fake';
import { VLLM_FAKE } from './vllm/fake';
import { SGLANG_FAKE } from './sglang/fake';

export const IMITATIONS: readonly EngineImitation[] = [VLLM_FAKE, SGLANG_FAKE];

/** The imitation of an engine, if the fake engine has one. */
export function imitationOf(engine: string): EngineImitation | undefined {
  return IMITATIONS.find((m) => m.id === engine);
}
