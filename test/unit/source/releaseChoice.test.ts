// CheckoutSet and a release's own source: a log's head states its release (the editor offers it),
// and a source chosen for an engine is opened instead of the configured checkout until cleared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckoutSet, type OpenCheckout } from '../../../src/core/source/checkouts';
import type { CheckoutSourceResolver } from '../../../src/core/source/resolver';
import type { StatedRelease } from '../../../src/core/source/release';
import { TempDirs } from './fixtureCheckout';

test('a log\'s stated release is reported, and a chosen source replaces the configured checkout until cleared', async () => {
  const tmp = new TempDirs();
  try {
    const dir = tmp.make();
    const log = join(dir, 'server.log');
    writeFileSync(log, [
      'INFO 05-01 10:00:00 [__init__.py:239] Automatically detected platform cuda.',
      'INFO 05-01 10:00:02 [api_server.py:1043] vLLM API server version 0.8.5',
    ].join('\n') + '\n');
    const opened: string[] = [];
    const open: OpenCheckout = (d) => {
      opened.push(d);
      return Promise.resolve({ checkout: { root: d }, indexReady: Promise.resolve(null) } as unknown as CheckoutSourceResolver);
    };
    const stated: StatedRelease[] = [];
    let changes = 0;
    const set = new CheckoutSet({ configured: { vllm: '/configured/vllm', sglang: '' }, folders: [] }, {
      resolver: { cacheDir: null }, open, events: { stated: (_p, r) => stated.push(r), changed: () => { changes++; } },
    });
    await set.prepareForLog(log);
    assert.deepEqual(stated, [{ engine: 'vllm', version: '0.8.5', line: 2 }]);
    assert.equal((await set.resolver('vllm'))?.checkout.root, '/configured/vllm');
    const before = changes;
    set.useSource('vllm', '/cache/releases/vllm-0.8.5');
    assert.ok(changes > before, 'lenses are told to ask again');
    assert.equal((await set.resolver('vllm'))?.checkout.root, '/cache/releases/vllm-0.8.5');
    set.useSource('vllm', null);
    assert.equal((await set.resolver('vllm'))?.checkout.root, '/configured/vllm');
    assert.deepEqual(opened, ['/configured/vllm', '/cache/releases/vllm-0.8.5', '/configured/vllm']);
  } finally { tmp.cleanup(); }
});
