// VictoriaLogs as a log store. One request's lines are asked of the store, filtered there (LogsQL
// over /select/logsql/query: a phrase filter per search term, an optional stream selector), never
// whole streams pulled, paged backwards in time with a limit (paging.ts). Live following reads /select/logsql/tail as it streams.
// Every line keeps its stream's labels (from `_stream`, e.g. namespace, pod, container) and `_time`.
import { FleetError, parseJsonLines, shownUrl, StoreHttp } from './http';
import { pageBackwards, rfc3339Nanos, type PagedRow } from './paging';
import {
  DEFAULT_LINE_LIMIT, groupStreams, nanosOfRfc3339, type ClientOptions, type LogAnswer, type LogQueryOptions, type LogStoreClient, type RemoteLogEntry,
  type StoreEndpoint, type TimeWindow,
} from './model';

export { DEFAULT_LINE_LIMIT };
export const DEFAULT_PAGE_SIZE = 5_000;

/** A LogsQL quoted phrase. */
export function logsqlString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The LogsQL that selects every line naming one of `terms`: each as a phrase (it matches
 * `chatcmpl-<id>`, `cmpl-<id>-0`, `<id>-<8 hex>`, `<i>_chatcmpl-<id>` — the id's words in order)
 * or as the start of a word (SGLang's `<rid>_<i>` children).
 */
export function requestLogsQl(terms: readonly string[], selector?: string): string {
  const filters = terms.flatMap((t) => [logsqlString(t), `${logsqlString(`${t}_`)}*`]);
  const sel = selector?.trim() ?? '';
  return `${sel ? `${sel} ` : ''}(${filters.join(' OR ')})`;
}

/** `{container="server",namespace="serving",pod="decode-0"}` → labels. */
export function parseStreamLabels(stream: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([A-Za-z0-9_.:-]+)="((?:[^"\\]|\\.)*)"/g;
  for (const m of stream.matchAll(re)) out[m[1]] = m[2].replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
  return out;
}

function rowOf(r: Record<string, unknown>): PagedRow | undefined {
  const time = typeof r._time === 'string' ? nanosOfRfc3339(r._time) : undefined;
  if (time === undefined) return undefined;
  const text = typeof r._msg === 'string' ? r._msg : '';
  const labels = typeof r._stream === 'string' ? parseStreamLabels(r._stream) : {};
  const streamId = typeof r._stream_id === 'string' ? r._stream_id : String(r._stream ?? '');
  return { labels, entry: { timeNs: time, text }, key: `${streamId}\u0000${time}\u0000${text}` };
}

export class VictoriaLogsClient implements LogStoreClient {
  private readonly http: StoreHttp;

  constructor(readonly endpoint: StoreEndpoint, opts: ClientOptions = {}) {
    this.http = new StoreHttp(opts, { 'Content-Type': 'application/x-www-form-urlencoded' });
  }

  async requestLines(terms: readonly string[], window: TimeWindow, opts: LogQueryOptions = {}): Promise<LogAnswer> {
    const clean = terms.map((t) => t.trim()).filter((t) => t !== '');
    if (clean.length === 0) throw new FleetError('bad-url', 'no request id to look up');
    const query = requestLogsQl(clean, opts.selector);
    const limit = Math.max(1, opts.limit ?? DEFAULT_LINE_LIMIT);
    const pageSize = Math.max(1, Math.min(opts.pageSize ?? DEFAULT_PAGE_SIZE, limit));
    const url = `${this.endpoint.baseUrl}/select/logsql/query`;
    const start = new Date(Math.floor(window.startMs)).toISOString();
    const { rows, truncated } = await pageBackwards(BigInt(Math.ceil(window.endMs)) * 1_000_000n, limit, pageSize, async (endNs, want) => {
      const body = new URLSearchParams({ query, start, end: rfc3339Nanos(endNs), limit: String(want) }).toString();
      const res = await this.http.request(url, opts.signal, { method: 'POST', body });
      return parseJsonLines(res, url).map(rowOf).filter((r): r is PagedRow => r !== undefined);
    });
    const streams = groupStreams(rows);
    return {
      streams, lines: rows.length, truncated,
      query: `VictoriaLogs at ${this.endpoint.baseUrl}: ${query}, ${start} – ${new Date(window.endMs).toISOString()}; `
        + `${rows.length} line(s) in ${streams.length} stream(s)${truncated ? ` (cut at the limit of ${limit}; older lines not fetched)` : ''}`,
    };
  }

  /**
   * Follows new lines naming the terms as they arrive, until `signal` aborts (resolves then).
   * The time bound holds for connecting; the stream itself stays open.
   */
  async follow(terms: readonly string[], onEntry: (labels: Record<string, string>, entry: RemoteLogEntry) => void,
    opts: { selector?: string; signal: AbortSignal }): Promise<void> {
    const query = requestLogsQl(terms.filter((t) => t.trim() !== ''), opts.selector);
    const url = `${this.endpoint.baseUrl}/select/logsql/tail`;
    let pending = '';
    await this.http.transport.stream({
      url, method: 'POST', headers: this.http.headers, body: new URLSearchParams({ query }).toString(),
      timeoutMs: this.http.timeoutMs, maxBytes: Number.MAX_SAFE_INTEGER, signal: opts.signal,
    }, (chunk) => {
      pending += chunk;
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line !== '') {
          try {
            const row = rowOf(JSON.parse(line) as Record<string, unknown>);
            if (row) onEntry(row.labels, row.entry);
          } catch {
            throw new FleetError('not-json', `a line from ${shownUrl(url)} is not JSON: ${line.slice(0, 80)}`);
          }
        }
        nl = pending.indexOf('\n');
      }
      if (pending.length > 1024 * 1024) throw new FleetError('too-large', `a line from ${shownUrl(url)} is over 1 MB`);
    });
  }
}
