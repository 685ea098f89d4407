// A record's hop: the hop a message matched tagged on the record with its role, process and
// request ids, and a hop line a terminal wrapped onto the next lines joined to find its id.
import type { Engine, LogRecord } from './model';
import type { ParseState } from './parseState';
import { fitsWhole, matchHop, type HopMatch } from '../../engines/index';
import { LEVELS } from '../../engines/lineShapes';
import { engineProfile } from '../../engines/registry';
import { normaliseRid, splitIdList } from './requestIds';

/**
 * Tags `rec` with the hop `hm` matched: the hop, its role and (SGLang) its process where the line
 * names none, and its request id, or every id of a list (`Aborted request(s) a,b.`, SGLang's batch
 * `rid=['a', 'b']`). Returns the single id as printed, if the hop names one.
 */
export function tagHop(rec: LogRecord, hm: HopMatch): string | undefined {
  const hop = hm.hop;
  const engine = rec.engine as Engine;
  rec.hop = hop.id;
  if (rec.role === null) rec.role = hop.role;
  if (rec.process === null) {
    const processOf = engineProfile(engine).processOfRole;
    if (processOf) rec.process = processOf(hop.role);
  }
  const kind = hop.ridKind;
  if (!kind) return undefined;
  const g = hm.groups;
  if (g.rids) {
    const ids = [...new Set(splitIdList(g.rids).map((id) => normaliseRid(engine, id, kind)))];
    rec.rid = ids[0] ?? null;
    if (ids.length > 1) rec.rids = ids;
    return undefined;
  }
  const raw = g.rid ?? g.internal_rid;
  if (raw) rec.rid = normaliseRid(engine, raw, kind);
  return raw;
}

// The next line of a paste that wrapped a long line: no header of its own.
const RECORD_START = new RegExp(`^(?:\\(|\\[|\\d{4}-\\d\\d-|(?:${LEVELS})[ :])`);
const WRAP_LINES = 3;

/**
 * A hop line a terminal or an editor wrapped onto the next lines (`… engine.py:297] Added request` /
 * `chat-0277….`): the hop and its id from the message with its continuation, cut at any character
 * or between words. Only when the joined text fits one of the hop's own patterns whole.
 */
export function joinWrapped(rec: LogRecord, msg: string, state: ParseState): void {
  const ahead = state.ahead!(1024);
  let joined = msg;
  let from = 0;
  for (let i = 0; i < WRAP_LINES && from < ahead.length; i++) {
    let nl = ahead.indexOf('\n', from);
    if (nl < 0) nl = ahead.length;
    let next = ahead.slice(from, nl);
    from = nl + 1;
    if (next.charCodeAt(next.length - 1) === 13) next = next.slice(0, -1);
    next = next.trimEnd();
    if (next.length === 0 || RECORD_START.test(next)) return;
    for (const text of [joined + next, `${joined} ${next}`]) {
      const hm = matchHop(rec.engine as Engine, text, rec.fileinfo, rec.format);
      if (hm === null || (rec.hop !== null && hm.hop.id !== rec.hop) || !fitsWhole(hm.hop, text)) continue;
      tagHop(rec, hm);
      return;
    }
    joined = `${joined}${next}`;
  }
}
