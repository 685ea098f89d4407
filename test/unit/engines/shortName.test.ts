import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortFormat } from '../../../src/engines/shortName';
import { HOP_TABLES } from '../../../src/engines/index';

test('hop formats read as their constant words', () => {
  assert.equal(shortFormat('Received request %s: params: %s, lora_request: %s.'), 'Received request …');
  assert.equal(shortFormat('Added request %s.'), 'Added request …');
  assert.equal(shortFormat('Request %s aborted.'), 'Request … aborted');
  assert.equal(shortFormat('Generated response %s%s: output: %r, finish_reason: %s'), 'Generated response …');
  assert.equal(shortFormat('Aborted request(s) %s.'), 'Aborted request(s) …');
  assert.equal(shortFormat('%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s'), '');
});

test('every hop of both tables gets a short name of at most 40 characters', () => {
  for (const table of Object.values(HOP_TABLES)) {
    for (const hop of table.hops) assert.ok(shortFormat(hop.format).length <= 40, `${hop.id}: ${shortFormat(hop.format)}`);
  }
});
