// TTFT counts from the moment the connection is up and the request goes out, as on a pooled
// connection: name resolution, the TCP handshake and TLS are reported apart (connectMs). Real
// fake engine on 127.0.0.1; only the resolver is ours, and it is slow on purpose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as net from 'node:net';

import { join } from 'node:path';
import { sendTracedRequest } from '../../../src/core/request/client';
import { toJson } from '../../../src/core/request/export';
import { NodeHttpTransport } from '../../../src/core/request/transport';
import { monotonicClock } from '../../../src/core/request/types';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { makeTempDir } from '../../harness/tempDirs';

const RESOLVE_MS = 120;
/** Answers every name with 127.0.0.1, after RESOLVE_MS. */
const slowLookup: net.LookupFunction = (_hostname, opts, cb) => {
  setTimeout(() => {
    const done = cb as (err: null, address: string | { address: string; family: number }[], family?: number) => void;
    if ((opts as { all?: boolean }).all) done(null, [{ address: '127.0.0.1', family: 4 }]);
    else done(null, '127.0.0.1', 4);
  }, RESOLVE_MS);
};

test('a slow connection set-up is reported as connectMs and is not in TTFT, headers or E2E', async () => {
  const h = await startFakeEngine({ engine: 'vllm', logFile: join(makeTempDir('hoplens-fake-').path, 'server.log'), schedule: 'first=100,frames=5,every=10' });
  try {
    const port = new URL(h.url).port;
    const transport = new NodeHttpTransport(monotonicClock, { lookup: slowLookup });
    const { record, metrics } = await sendTracedRequest({ url: `http://engine.hoplens.test:${port}`, engine: 'vllm', api: 'chat', model: 'Qwen/Qwen3-0.6B', maxTokens: 5, timeoutMs: 5000 }, { transport });
    assert.equal(record.error, null, JSON.stringify(record.error));
    const connect = record.timeline.connectMs;
    assert.ok(connect !== null && connect >= RESOLVE_MS - 5, `connectMs ${connect}`);
    // The server holds the first content frame 100 ms after the request arrives.
    const ttft = metrics.ttftContentMs!;
    assert.ok(ttft >= 99 && ttft < 100 + RESOLVE_MS / 2, `TTFT ${ttft.toFixed(1)} ms must not include the ${connect!.toFixed(0)} ms set-up`);
    assert.ok(metrics.headersMs! < RESOLVE_MS / 2, `headers at ${metrics.headersMs}`);
    assert.ok(metrics.e2eMs! < 100 + 5 * 10 + RESOLVE_MS / 2, `E2E ${metrics.e2eMs}`);
    assert.equal(toJson(record, metrics).connectMs, Math.round(connect! * 1000) / 1000);
  } finally { await h.close(); }
});
