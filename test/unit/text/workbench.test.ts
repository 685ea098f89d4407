import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forWorkbench } from '../../../src/core/text/workbench';
import { forTerminal } from '../../../src/core/text/terminal';
import { HOSTILE } from './hostile';

// What the workbench (VS Code 1.139) reads as markup in a notification, a progress title, a
// status bar item or a quick pick row, stated as the rules, not copied from its source: a link
// is `[label](target)` with a label without `]`, a target of `command:`, `http(s)://` or
// `file:` up to whitespace or `)`, and an optional quoted title; an icon is `$(name)` or
// `$(name~animation)`.
const LINK = /\[[^\]]+\]\((?:command:|https?:\/\/|file:)[^)\s]+(?: (["']).+?\1)?\)/i;
const ICON = /\$\([A-Za-z0-9-]+(?:~[A-Za-z-]+)?\)/;
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

test('the rules find the markup in the hostile set (so the checks below can fail)', () => {
  assert.ok(LINK.test(HOSTILE[0]) && LINK.test(HOSTILE[1]) && LINK.test(HOSTILE[2]));
  assert.ok(ICON.test(HOSTILE[10]));
});

test('no hostile text is a link, an icon or a control character once neutralised', () => {
  for (const h of HOSTILE) {
    const shown = forWorkbench(h);
    assert.doesNotMatch(shown, LINK, JSON.stringify(h));
    assert.doesNotMatch(shown, ICON, JSON.stringify(h));
    assert.doesNotMatch(shown, CONTROL, JSON.stringify(h));
  }
});

test('nor when pieces of data sit side by side in one message, or next to brackets of the message', () => {
  for (const a of HOSTILE) {
    for (const b of HOSTILE) {
      const message = `HopLens: ${forWorkbench(a)}${forWorkbench(b)} (${forWorkbench(a)})[${forWorkbench(b)}]`;
      assert.doesNotMatch(message, LINK, `${JSON.stringify(a)} + ${JSON.stringify(b)}`);
      assert.doesNotMatch(message, ICON, `${JSON.stringify(a)} + ${JSON.stringify(b)}`);
    }
  }
  // Data that ends in `]` or `$` cannot borrow the message's `(`, nor data that starts with `(`.
  assert.doesNotMatch(`[${forWorkbench('x]')}(command:y)`, LINK);
  assert.doesNotMatch(`${forWorkbench('$')}(alert)`, ICON);
  assert.doesNotMatch(`[x]${forWorkbench('(command:y)')}`, LINK);
});

test('the text reads as printed: only invisible splits are added, control characters shown as escapes', () => {
  for (const h of HOSTILE) assert.equal(forWorkbench(h).replaceAll('\u200b', ''), forTerminal(h));
  assert.equal(forWorkbench('[x](command:workbench.action.terminal.new)'), '[x]\u200b(command:workbench.action.terminal.new)');
  assert.equal(forWorkbench('a\nb\x1b[31m'), 'a\\nb\\x1b[31m');
  // Backticks, HTML and `javascript:` are plain text in these surfaces: kept as printed.
  assert.equal(forWorkbench('<img src=x onerror=alert(1)> `code`'), '<img src=x onerror=alert(1)> `code`');
});

test('ids, paths and server text without markup are unchanged', () => {
  for (const plain of ['chatcmpl-myrun-0001-9e1f0c2d', '/home/me/runs/vllm.log', 'cmpl-3f2a (APIServer pid=12) — 日本語 ✓', 'HTTP 500: Internal Server Error', 'list[int] (a)']) {
    assert.equal(forWorkbench(plain), plain);
  }
});

test('a huge line (a bad line of a 1 GB OTLP file) is clipped', () => {
  const shown = forWorkbench('x'.repeat(1_000_000));
  assert.equal(shown.length, 400);
  assert.ok(shown.endsWith('…'));
  assert.equal(forWorkbench('abcdef', 4), 'abc…');
});
