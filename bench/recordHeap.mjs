#!/usr/bin/env node --expose-gc
// What the records of an open log cost the editor's heap: a log read the way the editor reads a
// document (LogSession.syncText over ranges, 32 K characters a slice, each range a fresh string as
// VS Code's getText(range) gives), then the heap after a full GC, against the heap before.
// Prints bytes and heap objects per kept record; `--trace-gc` (a node flag) shows the pauses.
//
//   node --expose-gc bench/recordHeap.mjs [log] [--lines N] [--objects] [--dist dir]
//
// log: default the editor-stalls bench's 50 MB log (bench/data/editor-stalls/ws/logs/vllm-50mb.log,
// made by `node bench/editorStalls.mjs --only log --keep`), cut to its generated lines. --objects
// counts heap objects too (a heap snapshot: slow and large, use --lines 20000). --dist: read
// LogSession from another build's out/ folder (a copy of main's), to compare.
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const positional = argv.filter((a, i) => !a.startsWith('--') && !['--lines', '--dist'].includes(argv[i - 1]));
const out = resolve(opt('--dist', join(root, 'out')));
const require = createRequire(import.meta.url);
const { LogSession } = require(join(out, 'src', 'core', 'session', 'logSession.js'));
if (typeof globalThis.gc !== 'function') { console.error('run with node --expose-gc'); process.exit(2); }

const benchLog = join(root, 'bench', 'data', 'editor-stalls', 'ws', 'logs', 'vllm-50mb.log');
const path = positional[0] ?? benchLog;
if (!existsSync(path)) { console.error(`${path}: no such file (make it with node bench/editorStalls.mjs --only log --keep)`); process.exit(2); }
let buf = readFileSync(path);
if (path === benchLog) {
  const meta = join(root, 'bench', 'data', 'editor-stalls', 'log-257732.json');
  if (existsSync(meta)) buf = buf.subarray(0, JSON.parse(readFileSync(meta, 'utf8')).bytes);
}
const maxLines = Number(opt('--lines', '0'));
if (maxLines > 0) {
  let at = 0;
  for (let i = 0; i < maxLines && at >= 0; i++) at = buf.indexOf(10, at) + 1 || -1;
  if (at > 0) buf = buf.subarray(0, at);
}
// Characters are bytes for an ASCII log; a log with other characters is read as latin1 (the same count of records).
const doc = { version: 1, getText: () => buf.toString('latin1'), ranges: { length: () => buf.length, text: (a, b) => buf.toString('latin1', a, b) } };

function heap() { globalThis.gc(); globalThis.gc(); return process.memoryUsage().heapUsed; }

function objects() {
  // Heap objects by type in a snapshot (nodes, not counting the snapshot's own synthetic roots).
  const snap = JSON.parse(readFileSync(v8.writeHeapSnapshot(join(root, 'bench', 'data', `recordHeap-${process.pid}.heapsnapshot`)), 'utf8'));
  const f = snap.snapshot.meta.node_fields.length;
  const types = snap.snapshot.meta.node_types[0];
  const size = snap.snapshot.meta.node_fields.indexOf('self_size');
  const byType = new Map();
  for (let i = 0; i < snap.nodes.length; i += f) {
    const t = types[snap.nodes[i]];
    if (t === 'synthetic' || t === 'hidden') continue;
    const name = t === 'object' || t === 'native' ? `${t}:${snap.strings[snap.nodes[i + 1]]}` : t;
    const c = byType.get(name) ?? { count: 0, bytes: 0 };
    c.count++; c.bytes += snap.nodes[i + size];
    byType.set(name, c);
  }
  return byType;
}

const countObjects = argv.includes('--objects');
const before = heap();
const objBefore = countObjects ? objects() : null;
const session = new LogSession({ engine: 'auto', key: path });
const t0 = performance.now();
await session.settled(doc, { budgetMs: 12, sliceChars: 32 * 1024, completeLastLine: true });
const ms = performance.now() - t0;
const after = heap();
const n = session.records.length;
console.log(`${path}: ${n} records (${session.tracker.requestCount} requests) read in ${ms.toFixed(0)} ms`);
console.log(`heap: ${((after - before) / 2 ** 20).toFixed(1)} MiB kept, ${((after - before) / n).toFixed(0)} bytes a record (text ${(buf.length / 2 ** 20).toFixed(1)} MiB,`
  + ` ${(buf.length / n).toFixed(0)} bytes a line)`);
if (objBefore) {
  const objAfter = objects();
  const rows = [...objAfter].map(([k, v]) => [k, v.count - (objBefore.get(k)?.count ?? 0), v.bytes - (objBefore.get(k)?.bytes ?? 0)])
    .filter(([, d]) => Math.abs(d) > n / 100).sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, d]) => s + d, 0);
  console.log(`heap objects: ${(total / n).toFixed(2)} a record`);
  for (const [k, d, b] of rows) console.log(`  ${k.padEnd(32)} ${(d / n).toFixed(2)} a record, ${(b / n).toFixed(0)} bytes`);
}
// Keep the session alive until here.
if (session.records.length !== n) throw new Error('unreachable');
