import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forTerminal } from '../../../src/core/text/terminal';

test('ESC sequences, CR/LF and BEL from data become visible text', () => {
  // A request id that would turn the terminal red and forge a second output line.
  const rid = 'chatcmpl-1\x1b[31mRED\x1b[0m\nhop 9 · forged';
  const shown = forTerminal(rid);
  assert.equal(shown, 'chatcmpl-1\\x1b[31mRED\\x1b[0m\\nhop 9 · forged');
  assert.doesNotMatch(shown, /[\x00-\x08\x0a-\x1f\x7f-\x9f]/);
  assert.equal(forTerminal('a\rb\x07c\x00'), 'a\\rb\\x07c\\x00');
});

test('C1 CSI and bidi overrides are escaped; tabs, unicode text and plain ids are kept', () => {
  assert.equal(forTerminal('x\u009b31my'), 'x\\x9b31my');
  assert.equal(forTerminal('file\u202eexe.py'), 'file\\u202eexe.py');
  const plain = 'cmpl-3f2a\t(APIServer pid=12) — 日本語 ✓';
  assert.equal(forTerminal(plain), plain);
});
