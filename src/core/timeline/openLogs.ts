// Which of the logs open in the editor go on a request's timeline, and which request the line
// at the cursor belongs to. The editor's sessions already hold each open log's request index,
// so no file is read here, nor for the timeline of open logs (requestLogs.ts reads their sessions).
//
// A deployment's logs are of three kinds for one request:
//   - logs that name it (an API server, a prefill or decode instance, a router): on the timeline;
//     so is a P/D instance's log that names it only by its KV transfer id (SGLang's bootstrap_room)
//     when another open log's line pairs that id with it, and the log of that pairing line;
//   - server logs that name no request at all (an engine core at INFO, a worker) of the same
//     engine, whose lines span the request's time: the same run, joined by time and pid (batch
//     lines, call traces): on it too. Another engine's, or one from another hour, is offered;
//   - logs that name other requests only (another run or another server), and files that are no
//     server log (a call-trace file, a build log opened as `.log`): left out, offered.
import type { Engine, LogRecord } from '../logs/model';
import { keyMatcher, queryKeys, requestKey } from './requestKey';
import { routerLineOf } from './routerLog';
import { engineProfile, isEngine } from '../../engines/registry';
import { LogTransferJoins } from '../logs/transferJoin';
import { SHARED_THREAD, type Pace } from '../session/pace';

/** What the editor's session of an open log can tell without reading the file again. */
export interface OpenLogView {
  /** The file on disk (the timeline reads it from there unless it is open). */
  path: string;
  engine: Engine | null;
  tracker: { rids(): Iterable<string>; readonly requestCount: number; brief(rid: string): { firstTime: number | null } | null };
  /** The session's records, when it keeps them (router lines are found among them). */
  records: readonly (LogRecord | undefined)[];
}

export type LogChoiceReason = 'names-request' | 'names-transfer-id' | 'names-no-request' | 'not-this-run' | 'other-requests' | 'not-a-server-log';

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
  /**
   * For 'names-transfer-id': the transfer ids it names the request by (`bootstrap_room N`) and the
   * logs whose lines pair them with the request.
   */
  joinedBy?: { ids: string[]; pairedIn: string[] };
}

/** What the open logs' transfer ids say of the request: the logs naming it only by one, and the logs pairing those with it. */
interface TransferChoice {
  key: string;
  alone: Map<string, { ids: string[]; pairedIn: string[] }>;
  pairing: Set<string>;
}

/** The logs of an engine with transfer ids (SGLang) whose session keeps records, each once. */
function transferLogs(logs: readonly OpenLogView[]): OpenLogView[] {
  const seen = new Set<string>();
  return logs.filter((l) => l.engine !== null && isEngine(l.engine) && engineProfile(l.engine).transferIds !== undefined && l.records.length > 0
    && !seen.has(l.path) && seen.add(l.path));
}

/**
 * Reads the open logs' lines for transfer ids ahead of timelineLogChoices, a slice of the pace's
 * budget at a time with a turn of the event loop between (a 300,000-line SGLang log takes about
 * 0.3 s the first time), so that the choice then costs no more than without them.
 */
export async function readOpenTransferIds(open: readonly OpenLogView[], joins: LogTransferJoins, pace: Pace = SHARED_THREAD): Promise<void> {
  const records = transferLogs(open).map((l) => l.records);
  if (records.length === 0) return;
  while (joins.across(records, '', pace.budgetMs) === 'reading') await pace.turn();
}

/**
 * The open logs of an engine with transfer ids (SGLang) read for lines naming only one that a
 * line of any of them pairs with the request alone (the first of `keys` with such lines); null
 * when none. `joins` keeps each log's reading between calls (the editor's command holds one).
 */
function transferChoice(logs: readonly OpenLogView[], keys: readonly string[], joins: LogTransferJoins): TransferChoice | null {
  const withIds = transferLogs(logs);
  if (withIds.length === 0) return null;
  const records = withIds.map((l) => l.records);
  for (const key of keys) {
    const found = joins.across(records, key);
    if (found === 'reading' || found.every((j) => j === null)) continue;
    const alone = new Map<string, { ids: string[]; pairedIn: string[] }>();
    const pairing = new Set<string>();
    found.forEach((j, i) => {
      if (j === null) return;
      const ids: string[] = [];
      const pairedIn: string[] = [];
      for (const line of j.lines) {
        const id = `${j.label} ${line.id}`;
        if (!ids.includes(id)) ids.push(id);
        for (const p of line.pairedIn) {
          pairing.add(withIds[p].path);
          if (!pairedIn.includes(withIds[p].path)) pairedIn.push(withIds[p].path);
        }
      }
      alone.set(withIds[i].path, { ids, pairedIn });
    });
    return { key, alone, pairing };
  }
  return null;
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
export function timelineLogChoices(open: readonly OpenLogView[], query: string, joins = new LogTransferJoins(requestKey)): TimelineLogChoice[] {
  const keys = queryKeys(query);
  const match = keyMatcher(keys);
  const byPath = new Map<string, OpenLogView>();
  for (const log of open) if (!byPath.has(log.path)) byPath.set(log.path, log);
  const transfer = transferChoice([...byPath.values()], keys, joins);
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
    // A line of it names the request's rid beside the transfer id another log's lines name alone.
    if (ids.length === 0 && transfer?.pairing.has(log.path)) ids.push(transfer.key);
    if (ids.length) {
      named.push({ path: log.path, ids, reason: 'names-request', picked: true });
      if (log.engine) engines.add(log.engine);
      for (const id of ids) { const t = log.tracker.brief(id)?.firstTime; if (t !== null && t !== undefined) times.push(t); }
      continue;
    }
    const joinedBy = transfer?.alone.get(log.path);
    if (joinedBy) {
      named.push({ path: log.path, ids, reason: 'names-transfer-id', picked: true, joinedBy });
      if (log.engine) engines.add(log.engine);
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
    case 'names-transfer-id': {
      const by = c.joinedBy;
      const where = by?.pairedIn.map((p) => p.split(/[\\/]/).pop() ?? p).join(', ');
      return `names it only by ${by?.ids.join(', ') ?? 'its transfer id'}${where ? `, which a line of ${where} pairs with it` : ''}`;
    }
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
