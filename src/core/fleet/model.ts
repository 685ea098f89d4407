// What the fleet clients take and give: a store named by a URL with its kind
// (`jaeger+http://host:16686`, `victorialogs+https://…`), a time window, and their answers —
// spans decoded as OTLP spans, log lines as streams that keep their labels (namespace, pod,
// container) and the store's own timestamp, so each pod can be its own lane on the timeline.
import type { OtlpSpan } from '../otlp/types';
import { FleetError, type FleetCredentials, type HttpTransport } from './http';

export type TraceStoreKind = 'jaeger' | 'tempo';
export type LogStoreKind = 'victorialogs' | 'loki';
export type StoreKind = TraceStoreKind | LogStoreKind;

export interface StoreEndpoint {
  kind: StoreKind;
  /** http(s)://host:port[/path] without a trailing slash. */
  baseUrl: string;
}

const KINDS: readonly StoreKind[] = ['jaeger', 'tempo', 'victorialogs', 'loki'];

/** `kind+http(s)://host:port[/path]` → endpoint; throws FleetError('bad-url') with the accepted forms. */
export function parseStoreUrl(spec: string): StoreEndpoint {
  const s = spec.trim();
  const m = /^([a-z]+)\+(https?:\/\/.+)$/i.exec(s);
  const forms = 'jaeger+http://host:16686, tempo+http://host:3200, victorialogs+http://host:9428, loki+http://host:3100 (or https)';
  if (!m) throw new FleetError('bad-url', `"${spec}" is not a store URL: expected ${forms}`);
  const kind = m[1].toLowerCase() as StoreKind;
  if (!KINDS.includes(kind)) throw new FleetError('bad-url', `unknown store kind "${m[1]}" in "${spec}": expected ${forms}`);
  let url: URL;
  try {
    url = new URL(m[2]);
  } catch {
    throw new FleetError('bad-url', `"${spec}" has no valid address after "${m[1]}+"`);
  }
  if (url.username || url.password) {
    throw new FleetError('bad-url', `"${kind}+${url.protocol}//${url.host}": credentials do not go in the URL; pass them as a token or user/password setting`);
  }
  if (url.search || url.hash) throw new FleetError('bad-url', `"${spec}": the store URL takes no query string`);
  return { kind, baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

export function isTraceStore(e: StoreEndpoint): e is StoreEndpoint & { kind: TraceStoreKind } {
  return e.kind === 'jaeger' || e.kind === 'tempo';
}

/** [startMs, endMs] the store is asked over. */
export interface TimeWindow { startMs: number; endMs: number }

export interface ClientOptions {
  transport?: HttpTransport;
  credentials?: FleetCredentials;
  /** Per HTTP call. */
  timeoutMs?: number;
  /** Per HTTP answer. */
  maxBytes?: number;
  /** Jaeger: services asked for a request id in all (the likeliest first), and searches in flight at once. */
  maxServices?: number;
  parallelSearches?: number;
  /** Jaeger: no search of the fan-out starts after this long (ms). */
  fanOutBudgetMs?: number;
  /** Search these services only (hoplens.traces.queryService): Jaeger without asking /api/services, Tempo in its TraceQL; unset: every service. */
  services?: readonly string[];
}

export interface TraceAnswer {
  spans: OtlpSpan[];
  traceIds: string[];
  /** Which queries ran, in words ("Jaeger at …: tag gen_ai.request.id=… in 3 services"). */
  query: string;
  /** What a user should know about how far the search went (services not asked). */
  notes?: string[];
}

export interface TraceStoreClient {
  readonly endpoint: StoreEndpoint;
  /** The spans of the traces whose spans carry one of `requestIds` (vLLM's gen_ai.request.id, SGLang's rid). */
  findByRequestId(requestIds: readonly string[], window: TimeWindow, signal?: AbortSignal): Promise<TraceAnswer>;
  findByTraceId(traceId: string, signal?: AbortSignal): Promise<TraceAnswer>;
}

export interface RemoteLogEntry {
  /** The store's timestamp (ns since the epoch). */
  timeNs: bigint;
  text: string;
}

/** One stream of a store (a pod's container, typically), its lines oldest first. */
export interface RemoteLogStream {
  labels: Record<string, string>;
  /** A short name for the stream: the pod when labelled, else the stream's labels. */
  name: string;
  entries: RemoteLogEntry[];
}

export interface LogAnswer {
  streams: RemoteLogStream[];
  /** Lines found in all. */
  lines: number;
  /** True when the line limit cut the answer (older lines were not fetched). */
  truncated: boolean;
  query: string;
}

/** Lines a log store is asked for at most, per search, unless the user says otherwise. */
export const DEFAULT_LINE_LIMIT = 20_000;
/** The most a user may ask for (`--limit`, hoplens.fleet.lineLimit, Fetch More). */
export const MAX_LINE_LIMIT = 1_000_000;

export interface LogQueryOptions {
  /** A stream selector in the store's language, e.g. {namespace="serving"}. */
  selector?: string;
  /** Most lines returned (whole answer, across pages). */
  limit?: number;
  /** Lines per page (each a separate call). */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface LogStoreClient {
  readonly endpoint: StoreEndpoint;
  /** Every line naming one of the ids (each id as the store is to search it), within the window. */
  requestLines(ids: readonly string[], window: TimeWindow, opts?: LogQueryOptions): Promise<LogAnswer>;
}

/** The label that names a stream on a timeline lane: pod first, as the per-pod offsets need. */
export function streamName(labels: Record<string, string>): string {
  for (const k of ['pod', 'k8s.pod.name', 'pod_name', 'kubernetes.pod_name', 'kubernetes_pod_name', 'instance', 'host', 'hostname', 'service_name', 'job']) {
    const v = labels[k];
    if (v) return labels.container && k === 'pod' ? `${v}/${labels.container}` : v;
  }
  const keys = Object.keys(labels).sort();
  return keys.length ? keys.map((k) => `${k}=${labels[k]}`).join(',') : '(no labels)';
}

/** Groups entries by their labels (as a store's answer arrives in pages), each stream oldest first. */
export function groupStreams(items: Iterable<{ labels: Record<string, string>; entry: RemoteLogEntry }>): RemoteLogStream[] {
  const byKey = new Map<string, RemoteLogStream>();
  for (const { labels, entry } of items) {
    const key = JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
    let s = byKey.get(key);
    if (!s) { s = { labels, name: streamName(labels), entries: [] }; byKey.set(key, s); }
    s.entries.push(entry);
  }
  const out = [...byKey.values()];
  for (const s of out) s.entries.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** RFC 3339 with nanoseconds (what VictoriaLogs and Jaeger's v3 API accept). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

/** A store's RFC 3339 stamp (ns precision) → ns since the epoch; undefined when unreadable. */
export function nanosOfRfc3339(s: string): bigint | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(s.trim());
  if (!m) return undefined;
  const secMs = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(secMs)) return undefined;
  return BigInt(secMs) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
}
