// Paging a log store's answer backwards in time: both VictoriaLogs and Loki, asked with a limit,
// answer the newest matching lines first and take an exclusive end. The next page ends one
// nanosecond past the oldest line seen, and the lines already seen at that instant are dropped,
// so no line is lost or doubled at a page's edge; a page of nothing new (more lines at one
// instant than a page holds) ends the walk as cut.
import type { RemoteLogEntry } from './model';

export interface PagedRow { labels: Record<string, string>; entry: RemoteLogEntry; key: string }

export async function pageBackwards(
  endNs: bigint, limit: number, pageSize: number,
  fetchPage: (endNs: bigint, want: number) => Promise<PagedRow[]>,
): Promise<{ rows: PagedRow[]; truncated: boolean }> {
  const rows: PagedRow[] = [];
  const seenAtEdge = new Set<string>();
  let edge: bigint | undefined;
  let end = endNs;
  for (;;) {
    // Lines already seen at the edge come back again: ask for that many more.
    const want = Math.min(pageSize + seenAtEdge.size, limit - rows.length + seenAtEdge.size);
    const page = await fetchPage(end, want);
    const fresh = page.filter((r) => !seenAtEdge.has(r.key));
    rows.push(...fresh);
    if (page.length < want) return { rows, truncated: false };
    if (rows.length >= limit || fresh.length === 0) return { rows: rows.slice(0, limit), truncated: true };
    const oldest = page.reduce((m, r) => (r.entry.timeNs < m ? r.entry.timeNs : m), page[0].entry.timeNs);
    if (oldest !== edge) seenAtEdge.clear();
    edge = oldest;
    for (const r of page) if (r.entry.timeNs === oldest) seenAtEdge.add(r.key);
    end = oldest + 1n;
  }
}

/** RFC 3339 with all nine digits of the nanoseconds. */
export function rfc3339Nanos(ns: bigint): string {
  const iso = new Date(Number(ns / 1_000_000n)).toISOString();
  return `${iso.slice(0, 19)}.${(((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, '0')}Z`;
}
