// Where a record's source is, as the editor asks: through the checkout when one is open, else
// the citation on the public repository; each answer kept until the checkouts change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLine, createParseState } from '../../../src/core/logs/parseLine';
import { RecordSourceLocator, type CheckoutResolver } from '../../../src/core/source/locate';

const ADDED = '(APIServer pid=2101) INFO 08-21 22:30:05 [async_llm.py:439] Added request chatcmpl-myrun-0001-9e1f0c2d.';
const OTHER = '(APIServer pid=2101) INFO 08-21 22:30:05 [utils.py:12] something no hop prints';

function record(line: string) {
  return parseLine(line, 1, 0, createParseState({ referenceTime: Date.UTC(2026, 7, 21) }));
}

test('a checkout that opens later answers once the locator is told the checkouts changed', () => {
  let open: CheckoutResolver | null | undefined = undefined; // still opening
  let resolves = 0;
  const locator = new RecordSourceLocator({ ready: () => open });
  const rec = record(ADDED);
  const before = locator.locate(rec)!;
  assert.equal(before.file, null);
  assert.match(before.url ?? '', /\/vllm\/v1\/engine\/async_llm\.py#L439$/);
  open = {
    resolve: () => { resolves++; return { path: 'vllm/v1/engine/async_llm.py', line: 442, verified: true, drift: 3, method: 'statement-index' }; },
    absolutePath: (loc) => `/co/${loc.path}`,
    hasFile: () => true,
  };
  assert.equal(locator.locate(rec), before, 'the answer is kept until the checkouts change');
  locator.forget();
  assert.equal(locator.known(rec), undefined);
  const after = locator.locate(rec)!;
  assert.deepEqual([after.file, after.location.line, after.location.drift], ['/co/vllm/v1/engine/async_llm.py', 442, 3]);
  locator.locate(rec);
  assert.equal(resolves, 1, 'a located record is not resolved again');
});

test('a citation opens in the checkout only when the checkout has that file; a bare basename has no source without one', () => {
  const noMatch: CheckoutResolver = { resolve: () => null, absolutePath: (loc) => `/co/${loc.path}`, hasFile: (p) => p === 'vllm/v1/engine/async_llm.py' };
  const withFile = new RecordSourceLocator({ ready: () => noMatch }).locate(record(ADDED))!;
  assert.equal(withFile.file, '/co/vllm/v1/engine/async_llm.py');
  const without = new RecordSourceLocator({ ready: () => ({ ...noMatch, hasFile: () => false }) }).locate(record(ADDED))!;
  assert.equal(without.file, null, 'a checkout at another commit without that file: the pinned file online');
  assert.equal(new RecordSourceLocator({ ready: () => null }).locate(record(OTHER)), null);
});
