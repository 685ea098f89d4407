// Which of the logs open in the editor go on a request's timeline, and which request the line
// at the cursor belongs to. The editor's sessions already hold each open log's request index,
// so no file is read here, nor for the timeline of open logs (requestLogs.ts reads their sessions).
//
// A deployment's logs are of three kinds for one request:
//   - logs that name it (an API server, a prefill or decode instance, a router): on the timeline;
//   - server logs that name no request at all (an engine core at INFO, a worker) of the same
//     engine, whose lines span the request's time: the same run, joined by time and pid (batch
//     lines, call traces): on it too. Another engine's, or one from another hour, is offered;
//   - logs that name other requests only (another run or another server), and files that are no
//     server log (a call-trace file, a build log opened as `.log`): left out, offered.
import type { Engine, LogRecord } from '../logs/model';
import { keyMatcher, queryKeys, requestKey } from './requestKey';
import { routerLineOf } from './routerLog';
import { engineProfile, isEngine } from '../../engines/registry';

/** What the editor's session of an open log can tell without reading the file again. */
export interface OpenLogView {
  /** The file on disk (the timeline reads it from there unless it is open). */
  path: string;
  engine: Engine | null;
  tracker: { rids(): Iterable<string>; readonly requestCount: number; brief(rid: string): { firstTime: number | null } | null };
  /** The session's records, when it keeps them (router lines are found among them). */
  records: readonly (LogRecord | undefined)[];
}

export type LogChoiceReason = 'names-request' | 'names-no-request' | 'not-this-run' | 'other-requests' | 'not-a-server-log';

/**
 * How far a log that names no request may start after, or end before, the request's first stamp
 * and still be taken for the same run: hosts' clocks differ by seconds, an engine core prints a
 * line at start and then only while it works.
 */
const SAME_RUN_SLACK_MS = 10 * 60_000;

export interface TimelineLogChoice {
  path: string;
  /** The ids this log knows the request by (empty when it does not name it). */
  ids: string[];
  reason: LogChoiceReason;
  /** On the timeline unless the user says otherwise. */
  picked: boolean;
}

/** The request a record names: its request id, or the request_id of a router line. */
export function requestIdOfRecord(rec: LogRecord | undefined): string | null {
  if (!rec) return null;
  if (rec.rid !== null) return rec.rid;
  return routerLineOf(rec)?.requestId ?? null;
  return null;
}

/** Router lines carry no rid in the session's index: they are looked for among its records. */
/** The first and last stamp of the records (null: none, or the session keeps no records). */
function timeRange(records: OpenLogView['records']): { first: number; last: number } | null {
  let first: number | null = null, last: number | null = null;
  for (let i = 0; i < records.length && first === null; i++) first = records[i]?.time ?? null;
  for (let i = records.length - 1; i >= 0 && last === null; i--) last = records[i]?.time ?? null;
  return first !== null && last !== null ? { first, last } : null;
}

function routerIds(log: OpenLogView): Set<string> {
  const out = new Set<string>();
  // An engine with no router of its own (no Rust crates) prints no router lines.
  if (log.engine !== null && isEngine(log.engine) && engineProfile(log.engine).rustCrates === undefined) return out;
  for (const rec of log.records) {
    if (!rec) continue;
    const id = routerLineOf(rec)?.requestId;
    if (id) out.add(id);
  }
  return out;
}

/**
 * Every open log once (by path), each with why it is or is not picked: those that name the
 * request first, then those that name none, then the rest (each group in the order given). `query` is any id of the request, as the timeline takes it.
 */
export function timelineLogChoices(open: readonly OpenLogView[], query: string): TimelineLogChoice[] {
  const keys = queryKeys(query);
  const match = keyMatcher(keys);
  const seen = new Set<string>();
  const named: TimelineLogChoice[] = [];
  const rest: TimelineLogChoice[] = [];
  const silent: OpenLogView[] = [];
  const engines = new Set<Engine>();
  const times: number[] = [];
  for (const log of open) {
    if (seen.has(log.path)) continue;
    seen.add(log.path);
    const router = routerIds(log);
    const ids: string[] = [];
    for (const rid of log.tracker.rids()) if (match(rid) !== null) ids.push(rid);
    for (const rid of router) if (match(rid) !== null && !ids.includes(rid)) ids.push(rid);
    if (ids.length) {
      named.push({ path: log.path, ids, reason: 'names-request', picked: true });
      if (log.engine) engines.add(log.engine);
      for (const id of ids) { const t = log.tracker.brief(id)?.firstTime; if (t !== null && t !== undefined) times.push(t); }
      continue;
    }
    if (log.tracker.requestCount > 0 || router.size > 0) rest.push({ path: log.path, ids, reason: 'other-requests', picked: false });
    else if (log.engine === null) rest.push({ path: log.path, ids, reason: 'not-a-server-log', picked: false });
    else silent.push(log);
  }
  for (const log of silent) {
    const range = timeRange(log.records);
    const sameTime = times.length === 0 || range === null
      || times.some((t) => t >= range.first - SAME_RUN_SLACK_MS && t <= range.last + SAME_RUN_SLACK_MS);
    const sameRun = log.engine !== null && engines.has(log.engine) && sameTime;
    rest.push({ path: log.path, ids: [], reason: sameRun ? 'names-no-request' : 'not-this-run', picked: sameRun });
  }
  // Picked ones first: the logs that name the request, then those that name none.
  return [...named, ...rest.filter((c) => c.picked), ...rest.filter((c) => !c.picked)];
}

/** The choice's reason in words, for a pick list. */
export function logChoiceText(c: TimelineLogChoice): string {
  switch (c.reason) {
    case 'names-request': return `has this request (${c.ids.join(', ')})`;
    case 'names-no-request': return 'names no request (an engine core or worker of the run?): joined by time and pid';
    case 'not-this-run': return 'names no request; another engine, or not at the request\'s time';
    case 'other-requests': return 'other requests only';
    case 'not-a-server-log': return 'no vLLM, SGLang or router line';
  }
}

/** Whether the client's request (the id HopLens sent) is the one asked for. */
export function isSameRequest(query: string, clientRequestId: string): boolean {
  return queryKeys(query).includes(requestKey(clientRequestId));
}

/**
 * The request whose timeline a log line offers (a lens): its id when the record at the 0-based
 * `line` (`part`: a record pasted onto it) is the first hop line of that request in the log, so
 * a request offers it once however many lines it printed; null on any other line, and on a line
 * naming several requests (a batch).
 */
export function timelineRequestAt(log: { record(line: number, part?: number): LogRecord | undefined; tracker: { firstLine(rid: string): number | null } },
  line: number, part = 1): string | null {
  const rec = log.record(line, part);
  if (!rec || rec.hop === null || rec.continuation || rec.engine === 'other' || rec.rid === null || (rec.rids?.length ?? 0) > 1) return null;
  if (log.tracker.firstLine(rec.rid) !== rec.line) return null;
  // Records pasted onto one line: the first that names the request offers it.
  for (let p = 1; p < part; p++) if (log.record(line, p)?.rid === rec.rid) return null;
  return rec.rid;
}
