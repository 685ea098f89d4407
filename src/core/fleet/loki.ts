// Loki as a log store: LogQL over /loki/api/v1/query_range, the stream selector the user gives
// (Loki needs one) and a line filter for the request's ids (`|= "<id>"`, several as one `|~`
// alternation), direction=backward paged by time (paging.ts), X-Scope-OrgID for a multi-tenant
// Loki. Each result stream keeps its labels. Loki is AGPL: it is never built or run here; the
// tests hold this client to the response shapes of Loki's HTTP API documentation.
import { FleetError, parseJsonAnswer, StoreHttp } from './http';
import {
  DEFAULT_LINE_LIMIT, groupStreams, type ClientOptions, type LogAnswer, type LogQueryOptions, type LogStoreClient, type StoreEndpoint, type TimeWindow,
} from './model';
import { pageBackwards, type PagedRow } from './paging';

/** Loki's default max_entries_limit_per_query. */
const LOKI_MAX_PAGE = 5_000;

function logqlString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function escapeRe2(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `{selector} |= "id"`, or `{selector} |~ "a|b"` for several ids. */
export function requestLogQl(terms: readonly string[], selector: string): string {
  const sel = selector.trim();
  if (!/^\{.*\}$/s.test(sel) || sel === '{}') {
    throw new FleetError('bad-url', `Loki needs a stream selector such as {namespace="serving"} (got "${selector}"): pass --selector`);
  }
  if (terms.length === 1) return `${sel} |= ${logqlString(terms[0])}`;
  return `${sel} |~ ${logqlString(terms.map(escapeRe2).join('|'))}`;
}

interface LokiStream { stream?: Record<string, unknown>; values?: unknown }

export class LokiClient implements LogStoreClient {
  private readonly http: StoreHttp;

  constructor(readonly endpoint: StoreEndpoint, opts: ClientOptions = {}) {
    this.http = new StoreHttp(opts);
  }

  async requestLines(terms: readonly string[], window: TimeWindow, opts: LogQueryOptions = {}): Promise<LogAnswer> {
    const clean = terms.map((t) => t.trim()).filter((t) => t !== '');
    if (clean.length === 0) throw new FleetError('bad-url', 'no request id to look up');
    const query = requestLogQl(clean, opts.selector ?? '');
    const limit = Math.max(1, opts.limit ?? DEFAULT_LINE_LIMIT);
    const pageSize = Math.max(1, Math.min(opts.pageSize ?? LOKI_MAX_PAGE, LOKI_MAX_PAGE, limit));
    const startNs = BigInt(Math.floor(window.startMs)) * 1_000_000n;
    const { rows, truncated } = await pageBackwards(BigInt(Math.ceil(window.endMs)) * 1_000_000n, limit, pageSize, async (endNs, want) => {
      const params = new URLSearchParams({ query, start: String(startNs), end: String(endNs), limit: String(want), direction: 'backward' });
      const url = `${this.endpoint.baseUrl}/loki/api/v1/query_range?${params.toString()}`;
      const res = await this.http.request(url, opts.signal);
      return this.rowsOf(parseJsonAnswer(res, url), url);
    });
    const streams = groupStreams(rows);
    return {
      streams, lines: rows.length, truncated,
      query: `Loki at ${this.endpoint.baseUrl}: ${query}, ${new Date(window.startMs).toISOString()} – ${new Date(window.endMs).toISOString()}; `
        + `${rows.length} line(s) in ${streams.length} stream(s)${truncated ? ` (cut at the limit of ${limit}; older lines not fetched)` : ''}`,
    };
  }

  private rowsOf(body: unknown, url: string): PagedRow[] {
    const b = body as { status?: unknown; data?: { resultType?: unknown; result?: unknown }; error?: unknown };
    if (!b || typeof b !== 'object' || b.status !== 'success' || !b.data || typeof b.data !== 'object') {
      const why = b && typeof b === 'object' && typeof b.error === 'string' ? `: ${b.error}` : '';
      throw new FleetError('not-json', `${url.split('?')[0]} did not answer a Loki query result${why}`);
    }
    if (b.data.resultType !== 'streams') throw new FleetError('not-json', `Loki answered a ${String(b.data.resultType)} result, not log streams`);
    const rows: PagedRow[] = [];
    for (const s of Array.isArray(b.data.result) ? b.data.result as LokiStream[] : []) {
      const labels: Record<string, string> = {};
      for (const [k, v] of Object.entries(s.stream ?? {})) if (typeof v === 'string') labels[k] = v;
      const stream = JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));
      for (const pair of Array.isArray(s.values) ? s.values as unknown[] : []) {
        if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !/^\d{1,20}$/.test(pair[0]) || typeof pair[1] !== 'string') continue;
        const timeNs = BigInt(pair[0]);
        rows.push({ labels, entry: { timeNs, text: pair[1] }, key: `${stream}\u0000${timeNs}\u0000${pair[1]}` });
      }
    }
    return rows;
  }
}
