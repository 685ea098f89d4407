// A request is every line that names it. In a P/D (disaggregated prefill) deployment the prefill
// instance's only DEBUG line for a request may be its KV transfer, and the KV connector prints
// lines of its own: the scheduler's and NIXL's transfer lines are hops (V12 prefill, V13 and V14
// decode, lines exactly as vLLM prints them at the citations), and any other line naming one of
// the request's ids is a plain line of the request — in `annotate --rid`, in the timeline's
// request logs read from a file, and from a log open in the editor (its session).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAnnotate } from '../../../src/cli/annotate';
import { bufferIO } from '../../../src/cli/io';
import { LogSession } from '../../../src/core/session/logSession';
import { readRequestLogs } from '../../../src/core/timeline/requestLogs';
import { findHop } from '../../../src/engines/index';
import { remoteStreamSource } from '../../../src/core/fleet/source';
import { makeTempDir } from '../../harness/tempDirs';

// The prefill instance: another request's INFO lines, then, for pd-7, only the connector's and
// the scheduler's DEBUG lines (vLLM's scheduler names the engine-internal id, external + -<8 hex>).
const PREFILL = [
  '(APIServer pid=4101) INFO 08-21 22:41:02 [request_logger.py:63] Received request chatcmpl-other-1: params: SamplingParams(n=1), lora_request: None.',
  '(APIServer pid=4101) INFO 08-21 22:41:02 [async_llm.py:439] Added request chatcmpl-other-1-0a1b2c3d.',
  "(EngineCore_DP0 pid=4150) DEBUG 08-21 22:41:02 [pull_scheduler.py:192] NIXLConnector request_finished(chatcmpl-pd-7-1f2e3d4c), request_status=FINISHED_LENGTH_CAPPED, kv_transfer_params={'do_remote_decode': True}",
  '(EngineCore_DP0 pid=4150) DEBUG 08-21 22:41:03 [scheduler.py:2831] Finished sending KV transfer for request chatcmpl-pd-70-9a8b7c6d',
  '(EngineCore_DP0 pid=4150) DEBUG 08-21 22:41:03 [scheduler.py:2831] Finished sending KV transfer for request chatcmpl-pd-7-1f2e3d4c',
].join('\n') + '\n';

// The decode instance, through `docker logs --timestamps` (a wrapper in front of vLLM's header).
const DECODE = [
  '2026-08-21T22:41:03.101234567Z (Worker pid=5220) DEBUG 08-21 22:41:03 [pull_worker.py:55] start_load_kv for request chatcmpl-pd-7-5e6f7a8b from remote engine 6f1e2d3c-aaaa-bbbb-cccc-0123456789ab. Num local_block_ids: 4. Num remote_block_ids: 4. ',
  '2026-08-21T22:41:03.204567890Z (EngineCore_DP0 pid=5200) DEBUG 08-21 22:41:03 [scheduler.py:2822] Finished recving KV transfer for request chatcmpl-pd-7-5e6f7a8b',
  '2026-08-21T22:41:03.310000000Z (APIServer pid=5101) INFO 08-21 22:41:03 [request_logger.py:63] Received request chatcmpl-plain-2: params: SamplingParams(n=1), lora_request: None.',
].join('\n') + '\n';

function staged(): { prefill: string; decode: string } {
  const dir = makeTempDir('hoplens-pd-').path;
  const prefill = join(dir, 'prefill.log'), decode = join(dir, 'decode.log');
  writeFileSync(prefill, PREFILL);
  writeFileSync(decode, DECODE);
  return { prefill, decode };
}

interface JsonLine { kind: string; line: number; hop: string | null; rid: string | null; role: string | null; source: { path: string; line: number } | null }

async function annotateJson(path: string, rid: string): Promise<{ code: number; lines: JsonLine[]; summary: Record<string, unknown> }> {
  const io = bufferIO();
  const code = await runAnnotate([path, '--rid', rid, '--json'], io);
  const objs = io.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { code, lines: objs.filter((o) => o.kind === 'line') as unknown as JsonLine[], summary: objs.find((o) => o.kind === 'summary')! };
}

test('a prefill log whose only lines for a request are its KV transfer is a log of that request (annotate --rid)', async () => {
  const { prefill } = staged();
  const r = await annotateJson(prefill, 'pd-7');
  assert.equal(r.code, 0, 'found: exit 0');
  assert.deepEqual(r.lines.map((l) => [l.line, l.hop]), [[3, null], [5, 'V12']], 'the connector\'s line and the transfer hop; pd-70 is another request');
  const hop = r.lines[1];
  assert.equal(hop.rid, 'chatcmpl-pd-7');
  assert.equal(hop.role, 'engine-core');
  assert.deepEqual(hop.source, { path: 'vllm/v1/core/sched/scheduler.py', line: 2831, verified: false, drift: 0 });
  assert.equal(findHop('vllm', 'V12')?.pd, 'prefill');
  const io = bufferIO();
  assert.equal(await runAnnotate([prefill, '--rid', 'pd-7'], io), 0);
  assert.match(io.stdout, /^ +3 {2}- {4}EngineCore_DP0 .*NIXLConnector request_finished\(chatcmpl-pd-7-1f2e3d4c\)/m, 'the plain line is shown, as `-`');
});

test('the decode instance\'s NIXL and scheduler lines are decode hops of the request, behind a docker wrapper', async () => {
  const { decode } = staged();
  const r = await annotateJson(decode, 'chatcmpl-pd-7');
  assert.equal(r.code, 0);
  assert.deepEqual(r.lines.map((l) => [l.hop, l.rid, l.role]), [['V14', 'chatcmpl-pd-7', 'worker'], ['V13', 'chatcmpl-pd-7', 'engine-core']]);
  assert.equal(findHop('vllm', 'V13')?.pd, 'decode');
  assert.equal(findHop('vllm', 'V14')?.pd, 'decode');
});

test('a request whose decode log has another request\'s transfer line is told it lacks its own', async () => {
  const { decode } = staged();
  const r = await annotateJson(decode, 'plain-2');
  const missing = (r.summary.missing as { hop: string; requests: number }[]).map((m) => m.hop);
  assert.ok(missing.includes('V13'), 'V13 is seen for pd-7, so plain-2 lacks it');
  assert.ok(!missing.includes('V12'), 'no request of this log sent KV');
});

test('the timeline\'s request logs hold every line naming the request, from the file and from an open log alike', async () => {
  const { prefill, decode } = staged();
  const fromFiles = await readRequestLogs([prefill, decode], 'pd-7');
  assert.equal(fromFiles.key, 'pd-7');
  const lines = (i: number) => fromFiles.logs[i].records.map((r) => `${r.record.line} ${r.record.hop ?? '-'}`);
  assert.deepEqual(lines(0), ['3 -', '5 V12']);
  assert.deepEqual(lines(1), ['1 V14', '2 V13']);
  const sessions = new Map([[prefill, PREFILL], [decode, DECODE]].map(([p, text]) => {
    const s = new LogSession({ engine: 'auto', referenceTime: Date.UTC(2026, 11, 2) });
    s.syncTextNow(text);
    return [p, s] as const;
  }));
  const fromSessions = await readRequestLogs([prefill, decode], 'pd-7', { openLog: (p) => sessions.get(p) });
  assert.deepEqual(fromSessions.logs.map((l) => l.records.map((r) => `${r.record.line} ${r.record.hop ?? '-'}`)), [lines(0), lines(1)]);
});

test('a log store\'s pod streams are read alike: the prefill pod\'s transfer lines and the connector\'s line are the request\'s', async () => {
  const endpoint = { kind: 'victorialogs' as const, baseUrl: 'http://127.0.0.1:9428' };
  const stream = (pod: string, text: string) => {
    const lines = text.trimEnd().split('\n');
    return remoteStreamSource(endpoint, {
      labels: { namespace: 'serving', pod, container: 'vllm' }, name: pod,
      entries: lines.map((l, i) => ({ text: l, timeNs: BigInt(Date.UTC(2026, 7, 21, 22, 41, 2) + i) * 1_000_000n })),
    }, Date.UTC(2026, 11, 2));
  };
  const sources = new Map([['prefill-0', stream('prefill-0', PREFILL)], ['decode-0', stream('decode-0', DECODE)]]);
  const r = await readRequestLogs(['prefill-0', 'decode-0'], 'pd-7', { sources });
  assert.deepEqual(r.logs.map((l) => l.records.map((x) => `${x.record.line} ${x.record.hop ?? '-'}`)), [['3 -', '5 V12'], ['1 V14', '2 V13']]);
});
