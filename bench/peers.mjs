#!/usr/bin/env node
// HopLens side by side with the tools a user already has, on the same inputs, in one run:
//
//   node bench/peers.mjs [--runs 5] [--lines 1000000] [--trace-mb 1000] [--keep] [--lab PATH] [--only id,id]
//   (--only: just these rows, e.g. hl-sum,lnav-sum, for a quick look; the goals need the full set)
//
// Server log (a generated vLLM log, 1M lines ≈ 195 MB; every run writes its output to a file):
//   hoplens annotate LOG --json > file          every line's hop, file:line, process, time, request id
//   hoplens annotate LOG --json | cat > file    the same through a pipe
//   hoplens annotate LOG --rid ID > file        one request (a full parse; prints that request's lines)
//   hoplens annotate LOG --summary --json > file  the statements by how often they printed (count, first, last, example)
//   lnav … GROUP BY fileinfo, lineno > file     the same through lnav's SQL: count(*), min/max(log_time), level, event
//   lnav (see below)                            the same fields through lnav's SQL, and the one-request query
//   LC_ALL=C grep -cE '<hop regexes>' LOG > file  HopLens's own hop regexes (src/engines) as one ERE, a count
//                                               only; into a file, as GNU grep stops at the first match when its
//                                               output is /dev/null; in the byte locale, as in a UTF-8 locale
//                                               GNU grep 3.8 took ~28× the CPU on this ERE
//   cat LOG > file                              the disk/page-cache floor
//   node bench/readFloor.mjs LOG > file         Node's floor: read the file, find the line ends (nothing else)
//   lab12_run.py --mode annotate                the lab's reference script
//   cat OUT > file, cat OUT | cat > file        HopLens's output moved without HopLens: what a pipe costs the
//                                               machine for those bytes (the pipe goal is read with it taken out)
// Call traces (a generated VLLM_TRACE_FUNCTION folder, --trace-mb in two threads' files):
//   hoplens calltrace DIR --json > file         full index (every thread's call tree) and the request-path listing
//   cat FILES | wc -l > file                    the read floor
//   node bench/readFloor.mjs --threads 2 FILES  Node's floor, in as many threads as the indexer uses
//   lab12_run.py --mode calltrace               the lab's flat listing (no tree)
//
// What lnav is asked to do, so the comparison is fair. lnav 0.11 (Debian's) runs headless
// (`lnav -n`) with a vLLM format this script writes into a temporary config dir (HOME points
// there; the user's ~/.lnav and ~/.config/lnav are never read or written). The format's one regex
// matches vLLM's header `(Proc pid=N) LEVEL MM-DD HH:MM:SS [file.py:N] message` and, in the same
// pass, captures the hop's event words and the request id, so lnav classifies each line the way
// HopLens does (by the message, not by file:line) without a second regex in SQL. One SELECT then
// returns, per line: line number, process, pid, level, time, fileinfo, lineno, hop (a CASE on the
// captured event) and request id, written as JSON Lines (`:write-jsonlines-to -`) into a file.
// The one-request query is the same SELECT with `WHERE rid = ID OR rid GLOB 'ID-*'` (external
// and internal id).
// What lnav is NOT asked to do (each makes its job lighter than HopLens's):
//  - uvicorn's access lines (hop V10, ~10% of the lines) carry no timestamp; an lnav 0.11 pattern
//    without a timestamp crashes lnav, so they are folded into the line above (lnav's multi-line
//    messages) and get no row or hop label. ("multiline": false would give them rows, but made
//    lnav's SELECT ~6× slower in CPU here, so the faster setup is the one measured.)
//  - no request grouping, missing-hop reasons or summary (HopLens prints them after the lines);
//  - no year inference beyond lnav's own, no resolution of file:line to the engine's source path.
// The checks after the first round compare lnav's rows with HopLens's JSON line by line.
//
// Each tool runs --runs times, alternating (A B C … A B C …) so load drifts hit all alike;
// the table shows medians of wall time, CPU time (user+sys, children included) and peak RSS
// from /usr/bin/time -v, and each time as a ratio to lnav, cat and the lab measured in the same
// run. On a shared machine absolute times drift 2–3×: read the ratios.
// lnav and GNU time are installed from Debian when missing (as root; otherwise the apt-get
// command is printed and lnav is skipped, or CPU and RSS are not measured).
// Inputs go to bench/data/ (git-ignored): made when missing (deterministic), and removed at the
// end, with the outputs, unless --keep (inputs that were already there are left).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { aptGetInstall } from '../scripts/ensure-tools.mjs';
import { callTraceInstanceDir, existingCallTraceMb, generateCallTraceFolder, generateVllmLog } from './generators.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const RUNS = Math.max(1, Number(opt('--runs', '5')));
const LINES = Number(opt('--lines', '1000000'));
const TRACE_MB = Number(opt('--trace-mb', '1000'));
const KEEP = argv.includes('--keep');
const ONLY = opt('--only', null)?.split(',') ?? null;
if (!Number.isInteger(RUNS) || !Number.isInteger(LINES) || LINES < 1000 || !(TRACE_MB >= 2)) {
  console.error('usage: node bench/peers.mjs [--runs N] [--lines N>=1000] [--trace-mb N>=2] [--keep] [--lab PATH]');
  process.exit(2);
}
// The lab script sits in shared/ beside the clone (CI, /work/main) or beside the worktrees' folder.
const LAB = opt('--lab', [join(repo, '..', 'shared'), join(repo, '..', '..', 'shared')]
  .map((d) => join(d, 'anchors', 'lab12_run.py')).find((p) => existsSync(p)) ?? null);
const dataDir = join(repo, 'bench', 'data');
const outDir = join(dataDir, 'peers-out');
const CLI = join(repo, 'dist', 'cli.js');
const FLOOR = join(repo, 'bench', 'readFloor.mjs');

// ------------------------------------------------------------------ tools from Debian
function ensureDebian(pkg, probe, withoutIt) {
  if (existsSync(probe)) return true;
  if (process.getuid && process.getuid() !== 0) {
    console.log(`${pkg} is not installed: sudo apt-get update && sudo apt-get install -y ${pkg}   (${withoutIt})`);
    return false;
  }
  console.log(`installing ${pkg} from Debian …`);
  const failed = aptGetInstall([pkg]);
  if (failed || !existsSync(probe)) { console.log(`could not install ${pkg}: ${failed ?? `${probe} still missing`} (${withoutIt})`); return false; }
  return true;
}

// ------------------------------------------------------------------ lnav's vLLM format
/**
 * One branch per hop event, in a branch-reset group: in each branch the first capture is `event`
 * (the words that tell the hop) and the second, when the line has one, `rid`. The patterns follow
 * src/engines/vllm/hops.ts; none is anchored at the end, because lnav matches a multi-line message
 * (a folded access line) as one text.
 */
const LNAV_EVENTS = [
  { hop: 'V0a', event: '`--enable-log-requests` is set but the minimum log level is higher than INFO', branch: '(?<event>`--enable-log-requests` is set but the minimum log level is higher than INFO)\\.' },
  { hop: 'V0b', event: '`--enable-log-requests` is set but the minimum log level is higher than DEBUG', branch: '(?<event>`--enable-log-requests` is set but the minimum log level is higher than DEBUG)\\.' },
  { hop: 'V1', event: 'Received request', branch: '(?<event>Received request) (?<rid>\\S+): (?:prompt: .*, )?params: ' },
  { hop: 'V1b', event: 'details: prompt: ', branch: null }, // in the Request … branch below
  { hop: 'V2', event: 'Added request', branch: '(?<event>Added request) (?<rid>\\S+?)\\.?(?:\\s|$)' },
  { hop: 'V3', event: 'EngineCore waiting for work.', branch: null },
  { hop: 'V4', event: 'EngineCore loop active.', branch: '(?<event>EngineCore waiting for work\\.|EngineCore loop active\\.)' },
  { hop: 'V5', event: 'Avg prompt throughput', branch: '(?:Engine \\d{3}: |\\d+ Engines Aggregated: )?(?<event>Avg prompt throughput): [\\d.]+ tokens/s, Avg generation throughput: ' },
  { hop: 'V6', event: 'Generated response', branch: '(?<event>Generated response) (?<rid>\\S+?)(?: \\(streaming (?:delta|complete)\\))?: output: ' },
  { hop: 'V7', event: 'aborted.', branch: null },
  { hop: 'V9', event: 'failed with an internal error during generation', branch: 'Request (?=\\S+ (?<event>details: prompt: |aborted\\.|failed with an internal error during generation))(?<rid>\\S+) ' },
  { hop: 'V8', event: 'Aborted request', branch: '(?<event>Aborted request)(?:\\(s\\))? (?<rid>[^\\s,]+?)\\.?(?:,|\\s|$)' },
  { hop: 'V11', event: 'Finished request', branch: '(?<event>Finished request) (?<rid>\\S+?)\\.(?:\\s|$)' },
];
const LNAV_PATTERN = '^(?:\\((?<process>[^()]+?) pid=(?<pid>\\d+)\\) )?(?<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) '
  + '(?<timestamp>\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}) \\[(?<fileinfo>[^\\]]*?):(?<lineno>\\d+)\\] '
  + `(?<body>(?|${LNAV_EVENTS.filter((e) => e.branch).map((e) => e.branch).join('|')})?.*)$`;

const LNAV_FORMAT = {
  $schema: 'https://lnav.org/schemas/format-v1.schema.json',
  vllm_log: {
    title: 'vLLM server log',
    description: "vLLM's logger: (Proc pid=N) LEVEL MM-DD HH:MM:SS [file.py:N] message, with the HopLens hop event and request id",
    regex: { std: { pattern: LNAV_PATTERN } },
    'timestamp-format': ['%m-%d %H:%M:%S'],
    'level-field': 'level',
    level: { debug: '^DEBUG$', info: '^INFO$', warning: '^WARNING$', error: '^ERROR$', critical: '^CRITICAL$' },
    value: {
      process: { kind: 'string', identifier: true },
      pid: { kind: 'integer' },
      fileinfo: { kind: 'string', identifier: true },
      lineno: { kind: 'integer' },
      event: { kind: 'string', identifier: true },
      rid: { kind: 'string', identifier: true },
    },
    sample: [
      { line: '(APIServer pid=2101) INFO 08-21 22:00:00 [async_llm.py:439] Added request chatcmpl-run-1-8f7c36dd.' },
      { line: '(EngineCore pid=2150) INFO 08-21 22:00:00 [v1/core/sched/scheduler.py:412] Scheduled 3 requests, 812 tokens in this step.' },
    ],
  },
};

/** lnav's answer to `annotate --summary`: per fileinfo:lineno, how many lines, when first and last, at which level and hop event. */
const LNAV_GROUP_BY = 'SELECT fileinfo, lineno, count(*) AS count, min(log_time) AS first, max(log_time) AS last, log_level AS level, event '
  + 'FROM vllm_log GROUP BY 1, 2 ORDER BY 3 DESC';
const sqlString = (s) => `'${s.replace(/'/g, "''")}'`;
const LNAV_SELECT = 'SELECT log_line + 1 AS line, process, pid, log_level AS level, log_time AS time, fileinfo, lineno, '
  + `CASE event ${LNAV_EVENTS.map((e) => `WHEN ${sqlString(e.event)} THEN '${e.hop}'`).join(' ')} END AS hop, rid FROM vllm_log`;

/** A private lnav home holding only the vLLM format; the environment that points lnav at it. */
function lnavHome() {
  const home = mkdtempSync(join(tmpdir(), 'hoplens-lnav-'));
  const formatDir = join(home, '.lnav', 'formats', 'hoplens');
  mkdirSync(formatDir, { recursive: true });
  writeFileSync(join(formatDir, 'vllm_log.json'), JSON.stringify(LNAV_FORMAT, null, 2));
  const env = { ...process.env, HOME: home, TMPDIR: home };
  delete env.XDG_CONFIG_HOME;
  return { home, env };
}

// ------------------------------------------------------------------ grep's ERE from HopLens's hop table
/** A JS hop-message regex as POSIX ERE for GNU grep (named and non-capturing groups, \d, lazy quantifiers). */
function jsToEre(source) {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const n = source[i + 1];
      i++;
      if (n === 'd') out += inClass ? '0-9' : '[0-9]';
      else if (n === '/') out += '/';
      else out += `\\${n}`;
      continue;
    }
    if (inClass) { if (c === ']') inClass = false; out += c; continue; }
    if (c === '[') { inClass = true; out += c; continue; }
    if (c === '(' && source[i + 1] === '?') {
      if (source[i + 2] === ':') i += 2;
      else if (source[i + 2] === '<') i = source.indexOf('>', i);
      else throw new Error(`no ERE for (?${source[i + 2]} in /${source}/`);
      out += '(';
      continue;
    }
    if ((c === '?') && /[*+?}]/.test(source[i - 1] ?? '') && source[i - 2] !== '\\') continue; // lazy → greedy: same lines match
    out += c;
  }
  return out;
}

async function hopEre() {
  const lib = join(dataDir, 'peers-hops.cjs');
  await esbuild.build({ entryPoints: [join(repo, 'src', 'engines', 'index.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: lib, logLevel: 'warning' });
  const { HOP_TABLES } = createRequire(import.meta.url)(lib);
  rmSync(lib);
  const hops = HOP_TABLES.vllm.hops;
  const strip = (re) => jsToEre(re.source).replace(/^\^/, '');
  const messages = hops.filter((h) => h.id !== 'V10').flatMap((h) => h.patterns.map(strip));
  const access = hops.find((h) => h.id === 'V10').patterns.map(strip);
  const proc = '^(\\([^()]+ pid=[0-9]+\\) )?';
  const header = '(DEBUG|INFO|WARNING|ERROR|CRITICAL) [0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} \\[[^]]*:[0-9]+\\] ';
  return `${proc}(${header}(${messages.join('|')})|INFO: +(${access.join('|')}))`;
}

// ------------------------------------------------------------------ measuring
const HAS_TIME = () => existsSync('/usr/bin/time');

/** One run of a bash command line under GNU time: wall seconds, CPU seconds, peak RSS MiB. */
function timed(tool) {
  rmSync(tool.out, { force: true });
  const stats = join(outDir, '.time');
  rmSync(stats, { force: true });
  const bash = ['bash', '-c', `set -o pipefail; ${tool.cmd}`];
  const cmd = HAS_TIME() ? ['/usr/bin/time', '-v', '-o', stats, ...bash] : bash;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd[0], cmd.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...(tool.env ?? process.env), ...tool.vars }, maxBuffer: 64 << 20 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const text = existsSync(stats) ? readFileSync(stats, 'utf8') : '';
  const num = (re) => { const m = re.exec(text); return m ? Number(m[1]) : null; };
  const user = num(/User time \(seconds\): ([\d.]+)/);
  const sys = num(/System time \(seconds\): ([\d.]+)/);
  const rssKb = num(/Maximum resident set size \(kbytes\): (\d+)/);
  return {
    wall, cpu: user !== null && sys !== null ? user + sys : null, rss: rssKb !== null ? rssKb / 1024 : null,
    ok: r.status === 0 || (tool.okStatus ?? []).includes(r.status), status: r.status, err: r.stderr.toString().trim().split('\n').slice(-5).join('\n'),
  };
}

const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// ------------------------------------------------------------------ inputs
function pickRid(logPath) {
  // A chat request from the middle of the log, with an id only one request has.
  const fd = openSync(logPath, 'r');
  const buf = Buffer.alloc(4 << 20);
  const n = readSync(fd, buf, 0, buf.length, Math.floor(statSync(logPath).size / 2));
  closeSync(fd);
  const m = /Received request (chatcmpl-run-\d+): params/.exec(buf.toString('latin1', 0, n));
  if (!m) throw new Error(`no chatcmpl-run-N request in the middle of ${logPath}`);
  return m[1];
}

async function sha1(path) {
  const h = createHash('sha1');
  for await (const chunk of createReadStream(path)) h.update(chunk);
  return h.digest('hex');
}

const jsonLines = (path) => createInterface({ input: createReadStream(path), crlfDelay: Infinity })[Symbol.asyncIterator]();

// ------------------------------------------------------------------ checks (after the first round, not timed)
/** lnav's rows against HopLens's JSON, line by line: the same fields, or the difference counted. */
async function compareLnav(hlPath, lnavPath) {
  const hl = jsonLines(hlPath);
  const ln = jsonLines(lnavPath);
  const c = { hlLines: 0, hlFileLine: 0, hlHops: 0, lnavRows: 0, lnavHops: 0, same: 0, notInLnav: new Map(), extraInLnav: 0, diff: new Map(), examples: [], summary: null };
  const note = (field, line, a, b) => {
    c.diff.set(field, (c.diff.get(field) ?? 0) + 1);
    if (c.examples.length < 5) c.examples.push(`line ${line} ${field}: HopLens ${JSON.stringify(a)} lnav ${JSON.stringify(b)}`);
  };
  const stamp = (t) => (t ? t.replace('T', ' ').slice(5, 19) : null); // MM-DD HH:MM:SS (the log has no year)
  let l = await ln.next();
  for (let h = await hl.next(); !h.done; h = await hl.next()) {
    const a = JSON.parse(h.value);
    if (a.kind === 'summary') { c.summary = a; continue; }
    if (a.kind !== 'line') continue;
    c.hlLines++;
    if (a.fileinfo !== null && a.lineno !== null) c.hlFileLine++;
    if (a.hop) c.hlHops++;
    let b = null;
    while (!l.done) {
      const row = JSON.parse(l.value);
      if (row.line > a.line) break;
      c.lnavRows++;
      if (row.hop) c.lnavHops++;
      l = await ln.next();
      if (row.line === a.line) { b = row; break; }
      c.extraInLnav++;
    }
    if (!b) { const k = a.hop ?? (a.fileinfo ? 'file:line, no hop' : 'no hop, no file:line'); c.notInLnav.set(k, (c.notInLnav.get(k) ?? 0) + 1); continue; }
    let same = true;
    for (const f of ['process', 'pid', 'fileinfo', 'lineno', 'hop']) if (a[f] !== b[f]) { note(f, a.line, a[f], b[f]); same = false; }
    if ((a.level ?? '').toLowerCase() !== b.level) { note('level', a.line, a.level, b.level); same = false; }
    if (stamp(a.time) !== stamp(b.time)) { note('time', a.line, a.time, b.time); same = false; }
    // HopLens names every line of a request by its external id; lnav gives the id as printed
    // (the internal id, external + '-<8 hex>', on "Added" and "Aborted" lines).
    if (a.rid !== b.rid && !(a.rid && b.rid && b.rid.startsWith(`${a.rid}-`))) { note('rid', a.line, a.rid, b.rid); same = false; }
    if (same) c.same++;
  }
  for (; !l.done; l = await ln.next()) { c.lnavRows++; c.extraInLnav++; }
  return c;
}

/**
 * `annotate --summary` against two references: the counts per statement that HopLens's full
 * `--json` output gives (every line's fileinfo, lineno, hop, level), and lnav's GROUP BY counts
 * per fileinfo:lineno (lnav has no row for the access lines it folds into the line above, and
 * those have no fileinfo).
 */
async function checkStatements(sumPath, hlPath, lnavPath) {
  const mark = (ok) => (ok ? '✓' : '✗');
  const lines = [];
  const mine = new Map();
  const bySite = new Map();
  let summary = null;
  for await (const l of createInterface({ input: createReadStream(sumPath), crlfDelay: Infinity })) {
    const o = JSON.parse(l);
    if (o.kind === 'summary') { summary = o; continue; }
    mine.set(`${o.fileinfo}\t${o.lineno}\t${o.hop}\t${o.level}`, o.count);
    if (o.fileinfo !== null) bySite.set(`${o.fileinfo}:${o.lineno}`, (bySite.get(`${o.fileinfo}:${o.lineno}`) ?? 0) + o.count);
  }
  const total = [...mine.values()].reduce((a, b) => a + b, 0);
  lines.push(`${mark(summary !== null && total === summary.lines)} --summary: ${n0(mine.size)} statements counting ${n0(total)} lines; its summary: ${n0(summary?.lines ?? -1)} lines`);
  if (hlPath) {
    const ref = new Map();
    for await (const l of jsonLines(hlPath)) {
      const o = JSON.parse(l);
      if (o.kind !== 'line') continue;
      const k = `${o.fileinfo}\t${o.lineno}\t${o.hop}\t${o.level}`;
      ref.set(k, (ref.get(k) ?? 0) + 1);
    }
    const differ = [...new Set([...ref.keys(), ...mine.keys()])].filter((k) => ref.get(k) !== mine.get(k));
    lines.push(`${mark(differ.length === 0)} --summary counts = the counts of annotate --json's lines per fileinfo, lineno, hop, level (${n0(ref.size)} statements)`
      + `${differ.length ? `; differ: ${differ.slice(0, 3).map((k) => `${k.replace(/\t/g, ' ')} ${ref.get(k) ?? 0} vs ${mine.get(k) ?? 0}`).join(', ')}` : ''}`);
  }
  if (lnavPath) {
    const theirs = new Map();
    for await (const l of jsonLines(lnavPath)) {
      const o = JSON.parse(l);
      if (o.fileinfo !== null && o.fileinfo !== undefined) theirs.set(`${o.fileinfo}:${o.lineno}`, o.count);
    }
    const differ = [...new Set([...theirs.keys(), ...bySite.keys()])].filter((k) => theirs.get(k) !== bySite.get(k));
    lines.push(`${mark(differ.length === 0)} --summary per fileinfo:lineno = lnav's GROUP BY (${n0(theirs.size)} rows)`
      + `${differ.length ? `; differ: ${differ.slice(0, 3).map((k) => `${k} lnav ${theirs.get(k) ?? 0}, HopLens ${bySite.get(k) ?? 0}`).join(', ')}` : ''}`);
  }
  return lines;
}

async function countLines(path) {
  let n = 0;
  for await (const chunk of createReadStream(path)) for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  return n;
}

async function lastLine(path) {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  const buf = Buffer.alloc(Math.min(size, 4 << 20));
  readSync(fd, buf, 0, buf.length, size - buf.length);
  closeSync(fd);
  const s = buf.toString('utf8').trimEnd();
  return s.slice(s.lastIndexOf('\n') + 1);
}

// ------------------------------------------------------------------ main
const f2 = (x) => (x === null || x === undefined ? '—' : x.toFixed(2));
const f0 = (x) => (x === null || x === undefined ? '—' : x.toFixed(0));
const n0 = (x) => x.toLocaleString('en-US');
const loadNow = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function main() {
  const load0 = loadNow();
  const loads = [loadavg()[0]];
  console.log(`machine: ${availableParallelism()} CPUs, load average ${load0} (1, 5, 15 min) at start`);
  const hasTime = ensureDebian('time', '/usr/bin/time', 'without it: wall time only, no CPU or RSS');
  const hasLnav = ensureDebian('lnav', '/usr/bin/lnav', 'without it: no lnav rows');
  if (!LAB) console.log('lab12_run.py not found beside the clone (pass --lab PATH): no lab rows');

  console.log('building dist/ from this tree (node esbuild.mjs) …');
  const b = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0) throw new Error('node esbuild.mjs failed');
  mkdirSync(outDir, { recursive: true });

  // Generated under a .partial name and renamed when complete, so an interrupted run never
  // leaves a short input that a later run would take for the real one.
  const logPath = join(dataDir, `vllm_${LINES}.log`);
  if (!existsSync(logPath)) {
    const t0 = Date.now();
    await generateVllmLog(`${logPath}.partial`, LINES);
    renameSync(`${logPath}.partial`, logPath);
    made.push(logPath);
    console.log(`generated ${logPath} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const traceDir = join(dataDir, `calltrace_${TRACE_MB}mb`);
  let traceMb = existingCallTraceMb(traceDir);
  if (traceMb === null) {
    const t0 = Date.now();
    rmSync(traceDir, { recursive: true, force: true });
    const g = generateCallTraceFolder(`${traceDir}.partial`, TRACE_MB / 2);
    renameSync(`${traceDir}.partial`, traceDir);
    traceMb = g.bytes / 1024 / 1024;
    made.push(traceDir);
    console.log(`generated ${traceDir} (${n0(g.calls)} calls) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const logMb = statSync(logPath).size / 1e6;
  const rid = pickRid(logPath);
  const ere = await hopEre();
  const lnav = hasLnav ? lnavHome() : null;
  if (lnav) lnavHomeDir = lnav.home;
  const lnavVersion = lnav ? spawnSync('lnav', ['-V'], { env: lnav.env, encoding: 'utf8' }).stdout.trim() : null;
  const traceFiles = `"${callTraceInstanceDir(traceDir)}"/VLLM_TRACE_FUNCTION_for_process_*.log`;
  console.log(`log: ${logPath} (${logMb.toFixed(0)} MB, ${n0(LINES)} lines); one request: ${rid}`);
  console.log(`call traces: ${traceDir} (${traceMb.toFixed(0)} MiB)`);
  console.log(`${lnavVersion ?? 'lnav: skipped'}; lab: ${LAB ?? 'skipped'}; runs: ${RUNS}, alternating`);

  const o = (name) => join(outDir, name);
  const vars = { CLI, FLOOR, LOG: logPath, RID: rid, LAB: LAB ?? '', HOP_ERE: ere, TRACE_DIR: traceDir };
  const T = (t) => ({ okStatus: [], ...t, vars: { ...vars, ...t.vars, OUT: t.out } });
  const tools = [
    T({ id: 'hl', job: 'annotate', label: 'hoplens annotate --json > file', out: o('hoplens.jsonl'), cmd: 'node "$CLI" annotate "$LOG" --json > "$OUT"' }),
    T({ id: 'hl-pipe', job: 'annotate', label: 'hoplens annotate --json \\| cat > file', out: o('hoplens-pipe.jsonl'), cmd: 'node "$CLI" annotate "$LOG" --json | cat > "$OUT"' }),
    T({ id: 'hl-rid', job: 'one request', label: 'hoplens annotate --rid ID > file', out: o('hoplens-rid.txt'), cmd: 'node "$CLI" annotate "$LOG" --rid "$RID" > "$OUT"' }),
    lnav && T({ id: 'lnav', job: 'annotate', label: 'lnav -n, SELECT the same fields > file', out: o('lnav.jsonl'), env: lnav.env, vars: { SQL: `;${LNAV_SELECT}` }, cmd: 'lnav -n -c "$SQL" -c ":write-jsonlines-to -" "$LOG" > "$OUT"' }),
    T({ id: 'hl-sum', job: 'statements', label: 'hoplens annotate --summary --json > file', out: o('hoplens-summary.jsonl'), cmd: 'node "$CLI" annotate "$LOG" --summary --json > "$OUT"' }),
    lnav && T({ id: 'lnav-sum', job: 'statements', label: 'lnav -n, SELECT … count(*) … GROUP BY fileinfo, lineno > file', out: o('lnav-summary.jsonl'), env: lnav.env,
      vars: { SQL: `;${LNAV_GROUP_BY}` }, cmd: 'lnav -n -c "$SQL" -c ":write-jsonlines-to -" "$LOG" > "$OUT"' }),
    lnav && T({ id: 'lnav-rid', job: 'one request', label: 'lnav -n, SELECT … WHERE rid > file', out: o('lnav-rid.jsonl'), env: lnav.env,
      vars: { SQL: `;${LNAV_SELECT} WHERE rid = ${sqlString(rid)} OR rid GLOB ${sqlString(`${rid}-*`)}` }, cmd: 'lnav -n -c "$SQL" -c ":write-jsonlines-to -" "$LOG" > "$OUT"' }),
    T({ id: 'grep', job: 'annotate', label: "LC_ALL=C grep -cE '<hop regexes>' > file", out: o('grep.txt'), cmd: 'LC_ALL=C grep -cE -e "$HOP_ERE" "$LOG" > "$OUT"' }),
    T({ id: 'cat', job: 'annotate', label: 'cat > file', out: o('cat.log'), cmd: 'cat "$LOG" > "$OUT"' }),
    T({ id: 'floor', job: 'annotate', label: 'node: read, split lines (floor) > file', out: o('floor.txt'), cmd: 'node "$FLOOR" "$LOG" > "$OUT"' }),
    // What the machine charges for moving HopLens's output through a pipe at all: the same bytes, no HopLens.
    T({ id: 'cat-out', job: 'annotate', label: 'cat <HopLens output> > file', out: o('cat-out.jsonl'), vars: { HL_OUT: o('hoplens.jsonl') }, cmd: 'cat "$HL_OUT" > "$OUT"' }),
    T({ id: 'cat-out-pipe', job: 'annotate', label: 'cat <HopLens output> \\| cat > file', out: o('cat-out-pipe.jsonl'), vars: { HL_OUT: o('hoplens.jsonl') },
      cmd: 'cat "$HL_OUT" | cat > "$OUT"' }),
    LAB && T({ id: 'lab', job: 'annotate', label: 'lab12_run.py --mode annotate > file', out: o('lab.txt'), cmd: 'python3 "$LAB" --mode annotate --engine vllm --log "$LOG" > "$OUT"' }),
    T({ id: 'hl-ct', job: 'call traces', label: 'hoplens calltrace DIR --json > file', out: o('hoplens-calltrace.jsonl'), cmd: 'node "$CLI" calltrace "$TRACE_DIR" --json > "$OUT"' }),
    T({ id: 'cat-ct', job: 'call traces', label: 'cat FILES \\| wc -l > file', out: o('wc.txt'), cmd: `cat ${traceFiles} | wc -l > "$OUT"` }),
    T({ id: 'floor-ct', job: 'call traces', label: 'node: read, split lines, 2 threads (floor) > file', out: o('floor-ct.txt'), cmd: `node "$FLOOR" --threads 2 ${traceFiles} > "$OUT"` }),
    LAB && T({ id: 'lab-ct', job: 'call traces', label: 'lab12_run.py --mode calltrace > file', out: o('lab-calltrace.txt'), cmd: 'python3 "$LAB" --mode calltrace --trace-dir "$TRACE_DIR" > "$OUT"' }),
  ].filter(Boolean).filter((t) => ONLY === null || ONLY.includes(t.id));
  // Which peer each row is compared with (the same job's lnav, cat and lab rows).
  // (The lab has no one-request timing here: its --rid is a substring filter over the same full read.)
  const peerOf = { annotate: { lnav: 'lnav', cat: 'cat', lab: 'lab' }, statements: { lnav: 'lnav-sum', cat: 'cat' }, 'one request': { lnav: 'lnav-rid', cat: 'cat' }, 'call traces': { cat: 'cat-ct', lab: 'lab-ct' } };

  // Both inputs into the page cache first, so every tool reads from memory.
  spawnSync('bash', ['-c', `cat "$LOG" ${traceFiles} > /dev/null`], { env: { ...process.env, ...vars } });

  const results = new Map(tools.map((t) => [t.id, []]));
  let checks = null;
  const t0 = Date.now();
  for (let run = 1; run <= RUNS; run++) {
    process.stdout.write(`run ${run}/${RUNS}:`);
    for (const tool of tools) {
      const r = timed(tool);
      results.get(tool.id).push(r);
      process.stdout.write(r.ok ? ` ${tool.id} ${r.wall.toFixed(1)}s` : ` ${tool.id} FAILED`);
      if (!r.ok) console.log(`\n  ${tool.label} exited ${r.status}: ${r.err}`);
    }
    loads.push(loadavg()[0]);
    console.log(`  (load ${loadavg()[0].toFixed(2)})`);
    if (run === 1) checks = await runChecks(tools, { rid, ere });
  }
  const load1 = loadNow();

  // ---------------------------------------------------------------- the table
  const stat = new Map();
  for (const t of tools) {
    const rs = results.get(t.id).filter((r) => r.ok);
    stat.set(t.id, rs.length ? { wall: median(rs.map((r) => r.wall)), cpu: median(rs.map((r) => r.cpu)), rss: median(rs.map((r) => r.rss)), n: rs.length } : null);
  }
  const ratio = (t, peerId) => {
    const a = stat.get(t.id);
    const p = peerId && stat.get(peerId);
    if (!a || !p || t.id === peerId) return t.id === peerId && p ? '1' : '—';
    const cpu = a.cpu !== null && p.cpu ? ` (${(a.cpu / p.cpu).toFixed(2)})` : '';
    return `${(a.wall / p.wall).toFixed(2)}${cpu}`;
  };
  const head = spawnSync('git', ['describe', '--always', '--dirty=+uncommitted'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
  const spread = (id) => {
    const ws = results.get(id)?.filter((r) => r.ok).map((r) => r.wall) ?? [];
    return ws.length > 1 ? `${f2(Math.min(...ws))}–${f2(Math.max(...ws))}` : null;
  };
  console.log(`\n${RUNS} alternating runs, medians; ${logMb.toFixed(0)} MB / ${n0(LINES)}-line vLLM log, ${traceMb.toFixed(0)} MiB call-trace folder; HopLens ${head || 'dist/'}, ${lnavVersion ?? 'no lnav'}, ${new Date().toISOString().slice(0, 16)}Z`);
  console.log(`ratios: this row's wall time ÷ the peer's (CPU time ÷ the peer's in brackets); below 1 = faster than that peer\n`);
  // Issue 28's figures, one per HopLens row: met only when the wall and the CPU ratio (cpuOnly: the CPU ratio) meet it.
  const GOALS = {
    'hl-sum': { peer: 'lnav-sum', max: 1, aim: 0.5, text: '≤ 1× lnav GROUP BY (aim 0.5×)' },
    hl: { peer: 'grep', max: 1.5, rss: 200, text: '≤ 1.5× grep -cE, ≤ 200 MiB' },
    'hl-pipe': { peer: 'hl', max: 1.1, rss: 200, text: '≤ 1.1× the file run, ≤ 200 MiB' },
    'hl-rid': { peer: 'lnav-rid', max: 1, text: '≤ 1× lnav' },
    'hl-ct': { peer: 'lab-ct', max: 0.1, cpuOnly: true, text: 'CPU ≤ 0.1× the lab' },
  };
  /** A HopLens row against its goal: both ratios, and whether the goal (and its aim) is met; null when a side is missing. */
  const goalMet = (id) => {
    const goal = GOALS[id];
    const a = stat.get(id);
    const p = goal && stat.get(goal.peer);
    if (!goal || !a || !p) return null;
    const wall = a.wall / p.wall;
    const cpu = a.cpu !== null && p.cpu ? a.cpu / p.cpu : null;
    const ok = (goal.cpuOnly ? cpu !== null && cpu <= goal.max : wall <= goal.max && (cpu === null || cpu <= goal.max))
      && (goal.rss === undefined || a.rss === null || a.rss <= goal.rss);
    const aim = goal.aim !== undefined && ok && wall <= goal.aim && (cpu === null || cpu <= goal.aim);
    return { wall, cpu, rss: a.rss, ok, aim };
  };
  const goalCell = (t) => {
    const goal = GOALS[t.id];
    const m = goalMet(t.id);
    if (!goal || !m) return goal ? `${goal.text}: n/a` : '';
    return `${goal.text}: ${f2(m.wall)}× wall, ${m.cpu === null ? '—' : `${f2(m.cpu)}×`} CPU **${m.ok ? 'pass' : 'short'}**${m.aim ? ', aim met' : ''}`;
  };
  console.log('| job | tool | wall s | CPU s | peak RSS MiB | ÷ lnav | ÷ cat | ÷ lab | goal (issue 28) |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---|');
  const jobs = Object.keys(peerOf);
  for (const t of [...tools].sort((a, b) => jobs.indexOf(a.job) - jobs.indexOf(b.job))) {
    const s = stat.get(t.id);
    const p = peerOf[t.job];
    console.log(`| ${t.job} | ${t.label} | ${f2(s?.wall)} | ${f2(s?.cpu)} | ${f0(s?.rss)} | ${ratio(t, p.lnav)} | ${ratio(t, p.cat)} | ${ratio(t, p.lab)} | ${goalCell(t)} |`);
  }
  console.log(`\nwall-time spread (fastest–slowest of ${RUNS} runs): ${tools.map((t) => spread(t.id) && `${t.id} ${spread(t.id)} s`).filter(Boolean).join('; ')}`);
  const loadMin = Math.min(...loads).toFixed(2);
  const loadMax = Math.max(...loads).toFixed(2);
  console.log(`\nload average (1, 5, 15 min): ${load0} at start, ${load1} at end; 1-min load ${loadMin}–${loadMax} between rounds, on ${availableParallelism()} CPUs (${((Date.now() - t0) / 60000).toFixed(1)} min)`);
  if (!hasTime) console.log('(no /usr/bin/time: CPU and RSS not measured)');

  // ---------------------------------------------------------------- issue 28's goals, read off this run
  const g = (id) => stat.get(id);
  /** Time ratio a ÷ b, wall and CPU. */
  const vs = (a, b) => (g(a) && g(b) ? { wall: g(a).wall / g(b).wall, cpu: g(a).cpu !== null && g(b).cpu ? g(a).cpu / g(b).cpu : null } : null);
  const show = (r) => (r ? `${f2(r.wall)}× wall, ${r.cpu === null ? '—' : `${f2(r.cpu)}×`} CPU` : 'n/a');
  console.log('\ngoals (issue 28), from the medians above (met only when the wall and the CPU ratio meet them; the call traces: the CPU ratio, wall beside):');
  const jobOf = { 'hl-sum': 'annotate --summary', hl: 'annotate --json into a file', 'hl-pipe': 'annotate --json into a pipe',
    'hl-rid': 'annotate --rid (issue 14, kept)',
    'hl-ct': 'calltrace on the call-trace folder' };
  for (const id of Object.keys(GOALS)) {
    const m = goalMet(id);
    const rss = GOALS[id].rss !== undefined && m ? `, peak RSS ${f0(m.rss)} MiB` : '';
    const mark = m === null ? '  n/a' : m.ok ? (m.aim ? ' PASS (aim met)' : ' PASS') : 'SHORT';
    console.log(`  ${mark}  ${jobOf[id]}: ${GOALS[id].text}: ${m ? show(m) : 'not measured in this run'}${rss}`);
  }
  // The pipe run's CPU includes the reading `cat`'s: what moving the same bytes costs without HopLens (cat | cat less cat), taken out.
  if (g('cat-out') && g('cat-out-pipe') && g('hl') && g('hl-pipe') && g('hl').cpu && g('cat-out').cpu !== null) {
    const machineCpu = g('cat-out-pipe').cpu - g('cat-out').cpu;
    console.log(`         (the pipe's CPU with the machine's cost of moving those bytes through a pipe taken out, ${f2(machineCpu)} s: `
      + `${f2((g('hl-pipe').cpu - machineCpu) / g('hl').cpu)}× the file run's; not the goal's figure)`);
  }
  console.log('\nthe machine (not a goal): Node only reading the same bytes and finding the line ends, ÷ the peer');
  console.log(`  log: ${show(vs('floor', 'cat'))} of cat's; HopLens annotate --json is ${show(vs('hl', 'floor'))} of that floor`);
  console.log(`  call traces: ${show(vs('floor-ct', 'cat-ct'))} of cat | wc -l's; HopLens calltrace is ${show(vs('hl-ct', 'floor-ct'))} of that floor`);
  if (g('cat-out') && g('cat-out-pipe') && g('hl') && g('hl-pipe')) {
    const machine = g('cat-out-pipe').wall - g('cat-out').wall;
    const ours = g('hl-pipe').wall - g('hl').wall;
    console.log(`  pipe: the machine takes ${f2(machine)} s more to move HopLens's output through a pipe (cat | cat vs cat), `
      + `${f2(machine / g('hl').wall)}× of HopLens's file time; HopLens's pipe run takes ${f2(ours)} s more than its file run`);
    console.log(`  pipe ÷ file time with the machine's pipe cost taken out: ${f2((g('hl-pipe').wall - machine) / g('hl').wall)}×`);
  }

  console.log('\nchecks (outputs of the first round):');
  for (const line of checks) console.log(`  ${line}`);
  // A faster wrong answer is no result: a failed check fails the run.
  if (checks.some((line) => line.startsWith('✗'))) { console.log('\nFAILED: an output differs from its reference (✗ above)'); process.exitCode = 1; }

  if ([...results.values()].some((rs) => rs.some((r) => !r.ok))) process.exitCode = 1;
}

/** That each tool did the job it is timed for: counts from its output against HopLens's. */
async function runChecks(tools, { rid }) {
  const has = (id) => tools.some((t) => t.id === id) && existsSync(tools.find((t) => t.id === id).out);
  const out = (id) => tools.find((t) => t.id === id).out;
  const lines = [];
  const mark = (ok) => (ok ? '✓' : '✗');
  let summary = null;
  if (has('lnav') && has('hl')) {
    const c = await compareLnav(out('hl'), out('lnav'));
    summary = c.summary;
    const folded = [...c.notInLnav].map(([k, n]) => `${k} ${n0(n)}`).join(', ') || 'none';
    lines.push(`${mark(c.lnavRows === c.hlFileLine)} lines with a file:line: HopLens ${n0(c.hlFileLine)}, lnav rows ${n0(c.lnavRows)}`);
    const v10 = summary?.counts?.V10 ?? 0;
    lines.push(`${mark(c.lnavHops === c.hlHops - v10)} hop lines: HopLens ${n0(c.hlHops)} (summary: ${n0(summary?.hopLines ?? -1)}), lnav ${n0(c.lnavHops)} = HopLens less its ${n0(v10)} V10 access lines`);
    lines.push(`${mark(c.diff.size === 0 && c.extraInLnav === 0)} line by line: ${n0(c.same)} lnav rows have HopLens's line, process, pid, level, time, fileinfo, lineno, hop and request id; ${c.diff.size ? `differences: ${[...c.diff].map(([f, n]) => `${f} ${n0(n)}`).join(', ')}` : 'no differences'}; rows HopLens has no line for: ${n0(c.extraInLnav)}`);
    for (const e of c.examples) lines.push(`    ${e}`);
    lines.push(`  lines folded into the line above by lnav (no row): ${folded}`);
  } else if (has('hl')) {
    summary = JSON.parse(await lastLine(out('hl')));
  }
  if (has('hl-sum')) for (const line of await checkStatements(out('hl-sum'), has('hl') ? out('hl') : null, has('lnav-sum') ? out('lnav-sum') : null)) lines.push(line);
  if (has('hl') && has('hl-pipe')) {
    const [a, b] = await Promise.all([sha1(out('hl')), sha1(out('hl-pipe'))]);
    lines.push(`${mark(a === b)} annotate into a pipe wrote the same bytes as into a file`);
  }
  if (has('grep') && summary) {
    const n = Number(readFileSync(out('grep'), 'utf8').trim());
    lines.push(`${mark(n === summary.hopLines)} grep -cE with HopLens's hop regexes counts ${n0(n)} lines; HopLens's summary: ${n0(summary.hopLines)} hop lines`);
  }
  if (has('hl-rid')) {
    const text = readFileSync(out('hl-rid'), 'utf8');
    const m = /(\d+) hop line\(s\)/.exec(text);
    const hlRid = m ? Number(m[1]) : null;
    const lnavRid = has('lnav-rid') ? await countLines(out('lnav-rid')) : null;
    lines.push(`${mark(hlRid !== null && (lnavRid === null || lnavRid === hlRid))} one request (${rid}): HopLens ${hlRid ?? '?'} hop lines, lnav ${lnavRid ?? '—'} rows`);
  }
  if (has('floor') && summary) {
    const n = Number(readFileSync(out('floor'), 'utf8').trim());
    lines.push(`${mark(n === summary.lines)} the floor read ${n0(n)} lines; HopLens's summary: ${n0(summary.lines)}`);
  }
  if (has('floor-ct') && has('cat-ct')) {
    const n = Number(readFileSync(out('floor-ct'), 'utf8').trim());
    const wc = Number(readFileSync(out('cat-ct'), 'utf8').trim());
    lines.push(`${mark(n === wc)} the call-trace floor read ${n0(n)} lines; wc -l ${n0(wc)}`);
  }
  if (has('lab')) {
    const m = /: (\d+) hop line\(s\), (\d+) line\(s\) with no known emitter/.exec(readFileSync(out('lab'), 'utf8').slice(0, 4096));
    lines.push(`  lab annotate: ${m ? `${n0(Number(m[1]))} hop lines, ${n0(Number(m[2]))} without an emitter (its own hop list: no V10; it prints hop lines only)` : 'no summary line found'}`);
  }
  if (has('hl-ct')) {
    const s = JSON.parse(await lastLine(out('hl-ct')));
    const wc = has('cat-ct') ? Number(readFileSync(out('cat-ct'), 'utf8').trim()) : null;
    const labText = has('lab-ct') ? readFileSync(out('lab-ct'), 'utf8') : '';
    const lm = /([\d,]+) call events scanned/.exec(labText);
    const labCalls = lm ? Number(lm[1].replace(/,/g, '')) : null;
    const calls = typeof s.calls === 'number' ? s.calls : null;
    // The lab's regex needs a caller name, so it skips each file's first call (its caller is empty).
    const labOk = labCalls === null || labCalls === calls || labCalls === calls - s.files;
    const wcOk = wc === null || wc === s.calls + s.returns;
    lines.push(`${mark(calls !== null && labOk && wcOk)} call traces: HopLens ${calls === null ? `summary ${JSON.stringify(s).slice(0, 200)}` : `${n0(calls)} calls + ${n0(s.returns)} returns in ${s.files} files`}; wc -l ${wc === null ? '—' : n0(wc)} lines; lab ${labCalls === null ? '—' : n0(labCalls)} call events (it skips each file's root call, whose caller is empty)`);
  }
  return lines;
}

// What this run made: removed at the end even when it fails (inputs and outputs only without --keep).
const made = [];
let lnavHomeDir = null;
try {
  await main();
} catch (e) {
  console.error(e.stack ?? e);
  process.exitCode = 1;
} finally {
  if (lnavHomeDir) rmSync(lnavHomeDir, { recursive: true, force: true });
  if (!KEEP) {
    rmSync(outDir, { recursive: true, force: true });
    for (const p of made) rmSync(p, { recursive: true, force: true });
    console.log(`\nremoved the outputs${made.length ? ' and the generated inputs' : ''} (--keep keeps them)`);
  }
}
