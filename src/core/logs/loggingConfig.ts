// "Create Logging Config": a Python logging dictConfig that makes the engine print
// milliseconds, a year and the full source path on every line, and the env line to launch
// with. The parser reads the result (formats "vllm-hoplens" and "sglang-hoplens").
import type { Engine } from './model';

export type PyLogLevel = 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';

/**
 * vLLM: the `(Proc pid=N) ` prefix survives, because vLLM adds it by patching the process's
 * stdout, not in the formatter. Only the "vllm" logger is configured, as vLLM's own default does.
 */
export const VLLM_HOPLENS_FORMAT = '%(levelname)s %(asctime)s.%(msecs)03d [%(pathname)s:%(lineno)d] %(message)s';

/**
 * SGLang: a config file replaces SGLang's basicConfig, so the rank tag (" TP0") is lost; the
 * pid takes its place. The request logger (Receive/Finish lines) keeps its own handler and format.
 */
export const SGLANG_HOPLENS_FORMAT = '[%(asctime)s.%(msecs)03d pid=%(process)d %(levelname)s %(pathname)s:%(lineno)d] %(message)s';

export const HOPLENS_DATEFMT = '%Y-%m-%d %H:%M:%S';

export interface LoggingConfigResult {
  /** The JSON text to write. */
  json: string;
  /** Suggested file name. */
  fileName: string;
  /** The environment variable that points the engine at the file. */
  envVar: 'VLLM_LOGGING_CONFIG_PATH' | 'SGLANG_LOGGING_CONFIG_PATH';
  /** A full launch line, with the path filled in. */
  launchLine: string;
}

export function loggingConfig(engine: Engine, opts: { level?: PyLogLevel; path?: string } = {}): LoggingConfigResult {
  const level = opts.level ?? (engine === 'vllm' ? 'DEBUG' : 'INFO');
  const formatter = { format: engine === 'vllm' ? VLLM_HOPLENS_FORMAT : SGLANG_HOPLENS_FORMAT, datefmt: HOPLENS_DATEFMT };
  const handler = { class: 'logging.StreamHandler', formatter: 'hoplens', level: 'DEBUG', stream: 'ext://sys.stdout' };
  const config = engine === 'vllm'
    ? {
      version: 1, disable_existing_loggers: false,
      formatters: { hoplens: formatter },
      handlers: { hoplens: handler },
      loggers: { vllm: { handlers: ['hoplens'], level, propagate: false } },
    }
    : {
      version: 1, disable_existing_loggers: false,
      formatters: { hoplens: formatter },
      handlers: { hoplens: handler },
      root: { handlers: ['hoplens'], level },
    };
  const fileName = `hoplens-${engine}-logging.json`;
  const path = opts.path ?? `$PWD/${fileName}`;
  const q = /[\s'"$`\\]/.test(path) && !path.startsWith('$PWD/') ? `'${path.replace(/'/g, `'\\''`)}'` : path;
  const envVar = engine === 'vllm' ? 'VLLM_LOGGING_CONFIG_PATH' : 'SGLANG_LOGGING_CONFIG_PATH';
  const launchLine = engine === 'vllm'
    ? `${envVar}=${q} vllm serve <model> --enable-log-requests --enable-log-outputs 2>&1 | tee vllm.log`
    : `${envVar}=${q} python3 -m sglang.launch_server --model-path <model> --log-requests --enable-request-time-stats-logging 2>&1 | tee sgl.log`;
  return { json: JSON.stringify(config, null, 2) + '\n', fileName, envVar, launchLine };
}
