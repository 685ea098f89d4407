// The whole request as one Perfetto trace and as Markdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTimeline } from '../../../src/core/timeline/load';
import { timelineMarkdown, timelinePerfetto } from '../../../src/core/timeline/export';
import { clientFromSendJson, type ClientRequest } from '../../../src/core/timeline/clientRequest';
import { stage } from './fixtures';

async function engine(includeText = false) {
  const dir = stage('engine-run');
  const client = clientFromSendJson(JSON.parse(readFileSync(join(dir, 'client.json'), 'utf8'))) as ClientRequest;
  return (await loadTimeline({ query: 'tl-0001', logs: [join(dir, 'api-server.log'), join(dir, 'engine-core.log')], otlpFiles: [join(dir, 'otlp.jsonl')],
    traceDirs: [join(dir, 'trace')], client, indexMode: 'in-process', includeText })).timeline;
}

type Ev = { ph: string; name: string; pid: number; tid: number; ts?: number; dur?: number; cat?: string; args: Record<string, unknown> };

test('Perfetto: a process per clock, a thread per lane; bands and calls complete events, frames instants', async () => {
  const t = await engine();
  const trace = timelinePerfetto(t);
  const events = JSON.parse(JSON.stringify(trace)).traceEvents as Ev[];
  const threads = events.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => e.args.name);
  assert.deepEqual(threads, t.lanes.map((l) => l.title));
  const procs = events.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => String(e.args.name));
  assert.equal(procs[0], 'client (reference clock)');
  assert.match(procs[1], /^api-server\.log \(clock \+0\.000 ms estimated \[−/);
  const v2 = events.find((e) => e.cat === 'hop' && e.name.startsWith('V2 '))!;
  assert.equal(v2.ph, 'X');
  assert.equal(v2.dur, 1_000_000, 'a whole-second stamp is a second long');
  assert.equal(v2.args.source, 'vllm/v1/engine/async_llm.py:439');
  assert.equal(v2.args.resolution, 's');
  const frames = events.filter((e) => e.cat === 'client-frame');
  assert.equal(frames.length, 6);
  assert.ok(frames.every((f) => f.ph === 'i'));
  const steps = events.filter((e) => e.cat === 'call' && e.name === 'step');
  assert.equal(steps.length, 3);
  assert.ok(steps.every((s) => s.ph === 'X' && s.dur! > 30_000 && String(s.args.source).endsWith('/vllm/v1/engine/core.py:20')));
  assert.ok(events.filter((e) => e.ts !== undefined).every((e) => e.ts! >= 0), 'times from the earliest item');
  assert.doesNotMatch(JSON.stringify(trace), /Say hello/, 'prompts redacted');
  assert.match(JSON.stringify(timelinePerfetto(await engine(true))), /Say hello/);
});

test('Markdown: the clocks with their bounds, the hop table across files, prompts redacted', async () => {
  const md = timelineMarkdown(await engine());
  assert.match(md, /^### Request `tl-0001` across 2 log\(s\)/);
  assert.match(md, /\| `api-server\.log` \| \+0\.000 ms \| −\d+ ms … \+\d+ ms \| estimated, \d+ ordering\(s\) \|/);
  assert.match(md, /\| `engine-core\.log` \| \+0\.000 ms \| no ordering ties it \| assumed \|/);
  const rows = md.split('\n').filter((l) => /^\| \[/.test(l));
  assert.ok(rows.some((r) => r.includes('| `api-server.log` | `APIServer` | V2 | L4: `Added request chatcmpl-tl-0001-5e1d0c2b.` | `vllm/v1/engine/async_llm.py:439` |')), rows.join('\n'));
  assert.ok(rows.some((r) => r.includes('| `engine-core.log` | `EngineCore` | V4 | L5: `EngineCore loop active` | `vllm/v1/engine/core.py:1441` |')), rows.join('\n'));
  assert.match(md, /details: prompt: ‹redacted›, prompt_token_ids: ‹redacted›/);
  assert.doesNotMatch(md, /Say hello/);
  assert.match(md, /_Prompts and outputs redacted/);
  assert.match(md, /#### `calls · EngineCore pid \d+ · thread \d+`/);
  assert.match(md, /\| `run_busy_loop` \|/);
});

test('Markdown keeps log text inert: a link, HTML and a pipe stay text inside the cell', async () => {
  const dir = stage('pd-run');
  const log = join(dir, 'hostile.log');
  writeFileSync(log, "(APIServer pid=1) INFO 08-21 22:30:05 [request_logger.py:98] Generated response chatcmpl-pd-0017: output: 'x', finish_reason: [x](command:workbench.action.quit)|<img src=x onerror=alert(1)>\n");
  const { timeline } = await loadTimeline({ query: 'pd-0017', logs: [join(dir, 'router.log'), log], includeText: true });
  const md = timelineMarkdown(timeline);
  const row = md.split('\n').find((l) => l.includes('onerror'))!;
  assert.match(row, /`Generated response chatcmpl-pd-0017: output: 'x', finish_reason: \[x\]\(command:workbench\.action\.quit\)\\\|<img src=x onerror=alert\(1\)>`/);
  assert.equal(row.split(' | ').length, 6, 'still six columns');
});
