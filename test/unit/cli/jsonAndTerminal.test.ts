// What the command line prints stays what it claims to be: JSON Lines that every line of parses
// (whatever digits a log holds), and readable output in which text from the data (log lines,
// file names) cannot act on the terminal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cliProcess';

const HUGE = '9'.repeat(309);

test('annotate --json: a 309-digit pid or line number stays JSON (null), so jq does not stop there', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-json-'));
  try {
    const log = join(dir, 'vllm.log');
    writeFileSync(log, [
      `(APIServer pid=${HUGE}) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-big-pid-0a1b2c3d.`,
      `(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:${HUGE}] Added request chatcmpl-big-line-0a1b2c3d.`,
      `(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-plain-0a1b2c3d.`,
      '',
    ].join('\n'));
    for (const extra of [[], ['--rid', 'big-pid'], ['--unmatched']]) {
      const r = await runCli(['annotate', log, '--json', ...extra]);
      const lines = r.stdout.toString().trim().split('\n');
      type LineJson = { kind: string; line: number; pid: number | null; lineno: number | null };
      const objs = lines.map((l, i) => { try { return JSON.parse(l) as LineJson; } catch { assert.fail(`line ${i + 1} is not JSON: ${l.slice(0, 200)}`); } });
      const byLine = new Map(objs.filter((o) => o.kind === 'line').map((o) => [o.line, o]));
      if (byLine.has(1)) assert.equal(byLine.get(1)!.pid, null);
      if (byLine.has(2)) { assert.equal(byLine.get(2)!.lineno, null); assert.equal(byLine.get(2)!.pid, 2101); }
      if (byLine.has(3)) assert.equal(byLine.get(3)!.lineno, 439);
    }
  } finally { rmSync(dir, { recursive: true, force: true }); }
});

test('annotate (readable): escape sequences in log lines and in the file name are shown, not acted on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hoplens-term-'));
  try {
    const log = join(dir, 'vllm\x1b]0;pwned\x07.log');
    writeFileSync(log, [
      '(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-evil\x1b[2J-0a1b2c3d.',
      '(APIServer pid=2101) INFO 08-21 22:30:06 [serving.py:12] hello \x1b]8;;http://x\x07link\x1b]8;;\x07 \x9b31m',
      '',
    ].join('\n'));
    for (const extra of [[], ['--unmatched'], ['--rid', 'evil']]) {
      const r = await runCli(['annotate', log, ...extra]);
      const all = r.stdout.toString('latin1') + r.stderr;
      assert.doesNotMatch(all, /[\x1b\x07\x9b]/, `raw control characters with ${extra.join(' ') || 'no option'}`);
      assert.match(r.stdout.toString(), /vllm\\x1b\]0;pwned\\x07\.log/);
    }
    const r = await runCli(['annotate', log, '--unmatched']);
    assert.match(r.stdout.toString(), /hello \\x1b\]8;;http:\/\/x\\x07link/);
  } finally { rmSync(dir, { recursive: true, force: true }); }
});
