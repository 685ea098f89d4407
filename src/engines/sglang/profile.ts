// SGLang as one profile: its hop table, its roles (its header names ranks, not processes), how its
// ids print. Its line shapes are ./lines.ts (read by src/core/logs/sglangGrammar.ts).
import type { EngineProfile } from '../registry';
import { SGLANG_CHECKOUT, SGLANG_PIN } from './source';
import { SGLANG_LOGGING } from './logging';
import { SGLANG_TABLE } from './hops';

export const SGLANG_PROFILE: EngineProfile = {
  id: 'sglang',
  label: 'SGLang',
  hops: SGLANG_TABLE,
  processRoles: [],
  // The tokenizer's lines are TokenizerManager's; every other hop is printed by the scheduler.
  processOfRole: (role) => (role === 'tokenizer' ? 'TokenizerManager' : 'Scheduler'),
  // The rid is printed verbatim (the body's rid or a uuid4 hex).
  pin: SGLANG_PIN,
  checkout: SGLANG_CHECKOUT,
  logging: SGLANG_LOGGING,
  clock: { requestLoggerApart: true },
  ridsVerbatim: true,
};
