// `hoplens annotate --summary`: the statements of a log by how often they printed, as a table
// and as JSON Lines, with the exit codes and refusals of the other annotate modes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cliProcess';

const LOG = [
  '(APIServer pid=2101) INFO 08-21 22:30:05 [request_logger.py:63] Received request chatcmpl-a: params: SamplingParams(n=1), lora_request: None.',
  '(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-a-0a1b2c3d.',
  '(APIServer pid=2101) INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
  '(EngineCore pid=2150) INFO 08-21 22:30:06 [v1/core/sched/scheduler.py:412] Scheduled 3 requests, 812 tokens in this step.',
  "(APIServer pid=2101) INFO 08-21 22:30:06 [request_logger.py:98] Generated response chatcmpl-a (streaming delta): output: 'Hi', finish_reason: None",
  "(APIServer pid=2101) INFO 08-21 22:30:07 [request_logger.py:98] Generated response chatcmpl-a (streaming delta): output: ' there', finish_reason: None",
  // Colour codes: the string parser takes this line, and it counts under the same statement.
  "\x1b[0;36m(APIServer pid=2101)\x1b[0;0m \x1b[32mINFO\x1b[0m 08-21 22:30:08 [request_logger.py:98] Generated response chatcmpl-a (streaming delta): output: '!', finish_reason: None",
  '(APIServer pid=2101) INFO 08-21 22:30:09 [request_logger.py:63] Received request chatcmpl-b: params: SamplingParams(n=1), lora_request: None.',
  '',
].join('\n');

interface StatementJson {
  kind: string; fileinfo: string | null; lineno: number | null; count: number; hop: string | null; level: string | null;
  source: { path: string; line: number; verified: boolean } | null; first: string | null; last: string | null;
  firstLine: number; lastLine: number; example: string;
}

function withLog(text: string, body: (log: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-summary-'));
  const log = join(dir, 'vllm.log');
  writeFileSync(log, text);
  return body(log).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('annotate --summary --json: one object per statement, most lines first, with first and last time and one example', () => withLog(LOG, async (log) => {
  const r = await runCli(['annotate', log, '--summary', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const objs = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as StatementJson & { statements?: number; lines?: number });
  const st = objs.filter((o) => o.kind === 'statement');
  const summary = objs[objs.length - 1];
  assert.equal(summary.kind, 'summary');
  assert.equal(summary.statements, st.length);
  assert.deepEqual(st.map((s) => [s.fileinfo, s.lineno, s.hop, s.count]), [
    ['request_logger.py', 98, 'V6', 3], ['request_logger.py', 63, 'V1', 2],
    ['async_llm.py', 439, 'V2', 1], [null, null, 'V10', 1], ['v1/core/sched/scheduler.py', 412, null, 1],
  ]);
  assert.equal(st.reduce((n, s) => n + s.count, 0), summary.lines);
  assert.deepEqual((summary as unknown as { counts: object }).counts, { V6: 3, V1: 2, V2: 1, V10: 1 });
  assert.equal((summary as unknown as { hopLines: number }).hopLines, 7);
  const gen = st[0];
  assert.deepEqual(gen.source, { path: 'vllm/entrypoints/serve/utils/request_logger.py', line: 98, verified: false });
  assert.equal(gen.level, 'INFO');
  assert.match(gen.first!, /^\d{4}-08-21T22:30:06$/);
  assert.match(gen.last!, /^\d{4}-08-21T22:30:08$/);
  assert.deepEqual([gen.firstLine, gen.lastLine], [5, 7]);
  assert.equal(gen.example, "Generated response chatcmpl-a (streaming delta): output: 'Hi', finish_reason: None");
  assert.equal(st[3].example, '127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
  assert.equal(st[3].first, null);
}));

test('annotate --summary: the table names each statement with its count and source; nothing found exits 1; --unmatched is refused', () => withLog(LOG, async (log) => {
  const r = await runCli(['annotate', log, '--summary']);
  assert.equal(r.code, 0, r.stderr);
  const text = r.stdout.toString();
  assert.match(text, /^\s+3 {2}V6 {3}INFO {5}request_logger\.py:98 +vllm\/entrypoints\/serve\/utils\/request_logger\.py:98 +\d{4}-08-21 22:30:06 {2}\d{4}-08-21 22:30:08 {2}Generated response/m);
  assert.match(text, /vllm\.log: vllm, 8 line\(s\), 5 statement\(s\)/);
  assert.doesNotMatch(text, /\x1b/);
  const refused = await runCli(['annotate', log, '--summary', '--unmatched']);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--summary .* --unmatched/);
  const one = await runCli(['annotate', log, '--summary', '--json', '--rid', 'chatcmpl-b']);
  const counted = one.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as StatementJson).filter((o) => o.kind === 'statement');
  assert.deepEqual(counted.map((s) => [s.lineno, s.count]), [[63, 1]]);
}));

test('annotate --summary: a log with no file:line and no hop exits 1 and says so', () => withLog('just some text\nno engine here\n', async (log) => {
  const r = await runCli(['annotate', log, '--summary']);
  assert.equal(r.code, 1);
  assert.match(r.stdout.toString(), /none with a file:line or a hop/);
}));
