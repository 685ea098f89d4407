// When a lens or link provider tells VS Code "changed" for a big log. Each event costs a round
// trip and restarts VS Code's CodeLens debounce, so it must come exactly when a new answer would
// differ near the screen: lines under the last answer were parsed since, the parse started over,
// or the user scrolled past half the margin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServedWindows } from '../../../src/core/session/servedWindows';

const DOC = 'file:///logs/vllm-19mib.log';

test('a 100,000-line log still being parsed: progress far below the screen tells VS Code nothing', () => {
  const served = new ServedWindows(500);
  // Answered at the top while 8,737 lines were parsed: the window (screen ± 1,000) was covered.
  served.remember(DOC, { windows: [[0, 1039]], parsedLines: 8737, generation: 0, lineCount: 102_175 });
  assert.equal(served.staleAfterParsing(DOC, 41_000, 0), false);
  assert.equal(served.staleAfterParsing(DOC, 102_174, 0), false);
});

test('an answer given before its window was parsed is renewed once more lines are in', () => {
  const served = new ServedWindows(500);
  // The editor was restored near the end: the first answer had nothing there yet.
  served.remember(DOC, { windows: [[98_000, 100_040]], parsedLines: 9000, generation: 0, lineCount: 102_175 });
  assert.equal(served.staleAfterParsing(DOC, 9000, 0), false, 'no new lines: nothing to say');
  assert.equal(served.staleAfterParsing(DOC, 50_000, 0), true);
});

test('a growing log (| tee) whose end is on screen: appended lines are news', () => {
  const served = new ServedWindows(500);
  served.remember(DOC, { windows: [[0, 4999]], parsedLines: 5000, generation: 0, lineCount: 5001 });
  assert.equal(served.staleAfterParsing(DOC, 5012, 0), true);
});

test('annotation that started over (an edit that is not an append) always renews the answer', () => {
  const served = new ServedWindows(500);
  served.remember(DOC, { windows: [[0, 1039]], parsedLines: 8737, generation: 0, lineCount: 102_175 });
  assert.equal(served.staleAfterParsing(DOC, 100, 1), true);
});

test('scrolling inside the answered margin is free; past half of it, the window moves', () => {
  const served = new ServedWindows(500);
  served.remember(DOC, { windows: [[9000, 11_040]], parsedLines: 102_174, generation: 0, lineCount: 102_175 });
  assert.equal(served.staleAfterScrolling(DOC, [[10_000, 10_040]]), false, 'where it was answered');
  assert.equal(served.staleAfterScrolling(DOC, [[10_400, 10_440]]), false, '400 lines down: still inside');
  assert.equal(served.staleAfterScrolling(DOC, [[10_560, 10_600]]), true, 'within 500 lines of the edge');
  assert.equal(served.staleAfterScrolling(DOC, [[9400, 9440]]), true, 'same above');
  assert.equal(served.staleAfterScrolling(DOC, [[60_000, 60_040]]), true, 'a jump far away');
});

test('at the top and the end of the document there is no margin to run out of', () => {
  const served = new ServedWindows(500);
  served.remember(DOC, { windows: [[0, 1039]], parsedLines: 102_174, generation: 0, lineCount: 102_175 });
  assert.equal(served.staleAfterScrolling(DOC, [[0, 39]]), false);
  served.remember(DOC, { windows: [[101_000, 102_174]], parsedLines: 102_174, generation: 0, lineCount: 102_175 });
  assert.equal(served.staleAfterScrolling(DOC, [[102_130, 102_174]]), false);
});

test('a whole small document answered at once never goes stale by scrolling', () => {
  const served = new ServedWindows(500);
  served.remember(DOC, { windows: [[0, 3999]], parsedLines: 4000, generation: 0, lineCount: 4000 });
  assert.equal(served.staleAfterScrolling(DOC, [[3960, 3999]]), false);
});

test('before VS Code asked, and after the document closed or the checkout changed, nothing is said', () => {
  const served = new ServedWindows(500);
  assert.equal(served.staleAfterParsing(DOC, 50_000, 0), false, 'VS Code asks for a new document by itself');
  served.remember(DOC, { windows: [[0, 1039]], parsedLines: 500, generation: 0, lineCount: 102_175 });
  served.forget(DOC);
  assert.equal(served.staleAfterParsing(DOC, 50_000, 0), false);
  served.remember(DOC, { windows: [[0, 1039]], parsedLines: 500, generation: 0, lineCount: 102_175 });
  served.clear();
  assert.equal(served.has(DOC), false);
});
