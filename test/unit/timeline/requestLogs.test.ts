// Reading logs for the timeline: the request's own lines as records (also when the other
// requests' lines take the byte fast path), every process with its pid, the stamps the clock
// rules need for every request, batch lines by time, router lines naming the request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { readRequestLogs, STAMP } from '../../../src/core/timeline/requestLogs';
import { LogInputError } from '../../../src/core/logs/scanner';
import { engineRun, stage } from './fixtures';
import { makeTempDir } from '../../harness/tempDirs';

test('the request\'s lines of each file, with their process, hop and cited source', async () => {
  const dir = stage('engine-run');
  const run = engineRun(dir);
  const { key, logs } = await readRequestLogs([join(dir, 'api-server.log'), join(dir, 'engine-core.log')], 'chatcmpl-tl-0001-5e1d0c2b');
  assert.equal(key, 'tl-0001', 'an engine-internal id finds its request');
  const [api, core] = logs;
  assert.deepEqual(api.records.map((r) => r.record.hop), ['V1b', 'V1', 'V2', 'V6', 'V6', 'V6', 'V6']);
  assert.ok(api.records.every((r) => r.record.pid === run.apiServerPid && r.record.process === 'APIServer'));
  assert.deepEqual(api.records[2].source, { path: 'vllm/v1/engine/async_llm.py', line: 439, verified: false, drift: 0, method: 'fileinfo' });
  assert.equal(api.group?.rid, 'chatcmpl-tl-0001');
  assert.equal(core.records.length, 0, 'the engine core prints no request id');
  assert.equal(core.kind, 'engine');
});

test('processes of lines the byte fast path took keep their pid (trace files are matched by it)', async () => {
  const dir = stage('engine-run');
  const run = engineRun(dir);
  const { logs } = await readRequestLogs([join(dir, 'engine-core.log'), join(dir, 'api-server.log')], 'tl-0001');
  assert.deepEqual(logs[0].processes, [{ name: 'EngineCore', pid: run.enginePid, role: 'engine-core' }]);
  assert.deepEqual(logs[1].processes.map((p) => [p.name, p.pid, p.role]), [['APIServer', run.apiServerPid, 'api-server']]);
});

test('batch lines are found by time in any file, the request\'s or not', async () => {
  const dir = stage('engine-run');
  const run = engineRun(dir);
  const { logs } = await readRequestLogs([join(dir, 'engine-core.log')], 'tl-0001');
  const sec = Math.floor(run.arrivalEpochMs / 1000) * 1000;
  const inside = logs[0].contextBetween(run.arrivalEpochMs, run.finishedEpochMs);
  // Whole-second stamps: a line is in the window when any part of its second is.
  assert.deepEqual(inside.map((c) => [c.hop, c.process, c.resolution]).slice(-2), [['V4', 'EngineCore', 's'], ['V3', 'EngineCore', 's']]);
  assert.ok(inside.every((c) => c.time + 1000 > run.arrivalEpochMs && c.time <= run.finishedEpochMs && c.time >= sec - 1000));
  assert.deepEqual(logs[0].contextBetween(run.finishedEpochMs + 5000, run.finishedEpochMs + 6000), []);
});

test('every request shared by files keeps the stamps the clock rules compare', async () => {
  const dir = stage('pd-run');
  const { logs } = await readRequestLogs(['router.log', 'prefill.log', 'decode.log'].map((f) => join(dir, f)), 'pd-0003');
  const [router, prefill, decode] = logs;
  assert.equal(router.kind, 'router');
  assert.equal(router.stamps.size, 40);
  assert.equal(prefill.stamps.size, 40);
  assert.equal(decode.stamps.size, 40);
  const r = router.stamps.find('pd-0003');
  assert.deepEqual(router.stamps.get(r, STAMP.routerReceived), { time: Date.UTC(2026, 7, 21, 22, 30, 3), resMs: 1000, line: 7 });
  assert.ok(router.stamps.has(r, STAMP.routerResponded));
  const p = prefill.stamps.find('pd-0003');
  assert.ok(prefill.stamps.has(p, STAMP.arrive) && prefill.stamps.has(p, STAMP.admit));
  assert.ok(prefill.stamps.line(p, STAMP.beforeResponse) > prefill.stamps.line(p, STAMP.admit), 'the prefill\'s V6 answer comes last');
  assert.equal(decode.stamps.find('chatcmpl-pd-0003'), -1, 'kept under the join key');
  assert.deepEqual(router.mentions.map((m) => m.router.event), ['received', 'responded']);
  assert.equal(router.records.length, 0);
});

test('SGLang: the request logger\'s file and the scheduler\'s, joined on the rid', async () => {
  const dir = stage('sglang-run');
  const { key, logs } = await readRequestLogs([join(dir, 'sgl.log'), join(dir, 'requests', 'gpu-node-3_0.log')], 'sg002571242425051c1cc');
  assert.equal(key, 'sg002571242425051c1cc');
  assert.deepEqual(logs[0].records.map((r) => [r.record.hop, r.record.process, r.record.timeResolution]), [['S5', 'TP0', 'ms']]);
  assert.deepEqual(logs[1].records.map((r) => [r.record.hop, r.record.timeResolution]), [['S2', 's'], ['S6', 's']]);
  assert.ok(logs[0].contextBetween(-Infinity, Infinity, 1000).some((c) => c.hop === 'S4'));
});

test('a file that cannot be read is a LogInputError naming it', async () => {
  const dir = makeTempDir('hoplens-tl-').path;
  await assert.rejects(readRequestLogs([join(dir, 'missing.log')], 'x'), (e) => e instanceof LogInputError && /missing\.log/.test(e.message));
  const bin = join(dir, 'bin.log');
  writeFileSync(bin, Buffer.from([0x1f, 0x8b, 0, 0, 0, 0]));
  await assert.rejects(readRequestLogs([bin], 'x'), LogInputError);
});
