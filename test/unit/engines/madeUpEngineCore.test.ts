// Beyond its log's parse, the core asks a registered engine's profile, never a table of its own:
// a traced request's lines in a ToyLLM server log get their stamps from its line shapes (the
// report's "line time − request start"), and the trace receiver's launch hint lists it once its
// profile says how it exports spans. Without the registration neither knows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findRequestLogLines, parseServerTime } from '../../../src/core/request/logLink';
import type { TraceRecord } from '../../../src/core/request/types';
import { launchHints } from '../../../src/core/otlp/receiver';
import { TOYLLM_PROFILE } from './toyllm/profile';
import { TOYLLM_LOG, whileRegistered } from './toyllmTesting';

/** The request's start by the client's clock: 17:20:01.000 local time, the day of the log's lines. */
const START = new Date(2026, 11, 2, 17, 20, 1, 0).getTime();
const RECORD = { requestId: 'req-7', serverIdPattern: String.raw`\breq-7\b`, timeline: { startedAtEpochMs: START } } as
  Pick<TraceRecord, 'requestId' | 'serverIdPattern' | 'timeline'>;

async function requestLines(): Promise<Awaited<ReturnType<typeof findRequestLogLines>>> {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-toyllm-'));
  try {
    const log = join(dir, 'server.log');
    writeFileSync(log, TOYLLM_LOG.join('\n') + '\n');
    return await findRequestLogLines(log, RECORD);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a traced request\'s lines in a registered engine\'s log carry the stamps its line shapes read', whileRegistered(TOYLLM_PROFILE, async () => {
  const lines = await requestLines();
  assert.deepEqual(lines.map((l) => [l.line, l.resolution, l.sinceRequestStartMs]), [[1, 'ms', 123], [3, 'ms', 456]]);
  assert.deepEqual(parseServerTime(TOYLLM_LOG[1], START), { epochMs: START + 130, resolution: 'ms' });
}));

test('without the registration the same lines are found by id but carry no stamp', async () => {
  const lines = await requestLines();
  assert.deepEqual(lines.map((l) => [l.line, l.epochMs, l.resolution]), [[1, null, null], [3, null, null]]);
  assert.equal(parseServerTime(TOYLLM_LOG[0], START), null);
});

test('the receiver\'s launch hints: a registered engine whose profile says how it exports spans, after the built-in one', async () => {
  const url = 'http://127.0.0.1:4318/v1/traces';
  const before = launchHints(url);
  assert.deepEqual(before.map((h) => h.label), ['vLLM']);
  const exporting = {
    ...TOYLLM_PROFILE, otlp: { endpointFlag: '--traces', launchLine: (u: string) => `toyllm serve --traces ${u}`, launchWith: (u: string) => `--traces ${u}` },
  };
  await whileRegistered(exporting, () => {
    assert.deepEqual(launchHints(url).slice(1), [{ label: 'ToyLLM', line: `toyllm serve --traces ${url}`, with: `--traces ${url}` }]);
  })();
  assert.deepEqual(launchHints(url), before);
  // A profile with no `otlp` is not listed.
  await whileRegistered(TOYLLM_PROFILE, () => assert.equal(launchHints(url).length, 1))();
});
