// Send Traced Request in a real extension host against our local streaming server.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { hoplens, until } from './fixture';
import type { TracedRequest } from '../../src/core/request/index';

describe('Send Traced Request', () => {
  it('times one streaming request from the socket, opens the report and finds the server log lines', async () => {
    const api = await hoplens();
    const result = await vscode.commands.executeCommand<TracedRequest>('hoplens.sendTracedRequest', { interactive: false, maxTokens: 12 });
    assert.ok(result, 'the command returns the traced request');
    const { record, metrics } = result;
    assert.equal(record.error, null, JSON.stringify(record.error));
    assert.equal(record.status, 200);
    assert.equal(record.engine, 'vllm');
    assert.match(record.requestId, /^hoplens-/);
    // Schedule first=120 ms: TTFT from the socket cannot be earlier (how close it lands: bench/send.mjs).
    assert.ok(metrics.ttftContentMs! >= 115, `TTFT ${metrics.ttftContentMs}`);
    assert.ok(metrics.ttftFirstFrameMs! <= metrics.ttftContentMs!);
    // Through the request thread too, the connection set-up is measured apart from TTFT.
    assert.ok(record.timeline.connectMs !== null && record.timeline.connectMs >= 0, `connectMs ${record.timeline.connectMs}`);
    assert.ok(record.timeline.requestWrittenMs! >= 0 && metrics.headersMs! <= metrics.ttftFirstFrameMs!, JSON.stringify(record.timeline));
    assert.ok(metrics.itlMs && metrics.itlMs.count >= 5, 'ITL distribution over the content frames');
    const content = record.frames.filter((f) => f.kind === 'content');
    const gaps = content.slice(1).map((f, i) => `${(f.t - content[i].t).toFixed(1)}@${f.chunk}`).join(' ');
    // The schedule holds 6 frames 240 ms (6× the 40 ms gap) and writes them in ONE socket write.
    // What the server actually did is in its write trace: on a loaded machine its own timers can
    // run late and blur the hold, and then no client could see the signature.
    const held = await burstHeldByServer(record.requestId);
    assert.equal(held.burstFrames, 6, `the burst is one write of 6 frames: ${JSON.stringify(held)}`);
    if (held.clear) {
      assert.ok(metrics.signatures.some((s) => s.kind === 'coalescing'), `6 frames held ${held.gapMs.toFixed(0)} ms by the server (typical write gap ${held.typicalMs.toFixed(0)} ms) and written in one write read as coalescing: ${JSON.stringify(metrics.signatures)}; gaps@chunk: ${gaps}`);
    }

    const tab = await until('report tab', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputWebview && t.label === `Traced ${record.requestId}`));
    assert.ok(tab);

    // The fake server wrote vLLM-format lines for this request into hoplens.serverLog.
    await api.tracedRequests.openLog(result);
    const editor = await until('server log opened', () => {
      const e = vscode.window.activeTextEditor;
      return e && e.document.uri.fsPath === process.env.HOPLENS_FAKE_ENGINE_LOG ? e : undefined;
    });
    assert.match(editor.document.lineAt(editor.selection.active.line).text, new RegExp(`Received request ${record.logRequestId}`));
    const group = (await api.logs.session(editor.document))!.tracker.get(record.logRequestId);
    assert.ok(group && group.hops.length >= 3, `hops of ${record.logRequestId}: ${group?.hops.map((h) => h.hop).join(',')}`);
  });

  it('reports a server that is down as a clear error, not a hang', async () => {
    const config = vscode.workspace.getConfiguration('hoplens');
    const before = config.get<string>('server.url');
    await config.update('server.url', 'http://127.0.0.1:9', vscode.ConfigurationTarget.Workspace);
    try {
      const result = await vscode.commands.executeCommand<TracedRequest>('hoplens.sendTracedRequest', { interactive: false });
      assert.equal(result.record.error?.kind, 'connection-refused');
      assert.match(result.record.error!.hint, /server/i);
    } finally {
      await config.update('server.url', before, vscode.ConfigurationTarget.Workspace);
    }
  });
});

describe('Repeat Traced Request', () => {
  it('sends N requests in sequence and reports the distribution across runs', async () => {
    const report = await vscode.commands.executeCommand<string>('hoplens.repeatTracedRequest', 3);
    assert.match(report, /^3 of 3 run\(s\) completed/, report);
    const ttft = /TTFT content \(ms\)\s+([\d.]+)/.exec(report);
    assert.ok(ttft && Number(ttft[1]) >= 115, report);
    // Aggregated across runs: every run whose server held the burst clearly is counted (the
    // detector itself is checked run by run against the server's writes in the test above).
    const coalesced = /coalescing in (\d+) run\(s\)/.exec(report);
    assert.ok(coalesced && Number(coalesced[1]) >= 1 && Number(coalesced[1]) <= 3, report);
    const doc = await until('runs report document', () => vscode.workspace.textDocuments.find((d) => d.getText().includes('3 traced requests to `http://127.0.0.1:')));
    assert.ok(doc.getText().includes(report.trim().split('\n')[0]));
  });
});

/**
 * The fake engine's own record of its socket writes for a request: the burst write (the one with
 * several frames), the gap before it, and whether that gap stands clear of the other gaps (at
 * least 3× their median), as the schedule intends when the machine keeps the server's timers.
 */
async function burstHeldByServer(rid: string): Promise<{ burstFrames: number; gapMs: number; typicalMs: number; clear: boolean }> {
  const res = await fetch(`${process.env.HOPLENS_FAKE_ENGINE_URL}/__fake/writes?rid=${encodeURIComponent(rid)}`);
  assert.equal(res.status, 200, `the fake engine kept the writes of ${rid}`);
  const { writes } = await res.json() as { writes: { t: number; frames: number }[] };
  const at = writes.findIndex((w) => w.frames > 1);
  if (at < 1) return { burstFrames: at < 0 ? 0 : writes[at].frames, gapMs: 0, typicalMs: 0, clear: false };
  const gaps = writes.slice(1).map((w, i) => w.t - writes[i].t);
  const gapMs = gaps[at - 1];
  const others = gaps.filter((_, i) => i !== at - 1).sort((a, b) => a - b);
  const typicalMs = others.length ? others[Math.floor(others.length / 2)] : 0;
  return { burstFrames: writes[at].frames, gapMs, typicalMs, clear: typicalMs > 0 && gapMs >= 3 * typicalMs };
}
