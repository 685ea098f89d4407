// SGLang as one profile: its hop table, its roles (its header names ranks, not processes), how its
// ids print. Its line shapes are ./lines.ts (read by ./grammar.ts).
import type { EngineProfile } from '../registry';
import { SGLANG_CHECKOUT, SGLANG_PIN, sglangPathFromFileinfo } from './source';
import { SGLANG_LOGGING } from './logging';
import { SGLANG_TABLE } from './hops';
import { SGLANG_STAMP } from './lines';
import { SGLANG_TRANSFER_IDS } from './ids';
import type { OwnApi } from '../types';

/** Its native /generate: `text` and `sampling_params` (max_new_tokens), streamed; no model named. */
const SGLANG_GENERATE: OwnApi = {
  id: 'sglang-generate',
  path: '/generate',
  kind: 'generate',
  needsModel: false,
  body: ({ prompt, temperature, maxTokens }) => ({ text: prompt, sampling_params: { temperature, max_new_tokens: maxTokens }, stream: true }),
};

/** Its `[time rank]` header: the last bracket pair before the message, inside the record's columns (from `start`). */
function headerSpan(text: string, start: number, message: string): readonly [number, number] | null {
  const msgAt = message ? text.lastIndexOf(message) : -1;
  const close = msgAt > start ? text.lastIndexOf(']', msgAt) : -1;
  const open = close > start ? text.lastIndexOf('[', close) : -1;
  return open < start ? null : [open, close + 1];
}

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
  // A vLLM server has no /get_server_info.
  request: { answersOnly: ['/get_server_info', '/server_info'], idBodyField: 'rid', ownApis: [SGLANG_GENERATE],
    startCommand: 'python -m sglang.launch_server …' },
  clock: { requestLoggerApart: true },
  ridsVerbatim: true,
  // A P/D request's KV transfer goes by its bootstrap_room (./ids.ts).
  transferIds: SGLANG_TRANSFER_IDS,
  loggerNames: /^sglang(?:\.|$)|\/sglang\//,
  // The router's crate: sgl-router's `sglang_router_rs`, then sgl-model-gateway's (late 2025; its log target `smg`,
  // observability/logging.rs).
  rustCrates: ['sglang_router_rs', 'sgl_model_gateway', 'smg'],
  // Its rank tags (TP0, DP0 TP1) name the scheduler processes.
  rankRole: 'scheduler',
  pathFromFileinfo: sglangPathFromFileinfo,
  // SGLang prints no file:line: every line of its own is searched for (by hop, else by text).
  resolvesUnplacedLines: true,
  // Such a line's link (to the statement its text found) goes on its `[time rank]` header.
  headerSpan,
  // Its diffusion runtime carries a copy of vLLM's tracer, with its own wording.
  tracing: {
    files: [{ prefix: 'SGLANG_DIFFUSION_TRACE_FUNCTION', flavor: 'sglang-diffusion' }, { prefix: 'SGL_DIFFUSION_TRACE_FUNCTION', flavor: 'sglang-diffusion' }],
  },
  // A line read alone (a traced request's lines in the server log): its dated stamp, milliseconds with SGLANG_LOG_MS.
  stampShape: SGLANG_STAMP,
};
