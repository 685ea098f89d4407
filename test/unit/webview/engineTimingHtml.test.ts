// The engine-timing page's HTML from OTLP whose text attributes are hostile (request id,
// service.name, snapshot phases), plus a hostile note: nothing acts, all reads as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineTimingBodyHtml } from '../../../src/features/traces/engineTimingHtml';
import { HOSTILE } from '../text/hostile';
import { hostileEngineTiming } from './hostileOtlp';
import { activeMarkup, parseBody } from './parsedHtml';

const parsed = (s: string) => s.replace(/\r\n?/g, '\n');

test('every hostile text in the spans and the note shows as text in the engine timing page', () => {
  for (const [i, h] of HOSTILE.entries()) {
    // A request id never holds whitespace (the log and the span print it as one token).
    const id = h.replace(/\s+/g, '_');
    const e = hostileEngineTiming(id, h);
    assert.ok(e.snapshots.length > 0 && e.batches.length > 0, `snapshots ${e.snapshots.length}, batches ${e.batches.length}`);
    const note = HOSTILE[(i + 1) % HOSTILE.length];
    const page = parseBody(engineTimingBodyHtml(e.rid, e.timing, { ttftContentMs: 250, e2eMs: 2500 }, e.snapshots, e.batches, note));
    assert.deepEqual(activeMarkup(page), [], JSON.stringify(h));
    const text = page.texts.join('');
    assert.ok(text.includes(parsed(e.rid)), `the id ${JSON.stringify(e.rid)}`);
    assert.ok(text.includes(parsed(note)), `the note ${JSON.stringify(note)}`);
    assert.ok(text.includes(`from ${parsed(h)}`), `service.name ${JSON.stringify(h)}`);
    // One snapshot row per snapshot, nine cells each, the phase as the span said it.
    const rows = page.elements.filter((el) => el.tagName === 'tr' && el.childNodes.filter((c) => 'tagName' in c && c.tagName === 'td').length === 9);
    assert.equal(rows.length, e.snapshots.length);
    assert.equal(e.snapshots[0].phase, h);
    assert.ok(page.elements.filter((el) => el.tagName === 'td').some((td) => td.childNodes.some((c) => 'value' in c && c.value === parsed(h))), `phase ${JSON.stringify(h)}`);
  }
});
