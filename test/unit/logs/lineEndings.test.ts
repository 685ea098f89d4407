// A log is the same log whatever its line endings: CRLF (Windows, `docker logs` of a `-t`
// container) and a UTF-8 byte order mark must give the lines, hops and requests of the LF
// copy, on the command line (byte fast path and string parser) and in the editor's annotator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/cli';
import { bufferIO } from '../../../src/cli/io';
import { annotateText } from '../../../src/core/session/logSession';

const FIX = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs');

async function annotateJson(path: string): Promise<{ lines: Array<Record<string, unknown>>; summary: Record<string, unknown> }> {
  const io = bufferIO();
  const code = await main(['annotate', path, '--json'], io);
  assert.equal(code, 0, io.stderr);
  const objs = io.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines: objs.filter((o) => o.kind === 'line'), summary: objs[objs.length - 1] };
}

for (const name of ['vllm_info_chat_and_abort.log', 'sglang_tp2_request.log']) {
  test(`annotate --json: ${name} with CRLF endings and a BOM gives the hops of the LF copy`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hoplens-eol-'));
    try {
      const lf = readFileSync(join(FIX, name), 'utf8');
      const crlfPath = join(dir, 'crlf.log');
      writeFileSync(crlfPath, lf.replace(/\n/g, '\r\n'));
      const bomPath = join(dir, 'bom.log');
      writeFileSync(bomPath, '\ufeff' + lf.replace(/\n/g, '\r\n'));
      const base = await annotateJson(join(FIX, name));
      assert.ok((base.summary.hopLines as number) >= 8, 'the fixture has hops');
      for (const p of [crlfPath, bomPath]) {
        const got = await annotateJson(p);
        assert.equal(got.summary.hopLines, base.summary.hopLines, p);
        assert.deepEqual(got.summary.counts, base.summary.counts, p);
        assert.deepEqual(got.lines.map((l) => [l.line, l.engine, l.hop, l.rid, l.continuation ?? false]),
          base.lines.map((l) => [l.line, l.engine, l.hop, l.rid, l.continuation ?? false]), p);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the editor annotator reads a CRLF document like its LF copy', () => {
  const lf = readFileSync(join(FIX, 'vllm_info_chat_and_abort.log'), 'utf8');
  const a = annotateText(lf);
  const b = annotateText('\ufeff' + lf.replace(/\n/g, '\r\n'));
  assert.equal(b.records.length, a.records.length);
  assert.deepEqual(b.records.map((r) => [r.hop, r.rid, r.message]), a.records.map((r) => [r.hop, r.rid, r.message]));
  assert.deepEqual([...b.tracker.counts], [...a.tracker.counts]);
});
