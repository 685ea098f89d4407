// Offsets from orderings: bounds as shortest paths, stamps' resolution respected, the user's
// value first, contradictions said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrderingSet, solveOffsets } from '../../../src/core/timeline/clockOffsets';

const S = 1000;

test('a request forwarded and answered brackets the other clock from both sides', () => {
  // Router (reference) has it at 10.000 s and gets the answer at 10.300 s (ms stamps); the
  // instance, whose clock is 2.5 s ahead, stamps its receipt at 12.6xx → whole second 12.
  const set = new OrderingSet();
  set.add('router', 10_000, 1, 'received', 1, 'inst', 12 * S, S, 'received', 7, 'forwarded', 'r1');
  set.add('inst', 12 * S, S, 'received', 7, 'router', 10_300, 1, 'responded', 2, 'answered', 'r1');
  const sol = solveOffsets(['router', 'inst'], 'router', set);
  const o = sol.offsets.get('inst')!;
  // inst − router < 12000 + 1000 − 10000 = 3000 and > 12000 − 10301 = 1699.
  assert.equal(o.max, 3000);
  assert.equal(o.min, 1699);
  assert.ok(o.min! <= 2500 && 2500 <= o.max!);
  assert.equal(o.source, 'estimated');
  assert.equal(o.ms, (1699 + 3000) / 2, 'away from 0: the middle of what the orderings allow');
  assert.equal(o.upper[0].rule, 'forwarded');
  assert.equal(o.lower[0].rule, 'answered');
  assert.equal(sol.offsets.get('router')!.source, 'reference');
});

test('many requests narrow the bounds; the tightest one is kept', () => {
  const set = new OrderingSet();
  for (const [a, b] of [[0, 900], [0, 400], [0, 650]]) set.add('x', a, 1, 'a', null, 'y', b, 1, 'b', null, 'r', 'k');
  const sol = solveOffsets(['x', 'y'], 'x', set);
  assert.equal(sol.offsets.get('y')!.max, 401);
  assert.equal(sol.offsets.get('y')!.min, null);
  assert.equal(sol.offsets.get('y')!.ms, 0, 'the clocks may agree: in step');
  assert.equal(sol.offsets.get('y')!.orderings, 3);
});

test('bounds go through a third clock (router → prefill → decode → router)', () => {
  const set = new OrderingSet();
  set.add('router', 0, 1, 'received', null, 'prefill', 100, 1, 'received', null, 'forwarded', 'k');
  set.add('prefill', 300, 1, 'answered', null, 'decode', 5305, 1, 'received', null, 'P before D', 'k');
  set.add('decode', 5305, 1, 'received', null, 'router', 320, 1, 'responded', null, 'answered', 'k');
  const sol = solveOffsets(['router', 'prefill', 'decode'], 'router', set);
  const p = sol.offsets.get('prefill')!;
  // prefill ≥ decode − 5006 ≥ (5305 − 321) − 5006 = −22.
  assert.equal(p.min, -22);
  assert.equal(p.lower.length, 2, 'the chain of orderings that gave the bound');
  assert.deepEqual(p.lower.map((n) => n.rule), ['P before D', 'answered']);
});

test('a user offset wins; one the orderings rule out is said, and the others are estimated without it', () => {
  const set = new OrderingSet();
  set.add('a', 0, 1, 'x', null, 'b', 2000, 1, 'y', null, 'r', 'k');
  set.add('b', 2000, 1, 'y', null, 'a', 10, 1, 'z', null, 'r2', 'k');
  const ok = solveOffsets(['a', 'b'], 'a', set, new Map([['b', 1995]]));
  assert.equal(ok.offsets.get('b')!.ms, 1995);
  assert.equal(ok.offsets.get('b')!.source, 'user');
  assert.equal(ok.offsets.get('b')!.conflict, undefined);
  const bad = solveOffsets(['a', 'b'], 'a', set, new Map([['b', 0]]));
  assert.equal(bad.offsets.get('b')!.ms, 0);
  assert.match(bad.offsets.get('b')!.conflict!, /allow \+1989 ms … \+2001 ms/);
});

test('orderings that contradict each other are reported, not half-believed', () => {
  const set = new OrderingSet();
  set.add('a', 0, 1, 'x', null, 'b', 0, 1, 'y', null, 'r', 'k');
  set.add('b', 5000, 1, 'y', null, 'a', 0, 1, 'z', null, 'r2', 'k');
  const sol = solveOffsets(['a', 'b'], 'a', set);
  assert.match(sol.inconsistent!, /contradict/);
  assert.equal(sol.offsets.get('b')!.source, 'assumed');
  assert.equal(sol.offsets.get('b')!.ms, 0);
});

test('a clock no ordering reaches stays in step, marked as assumed', () => {
  const sol = solveOffsets(['a', 'lonely'], 'a', new OrderingSet());
  const o = sol.offsets.get('lonely')!;
  assert.deepEqual([o.ms, o.min, o.max, o.source], [0, null, null, 'assumed']);
});
