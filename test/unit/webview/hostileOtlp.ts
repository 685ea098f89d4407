// The Collector file fixture (vLLM's llm_request spans, step snapshots, batch summaries) with
// its text attributes replaced by hostile text: the request id, service.name and the
// snapshot phase, as an OTLP exporter on someone else's machine could send them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCollectorText } from '../../../src/core/otlp/collectorFile';
import { SpanStore } from '../../../src/core/otlp/engineTiming';
import type { BatchSummary, EngineTiming, RequestSnapshot } from '../../../src/core/otlp/types';

const FIXTURE = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'otlp', 'collector_export.jsonl');

export interface HostileEngineTiming { rid: string; timing: EngineTiming; snapshots: RequestSnapshot[]; batches: BatchSummary[] }

/** `id` goes where the fixture has the client id c0ffee01; `text` into service.name and the phases. */
export function hostileEngineTiming(id: string, text: string): HostileEngineTiming {
  const inJson = (s: string) => JSON.stringify(s).slice(1, -1);
  const raw = readFileSync(FIXTURE, 'utf8')
    .replaceAll('c0ffee01', inJson(id))
    .replaceAll('"stringValue":"vllm"', `"stringValue":${JSON.stringify(text)}`)
    .replaceAll('"stringValue":"PREFILL"', `"stringValue":${JSON.stringify(text)}`)
    .replaceAll('"stringValue":"DECODE"', `"stringValue":${JSON.stringify(text)}`);
  const store = new SpanStore();
  const res = parseCollectorText(raw, (spans) => store.add(spans));
  // The fixture's second line is cut short on purpose (a Collector killed mid-write); the others decode.
  if (res.badLineCount !== 1 || res.spanCount === 0) throw new Error(`fixture lines did not decode: ${JSON.stringify(res.badLines)}`);
  const rid = `chatcmpl-${id}`;
  const timing = store.timing(rid);
  if (!timing) throw new Error(`no llm_request for ${rid}: ${store.requests().map((t) => t.rid).join(', ')}`);
  return { rid, timing, snapshots: store.snapshots(rid), batches: store.batches() };
}
