// vLLM's header grammar: its header in every version (with the year, fraction and full path a
// logging config adds), behind a VLLM_LOGGING_PREFIX, stripped by a relay, and after another tool's
// stamp. The shapes are vLLM's profile (src/engines/vllm/lines.ts); this reads them into a record.
import { stampUtc } from './civilTime';
import type { LogRecord } from './model';
import type { ParseState } from './parseState';
import { matchHop } from '../../engines/index';
import { LEVEL_DATE, LOGGING_PREFIX_WINDOW, STRIPPED_VLLM, UVICORN, VLLM_HEADER, VLLM_HEADER_LONG, VLLM_PREFIX } from '../../engines/vllm/lines';
import { fractionMs, fractionResolution, inferYear } from './outerPrefix';
import { nextRecordAt } from './onOneLine';

/**
 * `[file.py:N] message`: vLLM's line behind a relay that stripped its level and stamp; rec filled.
 * Known to be relayed (`relayed`), or printing one of vLLM's hops, or in a log forced to vLLM.
 */
export function parseStrippedVllm(s: string, rec: LogRecord, state: ParseState, relayed: boolean): boolean {
  const m = STRIPPED_VLLM.exec(s);
  if (!m) return false;
  const message = s.slice(m[0].length);
  if (!relayed && state.forced !== 'vllm' && matchHop('vllm', message, m[1], 'vllm-relayed', nextRecordAt) === null) return false;
  rec.engine = 'vllm'; rec.format = 'vllm-relayed';
  rec.fileinfo = m[1]; rec.lineno = Number(m[2]);
  rec.message = message;
  return true;
}


/** The header after a VLLM_LOGGING_PREFIX (a few characters after the process prefix); rec filled. */
export function parseAfterLoggingPrefix(s: string, rec: LogRecord, state: ParseState): boolean {
  const m = LEVEL_DATE.exec(s.length > LOGGING_PREFIX_WINDOW + 40 ? s.slice(0, LOGGING_PREFIX_WINDOW + 40) : s);
  if (!m || m.index === 0 || m.index > LOGGING_PREFIX_WINDOW) return false;
  const level = rec.level;
  if (parseVllmHeader(s.slice(m.index), rec, state) && rec.format !== 'uvicorn') return true;
  rec.level = level;
  return false;
}

export function parseVllmHeader(s: string, rec: LogRecord, state: ParseState): boolean {
  let m = VLLM_HEADER.exec(s);
  if (m) {
    rec.engine = 'vllm';
    rec.format = m[7] ? 'vllm' : 'vllm-legacy';
    rec.level = m[1];
    const key = s.substr(m[1].length + 1, 14);
    if (key !== state.stampKey) {
      const month = Number(m[2]);
      const year = inferYear(state, month, Number(m[3]));
      state.stampKey = key;
      state.stampValue = stampUtc(year, month, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
    }
    rec.time = state.stampValue; rec.timeResolution = 's';
    rec.fileinfo = m[8]; rec.lineno = Number(m[9]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = VLLM_HEADER_LONG.exec(s);
  // Without vLLM's bracket, a dated `file.py:N]` is a layout other tools copied: only with evidence it is vLLM's.
  if (m && !m[9] && (m[2] || /\s/.test(m[10])) && state.forced !== 'vllm' && state.detected !== 'vllm' && !/(?:^|\/)vllm\//.test(m[10])) m = null;
  if (m) {
    rec.engine = 'vllm';
    // A year or a fraction of a second: a logging config's layout (ours, or the user's).
    rec.format = m[2] || m[8] ? 'vllm-hoplens' : 'vllm';
    rec.level = m[1];
    const month = Number(m[3]);
    const year = m[2] ? Number(m[2]) : inferYear(state, month, Number(m[4]));
    rec.time = stampUtc(year, month, Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])) + fractionMs(m[8]);
    rec.timeResolution = fractionResolution(m[8]);
    rec.fileinfo = m[10]; rec.lineno = Number(m[11]);
    rec.message = s.slice(m[0].length);
    return true;
  }
  m = UVICORN.exec(s);
  if (m) {
    rec.format = 'uvicorn'; rec.level = m[1];
    if (rec.engine === 'other') rec.engine = state.forced ?? state.detected ?? 'other';
    if (rec.role === null && rec.engine !== 'other') rec.role = 'api-server';
    rec.message = s.slice(m[0].length);
    return true;
  }
  return false;
}


/**
 * A bracketed time with no rank tag, then vLLM's process prefix or header: another tool's stamp
 * (`ts '[%Y-%m-%d %H:%M:%S]'`, a launcher, a CI log) in front of a vLLM line, not an SGLang line.
 */
export function vllmFollows(s: string, at: number, state: ParseState): boolean {
  if (state.forced === 'sglang') return false;
  // A launcher's script may indent what it relays: `[2026-01-26 16:56:13]      INFO 01-26 …`.
  while (at < s.length && (s.charCodeAt(at) === 32 || s.charCodeAt(at) === 9) && at < 80) at++;
  const c = s.charCodeAt(at);
  if (c === 40 /* ( */) return VLLM_PREFIX.test(s.slice(at, at + 120));
  return (c === 73 || c === 68 || c === 87 || c === 69 || c === 67) && VLLM_HEADER.test(s.slice(at, at + 200));
}
