// After a traced request, only what the server wrote since the request started is searched;
// line numbers must still be the file's own, so the report links land on the right lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countLinesUpTo, findRequestLogLines, ServerLogReader, serverIdsFor, serverLogFile } from '../../../src/core/request/index';
import { engineId } from '../../../src/engines/registry';
import { makeTempDir } from '../../harness/tempDirs';

const FIX = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log');

test('searching from the pre-request mark finds the same lines, with the same numbers, as a full scan', async () => {
  const dir = makeTempDir('hoplens-mark-').path;
  const log = join(dir, 'server.log');
  const older = readFileSync(FIX, 'utf8').replace(/myrun-0001/g, 'older-run');
  writeFileSync(log, older.repeat(50)); // what the server printed before this request
  const first = await countLinesUpTo(log, statSync(log).size);
  assert.equal(first.lines, older.split('\n').length * 50 - 50);
  const sizeBefore = statSync(log).size;
  appendFileSync(log, readFileSync(FIX, 'utf8')); // this request's lines (and others)
  const record = {
    requestId: 'myrun-0001',
    serverIdPattern: '(?<![\\w-])(?:(?:\\d+_)?chatcmpl-myrun-0001(?:_\\d+)?(?:-[0-9a-f]{8})?)(?![\\w-])',
    timeline: { startedAtEpochMs: Date.now(), connectMs: 0, requestWrittenMs: 0, headersMs: 0, firstByteMs: 0, endMs: 0, sawDone: true, warnings: [] },
  };
  const full = await findRequestLogLines(log, record);
  const mark = await countLinesUpTo(log, sizeBefore, first);
  const tail = await findRequestLogLines(log, record, { fromOffset: mark.offset, linesBefore: mark.lines });
  assert.ok(full.length >= 5, `${full.length} lines`);
  assert.deepEqual(tail.map((l) => [l.line, l.text]), full.map((l) => [l.line, l.text]));
  // Counting on from an earlier mark gives what counting from the top gives.
  const fromTop = await countLinesUpTo(log, statSync(log).size);
  const onwards = await countLinesUpTo(log, statSync(log).size, mark);
  assert.deepEqual(onwards, fromTop);
});

test('the report waits for the server to write the request\'s lines, and says which clock they carry', async () => {
  const dir = makeTempDir('hoplens-reader-').path;
  const log = join(dir, 'server.log');
  const older = readFileSync(FIX, 'utf8').replace(/myrun-0001/g, 'older-run');
  writeFileSync(log, older);
  const record = {
    engine: 'vllm' as const, requestId: 'myrun-0001', logRequestId: 'chatcmpl-myrun-0001',
    serverIdPattern: '(?<![\\w-])(?:(?:\\d+_)?chatcmpl-myrun-0001(?:_\\d+)?(?:-[0-9a-f]{8})?)(?![\\w-])',
    timeline: { startedAtEpochMs: Date.now(), connectMs: 0, requestWrittenMs: 0, headersMs: 0, firstByteMs: 0, endMs: 0, sawDone: true, warnings: [] },
  };
  let waits = 0;
  // The server writes the request's lines while the reader waits for the first time.
  const reader = new ServerLogReader({ sleep: async () => { if (waits++ === 0) appendFileSync(log, readFileSync(FIX, 'utf8')); } });
  const sizeBefore = await reader.end(log);
  const answer = await reader.linesOf(log, record, sizeBefore);
  assert.equal(waits, 1, 'one wait: the lines were there at the second look');
  const olderLines = older.split('\n').length - 1;
  assert.ok(answer.lines!.length >= 5 && answer.lines!.every((l) => l.line > olderLines), 'only lines written after the request started, numbered as in the file');
  assert.match(answer.note, /^\d+ line\(s\) in .*server\.log\. Server clocks: whole seconds only;/);

  const none = await new ServerLogReader({ attempts: 3, sleep: async () => undefined }).linesOf(log, { ...record, requestId: 'nobody', logRequestId: 'chatcmpl-nobody', serverIdPattern: 'chatcmpl-nobody' }, sizeBefore);
  assert.deepEqual(none.lines, []);
  assert.match(none.note, /^No line of .* mentions chatcmpl-nobody \(is --enable-log-requests on\?\)\.$/);
  const missing = await new ServerLogReader().linesOf(join(dir, 'gone.log'), record, undefined);
  assert.equal(missing.lines, null);
  assert.match(missing.note, /^Could not read .*gone\.log: ENOENT/);
});

test('no line names the request: the note asks for the request-logging flag of the engine the record is from', async () => {
  const dir = makeTempDir('hoplens-flag-').path;
  const log = join(dir, 'sgl.log');
  writeFileSync(log, readFileSync(join(FIX, '..', 'sglang_tp2_request.log')));
  const timeline = { startedAtEpochMs: Date.now(), connectMs: 0, requestWrittenMs: 0, headersMs: 0, firstByteMs: 0, endMs: 0, sawDone: true, warnings: [] };
  const ids = serverIdsFor('sglang', 'chat', 'nobody');
  const record = { engine: 'sglang' as const, requestId: 'nobody', logRequestId: ids.logId, serverIdPattern: ids.pattern.source, timeline };
  const reader = () => new ServerLogReader({ attempts: 1, sleep: async () => undefined });
  const sglang = await reader().linesOf(log, record, undefined);
  assert.deepEqual(sglang.lines, []);
  assert.equal(sglang.note, `No line of ${log} mentions ${ids.logId} (is --log-requests on?).`);
  // A record of an engine no longer registered: each registered engine's flag, by name.
  const gone = await reader().linesOf(log, { ...record, engine: engineId('nobodyllm') }, undefined);
  assert.equal(gone.note, `No line of ${log} mentions ${ids.logId} (is request logging on? vLLM: --enable-log-requests, SGLang: --log-requests).`);
});

test('a traced request\'s lines are read from hoplens.serverLog only when that file is there', () => {
  assert.equal(serverLogFile(FIX), FIX);
  assert.equal(serverLogFile(join(FIX, '..', 'not-written-yet.log')), undefined);
  assert.equal(serverLogFile(''), undefined, 'unset');
});
