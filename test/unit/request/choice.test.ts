// Which request "Show Engine Timing" means when it is given none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestToShow } from '../../../src/core/request/choice';

test('the request at the cursor wins over the last traced one and the known ones', () => {
  assert.deepEqual(requestToShow('chatcmpl-myrun-0001', 'cmpl-c0ffee02-0', ['chatcmpl-c0ffee01']), { rid: 'chatcmpl-myrun-0001' });
});

test('nothing known beyond the last traced request: that one, without asking; nothing at all: none', () => {
  assert.deepEqual(requestToShow(undefined, 'cmpl-c0ffee02-0', []), { rid: 'cmpl-c0ffee02-0' });
  assert.equal(requestToShow(undefined, undefined, []), undefined);
});

test('otherwise a choice: the last traced request first and marked, then the known ones, each once', () => {
  assert.deepEqual(requestToShow(undefined, 'cmpl-c0ffee02-0', ['chatcmpl-c0ffee01', 'cmpl-c0ffee02-0']), { choices: [
    { rid: 'cmpl-c0ffee02-0', lastTraced: true }, { rid: 'chatcmpl-c0ffee01', lastTraced: false },
  ] });
  assert.deepEqual(requestToShow(undefined, undefined, ['a', 'b', 'a']), { choices: [{ rid: 'a', lastTraced: false }, { rid: 'b', lastTraced: false }] });
});
