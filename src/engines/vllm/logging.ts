// vLLM's logging as "Create Logging Config" sets it up (format "vllm-hoplens" for the parser).
import type { EngineLogging } from '../types';

export const VLLM_LOGGING: EngineLogging = {
  // The `(Proc pid=N) ` prefix survives, because vLLM adds it by patching the process's stdout, not in the formatter.
  format: '%(levelname)s %(asctime)s.%(msecs)03d [%(pathname)s:%(lineno)d] %(message)s',
  defaultLevel: 'DEBUG',
  // Only the "vllm" logger is configured, as vLLM's own default does.
  logger: 'vllm',
  envVar: 'VLLM_LOGGING_CONFIG_PATH',
  launchLine: (assignment) => `${assignment} vllm serve <model> --enable-log-requests --enable-log-outputs 2>&1 | tee vllm.log`,
  // engine-facts.md, V1/V2 (vllm/entrypoints/serve/utils/request_logger.py).
  requestLogFlag: '--enable-log-requests',
};
