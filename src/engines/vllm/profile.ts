// vLLM as one profile: its hop table, its process names' roles, how its ids print. Its line
// shapes are ./lines.ts (read by the hand-written grammar ./grammar.ts).
import type { EngineProfile } from '../registry';
import { VLLM_CHECKOUT, VLLM_PIN, vllmPathFromFileinfo } from './source';
import { vllmMissingReason, vllmServerIds } from './ids';
import { VLLM_LOGGING } from './logging';
import { VLLM_TABLE } from './hops';
import { VLLM_PROCESS_ROLES, VLLM_STAMP } from './lines';
import { VLLM_OTLP } from './otlp';

export const VLLM_PROFILE: EngineProfile = {
  id: 'vllm',
  label: 'vLLM',
  hops: VLLM_TABLE,
  // Its API server's uvicorn access log (`INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK`).
  accessLogHop: 'V10',
  processRoles: VLLM_PROCESS_ROLES,
  // Engine-side lines add `-<8 hex>` to the external id, children `<idx>_`: requestIds takes them off.
  pin: VLLM_PIN,
  checkout: VLLM_CHECKOUT,
  logging: VLLM_LOGGING,
  // /version: SGLang builds may answer it too, so it counts only after SGLang's own paths did not answer.
  request: { answersAlso: '/version', assumedWhenUnknown: true, idHeader: 'X-Request-Id', idBodyField: 'request_id', serverIds: vllmServerIds,
    startCommand: 'vllm serve …' },
  clock: { prefillSentWithOneToken: true, decodeAfterPrefillAnswered: true, spanStartsBeforeAdmit: true },
  ridsVerbatim: false,
  loggerNames: /^vllm(?:\.|$)|\/vllm\//,
  pathFromFileinfo: vllmPathFromFileinfo,
  // vLLM prints the line of the server that wrote the log; the table's line is the pin's.
  citesPrintedLine: true,
  // vLLM writes `os.path.join(tempfile.gettempdir(), getpass.getuser(), "vllm", f"vllm-instance-{id}",
  // f"VLLM_TRACE_FUNCTION_for_process_{pid}_thread_{tid}_at_{datetime.now()}.log".replace(" ", "_"))`. Older
  // vLLM used `<tmp>/vllm/<instance>/` without the user, and before that `/tmp/vllm_trace_frame_for_process_…`
  // (VLLM_TRACE_FRAME).
  tracing: {
    files: [{ prefix: 'VLLM_TRACE_FUNCTION', flavor: 'vllm' }, { prefix: 'vllm_trace_frame', flavor: 'vllm-legacy-frame' }],
    instanceDir: /^vllm-instance-(.+)$/,
    defaultDirs: (user) => [[user, 'vllm'], ['vllm']],
  },
  missingReason: vllmMissingReason,
  // A line read alone (a traced request's lines in the server log): `MM-DD HH:MM:SS`, local time, no year.
  stampShape: VLLM_STAMP,
  otlp: VLLM_OTLP,
};
