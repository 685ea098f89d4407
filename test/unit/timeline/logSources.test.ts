// The LogSource seam (core/logs/logSource.ts) as the timeline's reader meets it: a store's
// lines (a LineFeed, as a remote log store pages them) read like the same file's bytes, with
// each line's store timestamp kept; a source that already holds every record is not opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { readRequestLogs } from '../../../src/core/timeline/requestLogs';
import { pathLogSource } from '../../../src/core/logs/pathSource';
import type { LineFeed, LogSource, StoreLine } from '../../../src/core/logs/logSource';
import { annotateText } from '../../../src/core/session/logSession';
import { stage } from './fixtures';

/** A store's stream of the file's lines, in pages of `page`, each line stamped 1 ms after the last. */
function storeSource(path: string, page: number): LogSource & { opened: number } {
  const lines = readFileSync(path, 'utf8').split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
  const source = {
    opened: 0,
    stream: { key: `store:${path}`, label: 'ns/api-server/vllm', labels: { namespace: 'ns', pod: 'api-server', container: 'vllm' } },
    async open(): Promise<LineFeed> {
      source.opened++;
      return {
        kind: 'lines', referenceTime: Date.now(), close: () => {},
        async *batches(): AsyncIterable<readonly StoreLine[]> {
          for (let i = 0; i < lines.length; i += page) yield lines.slice(i, i + page).map((text, j) => ({ text, storeTimeMs: 1_000_000 + i + j }));
        },
      };
    },
  };
  return source;
}

test('a store\'s lines give the request the same records as the file\'s bytes, with the store\'s time of each line', async () => {
  const dir = stage('engine-run');
  const path = join(dir, 'api-server.log');
  const fromFile = (await readRequestLogs([pathLogSource(path)], 'chatcmpl-tl-0001')).logs[0];
  const store = storeSource(path, 7);
  const fromStore = (await readRequestLogs([store], 'chatcmpl-tl-0001')).logs[0];
  assert.equal(store.opened, 1);
  assert.ok(fromFile.records.length >= 5, 'the request has lines in the file');
  assert.deepEqual(fromStore.records.map((r) => [r.record.line, r.record.hop, r.record.rid]), fromFile.records.map((r) => [r.record.line,
    r.record.hop, r.record.rid]));
  assert.deepEqual(fromStore.group?.hops.map((h) => h.hop), fromFile.group?.hops.map((h) => h.hop));
  assert.equal(fromStore.path, `store:${path}`);
  assert.equal(fromStore.lines, fromFile.lines);
  const first = fromStore.records[0].record.line;
  assert.equal(fromStore.storeTimeMs?.(first), 1_000_000 + first - 1, 'the store\'s own timestamp of the line');
  assert.equal(fromFile.storeTimeMs, undefined, 'a file has no store time');
});

test('a source whose current() holds every record is read from it, never opened', async () => {
  const dir = stage('engine-run');
  const path = join(dir, 'api-server.log');
  const session = annotateText(readFileSync(path, 'utf8'));
  let opened = 0;
  const held: LogSource = {
    stream: { key: path, label: 'api-server.log' },
    current: () => ({ ...session, stream: { key: path, label: 'api-server.log' }, reading: false,
      generation: session.generation, engine: session.engine, records: session.records, tracker: session.tracker,
      linesParsed: session.linesParsed, bytesParsed: session.bytesParsed }),
    open: () => { opened++; return pathLogSource(path).open(); },
  };
  const fromHeld = (await readRequestLogs([held], 'tl-0001')).logs[0];
  const fromFile = (await readRequestLogs([path], 'tl-0001')).logs[0];
  assert.equal(opened, 0);
  assert.deepEqual(fromHeld.records.map((r) => r.record.line), fromFile.records.map((r) => r.record.line));
});
