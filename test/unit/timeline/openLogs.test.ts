// Which open logs go on a request's timeline, from the editor's sessions of the constructed runs
// (test/fixtures/timeline): the logs that name the request (a router's request_id among them),
// the engine core that names none, and not a log of another server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogSession } from '../../../src/core/session/logSession';
import { requestIdOfRecord, timelineLogChoices, timelineRequestAt, type OpenLogView } from '../../../src/core/timeline/openLogs';
import { TIMELINE_FIXTURES } from './fixtures';

function open(rel: string, edit: (text: string) => string = (t) => t, as = rel): OpenLogView & { session: LogSession } {
  const path = join(TIMELINE_FIXTURES, as);
  const session = new LogSession({ engine: 'auto', key: path, referenceTime: Date.UTC(2026, 11, 1) });
  session.syncTextNow(edit(readFileSync(join(TIMELINE_FIXTURES, rel), 'utf8')));
  return { path, engine: session.engine, tracker: session.tracker, records: session.records, session };
}

test('an API server and its engine core are picked; another server\'s log is offered, not picked', () => {
  const api = open('engine-run/api-server.log');
  const core = open('engine-run/engine-core.log');
  const other = open('sglang-run/sgl.log');
  const choices = timelineLogChoices([other, core, api, api], 'tl-0001');
  assert.deepEqual(choices.map((c) => [c.path, c.reason, c.picked]), [
    [api.path, 'names-request', true],
    [core.path, 'names-no-request', true],
    [other.path, 'other-requests', false],
  ]);
  assert.deepEqual(choices[0].ids, ['chatcmpl-tl-0001']);
});

test('a log naming no request is taken only when it is of the request\'s engine and its lines span the request\'s time', () => {
  const api = open('engine-run/api-server.log');
  const core = open('engine-run/engine-core.log');
  // The engine core of a run four hours later, and an SGLang server that has only started.
  const later = open('engine-run/engine-core.log', (t) => t.replace(/12-01 10:4/g, '12-01 14:4'), 'later/engine-core.log');
  const sglStart = open('sglang-run/sgl.log', (t) => t.split('\n').slice(0, 3).join('\n') + '\n', 'other/sgl-startup.log');
  assert.equal(sglStart.engine, 'sglang');
  assert.equal(sglStart.tracker.requestCount, 0);
  const choices = timelineLogChoices([sglStart, later, core, api], 'tl-0001');
  assert.deepEqual(choices.map((c) => [c.path.split('/').slice(-2).join('/'), c.reason, c.picked]), [
    ['engine-run/api-server.log', 'names-request', true],
    ['engine-run/engine-core.log', 'names-no-request', true],
    ['other/sgl-startup.log', 'not-this-run', false],
    ['later/engine-core.log', 'not-this-run', false],
  ]);
  // No log names the request: nothing to tie a silent log to, none is picked.
  assert.ok(timelineLogChoices([core], 'tl-0001').every((c) => !c.picked));
});

test('a call-trace file or any other text opened as a log is not a server log: offered, not picked', () => {
  const dir = join(TIMELINE_FIXTURES, 'engine-run', 'trace', 'root', 'vllm');
  const instance = readdirSync(dir)[0];
  const file = readdirSync(join(dir, instance))[0];
  const trace = open(join('engine-run', 'trace', 'root', 'vllm', instance, file));
  const api = open('engine-run/api-server.log');
  assert.equal(trace.engine, null);
  assert.deepEqual(timelineLogChoices([trace, api], 'tl-0001').map((c) => [c.reason, c.picked]), [['names-request', true], ['not-a-server-log', false]]);
});

test('a router, a prefill and a decode instance: all three name the request, the router by its request_id', () => {
  const logs = ['pd-run/router.log', 'pd-run/prefill.log', 'pd-run/decode.log'].map((p) => open(p));
  for (const q of ['pd-0007', 'chatcmpl-pd-0007']) {
    const choices = timelineLogChoices(logs, q);
    assert.deepEqual(choices.map((c) => [c.reason, c.picked]), [['names-request', true], ['names-request', true], ['names-request', true]], q);
    assert.deepEqual(choices.map((c) => c.ids), [['pd-0007'], ['chatcmpl-pd-0007'], ['chatcmpl-pd-0007']]);
  }
  // pd-0070 does not exist: nothing names it, and the logs that name other requests are not picked.
  assert.ok(timelineLogChoices(logs, 'pd-0070').every((c) => !c.picked && c.reason === 'other-requests'));
});

test('the request at the cursor: a hop line\'s id, a router line\'s request_id, none on a startup line', () => {
  const router = open('pd-run/router.log');
  const prefill = open('pd-run/prefill.log');
  assert.equal(requestIdOfRecord(router.session.record(0)), 'pd-0000');
  assert.equal(requestIdOfRecord(prefill.session.record(2)), 'chatcmpl-pd-0000');
  assert.equal(requestIdOfRecord(prefill.session.record(0)), null);
  assert.equal(requestIdOfRecord(undefined), null);
});

test('a request offers its timeline on one line of a log: its first hop line, whatever the engine', () => {
  for (const rel of ['engine-run/api-server.log', 'sglang-run/sgl.log', 'pd-run/decode.log']) {
    const { session } = open(rel);
    const offered = session.records.map((_, i) => [i, timelineRequestAt(session, i)] as const).filter(([, rid]) => rid !== null);
    assert.ok(offered.length > 0, rel);
    assert.equal(offered.length, session.tracker.requestCount, `${rel}: one line per request`);
    for (const [i, rid] of offered) assert.equal(session.tracker.brief(rid!)!.firstLine, i + 1, rel);
  }
  // Lines about no request, and continuation lines, offer none.
  const { session } = open('engine-run/engine-core.log');
  assert.deepEqual(session.records.map((_, i) => timelineRequestAt(session, i)).filter((x) => x !== null), []);
});
