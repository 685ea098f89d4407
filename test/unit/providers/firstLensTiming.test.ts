// HopLens's own share of the first lens in its output channel (src/features/logs/firstLensTiming.ts):
// the hand-over line carries the moment on the host's clock, because the output channel stamps a
// line when it writes it — during HopLens's activation, later than the moment — and the browser
// test cuts the first lens at that moment (test/e2e/firstScreen.e2e.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FirstLensTimes } from '../../../src/features/logs/firstLensTiming';

function times() {
  const info: string[] = [];
  const log = { trace() {}, debug() {}, info: (m: string) => { info.push(m); }, warn() {}, error() {} };
  let mono = 5_000;
  let wall = Date.UTC(2026, 11, 3, 17, 40, 0, 123);
  const t = new FirstLensTimes(log, { now: () => mono }, () => wall);
  return { t, info, advance: (ms: number) => { mono += ms; wall += ms; } };
}

const uri = { path: '/logs/vllm-10mib.log', toString: () => 'file:///logs/vllm-10mib.log' };

test('the hand-over line says when on the host\'s clock; the later lines count from it', () => {
  const { t, info, advance } = times();
  t.handedOver(uri, 53_772);
  advance(14);
  t.readBegins(uri);
  advance(18);
  t.firstHops(uri, 640);
  advance(150);
  const asked = t.asked(uri);
  advance(13);
  t.listed(uri, asked, 120, 120);
  assert.deepEqual(info, [
    'vllm-10mib.log: VS Code handed over 53772 lines at 2026-12-03T17:40:00.123Z on the host\'s clock',
    'vllm-10mib.log: first hops read 32 ms after VS Code handed it over (640 lines read; the read began at +14 ms)',
    'vllm-10mib.log: first lens listed 195 ms after VS Code handed it over (VS Code asked 1 time(s), first at +182 ms; this answer took 13 ms: 120 lenses, 120 titled when listed)',
  ]);
});

test('a log open before HopLens activated: timed from the activation, whose moment the line carries', () => {
  const { t, info } = times();
  t.handedOver({ path: '/logs/vllm.log', toString: () => 'file:///logs/vllm.log' }, 25, true);
  assert.deepEqual(info, ['vllm.log: VS Code handed over 25 lines before HopLens activated (timed from the activation, at 2026-12-03T17:40:00.123Z on the host\'s clock)']);
});
