// The traced-request report's HTML with hostile text in every field it renders: the model,
// ids, every content frame and the error from the server, the server log lines, the note, the
// engine's breakdown from OTLP. Parsed as a browser parses it: nothing acts, all reads as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reportBodyHtml } from '../../../src/features/send/reportHtml';
import { breakdownTableHtml } from '../../../src/features/traces/engineTimingHtml';
import { HOSTILE } from '../text/hostile';
import { hostileTracedRequest, HOSTILE_MODEL } from './hostileEngine';
import { hostileEngineTiming } from './hostileOtlp';
import { activeMarkup, parseBody } from './parsedHtml';

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) + '…' : s);
// An HTML parser reads CR LF and lone CR as LF, as a browser does.
const parsed = (s: string) => s.replace(/\r\n?/g, '\n');

test('a report of a hostile server and log shows every string as text and nothing acts', async () => {
  const r = await hostileTracedRequest('stream');
  assert.equal(r.record.frames.filter((f) => f.kind === 'content').length, HOSTILE.length, JSON.stringify(r.record.frames.map((f) => f.kind)));
  assert.equal(r.record.error?.kind, 'error-frame', JSON.stringify(r.record.error));
  const logLines = HOSTILE.map((text, i) => ({ line: i + 1, text, sinceRequestStartMs: i, resolution: 'ms' as const }));
  const note = HOSTILE.join(' ');
  const engine = hostileEngineTiming(HOSTILE[0], HOSTILE[4]);
  const html = reportBodyHtml(r, logLines, note, breakdownTableHtml(engine.timing, { ttftContentMs: 1, e2eMs: 2 }));
  const page = parseBody(html);

  assert.deepEqual(activeMarkup(page), []);
  const text = page.texts.join('');
  assert.ok(text.includes(HOSTILE_MODEL), 'the model as the server named it');
  assert.ok(text.includes(r.record.error!.message), 'the error as the server sent it');
  assert.ok(text.includes(parsed(note)), 'the note');
  assert.ok(text.includes(HOSTILE[4]), 'service.name from the span');

  // The frames table: one row per frame, six cells each, the text cell the frame's text as sent.
  const frameRows = page.elements.filter((e) => e.tagName === 'tr' && e.parentNode && 'tagName' in e.parentNode && e.parentNode.tagName === 'tbody')
    .filter((tr) => tr.childNodes.filter((c) => 'tagName' in c).length === 6);
  assert.equal(frameRows.length, r.record.frames.length);
  const codeTexts = page.elements.filter((e) => e.tagName === 'code').map((e) => e.childNodes.map((c) => ('value' in c ? c.value : '')).join(''));
  for (const h of HOSTILE) {
    assert.ok(codeTexts.includes(JSON.stringify(clip(h, 60))), `frame ${JSON.stringify(h)}`);
    assert.ok(codeTexts.includes(parsed(clip(h, 200))), `log line ${JSON.stringify(h)}`);
  }
  // The report's own links to log lines are the only links, one per line.
  assert.equal(page.elements.filter((e) => e.tagName === 'a').length, logLines.length);
});

test('an HTTP error whose message is hostile: shown in the alert as text', async () => {
  const r = await hostileTracedRequest('http-error');
  assert.equal(r.record.status, 500);
  const page = parseBody(reportBodyHtml(r, null, HOSTILE[0]));
  assert.deepEqual(activeMarkup(page), []);
  const alert = page.elements.find((e) => e.attrs.some((a) => a.name === 'role' && a.value === 'alert'));
  assert.ok(alert, 'the error box');
  const alertText = parseBody(reportBodyHtml(r, null, '')).texts.join('');
  assert.ok(alertText.includes(`${HOSTILE[1]} ${HOSTILE[4]}`), alertText);
});
