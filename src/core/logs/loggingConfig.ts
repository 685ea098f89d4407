// "Create Logging Config": a Python logging dictConfig that makes the engine print
// milliseconds, a year and the full source path on every line, and the env line to launch
// with. The parser reads the result (formats "vllm-hoplens" and "sglang-hoplens"); what differs per
// engine is its profile's `logging` (src/engines/<id>/logging.ts).
import type { Engine } from './model';
import { engineProfile } from '../../engines/registry';
import type { EngineLogging } from '../../engines/types';

export type PyLogLevel = EngineLogging['defaultLevel'];

/** The date format of every engine's config (the parser expects the year). */
export const HOPLENS_DATEFMT = '%Y-%m-%d %H:%M:%S';

export interface LoggingConfigResult {
  /** The JSON text to write. */
  json: string;
  /** Suggested file name. */
  fileName: string;
  /** The environment variable that points the engine at the file. */
  envVar: string;
  /** A full launch line, with the path filled in. */
  launchLine: string;
}

/** The config for `engine` (its profile's `logging`: format, level, logger, variable, launch line). */
export function loggingConfig(engine: Engine, opts: { level?: PyLogLevel; path?: string } = {}): LoggingConfigResult {
  const logging = engineProfile(engine).logging;
  if (!logging) throw new Error(`HopLens has no logging config for ${engineProfile(engine).label}`);
  const level = opts.level ?? logging.defaultLevel;
  const formatter = { format: logging.format, datefmt: HOPLENS_DATEFMT };
  const handler = { class: 'logging.StreamHandler', formatter: 'hoplens', level: 'DEBUG', stream: 'ext://sys.stdout' };
  const common = { version: 1, disable_existing_loggers: false, formatters: { hoplens: formatter }, handlers: { hoplens: handler } };
  const config = logging.logger !== null
    ? { ...common, loggers: { [logging.logger]: { handlers: ['hoplens'], level, propagate: false } } }
    : { ...common, root: { handlers: ['hoplens'], level } };
  const fileName = `hoplens-${engine}-logging.json`;
  const path = opts.path ?? `$PWD/${fileName}`;
  const q = /[\s'"$`\\]/.test(path) && !path.startsWith('$PWD/') ? `'${path.replace(/'/g, `'\\''`)}'` : path;
  const envVar = logging.envVar;
  return { json: JSON.stringify(config, null, 2) + '\n', fileName, envVar, launchLine: logging.launchLine(`${envVar}=${q}`) };
}
