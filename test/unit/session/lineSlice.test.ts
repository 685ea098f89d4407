// Slices of a log on disk (the streamed view's read-only text around a hop): read from a sampled
// offset or from the top, they hold the same lines; a megabyte line is cut; the file's size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileSize, readLineSlice } from '../../../src/core/session/logStream';
import { makeTempDir } from '../../harness/tempDirs';

const LINES = readFileSync(join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'logs', 'vllm_info_chat_and_abort.log'), 'utf8').split('\n').filter((l) => l.length > 0);

test('a slice read from a known line\'s offset holds the lines a read from the top holds', async () => {
  const dir = makeTempDir('hoplens-slice-');
  try {
    const lines = Array.from({ length: 3000 }, (_, i) => LINES[i % LINES.length]);
    lines[2000] = 'x'.repeat(5000); // a megabyte line, shorter
    const text = lines.join('\n') + '\n';
    const file = join(dir.path, 'vllm.log');
    writeFileSync(file, text);
    const offsetOf1025 = Buffer.byteLength(lines.slice(0, 1024).join('\n') + '\n');
    const fromTop = await readLineSlice(file, 1950, 121);
    const fromSample = await readLineSlice(file, 1950, 121, { offset: offsetOf1025, line: 1025 });
    assert.deepEqual(fromSample, fromTop);
    assert.equal(fromTop[0], lines[1949]);
    assert.equal(fromTop[51], 'x'.repeat(4000) + ' …[line cut]');
    assert.deepEqual(await readLineSlice(file, 2990, 121), lines.slice(2989), 'the end of the file ends the slice');
    assert.equal(await fileSize(file), Buffer.byteLength(text));
    assert.equal(await fileSize(join(dir.path, 'gone.log')), 0);
  } finally { dir.remove(); }
});
