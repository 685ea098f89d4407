// Trace folders as they are found on shared machines: thousands of small files from many
// restarts, symbolic links (to `/`, loops back up), files deeper than the walk goes, names with
// control characters, and a hung process a million calls deep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { openTraceFolder } from '../../../src/core/calltrace/callTraceIndex';
import { discoverTraceFiles } from '../../../src/core/calltrace/discovery';
import { filteredCalls } from '../../../src/core/calltrace/export';
import { ThreadTrace } from '../../../src/core/calltrace/threadTrace';
import { runCli } from '../cli/cliProcess';
import { CORE, callLine, returnLine, tempDir, writeTrace } from './helpers';

const STEP = [callLine('01.000001', 'step', CORE, 380, 'run_busy_loop', CORE, 870), returnLine('01.000900', 'step', CORE, 380, 'run_busy_loop', CORE, 870)];

function traceName(pid: number, tid = 7, at = '2026-08-21_22:30:01.000001'): string {
  return `VLLM_TRACE_FUNCTION_for_process_${pid}_thread_${tid}_at_${at}.log`;
}

test('a folder of 2,000 small trace files is indexed by a fixed pool of worker threads, not one thread per file', async () => {
  const root = tempDir();
  const inst = join(root, 'vllm-instance-restarts');
  mkdirSync(inst);
  for (let i = 0; i < 2000; i++) writeFileSync(join(inst, traceName(10_000 + i)), STEP.join('\n') + '\n');
  // The builtin's own exports object: the indexer reads Worker from it at call time.
  const workerThreads = createRequire(__filename)('node:worker_threads') as { Worker: typeof import('node:worker_threads').Worker };
  const Real = workerThreads.Worker;
  let started = 0;
  workerThreads.Worker = class extends Real { constructor(...args: ConstructorParameters<typeof Real>) { super(...args); started++; } };
  try {
    const index = await openTraceFolder(root, { concurrency: 2 });
    const summaries = index.threadSummaries();
    assert.equal(summaries.length, 2000);
    assert.ok(summaries.every((s) => s.stats.calls === 1 && s.stats.returns === 1));
    assert.ok(started >= 1 && started <= 2, `${started} worker threads started for 2,000 files`);
  } finally {
    workerThreads.Worker = Real;
  }
  // The command line lists them all.
  const r = await runCli(['calltrace', root, '--json', '--filter', 'step']);
  assert.equal(r.code, 0, r.stderr);
  const objs = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { kind: string; files?: number });
  assert.equal(objs.filter((o) => o.kind === 'file').length, 2000);
  assert.equal(objs[objs.length - 1].files, 2000);
});

test('symbolic links: a loop back up and a second link to a file count once; a link out of the folder is not followed unless asked', async () => {
  const root = tempDir();
  const own = writeTrace(root, STEP, { pid: 1, tid: 2 });
  const inst = join(root, 'vllm-instance-42');
  mkdirSync(join(inst, 'sub'));
  symlinkSync('..', join(inst, 'sub', 'up')); // sub/up -> .. (a loop)
  mkdirSync(join(root, 'latest'));
  symlinkSync(own, join(root, 'latest', traceName(1, 2))); // a second name for the same file
  const elsewhere = tempDir('hoplens-other-job-');
  writeTrace(elsewhere, STEP, { pid: 9, tid: 9, instance: 'other' });
  symlinkSync(elsewhere, join(root, 'link')); // like `link -> /`
  const d = await discoverTraceFiles([root]);
  const files = d.instances.flatMap((i) => i.files);
  assert.deepEqual(files.map((f) => f.pid), [1], 'the own trace once; nothing from outside');
  assert.ok(d.skipped.some((s) => s.path === join(root, 'link') && /outside the folder/.test(s.reason)));
  const followed = await discoverTraceFiles([root], { followLinksOutside: true });
  assert.deepEqual(followed.instances.flatMap((i) => i.files).map((f) => f.pid).sort(), [1, 9]);

  const r = await runCli(['calltrace', root, '--json', '--filter', 'step']);
  assert.equal(r.code, 0, r.stderr);
  const fileObjs = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l) as { kind: string; pid: number }).filter((o) => o.kind === 'file');
  assert.deepEqual(fileObjs.map((o) => o.pid), [1]);
  assert.match(r.stderr, /1 link\(s\) leading outside .* were not followed, e\.g\. .*link .*--follow-links/);
  const withLinks = await runCli(['calltrace', root, '--json', '--filter', 'step', '--follow-links']);
  assert.equal(withLinks.stdout.toString().trim().split('\n').filter((l) => l.includes('"kind":"file"')).length, 2);
});

test('files deeper than the walk goes: the message says the search stopped, and --max-depth finds them', async () => {
  const root = tempDir();
  const deep = join(root, 'a', 'b', 'c', 'd', 'e');
  writeTrace(deep, STEP, { pid: 5, tid: 6 }); // 6 folder levels below root
  const r = await runCli(['calltrace', root]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /no VLLM_TRACE_FUNCTION_for_process_\*\.log files under .* in the folders searched/);
  assert.match(r.stderr, /1 folder\(s\) deeper than 4 levels were not searched, e\.g\. .*\/a\/b\/c\/d\/e; raise the limit with --max-depth N/);
  const deeper = await runCli(['calltrace', root, '--max-depth', '8', '--json', '--filter', 'step']);
  assert.equal(deeper.code, 0, deeper.stderr);
  assert.match(deeper.stdout.toString(), /"kind":"file".*"pid":5/);
});

test('a trace file whose name holds a newline or an escape sequence is read, and printed with its control characters visible', async () => {
  const root = tempDir();
  const inst = join(root, 'vllm-instance-1');
  mkdirSync(inst);
  writeFileSync(join(inst, traceName(31, 1, '2026-08-21\n22:30:01')), STEP.join('\n') + '\n');
  writeFileSync(join(inst, traceName(32, 1, '2026-08-21_\x1b]0;pwned\x07')), STEP.join('\n') + '\n');
  const r = await runCli(['calltrace', root, '--filter', 'step']);
  assert.equal(r.code, 0, r.stderr);
  const text = r.stdout.toString();
  assert.match(text, /^2 trace file\(s\)/);
  assert.ok(text.includes('=== VLLM_TRACE_FUNCTION_for_process_31_thread_1_at_2026-08-21\\n22:30:01.log'), text);
  assert.ok(text.includes('at_2026-08-21_\\x1b]0;pwned\\x07.log'), text);
  assert.doesNotMatch(text + r.stderr, /[\x1b\x07]/, 'no raw escape or bell reaches the terminal');
});

test('a stack a million calls deep (a hung process) is indexed and listed in linear time', { timeout: 120_000 }, () => {
  const depth = 1_000_000;
  const F = '/v/x.py';
  const line = Buffer.from(`2026-08-21 22:30:01.000001 Call to recurse in ${F}:10 from recurse in ${F}:12\n`);
  const buf = Buffer.alloc(line.length * depth);
  for (let i = 0; i < depth; i++) line.copy(buf, i * line.length);
  const trace = new ThreadTrace({ expectedCalls: depth, maxNodes: depth });
  trace.feed(buf, 0, buf.length, 0);
  assert.equal(trace.stats.maxDepth, depth);
  assert.equal(trace.openStack().length, depth);
  let n = 0;
  let last = -1;
  for (const r of filteredCalls('t', trace, [])) { assert.equal(r.depth, n); n++; last = r.depth; }
  assert.equal(n, depth);
  assert.equal(last, depth - 1);
  // The tree view's way down: each level's children with their depth.
  assert.equal(trace.children(depth - 2).rows[0].depth, depth - 1);
});
