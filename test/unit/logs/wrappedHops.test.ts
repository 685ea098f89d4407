// A hop line that a terminal or an editor wrapped onto the next line of a paste: vLLM 0.6.3's
// `… engine.py:297] Added request` / `chat-0277….` (a public note's paste, broken between words),
// and lines cut at a terminal's width (any character, the id split in two). The hop and its whole
// id come from the line with its continuation; the continuation stays nobody's; a line that
// merely follows a whole hop line changes nothing. In the editor (text) and the CLI (bytes, with
// the byte fast path), the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotateText, LogSession } from '../../../src/core/session/logSession';
import { vllmFastPath } from '../../../src/engines/vllm/fastPath';
import type { LogRecord } from '../../../src/core/logs/model';

const NOTE = [
  '```python',
  'INFO 11-01 01:16:06 engine.py:297] Added request',
  'chat-027710c78bb6449cb547ea684c82e5c0.',
  '',
  "ERROR 11-01 01:16:33 client.py:262] RuntimeError('Engine loop has died')",
];

// The same request's lines, wrapped at 80 columns (as `fold -w 80` or a terminal's copy writes them).
const FOLDED = [
  '(APIServer pid=1) INFO 08-21 22:30:05 [logger.py:43] Received request chatcmpl-a',
  '269fdcb7c6ce890: params: SamplingParams(n=1, temperature=0.7, max_tokens=512), lo',
  'ra_request: None.',
  '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-',
  'a269fdcb7c6ce890-a8a65d16.',
  '(APIServer pid=1) INFO:     172.18.0.1:52186 - "POST /v1/chat/completions HTTP/1.',
  '1" 200 OK',
  '[2025-08-04 11:51:41] Receive: obj=GenerateReqInput(rid=\'ced00776101841e180bf04',
  'c8dbdc4ec2\', text=\'Hi\', stream=True)',
];

function viaText(lines: string[]): LogRecord[] {
  return [...annotateText(lines.join('\n') + '\n', 'auto', { referenceTime: Date.UTC(2026, 7, 22) }).records];
}

function viaBytes(lines: string[]): LogRecord[] {
  const s = new LogSession({ key: 'w', referenceTime: Date.UTC(2026, 7, 22), fast: (state, tracker) => vllmFastPath(state, tracker, null) });
  s.appendBytes(Buffer.from(lines.join('\n') + '\n'));
  s.end();
  return [...s.records];
}

for (const [how, read] of [['editor', viaText], ['CLI bytes', viaBytes]] as const) {
  test(`${how}: a hop line broken between words is the hop with its whole id; the continuation is nobody's`, () => {
    const recs = read(NOTE);
    const at = (n: number) => recs.find((r) => r.line === n);
    assert.deepEqual([at(2)?.engine, at(2)?.hop, at(2)?.rid], ['vllm', 'V2', 'chat-027710c78bb6449cb547ea684c82e5c0']);
    assert.equal(at(3)?.engine ?? 'other', 'other');
    assert.equal(at(3)?.hop ?? null, null);
  });

  test(`${how}: hop lines cut at a terminal's width get their hop and whole id from the next line`, () => {
    const recs = read(FOLDED);
    const at = (n: number) => recs.find((r) => r.line === n);
    assert.deepEqual([at(1)?.hop, at(1)?.rid], ['V1', 'chatcmpl-a269fdcb7c6ce890']);
    assert.deepEqual([at(4)?.hop, at(4)?.rid], ['V2', 'chatcmpl-a269fdcb7c6ce890']);
    assert.equal(at(6)?.hop, 'V10');
    assert.deepEqual([at(8)?.engine, at(8)?.hop, at(8)?.rid], ['sglang', 'S2', 'ced00776101841e180bf04c8dbdc4ec2']);
    for (const n of [2, 3, 5, 7, 9]) assert.equal(at(n)?.hop ?? null, null, `line ${n} is a continuation`);
  });

  test(`${how}: a whole hop line followed by other words keeps its own id; a cut line followed by a header is not joined`, () => {
    const recs = read([
      '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-1-0a1b2c3d.',
      'Done',
      '(APIServer pid=1) INFO 08-21 22:30:05 [async_llm.py:439] Added request',
      '(APIServer pid=1) INFO 08-21 22:30:06 [async_llm.py:439] Added request chatcmpl-2-0a1b2c3d.',
      '(APIServer pid=1) INFO 08-21 22:30:07 [logger.py:43] Received request chatcmpl-3',
      'and then some words: that fit no wording',
    ]);
    const at = (n: number) => recs.find((r) => r.line === n);
    // Whole lines the byte fast path takes make no record there: it reads their own bytes only.
    for (const [n, rid] of [[1, 'chatcmpl-1'], [4, 'chatcmpl-2']] as const) {
      if (how === 'editor' || at(n)) assert.deepEqual([at(n)?.hop, at(n)?.rid], ['V2', rid]);
    }
    assert.ok(at(3), 'the cut line is left to the parser');
    assert.equal(at(3)?.rid ?? null, null);
    assert.notEqual(at(5)?.rid, 'chatcmpl-3and');
  });
}
