// `hoplens timeline` through the built bundle in a child process: JSON Lines, the readable
// table, exit codes, exports, pipes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { finished, headOne, runCli, startCli } from '../cli/cliProcess';
import { engineRun, pdTruth, stage } from './fixtures';
import { makeTempDir } from '../../harness/tempDirs';

const PD = ['router.log', 'prefill.log', 'decode.log'];

test('--json: a clock object per clock, lanes each followed by their items, then the summary', async () => {
  const dir = stage('pd-run');
  const truth = pdTruth(dir);
  const r = await runCli(['timeline', '--rid', 'pd-0017', ...PD.map((f) => join(dir, f)), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const objs = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
  const kinds = objs.map((o) => o.kind);
  assert.deepEqual(kinds.slice(0, 3), ['clock', 'clock', 'clock']);
  assert.equal(kinds[kinds.length - 1], 'summary');
  const decode = objs.find((o) => o.kind === 'clock' && o.label === 'decode.log');
  assert.ok(decode.minMs <= truth.trueOffsetsMs['decode.log'] && truth.trueOffsetsMs['decode.log'] <= decode.maxMs);
  assert.equal(decode.source, 'estimated');
  assert.ok(decode.upper.length && decode.upper[0].rule);
  let lane: { id: string } | null = null;
  for (const o of objs) {
    if (o.kind === 'lane') lane = o;
    if (o.kind === 'item') assert.equal(o.lane, lane!.id, 'items follow their lane');
  }
  const v1 = objs.find((o) => o.kind === 'item' && o.hop === 'V1' && o.lane.startsWith('log:2'));
  assert.deepEqual([v1.shape, v1.resolution, v1.end - v1.start], ['band', 's', 1000]);
  assert.equal(v1.ref.type, 'log');
  assert.match(v1.text, /max_tokens=64/);
  const s = objs[objs.length - 1];
  assert.equal(s.request, 'pd-0017');
  assert.deepEqual(s.logs.map((l: { lines: number }) => l.lines > 0), [true, true, true]);
  assert.equal(s.message, null);
});

test('readable: the clocks with their bounds and the orderings behind them, the merged lines by time', async () => {
  const dir = stage('engine-run');
  const run = engineRun(dir);
  const r = await runCli(['timeline', '--rid', 'chatcmpl-tl-0001', join(dir, 'api-server.log'), join(dir, 'engine-core.log'),
    '--otlp', join(dir, 'otlp.jsonl'), '--trace-dir', join(dir, 'trace'), '--client', join(dir, 'client.json')]);
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.toString();
  assert.match(out, /^Request tl-0001 across 2 log\(s\)/);
  assert.match(out, /\n {2}client +reference\n/);
  assert.match(out, /\n {2}api-server\.log +\+0\.000 ms +estimated allowed −\d+ ms … \+\d+ ms by \d+ ordering\(s\)\n/);
  assert.match(out, /at most: client sent the request \(client\) before .* \(api-server\.log:\d+\): the request is sent before any server sees it/);
  assert.match(out, /\n {2}engine-core\.log +\+0\.000 ms +assumed +no ordering ties it to the reference\n/);
  assert.match(out, new RegExp(`\\[−0\\.\\d{3} s, \\+0\\.\\d{3} s\\) +api-server\\.log · APIServer pid ${run.apiServerPid} +V2 Added request chatcmpl-tl-0001-5e1d0c2b\\.  L4\\n`));
  assert.match(out, /\n {2}\+0\.000 ms +client \(socket\) +request sent\n/);
  assert.match(out, /engine spans \(OTLP\) +prefill\n/);
  assert.match(out, new RegExp(`calls · EngineCore pid ${run.enginePid} · thread \\d+: 13 call\\(s\\) in the request's window\\n  outermost: run_busy_loop`));
  assert.match(out, /note: engine-core\.log: no ordering ties its clock to client/);
});

test('--offset overrides an estimate; --perfetto and --markdown write the whole request', async () => {
  const dir = stage('pd-run');
  const tmp = makeTempDir('hoplens-tl-out-').path;
  const pf = join(tmp, 'req.perfetto.json'), md = join(tmp, 'req.md');
  const r = await runCli(['timeline', '--rid', 'pd-0017', ...PD.map((f) => join(dir, f)), '--offset', 'decode.log=2700', '--offset=prefill.log=-1250', '--perfetto', pf, '--markdown', md, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const clocks = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l)).filter((o) => o.kind === 'clock');
  assert.deepEqual(clocks.map((c) => [c.label, c.offsetMs, c.source]), [['router.log', 0, 'reference'], ['prefill.log', -1250, 'user'], ['decode.log', 2700, 'user']]);
  const events = JSON.parse(readFileSync(pf, 'utf8')).traceEvents as { ph: string; name: string; args: { name?: string } }[];
  assert.deepEqual(events.filter((e) => e.name === 'thread_name').map((e) => e.args.name), ['router.log · router', 'prefill.log · APIServer pid 3101', 'decode.log · APIServer pid 4101']);
  assert.match(readFileSync(md, 'utf8'), /\| `decode\.log` \| \+2\.70 s \| \+2\.00 s … \+3\.00 s \| user, \d+ ordering\(s\) \|/);
});

test('exit 1 when no source has the request; 2 for bad input, each with one clear line', async () => {
  const dir = stage('pd-run');
  const logs = PD.map((f) => join(dir, f));
  const none = await runCli(['timeline', '--rid', 'nope-123', ...logs]);
  assert.equal(none.code, 1);
  assert.match(none.stdout.toString(), /^No line of request nope-123 in /);
  const noneJson = await runCli(['timeline', '--rid', 'nope-123', ...logs, '--json']);
  assert.equal(noneJson.code, 1);
  assert.match(JSON.parse(noneJson.stdout.toString().trim().split('\n').pop()!).message, /^no line, router line or span of request nope-123/);
  const notOtlp = join(makeTempDir('hoplens-tl-').path, 'x.json');
  writeFileSync(notOtlp, 'just some text\n'.repeat(200));
  for (const [args, why] of [
    [['--rid', 'pd-0017'], /which logs\?/],
    [[...logs], /which request\?/],
    [['--rid', 'pd-0017', join(dir, 'missing.log')], /no such file: .*missing\.log/],
    [['--rid', 'pd-0017', ...logs, '--offset', 'decode.log'], /--offset wants FILE=MS/],
    [['--rid', 'pd-0017', ...logs, '--offset', 'decode.log=soon'], /--offset wants FILE=MS/],
    [['--rid', 'pd-0017', ...logs, '--offset', 'other.log=5'], /--offset other\.log: not one of the logs/],
    [['--rid', 'pd-0017', ...logs, '--otlp', notOtlp], /--otlp .*x\.json: /],
    [['--rid', 'pd-0017', ...logs, '--trace-dir', join(dir, 'no-such-dir')], /--trace-dir .*: no such folder/],
    [['--rid', 'pd-0017', ...logs, '--client', join(dir, 'router.log')], /--client .*: /],
    [['--rid', 'pd-0017', ...logs, '--bogus'], /unknown option '--bogus'/],
    [['--rid', 'pd-0017', '-'], /standard input/],
  ] as [string[], RegExp][]) {
    const r = await runCli(['timeline', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why);
    assert.doesNotMatch(r.stderr, /internal error|at .*\.js:\d+/);
  }
});

test('data text reaches the terminal inert: a file name with ESC prints as \\x1b', async () => {
  const dir = stage('pd-run');
  const evil = join(dir, 'de\x1b[2Jcode.log');
  writeFileSync(evil, readFileSync(join(dir, 'decode.log')));
  const r = await runCli(['timeline', '--rid', 'pd-0017', join(dir, 'router.log'), evil]);
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.toString();
  assert.ok(!out.includes('\x1b'), 'no raw ESC');
  assert.match(out, /de\\x1b\[2Jcode\.log/);
});

/** A vLLM log where one request streamed `n` deltas (a long answer): a big timeline. */
function longRequestLog(dir: string, n: number): string {
  const p = join(dir, 'long.log');
  const out: string[] = ['(APIServer pid=7) INFO 08-21 22:30:00 [request_logger.py:63] Received request chatcmpl-long-1: params: SamplingParams(n=1, max_tokens=100000), lora_request: None.'];
  for (let i = 0; i < n; i++) {
    const s = 1 + Math.floor(i / 100);
    out.push(`(APIServer pid=7) INFO 08-21 22:${String(30 + Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')} [request_logger.py:98] Generated response chatcmpl-long-1 (streaming delta): output: ' word${i}', finish_reason: None`);
  }
  writeFileSync(p, out.join('\n') + '\n');
  return p;
}

test('a reader that goes away (| head -1) ends the command quietly with 0', async () => {
  const dir = makeTempDir('hoplens-tl-pipe-').path;
  const log = longRequestLog(dir, 30000);
  const child = startCli(['timeline', '--rid', 'long-1', log, '--json']);
  const done = finished(child, { collectStdout: false });
  const first = await headOne(child);
  assert.equal(JSON.parse(first).kind, 'clock');
  const r = await done;
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
});

test('a slow reader gets every line (output waits for it)', async () => {
  const dir = makeTempDir('hoplens-tl-slow-').path;
  const log = longRequestLog(dir, 30000);
  const child = startCli(['timeline', '--rid', 'long-1', log]);
  const exited = finished(child, { collectStdout: false });
  const outFile = join(dir, 'out.txt');
  const sink = createWriteStream(outFile);
  // Read a little, then pause: the pipe fills and the command has to wait.
  child.stdout!.pause();
  await new Promise((r) => setTimeout(r, 300));
  const written = new Promise<void>((res) => sink.on('finish', () => res()));
  child.stdout!.pipe(sink);
  const r = await exited;
  await written;
  assert.equal(r.code, 0, r.stderr);
  const lines = readFileSync(outFile, 'utf8').split('\n').filter((l) => / V6 Generated response chatcmpl-long-1 /.test(l));
  assert.equal(lines.length, 30000);
});

test('a rotated gzip log is read as it is', async () => {
  const dir = stage('pd-run');
  const gz = join(dir, 'decode.log.1.gz');
  writeFileSync(gz, gzipSync(readFileSync(join(dir, 'decode.log'))));
  const r = await runCli(['timeline', '--rid', 'pd-0017', join(dir, 'router.log'), join(dir, 'prefill.log'), gz, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const objs = r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(objs.some((o) => o.kind === 'lane' && o.title === 'decode.log.1.gz · APIServer pid 4101' && o.items > 5));
  assert.equal(objs.find((o) => o.kind === 'clock' && o.label === 'decode.log.1.gz').source, 'estimated');
});
