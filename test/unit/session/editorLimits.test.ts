// VS Code's large-file rule as the pinned VS Code (1.139.1) applies it when it creates a text
// model: over 20 MiB of characters or over 300,000 lines, with editor.largeFileOptimizations on,
// there is no CodeLens on it. HopLens says so in the status bar and draws its hop column instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CODELENS_OFF_ABOVE_CHARS, CODELENS_OFF_ABOVE_LINES, mebibytes, vscodeShowsNoCodeLens } from '../../../src/core/session/editorLimits';
import { hopLabelWidth } from '../../../src/features/logs/hopPresentation';

test('the limits are strict: exactly 20 MiB or 300,000 lines still get lenses', () => {
  assert.equal(CODELENS_OFF_ABOVE_CHARS, 20_971_520);
  assert.equal(vscodeShowsNoCodeLens(20_971_520, 95_000, true), false);
  assert.equal(vscodeShowsNoCodeLens(20_971_521, 95_000, true), true);
  assert.equal(vscodeShowsNoCodeLens(18_000_000, CODELENS_OFF_ABOVE_LINES, true), false);
  assert.equal(vscodeShowsNoCodeLens(18_000_000, CODELENS_OFF_ABOVE_LINES + 1, true), true, 'short lines: the line count decides first');
});

test('with large-file optimisations off, VS Code shows lenses at any size it hands over', () => {
  assert.equal(vscodeShowsNoCodeLens(45 * 1024 * 1024, 400_000, false), false);
});

test('sizes read as VS Code counts them, in MiB', () => {
  assert.equal(mebibytes(22_020_096), '21.0 MiB');
});

test('the hop column is as wide as the longest label of the engine, so the log text stays aligned', () => {
  assert.equal(hopLabelWidth('vllm'), 'hop V10'.length);
  assert.equal(hopLabelWidth('sglang'), 'hop 9'.length);
});
