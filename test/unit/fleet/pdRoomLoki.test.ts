// The second search by bootstrap_room (src/core/fleet/find.ts: askByTransferIds) against Loki.
// Loki is AGPL and is never built or run here: a loopback server answers query_range with the
// `streams` result its HTTP API documents (direction=backward: newest first, at most `limit`, the
// end exclusive) and applies the query's line filter (`|= "text"`, `|~ "a|b"`) to the lines it
// holds, so what comes back depends on what HopLens asked. The lines are SGLang's P/D lines
// (test/unit/logs/pdRoomLines.ts): the decode pod's pair the rid with its room, the prefill pod's
// room-only line names no rid, so only a second query by the room finds it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { json, store, type LoopbackStore, type Seen } from './loopbackStore';
import { findRequestInFleet } from '../../../src/core/fleet/find';
import { parseStoreUrl } from '../../../src/core/fleet/model';
import { runTimeline } from '../../../src/cli/timeline';
import { bufferIO } from '../../../src/cli/io';
import { DECODE, PREFILL, RID, ROOM } from '../logs/pdRoomLines';

const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const SELECTOR = '{namespace="serving"}';
const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const HELD = [
  ...lines(PREFILL).map((text, i) => ({ pod: 'prefill-0', ns: NOW_NS - 3_600_000_000_000n + BigInt(i) * 1_000_000n, text })),
  ...lines(DECODE).map((text, i) => ({ pod: 'decode-0', ns: NOW_NS - 3_600_000_000_000n + BigInt(10 + i) * 1_000_000n, text })),
];

/** The line filter of a LogQL query HopLens writes: `{…} |= "x"` or `{…} |~ "re"`, its string unescaped. */
function lineFilter(query: string): (text: string) => boolean {
  const m = /^\{[^}]*\} \|([=~]) "((?:[^"\\]|\\.)*)"$/.exec(query);
  assert.ok(m, `a stream selector and one line filter: ${query}`);
  const arg = m[2].replace(/\\(.)/g, '$1');
  if (m[1] === '=') return (text) => text.includes(arg);
  const re = new RegExp(arg); // an alternation of escaped literals: the same in RE2 and JavaScript
  return (text) => re.test(text);
}

function loki(q: Seen, res: http.ServerResponse): void {
  if (q.path !== '/loki/api/v1/query_range') return json(res, 404, {});
  const keep = lineFilter(q.query.get('query') ?? '');
  const end = BigInt(q.query.get('end')!);
  const start = BigInt(q.query.get('start')!);
  const found = HELD.filter((l) => l.ns >= start && l.ns < end && keep(l.text)).sort((a, b) => (a.ns > b.ns ? -1 : 1))
    .slice(0, Number(q.query.get('limit')));
  const result = ['prefill-0', 'decode-0'].map((pod) => ({
    stream: { namespace: 'serving', pod, container: 'sglang' },
    values: found.filter((l) => l.pod === pod).map((l) => [String(l.ns), l.text]),
  })).filter((s) => s.values.length > 0);
  json(res, 200, { status: 'success', data: { resultType: 'streams', result, stats: { summary: { totalLinesProcessed: found.length } } } });
}

describe('Loki: the prefill pod\'s room-only line is found by a second query for the room the decode pod paired', () => {
  let s: LoopbackStore;
  before(async () => { s = await store(loki); });
  after(async () => { await s.close(); });

  test('two queries: the rid, then the room; the room-only line joins the prefill stream, other rooms do not', async () => {
    s.seen.length = 0;
    const now = Date.now();
    const r = await findRequestInFleet({
      requestId: RID, traces: [], logs: [parseStoreUrl(`loki+${s.base}`)], selector: SELECTOR,
      window: { startMs: now - 6 * 3_600_000, endMs: now + 60_000 },
    });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(s.seen.map((q) => q.query.get('query')), [`${SELECTOR} |= "${RID}"`, `${SELECTOR} |= "${ROOM}"`]);
    const streams = r.logs[0].streams.map((st) => [st.labels.pod, st.entries.map((e) => e.text)]);
    assert.deepEqual(streams.find(([pod]) => pod === 'prefill-0'),
      ['prefill-0', [`[2025-09-17 16:23:13 TP0] Request with bootstrap_room=${ROOM} already failed`]]);
    assert.deepEqual(streams.find(([pod]) => pod === 'decode-0'), ['decode-0', lines(DECODE)], 'the decode lines once, not twice');
    assert.match(r.asked[1], /^Loki at .*\(the transfer id its lines paired with the request\)$/);
  });

  test('hoplens timeline --logs loki+… puts that line on the request\'s timeline', async () => {
    const io = bufferIO();
    assert.equal(await runTimeline(['--rid', RID, '--logs', `loki+${s.base}`, '--selector', SELECTOR, '--since', '6h'], io), 0, io.stderr);
    assert.match(io.stdout, new RegExp(`prefill-0:sglang · TP0 +Request with bootstrap_room=${ROOM} already failed`));
    assert.doesNotMatch(io.stdout, /no line of this request/);
  });
});
