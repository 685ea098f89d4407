// vLLM's line shapes: its process prefix (decorate_logs), its header in every version, the forms a
// relay or a paste leaves of them, and the roles its process names stand for. Data only: the
// grammar that reads them is ./grammar.ts.
import { LEVELS } from '../lineShapes';

// The prefix decorate_logs writes in front of every line of a process, an empty one too.
// A name ending in a comma is another launcher's (SkyPilot's `(task, pid=N)`, `(head, rank=0, pid=N)`).
// The process names vLLM's own prefixes carry (decorate_logs; Ray's, for vLLM's workers: `RayWorker`
// of 0.2, `RayWorkerVllm`, `RayWorkerWrapper`, `RayWorkerProc`). Behind another name (a Ray actor:
// Ray Serve's `(ServeReplica:app:LLMServer:x pid=N)`, `(ServeController pid=N)`, `(ProxyActor pid=N)`, a
// training framework's `(WorkerDict pid=N)`, `(AsyncvLLMServer pid=N)`) the prefix does not make the line
// vLLM's: only vLLM's own header behind it does; plain text and other loggers' lines there are the actor's.
export const VLLM_PROCESS = new RegExp(String.raw`^_?(?:APIServer|ApiServer|\w*EngineCore\w*|AsyncLLMEngine|LLMEngine|MQLLMEngine|\w*Vllm\w*`
  + String.raw`|Worker|RayWorker\w*|DPCoordinator|DPSupervisor)(?:[_ -]|$)`);
export const VLLM_PREFIX = /^\(((?:[^()]*?[^(),])?) pid=(\d+)(?:, ip=[^()]*)?\)(?: |$)/;
// vLLM's header in every version: `[path.py:N]` (≥0.8), `file.py:N]` (≤0.7); milliseconds,
// a year and full paths when a logging config adds them.
export const VLLM_HEADER = new RegExp(`^(${LEVELS}) (\\d\\d)-(\\d\\d) (\\d\\d):(\\d\\d):(\\d\\d) (\\[?)([^\\]\\s]+):(\\d+)\\] ?`);
export const VLLM_HEADER_LONG = new RegExp(`^(${LEVELS}) (?:(\\d{4})-)?(\\d\\d)-(\\d\\d)[ T](\\d\\d):(\\d\\d):(\\d\\d)(?:[.,](\\d{1,9}))?`
  + ` (\\[?)([^\\][]+?):(\\d+)\\] ?`);
export const UVICORN = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL|TRACE):\s+/;
// A process prefix whose `(` a paste lost: `_AsyncLLMEngine pid=1974) INFO …`.
export const LOST_PREFIX = /(?:^|[\s(])([A-Za-z_][\w.\- =]*?) pid=(\d+)(?:, ip=[^()]*)?\)[*_`]* ?$/;
// vLLM's header with its level and stamp taken off by a relay: dynamo-run's subprocess engines
// (2025-05 to 2025-07, launch/dynamo-run/src/subprocess.rs strip_log_prefix) log each line of
// vLLM's output as `[async_llm.py:252] Added request 1`.
export const STRIPPED_VLLM = /^\[([^\]\s:]+\.py):(\d+)\] /;
// vLLM's format starts with VLLM_LOGGING_PREFIX, which decorate_logs' process prefix then precedes:
// `(APIServer pid=1) [node-3] INFO 08-21 22:30:05 [async_llm.py:439] …`.
export const LOGGING_PREFIX_WINDOW = 64;
export const LEVEL_DATE = new RegExp(`(?:${LEVELS}) \\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d `);
// Its stamp on a line read alone (the profile's stampShape): a colour code may stand before the
// process prefix, the level and the stamp; month to second, no year.
const COLOUR = String.raw`(?:\x1b\[[0-9;]*m)?`;
export const VLLM_STAMP = new RegExp(String.raw`^${COLOUR}(?:\([^()]+? pid=\d+\) )?${COLOUR}(?:${LEVELS})${COLOUR} ${COLOUR}`
  + String.raw`(?<month>\d{2})-(?<day>\d{2}) (?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})`);

/** The role a vLLM process name stands for (first rule that fits), for the process prefix. */
export const VLLM_PROCESS_ROLES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:APIServer|ApiServer)/, 'api-server'],
  [/^_?(?:EngineCore|AsyncLLMEngine|LLMEngine|MQLLMEngine)/, 'engine-core'],
  [/Worker/, 'worker'],
  [/^DPSupervisor/, 'dp-supervisor'],
  [/^DPCoordinator/, 'dp-coordinator'],
];
/** Process names that carry an index and no rank letters (EngineCore_N, ApiServer_N). */
export const VLLM_INDEXED_PROCESS = /^(?:EngineCore|ApiServer)_(\d+)$/;
