// One request as the engine saw it, joined on the same rid as its log lines and the client's
// measurement (rids normalised like the log annotation: chatcmpl-<id>, cmpl-<id>-0).
import { ridMatchesQuery } from '../logs/requestIds';
import { engineBreakdown, renderBreakdownMarkdown, renderSnapshotsMarkdown, type ClientTiming, type EngineBreakdown } from './breakdown';
import type { SpanStore } from './engineTiming';
import type { EngineTiming, OtlpSpan, RequestSnapshot, SpanEvent } from './types';

export interface RequestEngineView {
  rid: string;
  timing: EngineTiming | null;
  breakdown: EngineBreakdown | null;
  snapshots: RequestSnapshot[];
  /** api.* events of llm_request and journey.* events of llm_core, in time order. */
  events: Array<SpanEvent & { span: string }>;
  spans: OtlpSpan[];
  markdown: string;
}

/** Find the engine's rid for what the user typed or what the Requests view shows (base id, external, internal). */
export function resolveRid(store: SpanStore, query: string): string | null {
  const q = query.trim();
  if (q === '') return null;
  if (store.timing(q) || store.snapshots(q).length || store.spansFor(q).length) return store.timing(q)?.rid ?? q;
  for (const t of store.requests()) if (ridMatchesQuery(t.rid, q)) return t.rid;
  for (const rid of store.snapshot().snapshots.keys()) if (ridMatchesQuery(rid, q)) return rid;
  return null;
}

export function requestEngineView(store: SpanStore, query: string, client?: ClientTiming): RequestEngineView | null {
  const rid = resolveRid(store, query);
  if (rid === null) return null;
  const timing = store.timing(rid) ?? null;
  const spans = store.spansFor(rid);
  const snapshots = store.snapshots(rid);
  const events = spans.flatMap((s) => s.events.map((e) => ({ ...e, span: s.name }))).sort((a, b) => a.timeMs - b.timeMs);
  const breakdown = timing ? engineBreakdown(timing, client) : null;
  const noSpan = `### Engine timing for \`${rid}\`\n\n_No llm_request span for this request yet (vLLM exports it when the request finishes)._\n`;
  const markdown = (breakdown ? renderBreakdownMarkdown(breakdown) : noSpan) + '\n#### Scheduler steps\n\n' + renderSnapshotsMarkdown(snapshots);
  return { rid, timing, breakdown, snapshots, events, spans, markdown };
}
