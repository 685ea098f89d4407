// vLLM as one profile: its hop table, its process names' roles, how its ids print. Its line
// shapes are ./lines.ts (read by the hand-written grammar in src/core/logs/vllmGrammar.ts).
import type { EngineProfile } from '../registry';
import { VLLM_CHECKOUT, VLLM_PIN } from './source';
import { VLLM_LOGGING } from './logging';
import { VLLM_TABLE } from './hops';
import { VLLM_PROCESS_ROLES } from './lines';

export const VLLM_PROFILE: EngineProfile = {
  id: 'vllm',
  label: 'vLLM',
  hops: VLLM_TABLE,
  processRoles: VLLM_PROCESS_ROLES,
  // Engine-side lines add `-<8 hex>` to the external id, children `<idx>_`: requestIds takes them off.
  pin: VLLM_PIN,
  checkout: VLLM_CHECKOUT,
  logging: VLLM_LOGGING,
  clock: { prefillSentWithOneToken: true, decodeAfterPrefillAnswered: true, spanStartsBeforeAdmit: true },
  ridsVerbatim: false,
};
