// The statements of SGLang's Rust router: tracing's and log's macros, at the line of the macro's
// name (what tracing prints as `file.rs:N`), with the format string's `{…}` as values, fields
// before it making the message open-ended, and comments, strings and other macros left alone.
// Calls written as sgl-router writes them (sgl-router/src/server.rs, core/job_queue.rs of late 2025).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findRustLogStatements } from '../../../src/core/source/rustStatements';
import { WILD } from '../../../src/core/source/messagePattern';

const SRC = [
  'use tracing::{debug, error, info, warn};', //                                        1
  '',
  'pub async fn startup(config: ServerConfig) -> Result<(), Box<dyn std::error::Error>> {',
  '    // info!("a comment is no statement");',
  '    info!(', //                                                                       5
  '        "Starting router on {}:{} | mode: {:?} | policy: {:?} | max_payload: {}MB",',
  '        config.host,',
  '        config.port,',
  '        config.router_config.mode,',
  '        config.router_config.policy,', //                                            10
  '        config.max_payload_size / (1024 * 1024)',
  '    );',
  '    let s = "warn!(\\"inside a string\\")";',
  '    debug!("Initializing worker job queue: capacity={}, workers={}", cap, n);',
  '    tracing::warn!(worker_url = %url, "Worker {url} failed health check: {e}");', // 15
  "    let c = '}'; /* error!(\"in a block comment\") */",
  '    error!(target: "sglang_router_rs::mesh", "Mesh server failed: {}", e);',
  '    info!("Literal {{braces}} and a \\',
  '          continued line");',
  '    println!("not a logging macro {}", x);', //                                     20
  '}',
].join('\n');

test('each logging macro is a statement at the line of its name, with its level and what it prints', () => {
  const found = findRustLogStatements(SRC);
  assert.deepEqual(found.map((s) => [s.line, s.level, s.textLine]), [[5, 'info', 6], [14, 'debug', 14], [15, 'warning', 15], [17, 'error', 17], [18, 'info', 18]]);
  assert.equal(found[0].endLine, 12);
  assert.deepEqual(found[0].variants[0].pattern, ['Starting router on ', WILD, ':', WILD, ' | mode: ', WILD, ' | policy: ', WILD, ' | max_payload: ', WILD, 'MB']);
  assert.equal(found[0].variants[0].openEnded, false);
  assert.deepEqual(found[1].variants[0].pattern, ['Initializing worker job queue: capacity=', WILD, ', workers=', WILD]);
  // Fields before the message are printed after it.
  assert.deepEqual(found[2].variants[0].pattern, ['Worker ', WILD, ' failed health check: ', WILD]);
  assert.equal(found[2].variants[0].openEnded, true);
  // `target:` is no field.
  assert.deepEqual(found[3].variants[0].pattern, ['Mesh server failed: ', WILD]);
  assert.equal(found[3].variants[0].openEnded, false);
  // `{{`, `}}` and a line continuation inside the literal.
  assert.deepEqual(found[4].variants[0].pattern, ['Literal {braces} and a continued line']);
});

test('a file without logging macros has no statements', () => {
  assert.deepEqual(findRustLogStatements('fn main() {\n    println!("hello {}", name);\n}\n'), []);
});
