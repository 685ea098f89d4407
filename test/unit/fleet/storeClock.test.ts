// The store's own timestamp of each line in the per-pod clock estimate, against a real
// VictoriaLogs: a prefill/decode run's three logs (router, prefill, decode; their clocks skewed
// by the known offsets of truth.json) shipped as three pods, each line stamped by the node's log
// agent as it read it (`_time`, the pod's clock, 2 ms after the line was printed). One request's
// lines alone, printed to the second, leave each pod's offset about two seconds wide; with the
// store's stamps the bounds are far narrower and still hold the true offset. A store whose stamps
// come from a clock behind the pods' (before the second their line was printed in) is not
// used: the bounds are those the printed stamps give; one behind by less than a second, which no
// stamp shows, still gives bounds that hold the true offset.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { victoriaLogsOrSkip, type VictoriaLogsServer } from '../../harness/fleetServers';
import { runCli } from '../cli/cliProcess';
import { PD, PODS, RID, printedMs, truth } from './pdRun';


/**
 * The rows of one namespace: each line with `_time` from `stamp` (printed ms, and the true time of
 * the line in the pod's clock when truth.json knows it: a request's arrival).
 */
function rows(namespace: string, stamp: (printed: number, trueInPod: number | undefined) => number) {
  const out: Array<{ _msg: string; _time: string; [k: string]: string }> = [];
  for (const [file, pod, event] of PODS) {
    const offset = truth.trueOffsetsMs[file];
    for (const l of readFileSync(join(PD, file), 'utf8').split('\n').filter((x) => x !== '')) {
      const printed = printedMs(l);
      if (printed === null) continue;
      const rid = /request_id="(pd-\d+)"\}: \S+request: .*started processing/.exec(l)?.[1] ?? /Received request chatcmpl-(pd-\d+):/.exec(l)?.[1];
      const trueRef = rid ? truth.requests[rid]?.[event] : undefined;
      const time = stamp(printed, trueRef === undefined ? undefined : trueRef + offset);
      out.push({ _msg: l, _time: new Date(time).toISOString(), namespace, pod, container: 'vllm' });
    }
  }
  return out;
}

/**
 * The largest lag of the store's clock behind the pods' that no stamp of the request's lines shows:
 * each of its lines whose true time is known still stamped at or after the start of its printed
 * second (the 2 ms agent delay). The store is asked for the request's lines only.
 */
const LAG_MS = Math.min(...PODS.flatMap(([file, , event]) => readFileSync(join(PD, file), 'utf8').split('\n').flatMap((l) => {
  const printed = printedMs(l);
  const rid = /request_id="(pd-\d+)"\}: \S+request: .*started processing/.exec(l)?.[1] ?? /Received request chatcmpl-(pd-\d+):/.exec(l)?.[1];
  const t = rid === RID ? truth.requests[rid]?.[event] : undefined;
  return printed === null || t === undefined ? [] : [t + truth.trueOffsetsMs[file] - printed + 2];
})));

interface Clock { kind: 'clock'; label: string; path?: string; offsetMs: number; minMs: number | null; maxMs: number | null }

describe('the store\'s line stamps in the per-pod clock estimate (real VictoriaLogs)', { concurrency: false }, () => {
  let vl: VictoriaLogsServer | undefined;

  before(async () => {
    vl = await victoriaLogsOrSkip();
    await vl?.ingest([
      // The node's agent: 2 ms after the true time where known, else at the end of the printed second (no sharper than the line).
      ...rows('sharp', (printed, t) => (t !== undefined ? t + 2 : printed + 1000)),
      // No sharper than the lines: every stamp at the end of its printed second.
      ...rows('blunt', (printed) => printed + 1000),
      // Stamped by a clock 1.5 s behind the pods' (on ingest, by another machine): before the second each line was printed in.
      ...rows('behind', (printed, t) => (t ?? printed + 1000) + 2 - 1500),
      // Stamped by a clock behind the pods' by less than a second, as far as no stamp falls before its printed second.
      ...rows('lagging', (printed, t) => (t ?? printed + 1000) + 2 - LAG_MS),
    ]);
  });
  after(async () => { await vl?.stop(); });

  async function clocks(namespace: string): Promise<Map<string, Clock>> {
    const r = await runCli(['timeline', '--rid', RID, '--logs', `victorialogs+${vl!.baseUrl}`, '--selector', `{namespace="${namespace}"}`,
      '--since', '2026-08-21T00:00:00Z', '--until', '2026-08-22T00:00:00Z', '--json'], { env: { ...process.env, TZ: 'UTC' } });
    assert.equal(r.code, 0, r.stderr);
    const objs = r.stdout.toString('utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as { kind: string });
    return new Map(objs.filter((o): o is Clock => o.kind === 'clock').map((c) => [c.label.replace(/:vllm$/, ''), c]));
  }

  test('stamps in the pod\'s clock narrow each pod\'s offset bounds, which still hold the true offset; a clock behind is not used', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    const [sharp, blunt, behind] = [await clocks('sharp'), await clocks('blunt'), await clocks('behind')];
    const width = (c: Clock | undefined): number => (c && c.minMs !== null && c.maxMs !== null ? c.maxMs - c.minMs : Infinity);
    for (const pod of ['prefill-0', 'decode-0']) {
      const file = `${pod.split('-')[0]}.log`;
      const trueMs = truth.trueOffsetsMs[file] - truth.trueOffsetsMs['router.log'];
      const s = sharp.get(pod), b = blunt.get(pod);
      assert.ok(s && b, `${pod} has a clock: ${[...sharp.keys()].join(', ')}`);
      assert.ok(s.minMs !== null && s.maxMs !== null && s.minMs <= trueMs && trueMs <= s.maxMs, `${pod}: ${JSON.stringify(s)} holds ${trueMs}`);
      assert.ok(b.minMs === null || b.maxMs === null || (b.minMs <= trueMs && trueMs <= b.maxMs), `${pod}: ${JSON.stringify(b)} holds ${trueMs}`);
      assert.ok(width(s) <= width(b) * 0.75, `${pod}: ${width(s)} ms wide with the store's stamps, ${width(b)} ms without`);
      assert.ok(Math.abs(s.offsetMs - trueMs) < Math.abs(b.offsetMs - trueMs), `${pod}: the estimate ${s.offsetMs} ms is nearer ${trueMs} than ${b.offsetMs}`);
      assert.deepEqual([behind.get(pod)?.minMs, behind.get(pod)?.maxMs], [b.minMs, b.maxMs], `${pod}: a store clock behind the pod's is not used`);
    }
  });

  test('a store clock behind the pods\' by less than a second, shown by no stamp: the bounds still hold the true offset', async (t) => {
    if (!vl) return t.skip('no fleet tools');
    assert.ok(LAG_MS > 100 && LAG_MS < 1000, `the lag hidden in the lines: ${LAG_MS} ms`);
    const [lagging, blunt] = [await clocks('lagging'), await clocks('blunt')];
    for (const pod of ['prefill-0', 'decode-0']) {
      const trueMs = truth.trueOffsetsMs[`${pod.split('-')[0]}.log`] - truth.trueOffsetsMs['router.log'];
      const l = lagging.get(pod), b = blunt.get(pod);
      assert.ok(l && b && l.minMs !== null && l.maxMs !== null, `${pod}: ${JSON.stringify(l)}`);
      assert.ok(l.minMs <= trueMs && trueMs <= l.maxMs, `${pod}: ${JSON.stringify(l)} holds ${trueMs} (a lag of ${LAG_MS} ms)`);
      assert.ok(b.minMs === null || b.maxMs === null || l.maxMs - l.minMs <= b.maxMs - b.minMs, `${pod}: no wider than without the store's stamps`);
    }
  });
});
