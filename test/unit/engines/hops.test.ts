// The hop tables agree with the spec's hops.json (citations, levels) and match the spec's lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOP_TABLES, matchHop, renderHopTable, renderHopTableMarkdown, pinnedUrl } from '../../../src/engines/index';

// A copy of ../shared/spec/hops.json kept with the tests, so they run from any clone.
const SPEC = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'request', 'hops.json');

// hops.json cites SGLang's message text; the tables cite the first line of the logging call, as
// Python's %(lineno)d prints it: engine-facts §2 gives the `logger.info(msg)` lines of S3, S4
// and S5; S1, S2 and S6 open their `self._log(` call one line above the f-string.
const SGLANG_CALL_LINES: Record<string, number> = { S1: 155, S2: 109, S3: 653, S4: 916, S5: 1812, S6: 190 };

test('citations and pins match hops.json (with its corrections)', () => {
  const spec = JSON.parse(readFileSync(SPEC, 'utf8'));
  for (const e of spec.engines) {
    const table = HOP_TABLES[e.engine as 'vllm' | 'sglang'];
    assert.equal(table.pinnedSha, e.pinned_sha);
    for (const h of e.hops) {
      if (h.line === null) continue; // uvicorn's access line has no citation of its own
      const ours = table.hops.find((x) => x.id === h.id);
      assert.ok(ours, `${e.engine} ${h.id} is in our table`);
      assert.equal(ours.file.split(' ')[0], h.file.split(' ')[0], h.id);
      assert.equal(ours.line, e.engine === 'sglang' ? SGLANG_CALL_LINES[h.id] ?? h.line : h.line, h.id);
    }
  }
  // The corrections: V7 is generate() at L623 (the lab's L900 is encode()), V2 has its period.
  assert.equal(HOP_TABLES.vllm.hops.find((h) => h.id === 'V7')!.line, 623);
  assert.equal(HOP_TABLES.vllm.hops.find((h) => h.id === 'V2')!.format, 'Added request %s.');
  assert.ok(HOP_TABLES.vllm.hops.find((h) => h.id === 'V6')!.flags.includes('--enable-log-outputs'));
});

test('matchHop respects the vLLM fileinfo and accepts older wordings', () => {
  assert.equal(matchHop('vllm', 'Request chatcmpl-x aborted.', 'async_llm.py', 'vllm')?.hop.id, 'V7');
  assert.equal(matchHop('vllm', 'Request chatcmpl-x aborted.', 'other_file.py', 'vllm'), null);
  assert.equal(matchHop('vllm', 'Request chatcmpl-x failed with an internal error during generation', 'entrypoints/.../base/serving.py', 'vllm')?.hop.id, 'V9');
  assert.equal(matchHop('vllm', 'Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs', 'metrics.py', 'vllm-legacy')?.hop.id, 'V5');
  assert.equal(matchHop('vllm', '2 Engines Aggregated: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%', 'loggers.py', 'vllm')?.hop.id, 'V5');
  assert.equal(matchHop('sglang', 'Prefill batch [12], #new-seq: 1, #new-token: 9, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 0.00', null, 'sglang')?.groups.iter, '12');
  assert.equal(matchHop('sglang', 'Something else', null, 'sglang'), null);
});

test('every hop has a meaning, a gate, a missing reason and a pinned link', () => {
  for (const t of Object.values(HOP_TABLES)) {
    for (const h of t.hops) {
      assert.ok(h.meaning.length > 40, h.id);
      assert.ok(h.gate.length > 0 && h.missing.text.length > 0, h.id);
      assert.ok(pinnedUrl(t, h).startsWith(`${t.repoUrl}/blob/${t.pinnedSha}/`), h.id);
    }
  }
});

test('rendered tables list each hop and the launch lines', () => {
  const text = renderHopTable('sglang');
  for (const id of ['S1', 'S5', 'S9']) assert.match(text, new RegExp(`^${id} `, 'm'));
  assert.match(text, /--enable-request-time-stats-logging/);
  assert.doesNotMatch(renderHopTable('vllm'), /^V11 /m, 'legacy wordings only on request');
  assert.match(renderHopTable('vllm', { includeLegacy: true }), /^V11 /m);
  const md = renderHopTableMarkdown('vllm');
  assert.match(md, /\| V2 \| api-server \| \[vllm\/v1\/engine\/async_llm\.py:439\]\(https:\/\/github\.com\/vllm-project\/vllm\/blob\/a556f3f/);
});

test('the hop tables record which versions print which wording, in the map, its JSON and the editor\'s table', () => {
  const md = renderHopTableMarkdown('vllm');
  assert.match(md, /## Wordings across versions/);
  assert.match(md, /\| V5 \| `Avg prompt throughput: … tokens\/s, Avg generation throughput: … tokens\/s, Running: … reqs, Swapped: … reqs, Pending: … reqs/);
  assert.match(renderHopTable('sglang'), /Req Time Stats\(rid=…/);
  // Every wording's example is a line the hop's patterns accept.
  for (const [engine, table] of Object.entries(HOP_TABLES)) {
    for (const h of table.hops) {
      for (const w of h.wordings ?? []) {
        const m = matchHop(engine as 'vllm' | 'sglang', w.example, null, engine);
        assert.equal(m?.hop.id, h.id, `${h.id}: ${w.example}`);
      }
    }
  }
});


test('V10: an access line whose client address the paste removed is still the access hop (uvicorn lines only)', () => {
  for (const m of ['- "POST /v1/chat/completions HTTP/1.1" 200 OK', '"POST /v1/chat/completions HTTP/1.1" 200 OK', '127.0.0.1:40052 - "POST /v1/completions HTTP/1.1" 400 Bad Request']) {
    assert.equal(matchHop('vllm', m, null, 'uvicorn')?.hop.id, 'V10', m);
  }
  assert.equal(matchHop('vllm', '"POST /v1/chat/completions HTTP/1.1" 200 OK', null, 'vllm'), null);
});

test('V9 is printed from serving_engine.py (late 2025) as from the pin\'s serving.py, and from no other file', () => {
  const m = 'Request chatcmpl-8da6fc665494abe1 failed with an internal error during generation';
  assert.equal(matchHop('vllm', m, 'serving_engine.py', 'vllm')?.groups.rid, 'chatcmpl-8da6fc665494abe1');
  assert.equal(matchHop('vllm', m, 'serving.py', 'vllm')?.hop.id, 'V9');
  assert.equal(matchHop('vllm', m, 'utils.py', 'vllm'), null);
});

test('the hop table explains its ids (engine letter, step number, suffixes, startup notices) before the rows', () => {
  for (const engine of ['vllm', 'sglang'] as const) {
    const md = renderHopTableMarkdown(engine);
    const legend = md.indexOf('**Hop ids.**');
    assert.ok(legend > 0 && legend < md.indexOf('| hop | process |'), `${engine}: a legend above the table`);
    assert.match(md, /`V` vLLM, `S` SGLang.*`hop 2` for `V2`.*`V0a`, `V0b` are notices printed once at startup/);
  }
});
