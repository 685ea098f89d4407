// Find one request in the fleet: ask every configured trace store (by its request id, or by the
// trace id a traced request sent) and every log store (its lines, filtered in the store) at once,
// and give back whatever answered, with a plain reason for each store that did not. One store down
// or slow never hides the others' results. The entry point for the CLI's `--traces/--logs` and
// the editor's "Find Request in the Fleet…".
import type { OtlpSpan } from '../otlp/types';
import { FleetError } from './http';
import { JaegerClient } from './jaeger';
import { LokiClient } from './loki';
import {
  DEFAULT_LINE_LIMIT, type ClientOptions, type LogStoreClient, type RemoteLogStream, type StoreEndpoint, type TimeWindow, type TraceStoreClient,
} from './model';
import { logSearchTerms, namesRequestText } from './requestIds';
import { askedTransferIds, pairsInTexts } from '../logs/transferIds';
import { TempoClient } from './tempo';
import { VictoriaLogsClient } from './victoriaLogs';

export function traceStoreClient(endpoint: StoreEndpoint, opts?: ClientOptions): TraceStoreClient {
  if (endpoint.kind === 'jaeger') return new JaegerClient(endpoint, opts);
  if (endpoint.kind === 'tempo') return new TempoClient(endpoint, opts);
  throw new FleetError('bad-url', `${endpoint.kind}+… is a log store, not a trace store (--traces takes jaeger+… or tempo+…)`);
}

export function logStoreClient(endpoint: StoreEndpoint, opts?: ClientOptions): LogStoreClient {
  if (endpoint.kind === 'victorialogs') return new VictoriaLogsClient(endpoint, opts);
  if (endpoint.kind === 'loki') return new LokiClient(endpoint, opts);
  throw new FleetError('bad-url', `${endpoint.kind}+… is a trace store, not a log store (--logs takes victorialogs+… or loki+…)`);
}

export interface FleetQuery {
  /** The request id as the user has it (client id, chatcmpl-…, an engine id, SGLang rid). */
  requestId?: string;
  /** A W3C trace id (Send Traced Request's traceparent). */
  traceId?: string;
  traces: readonly StoreEndpoint[];
  logs: readonly StoreEndpoint[];
  window: TimeWindow;
  /** Stream selector for the log stores (Loki requires one). */
  selector?: string;
  lineLimit?: number;
  pageSize?: number;
  signal?: AbortSignal;
  /** Transport, credentials and bounds per store. */
  clientOptions?: (endpoint: StoreEndpoint) => ClientOptions;
}

export interface StoreProblem { endpoint: StoreEndpoint; kind: FleetError['kind'] | 'error'; message: string }

export interface StoreLogStreams { endpoint: StoreEndpoint; streams: RemoteLogStream[]; truncated: boolean }

export interface FleetResult {
  spans: OtlpSpan[];
  traceIds: string[];
  logs: StoreLogStreams[];
  problems: StoreProblem[];
  /** What was asked of each store, in words (for "nothing found" and the report). */
  asked: string[];
  /** Something was cut by the line limit. */
  truncated: boolean;
  /** How far the search went where it did not go everywhere (a capped fan-out, lines cut by the limit), in words. */
  notes: string[];
}

function problemOf(endpoint: StoreEndpoint, e: unknown): StoreProblem {
  if (e instanceof FleetError) return { endpoint, kind: e.kind, message: `${endpoint.kind} at ${endpoint.baseUrl}: ${e.message}` };
  return { endpoint, kind: 'error', message: `${endpoint.kind} at ${endpoint.baseUrl}: ${(e as Error).message ?? String(e)}` };
}

export async function findRequestInFleet(q: FleetQuery): Promise<FleetResult> {
  if (!q.requestId?.trim() && !q.traceId?.trim()) throw new FleetError('bad-url', 'give a request id or a trace id to look for');
  const result: FleetResult = { spans: [], traceIds: [], logs: [], problems: [], asked: [], truncated: false, notes: [] };
  const ids = q.requestId?.trim() ? [q.requestId.trim()] : [];
  const terms = ids.flatMap(logSearchTerms);
  const traceJobs = q.traces.map(async (endpoint) => {
    try {
      const client = traceStoreClient(endpoint, q.clientOptions?.(endpoint));
      const answers = [];
      if (q.traceId?.trim()) answers.push(await client.findByTraceId(q.traceId.trim(), q.signal));
      if (ids.length) answers.push(await client.findByRequestId(ids, q.window, q.signal));
      for (const a of answers) {
        result.asked.push(a.query);
        for (const n of a.notes ?? []) if (!result.notes.includes(n)) result.notes.push(n);
        for (const id of a.traceIds) if (!result.traceIds.includes(id)) result.traceIds.push(id);
        const have = new Set(result.spans.map((s) => `${s.traceId}/${s.spanId}`));
        for (const s of a.spans) if (!have.has(`${s.traceId}/${s.spanId}`)) { result.spans.push(s); have.add(`${s.traceId}/${s.spanId}`); }
      }
    } catch (e) {
      result.problems.push(problemOf(endpoint, e));
    }
  });
  const limit = Math.max(1, q.lineLimit ?? DEFAULT_LINE_LIMIT);
  const logJobs = (terms.length ? q.logs : []).map(async (endpoint) => {
    try {
      const a = await logStoreClient(endpoint, q.clientOptions?.(endpoint)).requestLines(terms, q.window, {
        selector: q.selector, limit, pageSize: q.pageSize, signal: q.signal,
      });
      result.asked.push(a.query);
      result.logs.push({ endpoint, streams: a.streams, truncated: a.truncated });
      if (a.truncated) {
        result.truncated = true;
        result.notes.push(`${endpoint.kind} at ${endpoint.baseUrl} had more lines than the limit of ${limit}: `
          + `the newest ${a.lines} were fetched, older ones not`);
      }
    } catch (e) {
      result.problems.push(problemOf(endpoint, e));
    }
  });
  await Promise.all([...traceJobs, ...logJobs]);
  if (ids.length) await askByTransferIds(q, ids[0], result, limit);
  return result;
}

/** Most transfer ids a second search asks for (a request has one room; a few retries more). */
const MAX_TRANSFER_IDS = 8;

/**
 * A store is searched by text, and a line naming only the request's transfer id (SGLang's
 * bootstrap_room) does not hold the request id: when the lines found pair the request with a
 * room, each store that answered is asked once more, for the room, in the same window with the
 * same limit, and what it adds joins the streams (the timeline and the Requests view then join
 * those lines to the request as they do for files).
 */
async function askByTransferIds(q: FleetQuery, requestId: string, result: FleetResult, limit: number): Promise<void> {
  const names = namesRequestText(requestId);
  const texts = function* (): Iterable<string> { for (const l of result.logs) for (const s of l.streams) for (const e of s.entries) yield e.text; };
  const rooms = askedTransferIds(pairsInTexts(texts(), names));
  if (rooms.length === 0) return;
  const asked = rooms.slice(0, MAX_TRANSFER_IDS);
  if (rooms.length > asked.length) result.notes.push(`the request's lines name ${rooms.length} transfer ids: asked for the first ${asked.length}`);
  await Promise.all(result.logs.map(async (got) => {
    try {
      const a = await logStoreClient(got.endpoint, q.clientOptions?.(got.endpoint)).requestLines(asked, q.window, {
        selector: q.selector, limit, pageSize: q.pageSize, signal: q.signal,
      });
      result.asked.push(`${a.query} (the transfer id its lines paired with the request)`);
      got.streams = mergeStreams(got.streams, a.streams);
      if (a.truncated) {
        result.truncated = true; got.truncated = true;
        result.notes.push(`${got.endpoint.kind} at ${got.endpoint.baseUrl} had more lines naming ${asked.join(', ')} than the limit of ${limit}`);
      }
    } catch (e) {
      result.problems.push(problemOf(got.endpoint, e));
    }
  }));
}

/** `more`'s entries added to `streams` (by their labels), each entry once, each stream oldest first. */
function mergeStreams(streams: RemoteLogStream[], more: readonly RemoteLogStream[]): RemoteLogStream[] {
  const key = (s: RemoteLogStream): string => JSON.stringify(Object.keys(s.labels).sort().map((k) => [k, s.labels[k]]));
  const byKey = new Map(streams.map((s) => [key(s), s]));
  for (const m of more) {
    const s = byKey.get(key(m));
    if (s === undefined) { byKey.set(key(m), { ...m, entries: [...m.entries] }); continue; }
    const seen = new Set(s.entries.map((e) => `${e.timeNs}\u0000${e.text}`));
    for (const e of m.entries) if (!seen.has(`${e.timeNs}\u0000${e.text}`)) s.entries.push(e);
    s.entries.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
  }
  return [...byKey.values()].sort((a, b) => a.name.localeCompare(b.name));
}

export function foundAnything(r: FleetResult): boolean {
  return r.spans.length > 0 || r.logs.some((l) => l.streams.some((s) => s.entries.length > 0));
}
