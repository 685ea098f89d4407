// Several files of a release share a basename (vLLM's entrypoints/api_server.py, the demo server,
// and entrypoints/openai/api_server.py; SGLang's srt/ and multimodal_gen/ http_server.py), and a
// line prints only that basename and a line number. Read against another release, where none of
// them has the statement at the printed line, a line number tells nothing across files: the
// answer is the candidates, never "verified" at the nearer one with a drift across files. Against
// the release that printed it, the statement at the printed line is verified, as before. The
// trees are the release matrix's real wheels (releaseTrees.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { findLogStatements } from '../../../src/core/source/logStatements';
import { createSourceResolver, type CheckoutSourceResolver } from '../../../src/core/source';
import type { Engine } from '../../../src/core/logs/model';
import { realReleaseTrees, testReleaseCache } from './releaseTrees';

const trees = new Map<string, CheckoutSourceResolver>();
async function release(t: Parameters<typeof realReleaseTrees>[0], engine: Engine, version: string): Promise<CheckoutSourceResolver | null> {
  const key = `${engine}-${version}`;
  const have = trees.get(key);
  if (have) return have;
  const roots = await realReleaseTrees(t, [{ engine, version }]);
  if (!roots) return null;
  const r = await createSourceResolver(roots[0], engine, { statementIndex: 'eager', cacheDir: join(testReleaseCache(), '.statements') });
  trees.set(key, r);
  return r;
}

function answer(r: CheckoutSourceResolver, fileinfo: string, lineno: number, message: string) {
  const l = r.resolve({ engine: r.engine, fileinfo, lineno, level: 'INFO', message, hop: null });
  return l && { path: l.path, line: l.line, verified: l.verified, drift: l.drift, candidates: l.candidates?.map((c) => `${c.path}:${c.line}`) };
}

test('vLLM 0.8.5\'s `[api_server.py:1043] vLLM API server version 0.8.5` against 0.11.2: both api_server.py files, no claim', async (t) => {
  const newer = await release(t, 'vllm', '0.11.2');
  const own = await release(t, 'vllm', '0.8.5');
  if (!newer || !own) return;
  const line = 'vLLM API server version 0.8.5';
  // Before: verified at the demo server's entrypoints/api_server.py:127, drift -916.
  assert.deepEqual(answer(newer, 'api_server.py', 1043, line), {
    path: 'vllm/entrypoints/api_server.py', line: 127, verified: false, drift: 0,
    candidates: ['vllm/entrypoints/api_server.py:127', 'vllm/entrypoints/openai/api_server.py:1977'],
  });
  assert.match(newer.resolve({ engine: 'vllm', fileinfo: 'api_server.py', lineno: 1043, level: 'INFO', message: line, hop: null })?.note ?? '',
    /^2 files named api_server\.py print this text, none at the printed line/);
  // The release that printed it: the statement at the printed line.
  assert.deepEqual(answer(own, 'api_server.py', 1043, line), { path: 'vllm/entrypoints/openai/api_server.py', line: 1043, verified: true, drift: 0,
    candidates: undefined });
  // 0.4.3's line (`api_server.py:177`) against 0.8.5: the same two files.
  assert.deepEqual(answer(own, 'api_server.py', 177, 'vLLM API server version 0.4.3')?.candidates,
    ['vllm/entrypoints/api_server.py:121', 'vllm/entrypoints/openai/api_server.py:1043']);
});

test('SGLang 0.5.1\'s `[http_server.py:1253] The server is fired up and ready to roll!` against 0.5.23: srt\'s and multimodal_gen\'s, no claim', async (t) => {
  const newer = await release(t, 'sglang', '0.5.23');
  const own = await release(t, 'sglang', '0.5.1');
  if (!newer || !own) return;
  const line = 'The server is fired up and ready to roll!';
  // Before: verified at multimodal_gen/runtime/entrypoints/http_server.py:119 (the diffusion server), drift -1134.
  const got = answer(newer, 'http_server.py', 1253, line);
  assert.equal(got?.verified, false);
  assert.deepEqual(got?.candidates, ['python/sglang/multimodal_gen/runtime/entrypoints/http_server.py:119', 'python/sglang/srt/entrypoints/http_server.py:2600']);
  assert.deepEqual(answer(own, 'http_server.py', 1253, line), { path: 'python/sglang/srt/entrypoints/http_server.py', line: 1253, verified: true, drift: 0,
    candidates: undefined });
});

/**
 * Every single-form statement of release `a` (12+ literal characters, one line), printed as its
 * basename and line at its level, resolved in release `b`: the answers verified with a drift
 * (not at the printed line) while another file of `b` with that basename prints the text too.
 */
function crossFileClaims(rootA: string, b: CheckoutSourceResolver, rootB: string): { asked: number; verified: number; wrong: string[] } {
  const files = (root: string) => walk(root).map((f) => relative(root, f));
  const byBase = new Map<string, string[]>();
  for (const f of files(rootB)) byBase.set(basename(f), [...(byBase.get(basename(f)) ?? []), f]);
  let asked = 0, verified = 0;
  const wrong: string[] = [];
  for (const rel of files(rootA)) {
    let stmts: ReturnType<typeof findLogStatements>;
    try { stmts = findLogStatements(readFileSync(join(rootA, rel), 'utf8')); } catch { continue; }
    for (const s of stmts) {
      if (s.variants.length !== 1 || !s.level || s.level === 'exception') continue;
      const p = s.variants[0].pattern;
      if (p.filter((x) => x !== 0).join('').length < 12) continue;
      const message = p.map((x) => (x === 0 ? 'x7' : x)).join('');
      if (message.includes('\n')) continue;
      const level = s.level.replace('_once', '').toUpperCase().replace(/^WARN$/, 'WARNING');
      asked++;
      const loc = b.resolve({ engine: b.engine, fileinfo: basename(rel), lineno: s.line, message, hop: null, level });
      if (!loc?.verified) continue;
      verified++;
      if (loc.drift === 0) continue;
      for (const other of byBase.get(basename(rel)) ?? []) {
        if (other === loc.path) continue;
        const o = b.resolve({ engine: b.engine, fileinfo: other, lineno: s.line, message, hop: null, level });
        if (o?.verified && o.path === other) { wrong.push(`${rel}:${s.line} verified at ${loc.path}:${loc.line}; ${other}:${o.line} prints it too`); break; }
      }
    }
  }
  return { asked, verified, wrong };
}

function walk(dir: string, out: string[] = []): string[] {
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) walk(p, out); else if (f.endsWith('.py')) out.push(p);
  }
  return out;
}

for (const [engine, a, b] of [['vllm', '0.8.5', '0.11.2'], ['sglang', '0.5.1', '0.5.23']] as const) {
  test(`every statement of ${engine} ${a} read against ${b}: no claim across files that share a name`, async (t) => {
    const roots = await realReleaseTrees(t, [{ engine, version: a }, { engine, version: b }]);
    const newer = await release(t, engine, b);
    if (!roots || !newer) return;
    const got = crossFileClaims(roots[0], newer, roots[1]);
    assert.ok(got.asked > 500 && got.verified > 250, `a real sweep (${got.asked} asked, ${got.verified} verified)`);
    assert.deepEqual(got.wrong, []);
  });
}
