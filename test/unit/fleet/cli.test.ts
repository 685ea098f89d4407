// `hoplens timeline --traces … --logs …` and `hoplens annotate --logs …` against real Jaeger and
// VictoriaLogs: a prefill/decode run's three logs (a router, a prefill and a decode instance) are
// shipped to VictoriaLogs as three pods, the request's spans to Jaeger over OTLP, and the CLI
// (dist/cli.js, a real child process) finds the request in the stores as it finds it in the files.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fleetBinariesOrSkip, freePort, startJaeger, startVictoriaLogs, type JaegerServer, type VictoriaLogsServer } from '../../harness/fleetServers';
import { REPO, runCli } from '../cli/cliProcess';

const PD = join(REPO, 'test', 'fixtures', 'timeline', 'pd-run');
const RID = 'pd-0003';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const ESC = '\u001b';
const HOSTILE = `${ESC}[2J${ESC}]8;;command:workbench.action.terminal.new${ESC}\\x${ESC}]8;;${ESC}\\ [run](command:hoplens.sendTracedRequest)`;

function jsonLines(out: Buffer): Array<Record<string, unknown>> {
  return out.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('hoplens timeline / annotate against real Jaeger and VictoriaLogs', { concurrency: false }, () => {
  let jaeger: JaegerServer | undefined;
  let vl: VictoriaLogsServer | undefined;
  const nowMs = Date.now();

  before(async () => {
    const bins = fleetBinariesOrSkip({ skip: (why) => process.stderr.write(`${why}\n`) });
    if (!bins) return;
    [jaeger, vl] = await Promise.all([startJaeger(bins.jaeger), startVictoriaLogs(bins.victorialogs)]);
    const rows: Array<{ _msg: string; _time: string; [k: string]: string }> = [];
    for (const [file, pod] of [['router.log', 'router-0'], ['prefill.log', 'prefill-0'], ['decode.log', 'decode-0']] as const) {
      const lines = readFileSync(join(PD, file), 'utf8').split('\n').filter((l) => l !== '');
      lines.forEach((l, i) => rows.push({ _msg: l, _time: new Date(nowMs - 3600_000 + i).toISOString(), namespace: 'serving', pod, container: 'vllm' }));
    }
    rows.push({
      _msg: `(APIServer pid=3101) INFO 08-21 22:30:10 [request_logger.py:98] Generated response chatcmpl-${RID}: output: '${HOSTILE}', finish_reason: stop`,
      _time: new Date(nowMs - 1800_000).toISOString(), namespace: 'serving', pod: 'decode-0', container: 'vllm',
    });
    await vl.ingest(rows);
    const span = {
      traceId: TRACE, spanId: '00f067aa0ba902b7', name: 'llm_request', kind: 2,
      startTimeUnixNano: `${BigInt(nowMs - 3600_000) * 1_000_000n}`, endTimeUnixNano: `${BigInt(nowMs - 3600_000 + 900) * 1_000_000n}`,
      attributes: [{ key: 'gen_ai.request.id', value: { stringValue: `chatcmpl-${RID}` } }, { key: 'gen_ai.latency.e2e', value: { doubleValue: 0.9 } }],
    };
    await jaeger.ingest({
      resourceSpans: [{
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'vllm-decode' } }] },
        scopeSpans: [{ scope: { name: 'vllm.llm_engine' }, spans: [span] }],
      }],
    }, [TRACE]);
  });

  after(async () => { await Promise.all([jaeger?.stop(), vl?.stop()]); });

  test('timeline --json: one log per pod from the store, the same hops as from the files, and the span from Jaeger', async (t) => {
    if (!jaeger || !vl) return t.skip('no fleet tools');
    const remote = await runCli(['timeline', '--rid', RID, '--logs', `victorialogs+${vl.baseUrl}`, '--traces', `jaeger+${jaeger.baseUrl}`,
      '--selector', '{namespace="serving"}', '--since', '2h', '--json']);
    assert.equal(remote.code, 0, remote.stderr);
    const files = await runCli(['timeline', '--rid', RID, join(PD, 'router.log'), join(PD, 'prefill.log'), join(PD, 'decode.log'), '--json']);
    assert.equal(files.code, 0, files.stderr);
    const r = jsonLines(remote.stdout);
    const f = jsonLines(files.stdout);
    const summary = r.find((o) => o.kind === 'summary') as {
      logs: Array<{ path: string; labels?: Record<string, string> }>; spans: number; traceIds: string[];
    };
    assert.deepEqual(summary.logs.map((l) => [l.path, l.labels?.pod]), [
      ['decode-0:vllm', 'decode-0'], ['prefill-0:vllm', 'prefill-0'], ['router-0:vllm', 'router-0'],
    ]);
    assert.equal(summary.spans, 1);
    assert.deepEqual(summary.traceIds, [TRACE]);
    const hops = (objs: Array<Record<string, unknown>>, laneTitle: (id: string) => string): string[] => objs
      .filter((o) => o.kind === 'item' && o.item === 'hop').map((o) => `${laneTitle(String(o.lane))} ${String(o.hop)} ${String(o.label)}`).sort();
    const role = (objs: Array<Record<string, unknown>>) => (id: string): string => {
      const lane = objs.find((o) => o.kind === 'lane' && o.id === id) as { file?: string } | undefined;
      return /router/.test(lane?.file ?? '') ? 'router' : /prefill/.test(lane?.file ?? '') ? 'prefill' : 'decode';
    };
    assert.ok(hops(f, role(f)).length >= 4);
    // The store has one line more than the files: the hostile V6 line shipped to decode-0 only.
    const extra = hops(r, role(r)).filter((h) => !hops(f, role(f)).includes(h));
    assert.deepEqual(extra, ['decode V6 Generated response chatcmpl-pd-0003: output: ‹redacted›, finish_reason: stop']);
    assert.deepEqual(hops(r, role(r)).filter((h) => !extra.includes(h)), hops(f, role(f)), 'the store\'s lines give the hops the files give');
    assert.ok(r.some((o) => o.kind === 'item' && o.item === 'span'), 'the span from Jaeger is on the timeline');
    assert.deepEqual(r.filter((o) => o.kind === 'clock').length, f.filter((o) => o.kind === 'clock').length + 1, 'a clock per pod, and the spans\'');
  });

  test('timeline: an id no store has is exit 1, saying what was asked of each store', async (t) => {
    if (!jaeger || !vl) return t.skip('no fleet tools');
    const none = await runCli(['timeline', '--rid', 'never-sent-77', '--logs', `victorialogs+${vl.baseUrl}`, '--traces', `jaeger+${jaeger.baseUrl}`]);
    assert.equal(none.code, 1);
    assert.match(none.stdout.toString('utf8'), /asked VictoriaLogs at http:\/\/127\.0\.0\.1:\d+: \("never-sent-77"/);
    assert.match(none.stdout.toString('utf8'), /asked Jaeger at .*no trace found/);
  });

  test('annotate --logs: each pod\'s lines of the request annotated, hostile text shown as text; --json names each stream', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const text = await runCli(['annotate', '--logs', `victorialogs+${vl.baseUrl}`, '--rid', RID, '--selector', '{namespace="serving"}', '--width', '400']);
    assert.equal(text.code, 0, text.stderr);
    const out = text.stdout.toString('utf8');
    assert.match(out, /== decode-0:vllm \(container=vllm, namespace=serving, pod=decode-0; victorialogs at http:\/\/127\.0\.0\.1:\d+\) ==/);
    assert.match(out, /== prefill-0:vllm /);
    assert.ok(out.includes('command:hoplens.sendTracedRequest'), 'the hostile line is shown');
    assert.ok(!out.includes(ESC), 'as text: no escape byte reaches the terminal');
    const json = await runCli(['annotate', '--logs', `victorialogs+${vl.baseUrl}`, '--rid', RID, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const objs = jsonLines(json.stdout);
    assert.deepEqual(objs.filter((o) => o.kind === 'stream').map((o) => o.name), ['decode-0:vllm', 'prefill-0:vllm', 'router-0:vllm']);
    assert.ok(objs.filter((o) => o.kind === 'line').length >= 6);
    const none = await runCli(['annotate', '--logs', `victorialogs+${vl.baseUrl}`, '--rid', 'never-sent-77']);
    assert.equal(none.code, 1);
    const noRid = await runCli(['annotate', '--logs', `victorialogs+${vl.baseUrl}`]);
    assert.equal(noRid.code, 2);
    assert.match(noRid.stderr, /needs --rid/);
  });

  test('a store that cannot be reached: a warning when the other had the request, exit 1 with the reason when nothing did', async (t) => {
    if (!jaeger || !vl) return t.skip('no fleet tools');
    const down = `victorialogs+http://127.0.0.1:${await freePort()}`;
    const partial = await runCli(['timeline', '--rid', RID, '--logs', down, '--traces', `jaeger+${jaeger.baseUrl}`]);
    assert.equal(partial.code, 0, partial.stderr);
    assert.match(partial.stderr, /warning: victorialogs at http:\/\/127\.0\.0\.1:\d+: cannot reach .*ECONNREFUSED/);
    const only = await runCli(['timeline', '--rid', RID, '--logs', down]);
    assert.equal(only.code, 1);
    assert.match(only.stderr, /^hoplens timeline: victorialogs at .*cannot reach/m);
    const bad = await runCli(['timeline', '--rid', RID, '--logs', 'victorialogs+http://u:p@127.0.0.1:1']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /credentials do not go in the URL/);
    const badT = await runCli(['timeline', '--rid', RID, '--logs', `victorialogs+${vl.baseUrl}`, '--since', 'yesterday']);
    assert.equal(badT.code, 2);
    assert.match(badT.stderr, /--since "yesterday" is neither RFC 3339/);
  });
});
