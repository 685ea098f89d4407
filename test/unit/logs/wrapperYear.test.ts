// vLLM's own stamp (`MM-DD HH:MM:SS`) has no year; a wrapper in front of the line that prints one
// (journalctl -o short-iso / short-iso-precise / short-unix, docker and kubectl `--timestamps` with
// or without a fraction, an RFC 3339 stamp with an offset, a time column, a launcher's `[ISO]`)
// gives it, whatever the file's date. Before: a 2025 line behind a whole-second wrapper stamp was
// shown in the year the file was last written (2026), and the request index and the timeline put a
// year between two lines a second apart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParseState, parseLine } from '../../../src/core/logs/parseLine';
import type { LogRecord } from '../../../src/core/logs/model';
import { main } from '../../../src/cli';
import { bufferIO } from '../../../src/cli/io';

// The file was last written in August 2026: the year a year-less stamp would be given without a wrapper.
const REF = Date.UTC(2026, 7, 22, 12, 0, 0);
const ADDED = (rid: string, stamp = '03-04 10:11:12'): string => `(APIServer pid=1) INFO ${stamp} [async_llm.py:261] Added request ${rid}.`;

function parseAll(lines: string[]): LogRecord[] {
  const state = createParseState({ referenceTime: REF });
  return lines.map((l, i) => parseLine(l, i + 1, 0, state));
}
const one = (line: string): LogRecord => parseAll([line])[0];

test('journalctl -o short-iso (both zone spellings): the year is the wrapper\'s, the wrapper is journald', () => {
  for (const line of [
    `2025-03-04T10:11:12+0000 gpu-node-3 vllm[123]: ${ADDED('cmpl-a')}`, // systemd before 254: strftime %z
    `2025-03-04T10:11:12+00:00 gpu-node-3 vllm[123]: ${ADDED('cmpl-a')}`, // systemd 254 and later
  ]) {
    const r = one(line);
    assert.equal(r.hop, 'V2');
    assert.equal(r.rid, 'cmpl-a');
    assert.equal(r.time, Date.UTC(2025, 2, 4, 10, 11, 12), line);
    assert.equal(r.timeResolution, 's');
    assert.deepEqual(r.wrappers, ['journald']);
    assert.equal(r.prefix, line.slice(0, line.indexOf('(APIServer')));
  }
});

test('journalctl -o short-iso-precise, short-unix and short-full: their microseconds, and their year', () => {
  const precise = one(`2025-03-04T10:11:12.123456+0000 gpu-node-3 vllm[123]: ${ADDED('cmpl-a')}`);
  assert.equal(precise.timeResolution, 'us');
  assert.equal(Math.floor(precise.time!), Date.UTC(2025, 2, 4, 10, 11, 12, 123));
  assert.deepEqual(precise.wrappers, ['journald']);
  const unix = one(`1741083072.123456 gpu-node-3 vllm[123]: ${ADDED('cmpl-a')}`);
  assert.equal(unix.timeResolution, 'us');
  assert.equal(Math.floor(unix.time!), Date.UTC(2025, 2, 4, 10, 11, 12, 123));
  assert.deepEqual(unix.wrappers, ['journald']);
  // -o short-full: the weekday, the date with its year, the zone's abbreviation.
  const full = one(`Tue 2025-03-04 10:11:12 UTC gpu-node-3 vllm[123]: ${ADDED('cmpl-a')}`);
  assert.equal(full.time, Date.UTC(2025, 2, 4, 10, 11, 12));
  assert.deepEqual(full.wrappers, ['journald']);
  assert.equal(one(`Tue 2025-03-04 11:11:12 CET gpu-node-3 vllm[123]: ${ADDED('cmpl-a')}`).time, Date.UTC(2025, 2, 4, 10, 11, 12));
  // -o short-precise has no year: the file's, as for -o short; its microseconds are kept.
  const short = one(`Aug 21 22:30:05.250000 gpu-node-3 vllm[123]: ${ADDED('cmpl-a', '08-21 22:30:05')}`);
  assert.equal(short.timeResolution, 'us');
  assert.equal(short.time, Date.UTC(2026, 7, 21, 22, 30, 5, 250));
});

test('docker and kubectl --timestamps, with and without a fraction, Z or an offset: the year is the stamp\'s', () => {
  const cases: Array<[string, number, string]> = [
    ['2025-03-04T10:11:12Z', Date.UTC(2025, 2, 4, 10, 11, 12), 's'], // RFC3339Nano with its zero fraction trimmed (kubectl)
    ['2025-03-04T10:11:12.5Z', Date.UTC(2025, 2, 4, 10, 11, 12, 500), 'ms'],
    ['2025-03-04T10:11:12.123456789Z', Date.UTC(2025, 2, 4, 10, 11, 12, 123), 'ns'], // docker's fixed nine digits
    ['2025-03-04T15:41:12+05:30', Date.UTC(2025, 2, 4, 10, 11, 12), 's'], // RFC 3339 with an offset: the engine's own digits stay
    ['2025-03-04T02:11:12-08:00', Date.UTC(2025, 2, 4, 10, 11, 12), 's'],
  ];
  for (const [stamp, time, res] of cases) {
    const r = one(`${stamp} ${ADDED('cmpl-a')}`);
    assert.equal(r.hop, 'V2', stamp);
    assert.equal(Math.floor(r.time!), time, stamp);
    assert.equal(r.timeResolution, res, stamp);
    assert.deepEqual(r.wrappers, ['docker'], stamp);
  }
  // kubectl logs --prefix --timestamps; a CRI log file (containerd's /var/log/pods).
  const kubectl = one(`[pod/vllm-7d9f8b-abcde/vllm] 2025-03-04T10:11:12Z ${ADDED('cmpl-a')}`);
  assert.equal(kubectl.time, Date.UTC(2025, 2, 4, 10, 11, 12));
  assert.deepEqual(kubectl.wrappers, ['kubectl', 'docker']);
  const cri = one(`2025-03-04T10:11:12Z stdout F ${ADDED('cmpl-a')}`);
  assert.equal(cri.time, Date.UTC(2025, 2, 4, 10, 11, 12));
});

test('a time column, a launcher\'s [ISO] stamp and a JSON envelope\'s time without a fraction give their year too', () => {
  assert.equal(one(`2025-03-04 10:11:12\t${ADDED('cmpl-a')}`).time, Date.UTC(2025, 2, 4, 10, 11, 12));
  // docker's json-file driver / a log platform's export: the line in `log`, its time in `time`.
  assert.equal(one(JSON.stringify({ log: `${ADDED('cmpl-a')}\n`, stream: 'stdout', time: '2025-03-04T10:11:12Z' })).time, Date.UTC(2025, 2, 4, 10, 11, 12));
  assert.equal(one(`[2025-03-04T10:11:12Z] ${ADDED('cmpl-a')}`).time, Date.UTC(2025, 2, 4, 10, 11, 12));
});

test('across New Year: the engine\'s clock a zone away from the wrapper\'s UTC stamp gets the year nearest it', () => {
  const [dec, jan, ahead, behind, after] = parseAll([
    `2025-12-31T23:59:58Z ${ADDED('cmpl-a', '12-31 23:59:58')}`,
    `2026-01-01T00:00:01Z ${ADDED('cmpl-b', '01-01 00:00:01')}`,
    // an engine at UTC+1: its `01-01` is already 2026 while the wrapper's UTC is still 2025
    `2025-12-31T23:30:00Z ${ADDED('cmpl-c', '01-01 00:30:00')}`,
    // an engine at UTC-5: its `12-31` is still 2025 while the wrapper's UTC is 2026
    `2026-01-01T03:00:00Z ${ADDED('cmpl-d', '12-31 22:00:00')}`,
    // a line without a wrapper after them: the log's year is now the wrappers'
    ADDED('cmpl-e', '01-01 00:00:05'),
  ]);
  assert.equal(dec.time, Date.UTC(2025, 11, 31, 23, 59, 58));
  assert.equal(jan.time, Date.UTC(2026, 0, 1, 0, 0, 1));
  assert.equal(ahead.time, Date.UTC(2026, 0, 1, 0, 30, 0));
  assert.equal(behind.time, Date.UTC(2025, 11, 31, 22, 0, 0));
  assert.equal(after.time, Date.UTC(2026, 0, 1, 0, 0, 5));
});

test('a wrapper\'s year is its line\'s: the next line starting with the header gets no stale year', () => {
  // The same second twice: the stamp memo must not hand the wrapper's year to the bare line.
  const [wrapped, bare] = parseAll([`2024-08-21T22:30:05Z ${ADDED('cmpl-a', '08-21 22:30:05')}`, ADDED('cmpl-b', '08-21 22:30:05')]);
  assert.equal(wrapped.time, Date.UTC(2024, 7, 21, 22, 30, 5));
  // the log's year follows the wrapper it last saw (2024), not the file's (2026)
  assert.equal(bare.time, Date.UTC(2024, 7, 21, 22, 30, 5));
  const [first, second] = parseAll([ADDED('cmpl-a', '08-21 22:30:05'), `2024-08-21T22:30:05Z ${ADDED('cmpl-b', '08-21 22:30:05')}`]);
  assert.equal(first.time, Date.UTC(2026, 7, 21, 22, 30, 5));
  assert.equal(second.time, Date.UTC(2024, 7, 21, 22, 30, 5));
  // A bare line dated March after the wrapped August line is the next March (the log rolled over), not the one nearest the wrapper.
  const [, march] = parseAll([`2024-08-21T22:30:05Z ${ADDED('cmpl-a', '08-21 22:30:05')}`, ADDED('cmpl-b', '03-01 08:00:00')]);
  assert.equal(march.time, Date.UTC(2025, 2, 1, 8, 0, 0));
});

test('what a user sees: annotate --json times, the request index\'s span and the timeline\'s order', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-wrapper-year-'));
  try {
    const log = join(dir, 'vllm.log');
    writeFileSync(log, [
      `2025-03-04T10:11:12+0000 gpu-node-3 vllm[123]: (APIServer pid=1) INFO 03-04 10:11:12 [logger.py:39] Received request cmpl-r1: prompt: 'Hi', params: SamplingParams(n=1), prompt_token_ids: [1], lora_request: None.`,
      `2025-03-04T10:11:12.250000+0000 gpu-node-3 vllm[123]: ${ADDED('cmpl-r1')}`,
      `2025-03-04T10:11:13+0000 gpu-node-3 vllm[123]: (APIServer pid=1) INFO 03-04 10:11:13 [async_llm.py:310] Finished request cmpl-r1.`,
      '',
    ].join('\n'));
    const mtime = new Date(REF);
    utimesSync(log, mtime, mtime);
    const io = bufferIO();
    await main(['annotate', log, '--json'], io);
    const out = io.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const lines = out.filter((o) => o.kind === 'line');
    assert.deepEqual(lines.map((o) => o.time), ['2025-03-04T10:11:12', '2025-03-04T10:11:12.250000Z', '2025-03-04T10:11:13']);
    const summary = out.find((o) => o.kind === 'summary') as { requests: { listed: Array<{ rid: string; firstTime: number; span: { text: string } }> } };
    const req = summary.requests.listed.find((r) => r.rid === 'cmpl-r1')!;
    assert.equal(req.firstTime, Date.UTC(2025, 2, 4, 10, 11, 12));
    assert.equal(req.span.text, '≤1 s');

    const tl = bufferIO();
    await main(['timeline', '--rid', 'cmpl-r1', log], tl);
    const rows = tl.stdout.split('\n').filter((l) => / L\d+$/.test(l));
    assert.deepEqual(rows.map((l) => / (L\d+)$/.exec(l)![1]), ['L1', 'L2', 'L3'], tl.stdout);
    assert.ok(!/\+3153\d{4}/.test(tl.stdout), tl.stdout); // no year between the lines
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
