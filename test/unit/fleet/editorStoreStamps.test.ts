// The store's own stamp of each line in the editor's fleet timeline: Find Request in the Fleet…
// opens each pod's lines as a document (open in the editor, as a user has them), then Show
// Timeline builds the timeline through the timeline feature's service. Each pod's lane is read
// from the fleet's document with the store's stamps of its entries, not from the open document's
// session (which has none, and which the logs feature holds for it while it is open), so, as on
// the command line (storeClock.test.ts), stamps in the pod's
// clock narrow each pod's clock-offset bounds, which still hold the true offset. The store is a
// loopback Loki answering as Loki's HTTP API documents (AGPL: never run here), the lines a
// prefill/decode run's three logs with their clocks skewed by truth.json's known offsets.
process.env.TZ = 'UTC';
import '../fakes/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { json, store, type Seen } from './loopbackStore';
import { secretStorageOver, shownWith, Uri, workspace } from '../fakes/vscode';
import { FleetCommands } from '../../../src/features/fleet/fleetCommand';
import { TimelineService } from '../../../src/features/timeline/timelineService';
import { annotateText } from '../../../src/core/session/logSession';
import type { HopLensConfig } from '../../../src/config';
import { PD, PODS, RID, printedMs, truth } from './pdRun';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Every line of the three pods, stamped by `stamp` (printed ms, the true time in the pod's clock where truth.json has it). */
function podLines(stamp: (printed: number, trueInPod: number | undefined) => number): Array<{ pod: string; ns: bigint; text: string }> {
  const out: Array<{ pod: string; ns: bigint; text: string }> = [];
  for (const [file, pod, event] of PODS) {
    for (const text of readFileSync(join(PD, file), 'utf8').split('\n').filter((x) => x !== '')) {
      const printed = printedMs(text);
      if (printed === null) continue;
      const rid = /request_id="(pd-\d+)"\}: \S+request: .*started processing/.exec(text)?.[1] ?? /Received request chatcmpl-(pd-\d+):/.exec(text)?.[1];
      const t = rid ? truth.requests[rid]?.[event] : undefined;
      out.push({ pod, ns: BigInt(Math.round(stamp(printed, t === undefined ? undefined : t + truth.trueOffsetsMs[file]))) * 1_000_000n, text });
    }
  }
  return out;
}

/** Loki's query_range over `lines`: the `|=` / `|~` filter applied, newest first, at most `limit`, the end exclusive. */
function loki(lines: ReturnType<typeof podLines>) {
  return (q: Seen, res: http.ServerResponse): void => {
    if (q.path !== '/loki/api/v1/query_range') return json(res, 404, {});
    const m = /\|([=~]) "((?:[^"\\]|\\.)*)"$/.exec(q.query.get('query') ?? '');
    const needle = m ? JSON.parse(`"${m[2]}"`) as string : '';
    const hit = m?.[1] === '~' ? ((t: string) => new RegExp(needle).test(t)) : ((t: string) => t.includes(needle));
    const end = BigInt(q.query.get('end')!);
    const picked = lines.filter((l) => l.ns < end && hit(l.text)).sort((a, b) => (a.ns > b.ns ? -1 : 1)).slice(0, Number(q.query.get('limit')));
    const byPod = new Map<string, Array<[string, string]>>();
    for (const l of picked) byPod.set(l.pod, [...(byPod.get(l.pod) ?? []), [String(l.ns), l.text]]);
    json(res, 200, {
      status: 'success',
      data: { resultType: 'streams', result: [...byPod].map(([pod, values]) => ({ stream: { namespace: 'serving', pod }, values })), stats: {} },
    });
  };
}

/** Find Request in the Fleet… then Show Timeline, in the editor: each pod's clock-offset bounds (ms, against the router's). */
async function editorClocks(lines: ReturnType<typeof podLines>): Promise<Map<string, { min: number | null; max: number | null }>> {
  const s = await store(loki(lines));
  const fleet: HopLensConfig['fleet'] = { traces: [], logs: [`loki+${s.base}`], selector: '{namespace="serving"}', window: '2026-08-21T00:00:00Z' };
  const timelines = new TimelineService({
    extensionUri: Uri.file('/ext') as unknown as vscode.Uri, log: quiet,
    // What the logs feature holds for an open document: a session of its text (no store stamps).
    logs: { settled: async (doc: vscode.TextDocument) => ({ session: annotateText(doc.getText()) }) } as never,
    spans: () => null, traceDirs: () => [], includeText: () => false,
    open: { logLine: async () => undefined, logSource: async () => undefined, code: async () => undefined },
  });
  const commands = new FleetCommands({
    settings: { get current() { return { fleet } as HopLensConfig; } }, secrets: secretStorageOver(new Map()), log: quiet, timeoutMs: 5000,
    showTimeline: async (req) => (await timelines.show({ query: req.query, logs: [], sources: req.sources, spans: req.spans })) !== undefined,
  });
  try {
    shownWith.length = 0;
    const opened = await commands.find(`chatcmpl-${RID}`);
    assert.equal(opened.length, 3, 'a document per pod');
    assert.equal(shownWith.length, 3, 'each open in the editor');
    // Open, as VS Code lists them: a timeline that took an open document's session would find these.
    workspace.textDocuments.push(...shownWith.map((x) => x.doc));
    assert.equal(await commands.timeline(), true);
    const t = timelines.current!.timeline;
    return new Map(t.clocks.map((c) => [c.label, { min: c.offset.min, max: c.offset.max }]));
  } finally {
    workspace.textDocuments.length = 0;
    commands.dispose(); timelines.dispose(); await s.close();
  }
}

test('Show Timeline on a fleet result in the editor: the store\'s stamps narrow each pod\'s offset bounds, which hold the true offset', async () => {
  // The node's agent: 2 ms after the true time where known, else the end of the printed second (no sharper than the line).
  const sharp = await editorClocks(podLines((printed, t) => (t !== undefined ? t + 2 : printed + 1000)));
  const blunt = await editorClocks(podLines((printed) => printed + 1000));
  for (const pod of ['prefill-0', 'decode-0']) {
    const trueMs = truth.trueOffsetsMs[`${pod.split('-')[0]}.log`] - truth.trueOffsetsMs['router.log'];
    const s = sharp.get(pod), b = blunt.get(pod);
    assert.ok(s && b, `${pod} has a clock: ${[...sharp.keys()].join(', ')}`);
    assert.ok(s.min !== null && s.max !== null && s.min <= trueMs && trueMs <= s.max, `${pod}: ${JSON.stringify(s)} holds ${trueMs}`);
    assert.ok(b.min !== null && b.max !== null, `${pod}: ${JSON.stringify(b)}`);
    assert.ok(s.max - s.min <= (b.max - b.min) * 0.75, `${pod}: ${s.max - s.min} ms wide with the store's stamps, ${b.max - b.min} ms without`);
  }
});
