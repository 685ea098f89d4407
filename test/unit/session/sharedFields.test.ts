// What the records an open log keeps hold: the names a log repeats line after line (level,
// source file, process, request id) and the stamp of whole seconds are one heap object each for
// all the records that have them, not one per record (a 50 MB log keeps 257 K records, and each
// object of theirs was work for every young-generation collection of its first read). Read off a
// heap snapshot of this process: which objects the records point at, not how long anything took.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapSnapshot } from 'node:v8';
import { LogSession } from '../../../src/core/session/logSession';
import { ownCopy, SharedFields } from '../../../src/core/session/sharedFields';
import type { LogRecord } from '../../../src/core/logs/model';

const REF = new Date(2025, 7, 22).getTime();
const FIXTURE = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8');

/** The fixture's lines `copies` times, each copy's requests with ids of their own. */
function log(copies: number): string {
  let out = '';
  for (let k = 0; k < copies; k++) out += FIXTURE.replaceAll('myrun-0001', `myrun-${String(k).padStart(6, '0')}`);
  return out;
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[]; edges: number[]; strings: string[];
}

async function heapSnapshot(): Promise<Snapshot> {
  const chunks: Buffer[] = [];
  for await (const c of getHeapSnapshot()) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Snapshot;
}

/** The heap ids the fields of each record of the session's `records` array point at (found from the LogSession object). */
function recordFields(snap: Snapshot, fields: string[]): Map<string, number>[] {
  const nf = snap.snapshot.meta.node_fields.length, ef = snap.snapshot.meta.edge_fields.length;
  const edgeCount = snap.snapshot.meta.node_fields.indexOf('edge_count');
  const idField = snap.snapshot.meta.node_fields.indexOf('id');
  const nameField = snap.snapshot.meta.node_fields.indexOf('name');
  const edgeTypes = snap.snapshot.meta.edge_types[0];
  const firstEdge = new Map<number, number>();
  for (let n = 0, e = 0; n < snap.nodes.length; n += nf) { firstEdge.set(n, e); e += snap.nodes[n + edgeCount] * ef; }
  const edges = (n: number) => {
    const out: { type: string; name: string; to: number }[] = [];
    const from = firstEdge.get(n)!;
    for (let k = 0; k < snap.nodes[n + edgeCount]; k++) {
      const e = from + k * ef;
      const type = edgeTypes[snap.edges[e]];
      out.push({ type, name: type === 'element' || type === 'hidden' ? '' : snap.strings[snap.edges[e + 1]], to: snap.edges[e + 2] });
    }
    return out;
  };
  // The LogSession object (not its class or prototype): the one with a `records` property.
  const records = (n: number) => edges(n).find((e) => e.type === 'property' && e.name === 'records');
  const sessions = [...firstEdge.keys()].filter((n) => snap.strings[snap.nodes[n + nameField]] === 'LogSession' && records(n) !== undefined);
  assert.equal(sessions.length, 1, 'one LogSession in the heap');
  const array = records(sessions[0])!.to;
  // A snapshot lists an array's elements as its own edges.
  return edges(array).filter((e) => e.type === 'element').map((e) => {
    const own = new Map<string, number>();
    for (const f of edges(e.to)) if (f.type === 'property' && fields.includes(f.name)) own.set(f.name, snap.nodes[f.to + idField]);
    return own;
  });
}

const distinct = <T>(xs: T[]): number => new Set(xs).size;

test('the records of a log point at one string for each level, source file, process and request id, and one number for each run of a stamp', async () => {
  const s = new LogSession({ referenceTime: REF });
  const text = log(60);
  await s.settled({ version: 1, getText: () => text, ranges: { length: () => text.length, text: (a, b) => text.slice(a, b) } },
    { budgetMs: 1_000, sliceChars: 4096, completeLastLine: true, yieldTurn: async () => undefined });
  const recs: LogRecord[] = s.records;
  assert.ok(recs.length > 1000);
  const inHeap = recordFields(await heapSnapshot(), ['level', 'fileinfo', 'process', 'rid', 'time', 'message']);
  assert.equal(inHeap.length, recs.length, 'every record found in the heap');
  const values = (f: keyof LogRecord) => recs.map((r) => r[f]).filter((v) => v !== null);
  // The heap objects of a field's values (null is one object of its own: left out).
  const objects = (f: keyof LogRecord) => inHeap.filter((_, i) => recs[i][f] !== null).map((m) => m.get(f));
  for (const f of ['level', 'fileinfo', 'process', 'rid'] as const) {
    const names = distinct(values(f));
    assert.ok(names > 0 && values(f).length > 3 * names, `${f}: the log repeats its values`);
    assert.equal(distinct(objects(f)), names, `${f}: one string for each of its ${names} values among ${values(f).length} records`);
  }
  // A stamp of whole seconds: one number for the lines of one second in a row (a number a record holds is a heap object).
  const times = recs.map((r) => r.time);
  const runs = times.filter((t, i) => t !== null && t !== times[i - 1]).length;
  assert.ok(distinct(objects('time')) <= runs, `time: at most one number for each of the ${runs} runs of a stamp (${distinct(objects('time'))})`);
  // Each record's message is its own (the text it shows), and the only string of its own it holds.
  assert.equal(distinct(objects('message')), recs.length);
});

test('a shared name is a copy of its own, not a view into the line it came from, and reads the same', () => {
  const line = `(APIServer pid=1) INFO 08-22 10:00:00 [${'a'.repeat(40)}/serving_chat.py:100] x\ud800y`;
  const shared = new SharedFields();
  const cut = line.slice(40, 80);
  const name = shared.name(cut);
  assert.equal(name, cut);
  assert.equal(shared.name(line.slice(40, 80)), name);
  // Lone surrogates stay as they are (a copy through UTF-8 would turn them into U+FFFD).
  assert.equal(ownCopy(line), line);
});
