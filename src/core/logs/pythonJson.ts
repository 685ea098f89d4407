// A Python logging record printed as one JSON object a line: vLLM's built-in JSON formatter
// (`--logging-config.formatter json`, from 0.32: python-json-logger with
// `%(asctime)s %(levelname)s %(name)s %(processName)s %(process)d %(message)s`, and the process
// name its record factory adds after the message), and any logging config that sets a JSON formatter for an
// engine's loggers (VLLM_LOGGING_CONFIG_PATH, SGLANG_LOGGING_CONFIG_PATH). Whose line it is comes
// from its logger (`name`) or path, as for a custom text layout; where it was printed from the
// logger's module path, or `filename`/`pathname` and `lineno` when the config printed them.
import { stampUtc } from './civilTime';
import type { Engine } from './model';
import { fractionMs, fractionResolution, zoned } from './outerPrefix';
import { engineOf } from './pythonLayout';

export interface PythonJsonLine {
  /** null: the engine's web server (uvicorn's loggers), or a record naming no logger nor path (`anonymous`). */
  engine: Engine | null;
  /** The record names no logger and no path (a formatter printing only `message`, perhaps a time and level). */
  anonymous: boolean;
  time: number | null;
  timeResolution: ReturnType<typeof fractionResolution> | null;
  timeIsUtc: boolean;
  level: string | null;
  logger: string | null;
  file: string | null;
  lineno: number | null;
  func: string | null;
  pid: number | null;
  /** The engine's own process name (a `<engine>_process_name` field its record factory adds), else Python's unless the main process. */
  process: string | null;
  /** The message's first line (a traceback goes in `exc_info`, beside it). */
  message: string;
}

const STAMP = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$/;
const LEVELS: Record<string, string> = {
  DEBUG: 'DEBUG', INFO: 'INFO', WARNING: 'WARNING', WARN: 'WARNING', ERROR: 'ERROR', CRITICAL: 'CRITICAL', FATAL: 'CRITICAL',
};

// uvicorn's access record as a formatter printing only `record.getMessage()` writes it: `'%s - "%s %s HTTP/%s" %d'`
// with the client as `host:port` (uvicorn.logging.AccessFormatter adds the level prefix and the status phrase only in
// its own formatter). A record naming no logger with this message is uvicorn's, as one naming `uvicorn.access` is.
const UVICORN_ACCESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]+|\[[0-9A-Fa-f:]+\]|[\w.-]+):\d{1,5} - "[A-Z]{3,7} \S+ HTTP\/\d(?:\.\d)?" \d{3}$/;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function intOf(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : null;
  return typeof v === 'string' && /^\d{1,9}$/.test(v) ? Number(v) : null;
}

/**
 * The line read as a Python logging record in JSON whose logger (or path) is an engine's, or
 * uvicorn's (engine null: the server the engine runs), or one that names neither (anonymous: whose it is
 * is the message's to say); null when it is none: another program's JSON, a record without a message.
 */
export function pythonJsonLine(s: string): PythonJsonLine | null {
  if (s.indexOf('"message"') < 0 || s.charCodeAt(s.length - 1) !== 125 /* } */) return null;
  let o: unknown;
  try { o = JSON.parse(s); } catch { return null; }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return null;
  const r = o as Record<string, unknown>;
  const raw = r.message;
  if (typeof raw !== 'string') return null;
  const logger = str(r.name) ?? str(r.logger) ?? str(r.logger_name);
  const path = str(r.pathname);
  const engine = (logger !== null ? engineOf(logger) : null) ?? (path !== null ? engineOf(path) : null);
  const nl = raw.indexOf('\n');
  const message = (nl < 0 ? raw : raw.slice(0, nl)).replace(/\r$/, '');
  const uvicorn = logger !== null ? /^uvicorn(?:\.|$)/.test(logger) : path === null && UVICORN_ACCESS.test(message);
  const anonymous = logger === null && path === null && !uvicorn;
  if (engine === null && !anonymous && !uvicorn) return null;
  const levelName = str(r.levelname) ?? str(r.level);
  const level = levelName !== null ? LEVELS[levelName.toUpperCase()] ?? null : null;
  let time: number | null = null;
  let timeResolution: PythonJsonLine['timeResolution'] = null;
  let timeIsUtc = false;
  const stamp = str(r.asctime) ?? str(r.timestamp) ?? str(r.time);
  const m = stamp !== null ? STAMP.exec(stamp) : null;
  if (m) {
    // logging's asctime is the server's wall clock (no zone), as the text headers print it.
    time = zoned(stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]), m[8]);
    if (Number.isNaN(time)) time = null;
    timeResolution = fractionResolution(m[7]);
    timeIsUtc = m[8] !== undefined;
  }
  const pyProcess = str(r.processName);
  const own = Object.keys(r).find((k) => k.endsWith('_process_name'));
  return {
    engine, anonymous, time, timeResolution, timeIsUtc, level, logger,
    file: str(r.filename) ?? path, lineno: intOf(r.lineno), func: str(r.funcName), pid: intOf(r.process),
    process: (own !== undefined ? str(r[own]) : null) ?? (pyProcess !== null && pyProcess !== 'MainProcess' ? pyProcess : null),
    message,
  };
}
