// A timeline of logs open in the editor is built from their sessions (what the editor already
// parsed: records and the request index), not by reading the files again: the same timeline as
// from disk, unsaved edits seen, lines appended since the last timeline seen, and a file that is
// not open still read from disk beside them. Sessions are the core's own LogSession, fed text in
// memory as the editor feeds a document's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession } from '../../../src/core/session/logSession';
import { loadTimeline } from '../../../src/core/timeline/load';
import { readRequestLogs, STAMP, type OpenLogSession } from '../../../src/core/timeline/requestLogs';
import { LogInputError } from '../../../src/core/logs/scanner';
import type { RequestTimeline } from '../../../src/core/timeline/model';
import { stage } from './fixtures';

/** A session of `text` as the editor keeps one (every record), with the file's year. */
function sessionOf(text: string, referenceTime: number): LogSession {
  const s = new LogSession({ engine: 'auto', referenceTime });
  s.syncTextNow(text);
  return s;
}

/** Sessions of files as they are on disk, by path. */
function openAsOnDisk(paths: readonly string[]): Map<string, LogSession> {
  return new Map(paths.map((p) => [p, sessionOf(readFileSync(p, 'utf8'), statSync(p).mtimeMs)]));
}

function hopTexts(t: RequestTimeline): string[] {
  return t.lanes.flatMap((l) => l.items.filter((i) => i.kind === 'hop').map((i) => `${i.hop} ${i.text ?? i.label}`));
}

test('open logs give the same timeline as the files they show, without reading them', async () => {
  for (const [name, files, query] of [
    ['engine-run', ['api-server.log', 'engine-core.log'], 'tl-0001'],
    ['pd-run', ['router.log', 'prefill.log', 'decode.log'], 'pd-0003'],
  ] as const) {
    const dir = stage(name);
    const paths = files.map((f) => join(dir, f));
    const open = openAsOnDisk(paths);
    const asked: string[] = [];
    const fromDisk = (await loadTimeline({ query, logs: paths, includeText: true })).timeline;
    const fromSessions = (await loadTimeline({ query, logs: paths, includeText: true, openLog: (p) => { asked.push(p); return open.get(p); } })).timeline;
    assert.deepEqual(asked, paths);
    assert.ok(hopTexts(fromDisk).length > 3, name);
    assert.deepEqual(fromSessions, fromDisk, name);
  }
});

test('an unsaved edit of an open log is on its timeline; the file on disk is not read', async () => {
  const dir = stage('engine-run');
  const api = join(dir, 'api-server.log');
  const core = join(dir, 'engine-core.log');
  const mtime = statSync(api).mtimeMs;
  // The user edited the request's last line in the editor and has not saved.
  const edited = readFileSync(api, 'utf8').replace("(streaming complete): output: 'Hello! How can I help?'", "(streaming complete): output: 'Edited, not saved'");
  const elsewhere = join(dir, 'not-on-disk', 'api-server.log');
  const open = new Map<string, OpenLogSession>([[elsewhere, sessionOf(edited, mtime)]]);
  const t = (await loadTimeline({ query: 'tl-0001', logs: [elsewhere, core], includeText: true, openLog: (p) => open.get(p) })).timeline;
  const texts = hopTexts(t);
  assert.ok(texts.some((x) => x.startsWith('V6') && x.includes("output: 'Edited, not saved'")), texts.join('\n'));
  assert.ok(!texts.some((x) => x.includes("'Hello! How can I help?'")), 'the saved text is not shown');
  // The engine core's log is not open: read from disk beside it (its batch lines are on the timeline).
  assert.ok(t.lanes.some((l) => l.file === core && l.items.length > 0));
  // Without its session the path is a file that does not exist.
  await assert.rejects(loadTimeline({ query: 'tl-0001', logs: [elsewhere, core] }), LogInputError);
});

test('lines appended to an open log since its last timeline are on the next; a start over forgets the old ones', async () => {
  const dir = stage('pd-run');
  const router = join(dir, 'router.log');
  const text = readFileSync(router, 'utf8');
  const lines = text.split('\n');
  const cut = lines.findIndex((l) => l.includes('request_id="pd-0020"'));
  const session = sessionOf(lines.slice(0, cut).join('\n') + '\n', statSync(router).mtimeMs);
  const open = (): OpenLogSession => session;
  const before = await readRequestLogs([router], 'pd-0020', { openLog: open });
  assert.equal(before.logs[0].mentions.length, 0);
  assert.equal(before.logs[0].kind, 'router');
  // The router writes on; the editor's session parses only the new lines.
  session.syncTextNow(text);
  const after = await readRequestLogs([router], 'pd-0020', { openLog: open });
  assert.deepEqual(after.logs[0].mentions.map((m) => m.router.event), ['received', 'responded']);
  assert.equal(after.logs[0].stamps.size, 40);
  assert.ok(after.logs[0].stamps.has(after.logs[0].stamps.find('pd-0020'), STAMP.routerReceived));
  // A timeline adds rows to its own copy of the stamps: the next one starts from the log's.
  assert.equal((await readRequestLogs([router], 'pd-0020', { openLog: open })).logs[0].stamps.size, 40);
  // The user replaced the text: the session starts over, and so does what the timeline keeps of it.
  session.syncTextNow(lines.slice(0, 4).join('\n') + '\n');
  const replaced = await readRequestLogs([router], 'pd-0020', { openLog: open });
  assert.equal(replaced.logs[0].mentions.length, 0);
  assert.equal(replaced.logs[0].stamps.size, 2);
});

test('batch lines and processes of an open log are the file\'s', async () => {
  const dir = stage('engine-run');
  const core = join(dir, 'engine-core.log');
  const session = sessionOf(readFileSync(core, 'utf8'), statSync(core).mtimeMs);
  const [disk, open] = await Promise.all([
    readRequestLogs([core], 'tl-0001'),
    readRequestLogs([core], 'tl-0001', { openLog: () => session }),
  ]);
  const all = (r: typeof disk) => r.logs[0].contextBetween(0, Number.MAX_SAFE_INTEGER);
  assert.ok(all(disk).length > 0);
  assert.deepEqual(all(open), all(disk));
  assert.deepEqual(open.logs[0].processes, disk.logs[0].processes);
  assert.equal(open.logs[0].lines, disk.logs[0].lines);
  assert.equal(open.logs[0].bytes, disk.logs[0].bytes);
});

test('a session that keeps no records (a large log\'s streamed view) is not used: the file is read', async () => {
  const dir = stage('engine-run');
  const api = join(dir, 'api-server.log');
  const streamed = new LogSession({ engine: 'auto', keepRecords: false, referenceTime: statSync(api).mtimeMs });
  streamed.syncTextNow(readFileSync(api, 'utf8').replace("output: 'Hello! How can I help?'", "output: 'not what the file says'"));
  assert.ok(streamed.tracker.requestCount > 0);
  const t = (await loadTimeline({ query: 'tl-0001', logs: [api], includeText: true, openLog: () => streamed })).timeline;
  const texts = hopTexts(t);
  assert.ok(texts.some((x) => x.includes("output: 'Hello! How can I help?'")), texts.join('\n'));
});
