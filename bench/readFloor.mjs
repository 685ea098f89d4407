#!/usr/bin/env node
// The floor under HopLens's readers, for bench/peers.mjs: what Node pays just to read files and
// find their line ends, the way the indexer does (4 MB reads, Buffer.indexOf per line), in as
// many worker threads as the indexer uses (one file after another from one queue).
//
//   node bench/readFloor.mjs [--threads N] FILE...     prints the number of lines
import { closeSync, openSync, readSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const CHUNK = 4 << 20;

function countLines(path) {
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(CHUNK);
  let lines = 0;
  try {
    for (let n; (n = readSync(fd, buf, 0, CHUNK, null)) > 0;) {
      for (let i = buf.indexOf(10, 0); i >= 0 && i < n; i = buf.indexOf(10, i + 1)) lines++;
    }
  } finally { closeSync(fd); }
  return lines;
}

if (isMainThread) {
  const argv = process.argv.slice(2);
  const t = argv.indexOf('--threads');
  const threads = t >= 0 ? Math.max(1, Number(argv[t + 1])) : 1;
  const files = argv.filter((a, i) => a !== '--threads' && argv[i - 1] !== '--threads');
  if (files.length === 0) { console.error('usage: node bench/readFloor.mjs [--threads N] FILE...'); process.exit(2); }
  if (threads === 1) {
    console.log(files.reduce((n, f) => n + countLines(f), 0));
  } else {
    let next = 0;
    let total = 0;
    const lane = () => new Promise((resolve, reject) => {
      const w = new Worker(new URL(import.meta.url), { workerData: null });
      const take = () => { if (next < files.length) w.postMessage(files[next++]); else { void w.terminate(); resolve(); } };
      w.on('message', (n) => { total += n; take(); });
      w.on('error', reject);
      take();
    });
    await Promise.all(Array.from({ length: Math.min(threads, files.length) }, lane));
    console.log(total);
  }
} else {
  void workerData;
  parentPort.on('message', (path) => parentPort.postMessage(countLines(path)));
}
