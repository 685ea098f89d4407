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
import { monotonicClock, type Clock } from '../../../src/core/request/types';
import { startFakeEngine } from '../../../src/testing/fakeEngine/server';
import { makeTempDir } from '../../harness/tempDirs';

// Name resolution that takes an hour on the clock HopLens reads, and no time on the wall: if
// any of TTFT, headers or E2E counted from before the connection was up, it would hold that
// hour. No bound here depends on how busy the machine is (speed is bench/send.mjs's job).
const RESOLVE_MS = 3_600_000;
let skew = 0;
const clock: Clock = { now: () => monotonicClock.now() + skew };
/** Answers every name with 127.0.0.1, an hour later by `clock`. */
const slowLookup: net.LookupFunction = (_hostname, opts, cb) => {
  setImmediate(() => {
    skew += RESOLVE_MS;
    const done = cb as (err: null, address: string | { address: string; family: number }[], family?: number) => void;
    if ((opts as { all?: boolean }).all) done(null, [{ address: '127.0.0.1', family: 4 }]);
    else done(null, '127.0.0.1', 4);
  });
};

test('a slow connection set-up is reported as connectMs and is not in TTFT, headers or E2E', async () => {
  const h = await startFakeEngine({ engine: 'vllm', logFile: join(makeTempDir('hoplens-fake-').path, 'server.log'), schedule: 'first=100,frames=5,every=10' });
  try {
    const port = new URL(h.url).port;
    const transport = new NodeHttpTransport(clock, { lookup: slowLookup });
    const { record, metrics } = await sendTracedRequest({ url: `http://engine.hoplens.test:${port}`, engine: 'vllm', api: 'chat', model: 'Qwen/Qwen3-0.6B', maxTokens: 5, timeoutMs: 5000 }, { transport, clock });
    assert.equal(record.error, null, JSON.stringify(record.error));
    const connect = record.timeline.connectMs!;
    assert.ok(connect >= RESOLVE_MS, `connectMs ${connect} holds the hour of name resolution`);
    // t = 0 is the connection coming up: the request goes out after it, then headers, frames, the end.
    const t = record.timeline;
    assert.ok(t.requestWrittenMs! >= 0 && t.requestWrittenMs! <= metrics.headersMs!, JSON.stringify(t));
    assert.ok(metrics.headersMs! <= metrics.ttftFirstFrameMs! && metrics.ttftFirstFrameMs! <= metrics.ttftContentMs!
      && metrics.ttftContentMs! <= metrics.e2eMs!, JSON.stringify(metrics));
    // The server holds the first content frame 100 ms and the last 140 ms after the request arrives.
    assert.ok(metrics.ttftContentMs! >= 99, `TTFT ${metrics.ttftContentMs}`);
    assert.ok(metrics.e2eMs! >= 139, `E2E ${metrics.e2eMs}`);
    for (const [name, v] of [['TTFT', metrics.ttftContentMs!], ['headers', metrics.headersMs!], ['E2E', metrics.e2eMs!]] as const) {
      assert.ok(v < RESOLVE_MS, `${name} ${v.toFixed(1)} ms includes the ${connect.toFixed(0)} ms set-up`);
    }
    assert.equal(toJson(record, metrics).connectMs, Math.round(connect * 1000) / 1000);
  } finally { await h.close(); }
});
