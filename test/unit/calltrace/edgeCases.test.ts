// Hand-made trace files for what real traces rarely show: odd paths, older formats, garbled
// and cut lines, returns out of order, files still being written, the node cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTraceFolder } from '../../../src/core/calltrace/callTraceIndex';
import { readTraceFile } from '../../../src/core/calltrace/fileReader';
import { ThreadTrace } from '../../../src/core/calltrace/threadTrace';
import { CORE, SCHED, callLine, returnLine, tempDir, writeTrace } from './helpers';

async function single(lines: string[] | string, opts: Parameters<typeof writeTrace>[2] = {}) {
  const dir = tempDir();
  const path = writeTrace(dir, lines, opts);
  const index = await openTraceFolder(dir, { mode: 'in-process' });
  const [s] = index.threadSummaries();
  return { index, key: s.key, s, path, dir };
}

test('paths with spaces and colons, and the initial frame "from  in :0"', async () => {
  const odd = '/home/me/my src:v2/vllm/v1/engine/core.py';
  const { index, key } = await single([
    `2026-08-21 22:30:01.000010 Call to run_busy_loop in ${odd}:940 from  in :0`,
    callLine('01.000020', 'schedule', SCHED, 213, 'run_busy_loop', odd, 951),
    returnLine('01.000520', 'schedule', SCHED, 230, 'run_busy_loop', odd, 951),
    `2026-08-21 22:30:01.001010 Return from run_busy_loop in ${odd}:960 to  in :0`,
  ]);
  const [loop] = index.getChildren(key, null).rows;
  assert.equal(loop.file, odd);
  assert.equal(loop.line, 940);
  assert.equal(loop.callSite, null);
  assert.equal(loop.durationUs, 1000);
  const [sched] = index.getChildren(key, loop.nodeId).rows;
  assert.deepEqual(sched.callSite, { fn: 'run_busy_loop', file: odd, line: 951 });
  assert.equal(sched.durationUs, 500);
  assert.equal(loop.selfUs, 500);
});

test('the older format (no caller part; str(datetime) drops .%f at a whole second) is read too', async () => {
  const { index, key, s } = await single([
    `2024-03-01 10:00:00 Call to step in ${CORE}:20`,
    `2024-03-01 10:00:00.000250 Call to schedule in ${SCHED}:5`,
    `2024-03-01 10:00:00.000750 Return from schedule in ${SCHED}:9`,
    `2024-03-01 10:00:01 Return from step in ${CORE}:30`,
  ]);
  assert.equal(s.stats.format, 'legacy');
  const [step] = index.getChildren(key, null).rows;
  assert.equal(step.durationUs, 1_000_000);
  assert.equal(step.callSite, null);
  assert.equal(index.getChildren(key, step.nodeId).rows[0].durationUs, 500);
});

test('garbled and interleaved lines are counted with samples, never fatal; CRLF is fine', async () => {
  const { index, key, s } = await single([
    callLine('01.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 940),
    'Traceback (most recent call last):',
    '2026-08-21 22:30:01.0000 Call to',
    '2026-08-21 22:30:01.000100 Call to schedule in /x/sched2026-08-21 22:30:01.000101 Return from',
    callLine('01.000200', 'schedule', SCHED, 5, 'step', CORE, 21) + '\r',
    returnLine('01.000300', 'schedule', SCHED, 9, 'step', CORE, 21) + '\r',
    '',
    returnLine('01.000400', 'step', CORE, 30, 'run_busy_loop', CORE, 940),
  ]);
  assert.equal(s.stats.garbledLines, 3);
  assert.equal(s.stats.garbledSamples[0].text, 'Traceback (most recent call last):');
  assert.ok(s.stats.garbledSamples[0].offset > 0);
  const [step] = index.getChildren(key, null).rows;
  assert.equal(step.childCount, 1);
  assert.equal(step.durationUs, 400);
});

test('a return that skips open calls closes them as unterminated; a stray return is counted', async () => {
  const { index, key, s } = await single([
    callLine('01.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 940),
    callLine('01.000100', 'schedule', SCHED, 5, 'step', CORE, 21),
    callLine('01.000200', 'allocate', SCHED, 50, 'schedule', SCHED, 6),
    // the returns of allocate and schedule were lost
    returnLine('01.000900', 'step', CORE, 30, 'run_busy_loop', CORE, 940),
  ]);
  assert.equal(s.stats.mismatchedReturns, 1);
  assert.equal(s.stats.unterminatedCalls, 2);
  assert.equal(s.openStack.length, 0);
  const [step] = index.getChildren(key, null).rows;
  assert.equal(step.durationUs, 900);
  const [sched] = index.getChildren(key, step.nodeId).rows;
  assert.equal(sched.unterminated, true);
  assert.equal(sched.durationUs, 800);
});

test('consecutive identical sibling calls collapse into ×N with the total; paging works', async () => {
  const lines = [callLine('01.000000', 'update_from_output', SCHED, 800, 'step', CORE, 25)];
  let t = 1;
  for (let i = 0; i < 250; i++) {
    const fn = i === 100 ? 'make_request_output' : 'check_stop';
    lines.push(callLine(`01.${String(t).padStart(6, '0')}`, fn, SCHED, 20, 'update_from_output', SCHED, 810));
    t += 2;
    lines.push(returnLine(`01.${String(t).padStart(6, '0')}`, fn, SCHED, 22, 'update_from_output', SCHED, 810));
    t += 1;
  }
  lines.push(returnLine(`01.${String(t).padStart(6, '0')}`, 'update_from_output', SCHED, 830, 'step', CORE, 25));
  const { index, key } = await single(lines);
  const [parent] = index.getChildren(key, null).rows;
  assert.equal(parent.childCount, 250);
  const page = index.getChildren(key, parent.nodeId);
  assert.deepEqual(page.rows.map((r) => [r.fn, r.count, r.durationUs]), [['check_stop', 100, 200], ['make_request_output', 1, 2], ['check_stop', 149, 298]]);
  const flat = index.getChildren(key, parent.nodeId, { collapse: false, offset: 99, limit: 3 });
  assert.equal(flat.total, 250);
  assert.deepEqual(flat.rows.map((r) => r.fn), ['check_stop', 'make_request_output', 'check_stop']);
  const members = index.getRunMembers(key, page.rows[2].nodeId, { offset: 140, limit: 50 });
  assert.equal(members.total, 149);
  assert.equal(members.rows.length, 9);
});

test('a file still being written: the cut last line is not an error, and refresh() picks up what follows', async () => {
  const whole = [
    callLine('01.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 940),
    callLine('01.000100', 'execute_model', CORE, 9, 'step', CORE, 22),
  ].join('\n') + '\n';
  const cut = returnLine('01.000900', 'execute_model', CORE, 13, 'step', CORE, 22);
  const { index, key, path } = await single(whole + cut.slice(0, 30));
  let s = index.threadSummaries()[0];
  assert.equal(s.stats.garbledLines, 0);
  assert.equal(s.stats.partialLastLine, true);
  assert.deepEqual(s.openStack.map((o) => o.fn), ['step', 'execute_model']);

  appendFileSync(path, cut.slice(30) + '\n' + returnLine('01.001000', 'step', CORE, 30, 'run_busy_loop', CORE, 940) + '\n');
  const changed = await index.refresh();
  assert.deepEqual(changed, [key]);
  s = index.threadSummaries()[0];
  assert.equal(s.stats.partialLastLine, false);
  assert.equal(s.openStack.length, 0);
  const [step] = index.getChildren(key, null).rows;
  assert.equal(step.durationUs, 1000);
  assert.equal(index.getChildren(key, step.nodeId).rows[0].durationUs, 800);

  // The file replaced by a shorter one (a new run): re-indexed from scratch.
  writeFileSync(path, callLine('02.000000', 'schedule', SCHED, 5, 'step', CORE, 21) + '\n');
  assert.deepEqual(await index.refresh(), [key]);
  assert.deepEqual(index.getChildren(key, null).rows.map((r) => [r.fn, r.open]), [['schedule', true]]);
});

test('an over-long line and a binary blob are skipped in bounded memory', async () => {
  const dir = tempDir();
  const path = join(dir, 'x.log');
  writeFileSync(path, Buffer.concat([
    Buffer.from(callLine('01.000000', 'step', CORE, 20, 'run_busy_loop', CORE, 940) + '\n'),
    Buffer.alloc(50_000, 0x41), Buffer.from('\n'),
    Buffer.from([0, 1, 2, 255, 254, 10]),
    Buffer.from(returnLine('01.000500', 'step', CORE, 30, 'run_busy_loop', CORE, 940) + '\n'),
  ]));
  const trace = new ThreadTrace();
  await readTraceFile(path, trace, { chunkBytes: 8192 });
  assert.equal(trace.stats.garbledLines, 2);
  assert.equal(trace.stats.calls, 1);
  assert.equal(trace.stats.returns, 1);
  assert.equal(trace.row(0).durationUs, 500);
});

test('past the node cap calls are counted, not stored, and the open stack is still right', async () => {
  const dir = tempDir();
  const lines = [callLine('01.000000', 'run_busy_loop', CORE, 940, 'run_engine_core', CORE, 900)];
  for (let i = 0; i < 10; i++) {
    lines.push(callLine('01.000100', 'step', CORE, 20, 'run_busy_loop', CORE, 950));
    lines.push(returnLine('01.000200', 'step', CORE, 30, 'run_busy_loop', CORE, 950));
  }
  lines.push(callLine('01.000300', 'execute_model', CORE, 9, 'run_busy_loop', CORE, 951));
  const path = writeTrace(dir, lines);
  const trace = new ThreadTrace({ maxNodes: 4 });
  await readTraceFile(path, trace);
  assert.equal(trace.count, 4);
  assert.equal(trace.stats.calls, 12);
  assert.equal(trace.stats.droppedCalls, 8);
  assert.deepEqual(trace.openStack().map((o) => o.fn), ['run_busy_loop', 'execute_model']);
});

test('an empty folder and a folder of other files index to nothing, with notes', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'vllm.log'), 'INFO 08-21 22:30:01 [core.py:1] hi\n');
  writeFileSync(join(dir, 'VLLM_TRACE_FUNCTION_for_process_x.log'), '');
  const index = await openTraceFolder(dir, { mode: 'in-process' });
  assert.equal(index.threads.size, 0);
  assert.equal(index.ignored.length, 2);
  assert.match(index.ignored.find((i) => i.path.includes('TRACE'))!.reason, /does not match/);
  const empty = await openTraceFolder(tempDir(), { mode: 'in-process' });
  assert.equal(empty.threads.size, 0);
  const missing = await openTraceFolder(join(dir, 'nope'), { mode: 'in-process' });
  assert.equal(missing.ignored[0].path, join(dir, 'nope'));
});

test('torch modules (every `forward` one name in one file) and loops that change course: each call lands under its caller, in any chunking', async () => {
  // What vLLM's tracer writes for a model step: nn.Module's _wrapped_call_impl → _call_impl →
  // forward, where the forwards of the model, a layer, its attention and its MLP share a name
  // and a file and differ by line; a varying number of check_stop calls; seconds that roll over.
  const MODULE = '/usr/lib/python3/site-packages/torch/nn/modules/module.py';
  const LLAMA = '/usr/lib/python3/site-packages/vllm/model_executor/models/llama.py';
  const ATTN = '/usr/lib/python3/site-packages/vllm/attention/layer.py';
  const lines: string[] = [];
  let us = 0;
  const stack: { fn: string; file: string; line: number; site: number }[] = [{ fn: '', file: '', line: 0, site: 0 }];
  let seed = 7;
  const rand = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const stamp = () => { us += 1 + rand(40000); const s = Math.floor(us / 1e6); return `2026-08-21 22:${String(30 + Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.${String(us % 1e6).padStart(6, '0')}`; };
  const call = (fn: string, file: string, line: number) => {
    const caller = stack[stack.length - 1];
    if (caller.fn) caller.site = caller.line + 1 + rand(20); // the initial frame prints "from  in :0"
    lines.push(`${stamp()} Call to ${fn} in ${file}:${line} from ${caller.fn} in ${caller.file}:${caller.site}`);
    stack.push({ fn, file, line, site: line });
  };
  const ret = () => {
    const f = stack.pop()!;
    const caller = stack[stack.length - 1];
    lines.push(`${stamp()} Return from ${f.fn} in ${f.file}:${f.line + 2 + rand(9)} to ${caller.fn} in ${caller.file}:${caller.site}`);
  };
  const module = (line: number, inner: () => void) => { call('_wrapped_call_impl', MODULE, 1771); call('_call_impl', MODULE, 1779); call('forward', LLAMA, line); inner(); ret(); ret(); ret(); };
  call('run_busy_loop', CORE, 940);
  for (let step = 0; step < 60; step++) {
    call('step', CORE, 390);
    module(380, () => {
      for (let l = 0; l < 1 + rand(3); l++) {
        module(300, () => {
          module(200, () => { call('forward', ATTN, 250); call('unified_attention', ATTN, 500); ret(); ret(); });
          module(90, () => { call('silu_and_mul', LLAMA, 40); ret(); });
        });
      }
    });
    call('update_from_output', SCHED, 800);
    for (let r = 0; r < rand(5); r++) { call('check_stop', SCHED, 20); ret(); }
    if (step % 7 === 6) { call('finish_requests', SCHED, 1000); ret(); }
    ret();
    ret();
  }
  ret();
  const text = lines.join('\n') + '\n';

  // The tree as a plain reading of the lines gives it: each call's function, file, def line,
  // caller and call site, start and end, and its parent.
  const expected: string[] = [];
  const open: number[] = [];
  const ends: string[] = [];
  const re = /^(\S+ \S+) (Call to|Return from) (\S+) in (.+?):(\d+) (?:from|to) (\S*) in (.*?):(\d+)$/;
  for (const l of lines) {
    const m = re.exec(l)!;
    if (m[2] === 'Call to') {
      expected.push(`${m[3]} ${m[4]}:${m[5]} from ${m[6]}:${m[8]} at ${m[1]} parent ${open.length ? open[open.length - 1] : -1}`);
      ends.push('');
      open.push(expected.length - 1);
    } else ends[open.pop()!] = m[1];
  }
  const want = expected.map((e, i) => `${e} until ${ends[i]}`);

  const dir = tempDir();
  const path = writeTrace(dir, text);
  const ts = (t: number) => new Date(t / 1000).toISOString().replace('T', ' ').slice(0, 19) + '.' + String(t % 1e6).padStart(6, '0');
  for (const chunkBytes of [4096, 5003, 1 << 20]) {
    const trace = new ThreadTrace();
    await readTraceFile(path, trace, { chunkBytes });
    const got: string[] = [];
    for (let id = 0; id < trace.count; id++) {
      const site = trace.callSiteOf(id);
      got.push(`${trace.fnOf(id)} ${trace.fileOf(id)}:${trace.lineOf(id)} from ${site?.fn ?? ''}:${site?.line ?? 0} at ${ts(trace.startOf(id))} parent ${trace.parentOf(id)} until ${ts(trace.endOf(id))}`);
    }
    assert.equal(got.length, want.length, `chunks of ${chunkBytes} bytes`);
    for (let i = 0; i < want.length; i++) assert.equal(got[i], want[i], `call ${i}, chunks of ${chunkBytes} bytes`);
    assert.equal(trace.stats.calls, want.length);
    assert.equal(trace.stats.returns, want.length);
    assert.equal(trace.stats.garbledLines + trace.stats.mismatchedReturns + trace.stats.orphanReturns, 0);
  }
});
