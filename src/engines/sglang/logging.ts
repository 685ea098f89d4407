// SGLang's logging as "Create Logging Config" sets it up (format "sglang-hoplens" for the parser).
import type { EngineLogging } from '../types';

export const SGLANG_LOGGING: EngineLogging = {
  // A config file replaces SGLang's basicConfig, so the rank tag (" TP0") is lost; the pid takes its place.
  // The request logger (Receive/Finish lines) keeps its own handler and format.
  format: '[%(asctime)s.%(msecs)03d pid=%(process)d %(levelname)s %(pathname)s:%(lineno)d] %(message)s',
  defaultLevel: 'INFO',
  logger: null,
  envVar: 'SGLANG_LOGGING_CONFIG_PATH',
  launchLine: (assignment) => `${assignment} python3 -m sglang.launch_server --model-path <model> --log-requests`
    + ' --enable-request-time-stats-logging 2>&1 | tee sgl.log',
  // engine-facts.md, S1/S2 (python/sglang/srt/server_args.py: `--log-requests`, False by default).
  requestLogFlag: '--log-requests',
};
