// HopLens: Show Request Timeline… without a VS Code host: which request (the line at the
// cursor, a Requests view row, an argument), which logs (the core's pick among the open logs,
// the user's pick from the palette), and the client's times when the request was traced here.
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { asked, replies, InMemoryDocument, InMemoryEditor, messages, registered, Selection, Uri, window, workspace } from '../fakes/vscode';
import { LogDocumentService } from '../../../src/features/logs/logDocuments';
import { RecordSourceLocator } from '../../../src/core/source/locate';
import { registerTimelineCommand } from '../../../src/features/timeline/timelineCommand';
import type { TimelineRequest } from '../../../src/features/timeline/timelineService';
import type { HopLensConfig } from '../../../src/config';
import type { TraceRecord } from '../../../src/core/request/types';
import { TIMELINE_FIXTURES } from '../timeline/fixtures';
import { makeTempDir } from '../../harness/tempDirs';
import { DECODE, OTHER_RID, PREFILL, RID, ROOM } from '../logs/pdRoomLines';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };
const API = join(TIMELINE_FIXTURES, 'engine-run', 'api-server.log');
const CORE = join(TIMELINE_FIXTURES, 'engine-run', 'engine-core.log');
const OTHER = join(TIMELINE_FIXTURES, 'sglang-run', 'sgl.log');

async function setUp(opts: { traced?: Partial<TraceRecord>; serverLog?: string; open?: string[] } = {}) {
  const logs = new LogDocumentService({ log: quiet, sources: new RecordSourceLocator({ ready: () => null }), largeFileOptimizations: () => true });
  const docs = (opts.open ?? [API, CORE, OTHER]).map((p) => new InMemoryDocument(Uri.file(p), readFileSync(p, 'utf8')));
  workspace.textDocuments = docs;
  for (const d of docs) await logs.settled(d as never);
  const shows: TimelineRequest[] = [];
  const disposable = registerTimelineCommand({
    timelines: { show: async (r) => { shows.push(r); return undefined; } },
    logs, requestsSource: () => undefined,
    lastTraced: () => opts.traced as TraceRecord | undefined,
    settings: { current: { serverLog: opts.serverLog ?? '' } as HopLensConfig },
  });
  messages.length = 0;
  asked.length = 0;
  replies.length = 0;
  const run = (...args: unknown[]) => registered.get('hoplens.showRequestTimeline')!(...args);
  return { docs, shows, run, dispose: () => { disposable.dispose(); logs.dispose(); window.activeTextEditor = undefined; } };
}

function cursorOn(doc: InMemoryDocument, needle: string): void {
  const line = doc.getText().split('\n').findIndex((l) => l.includes(needle));
  assert.ok(line >= 0, needle);
  const editor = new InMemoryEditor(doc, []);
  editor.selection = new Selection(line, 0, line, 0);
  window.activeTextEditor = editor;
}

test('from the palette: the request at the cursor is offered, the run\'s logs are picked, another server\'s is not', async () => {
  const s = await setUp();
  try {
    cursorOn(s.docs[0], 'Added request');
    // The user takes the offered id and the preselected logs.
    replies.push('chatcmpl-tl-0001', (items: unknown[]) => (items as { picked?: boolean }[]).filter((i) => i.picked));
    await s.run();
    assert.equal((asked[0].options as { value: string }).value, 'chatcmpl-tl-0001');
    const items = asked[1].items as { label: string; picked?: boolean; description?: string }[];
    assert.deepEqual(items.map((i) => [i.label, i.picked ?? false]), [
      ['api-server.log', true], ['engine-core.log', true], ['sgl.log', false], ['$(folder-opened) Other log files…', false],
    ]);
    assert.deepEqual(s.shows, [{ query: 'chatcmpl-tl-0001', logs: [API, CORE], client: null }]);
    // Dismissing the pick shows nothing.
    replies.push('chatcmpl-tl-0001');
    await s.run();
    assert.equal(s.shows.length, 1);
  } finally { s.dispose(); }
});

test('from a Requests view row or the report: no questions, the core\'s pick, the client\'s times when it was traced here', async () => {
  const traced = { requestId: 'tl-0001', logRequestId: 'chatcmpl-tl-0001', timeline: { startedAtEpochMs: 1, connectMs: 0.5, headersMs: 3, endMs: 9 }, frames: [], status: 200, error: null } as unknown as TraceRecord;
  const s = await setUp({ traced });
  try {
    await s.run({ kind: 'request', brief: { rid: 'chatcmpl-tl-0001' }, source: {} });
    await s.run('tl-0002');
    assert.equal(asked.length, 0, 'nothing asked');
    assert.deepEqual(s.shows.map((r) => [r.query, r.logs, r.client?.requestId ?? null]), [['chatcmpl-tl-0001', [API, CORE], 'tl-0001']]);
    // No open log names tl-0002: nothing is read, and the palette is where to pick logs.
    assert.match(messages[0].text, /no open log names request tl-0002\. Run HopLens: Show Request Timeline… from the palette/);
    await s.run('tl-0002', [Uri.file(OTHER), API]);
    assert.deepEqual(s.shows.map((r) => [r.query, r.logs, r.client]), [['chatcmpl-tl-0001', [API, CORE], s.shows[0].client], ['tl-0002', [OTHER, API], null]],
      'log files given are taken as they are; not the traced request: no client');
  } finally { s.dispose(); }
});

test('no open log and no hoplens.serverLog: says what to open; with the setting, that file', async () => {
  const none = await setUp({ open: [] });
  try {
    await none.run('tl-0001');
    assert.equal(none.shows.length, 0);
    assert.match(messages[0].text, /open the server's logs \(or set hoplens\.serverLog\)/);
  } finally { none.dispose(); }
  const withSetting = await setUp({ open: [], serverLog: API });
  try {
    await withSetting.run('tl-0001');
    assert.deepEqual(withSetting.shows.map((r) => r.logs), [[API]]);
  } finally { withSetting.dispose(); }
});

test('the picker offers the configured server log that holds the request, preselected, though it is not open', async () => {
  const s = await setUp({ open: [CORE, OTHER], serverLog: API });
  try {
    replies.push('chatcmpl-tl-0001', (items: unknown[]) => (items as { picked?: boolean }[]).filter((i) => i.picked));
    await s.run();
    const items = asked[1].items as { label: string; picked?: boolean; description?: string }[];
    const api = items.find((i) => i.label === 'api-server.log');
    assert.ok(api, `the configured log is offered: ${JSON.stringify(items.map((i) => i.label))}`);
    assert.equal(api.picked, true);
    assert.match(api.description ?? '', /has this request/);
    assert.deepEqual(s.shows[0].logs.slice().sort(), [API, CORE].sort());
  } finally { s.dispose(); }
});

test('SGLang P/D: the prefill log naming the request only by a bootstrap_room the decode log pairs goes on its timeline', async () => {
  const dir = makeTempDir('hoplens-timeline-room-');
  const prefill = join(dir.path, 'prefill.log');
  const decode = join(dir.path, 'decode.log');
  // The prefill names another request (S8) and RID's room alone; the decode pairs the room with RID and prints its S5.
  writeFileSync(prefill, `${PREFILL}[2025-09-17 16:23:15] Abort request for rid=${OTHER_RID} not found in rid_to_state; likely already finished/removed.\n`);
  writeFileSync(decode, `${DECODE}[2025-09-17 16:23:20 TP0] ReqTimeStats(rid=${RID}, input_len=38, cached_input_len=0, output_len=1, attempts=1, `
    + 'type=decode): queue_duration=0.40ms, forward_duration=210.00ms, entry_time=1758126241.030\n');
  const s = await setUp({ open: [API, prefill, decode] });
  try {
    await s.run({ kind: 'request', brief: { rid: RID }, source: {} });
    assert.deepEqual(s.shows.map((r) => r.logs), [[prefill, decode]], 'no question; the vLLM log is left out');
    replies.push(RID, (items: unknown[]) => (items as { picked?: boolean }[]).filter((i) => i.picked));
    await s.run();
    const items = asked[1].items as { label: string; picked?: boolean; description?: string }[];
    assert.deepEqual(items.slice(0, 3).map((i) => [i.label, i.picked ?? false, i.description]), [
      ['prefill.log', true, `names it only by bootstrap_room ${ROOM}, which a line of decode.log pairs with it`],
      ['decode.log', true, `has this request (${RID})`],
      ['api-server.log', false, 'other requests only'],
    ]);
  } finally { s.dispose(); dir.remove(); }
});
