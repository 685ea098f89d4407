// `hoplens annotate LOG`: every line of a server log with the hop and source that printed it,
// streamed from disk (a 1M-line log never sits in memory), then a summary.
import { outputRoom, type CliIO } from './io';
import type { Engine, LogRecord } from '../core/logs/model';
import { LogInputError } from '../core/logs/scanner';
import { openLogInput } from '../core/logs/logInput';
import type { LogInput } from '../core/logs/logInput';
import { forTerminal } from '../core/text/terminal';
import { detectEngine } from '../core/logs/parseLine';
import type { RequestGroup } from '../core/logs/requests';
import { formatTime } from '../core/logs/jsonText';
import { LogSession } from '../core/session/logSession';
import { readLogStream } from '../core/session/logStream';
import { RecordJsonWriter } from '../core/session/recordJson';
import { RecordSourceLocator, type CheckoutResolver } from '../core/source/locate';
import { idNeedle, mentionsRequest, ridQueryMatcher } from '../core/logs/requestIds';
import { ASKED_KEY, noteTransferIds, pairsInTexts, TransferLines, TransferPairs } from '../core/logs/transferIds';
import { ByteOut } from '../core/logs/byteOut';
import { fastPathFor } from '../engines/grammars';
import type { FastPathCounters } from '../engines/fastPath';
import { findHop, getHopTable } from '../engines/index';
import { StatementTable, statementJson, statementTime } from '../core/logs/statements';
import { ENGINE_IDS, engineChoiceWords, isEngine, releaseExamples } from '../engines/registry';
import { FleetError } from '../core/fleet/http';
import type { RemoteLogStream } from '../core/fleet/model';
import { namesRequestText } from '../core/fleet/requestIds';
import { emptyFleetArgs, fleetMessages, foundAnything, queryFleet, takeFleetOption, type FleetArgs } from './fleet';
import { parseReleaseSpec, releaseLabel, releaseSource, ReleaseSourceError, statedRelease, type ReleaseSpec } from '../core/source/release';

/** A release spec to show in the usage (`vllm==0.8.5`). */
const RELEASE_EXAMPLE = releaseExamples()[0];
/** Its form in the usage's first line (`vllm==VER`). */
const RELEASE_FORM = RELEASE_EXAMPLE.replace(/==.*/, '==VER');
const ENGINE_FORMS = ENGINE_IDS.join('|');

const USAGE = `usage: hoplens annotate LOG|- [--engine auto|${ENGINE_FORMS}] [--checkout DIR|${RELEASE_FORM}] [--rid ID] [--unmatched] [--summary] [--json]
       hoplens annotate --logs URL [--tenant T] --rid ID [--since T] [--until T] [--selector SEL] [--limit N] [--json]

Label every line of a vLLM or SGLang server log with the hop and the source file:line that
printed it, group the lines by request, and say which hops are missing and why.
LOG may be - (standard input: kubectl logs … | hoplens annotate -), a pipe or FIFO
(hoplens annotate <(zcat old.log.gz)), or a gzip file (vllm.log.gz), read as it streams.

  --engine E     auto (default) detects the engine from the first lines
  --checkout DIR resolve file:line in a local engine checkout and verify the statement
  --checkout ${RELEASE_EXAMPLE}
                 the same against that release's own source: the installed engine when it is
                 that version, else its wheel's Python files fetched once through your pip
  --rid ID       only the lines of this request (chatcmpl-…, cmpl-…, an SGLang rid, or the id you sent)
  --unmatched    list the lines no hop or file:line explains (with --json: only those lines)
  --summary      the statements by how often they printed: count, hop, level, file:line and its
                 source, first and last time, one example (with --json: one {"kind":"statement"}
                 object each, most lines first, then the {"kind":"summary"})
  --json         JSON Lines: one {"kind":"line"} object per input line, then one {"kind":"summary"}
  --width N      text columns of the observed line in the table (default 110)
  --logs URL     one request's lines from a log store instead of a file (victorialogs+http://HOST:9428,
                 loki+http://HOST:3100, https too), each pod's stream annotated in turn (--json: a
                 {"kind":"stream"} object before each); with --since/--until (RFC 3339 or 2h; default
                 the last 24 h), --selector '{namespace="serving"}' (Loki needs one), --limit N lines.
                 Credentials from the environment only: HOPLENS_VICTORIALOGS_TOKEN / HOPLENS_LOKI_TOKEN,
                 or HOPLENS_<KIND>_USER + HOPLENS_<KIND>_PASSWORD. The store's tenant: --tenant T
                 after its URL (Loki's X-Scope-OrgID, VictoriaLogs' ACCOUNT[:PROJECT]), else
                 HOPLENS_LOKI_ORG_ID / HOPLENS_VICTORIALOGS_TENANT

Exit codes: 0 hops found, 1 no hops found, 2 bad input or usage (or the output cannot be written).
`;

interface Args {
  log: string; engine: Engine | 'auto'; checkout: string | null; rid: string | null; unmatched: boolean; summary: boolean; json: boolean; width: number;
  fleet: FleetArgs;
}

function parseArgs(argv: string[], io: CliIO): Args | number {
  const a: Args = { log: '', engine: 'auto', checkout: null, rid: null, unmatched: false, summary: false, json: false, width: 110, fleet: emptyFleetArgs() };
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '-h': case '--help': io.out(USAGE); return 0;
      case '--json': a.json = true; break;
      case '--unmatched': a.unmatched = true; break;
      case '--summary': a.summary = true; break;
      case '--engine': {
        const v = value();
        if (v !== 'auto' && !isEngine(v)) { io.err(`hoplens annotate: --engine must be ${engineChoiceWords(true)} (got ${v ?? 'nothing'})\n`); return 2; }
        a.engine = v; break;
      }
      case '--checkout': { const v = value(); if (!v) { io.err('hoplens annotate: --checkout needs a folder\n'); return 2; } a.checkout = v; break; }
      case '--rid': { const v = value(); if (!v) { io.err('hoplens annotate: --rid needs a request id\n'); return 2; } a.rid = v; break; }
      case '--width': {
        const v = Number(value());
        if (!Number.isInteger(v) || v < 10) { io.err('hoplens annotate: --width needs a number >= 10\n'); return 2; }
        a.width = v; break;
      }
      case '--logs': case '--tenant': case '--since': case '--until': case '--selector': case '--limit': {
        const v = value();
        if (!v) { io.err(`hoplens annotate: ${flag} needs a value\n`); return 2; }
        try {
          const r = takeFleetOption(a.fleet, flag, () => v);
          if (r.file !== undefined) positional.push(r.file);
        } catch (e) {
          if (e instanceof FleetError) { io.err(`hoplens annotate: ${forTerminal(e.message)}\n`); return 2; }
          throw e;
        }
        break;
      }
      default:
        if (arg.startsWith('-') && arg !== '-') { io.err(`hoplens annotate: unknown option '${arg}'\n\n${USAGE}`); return 2; }
        positional.push(arg);
    }
  }
  if (a.summary && a.unmatched) { io.err('hoplens annotate: --summary counts every line; it does not go with --unmatched\n'); return 2; }
  if (a.fleet.logs.length) {
    if (positional.length) { io.err('hoplens annotate: a log file or a store (--logs URL), not both\n'); return 2; }
    if (!a.rid) { io.err('hoplens annotate: --logs URL needs --rid ID: a store is asked for one request\'s lines, never read whole\n'); return 2; }
    return a;
  }
  if (positional.length !== 1) {
    io.err(positional.length === 0
      ? `hoplens annotate: which log? Give the path of the server's log file.\n\n${USAGE}`
      : `hoplens annotate: one log at a time (got ${positional.length})\n`);
    return 2;
  }
  a.log = positional[0];
  return a;
}

/** Waits for a slow reader of the output after each chunk of input, so memory stays bounded. */
async function* pacedByOutput(chunks: AsyncIterable<Buffer>, io: CliIO): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    yield chunk;
    await outputRoom(io);
  }
}

async function loadResolver(dir: string, engine: Engine, io: CliIO): Promise<CheckoutResolver | null> {
  let mod: { createSourceResolver?: (d: string, e: Engine, o?: object) => Promise<CheckoutResolver & { pin?: { message?: string | null } }> };
  try {
    mod = await import('../core/source/index');
  } catch {
    io.err('hoplens annotate: checkout resolution unavailable in this build; sources come from the hop table\n');
    return null;
  }
  if (!mod.createSourceResolver) { io.err('hoplens annotate: checkout resolution unavailable in this build\n'); return null; }
  const r = await mod.createSourceResolver(dir, engine, { statementIndex: 'eager' });
  const pinMsg = r.pin?.message;
  if (pinMsg) io.err(`hoplens annotate: ${pinMsg}\n`);
  return r;
}

/**
 * The folder of `--checkout vllm==0.8.5`: the installed engine of that version, else the release
 * fetched once through pip. null (with one line why) when it cannot be had: the run goes on with
 * the hop table's citations, as without --checkout.
 */
async function releaseFolder(spec: ReleaseSpec, io: CliIO): Promise<string | null> {
  try {
    const got = await releaseSource(spec, { onProgress: (l) => io.err(`hoplens annotate: ${forTerminal(l.trim())}\n`) });
    return got.root;
  } catch (e) {
    if (!(e instanceof ReleaseSourceError)) throw e;
    io.err(`hoplens annotate: ${releaseLabel(spec)}: ${forTerminal(e.message)}; sources come from the hop table (no checkout)\n`);
    return null;
  }
}

/**
 * The engine a `--checkout` run resolves for. The checkout says it when it holds one engine:
 * an SGLang 0.3/0.4 log can open with vLLM's own lines (SGLang loaded models through vLLM, whose
 * logger printed `INFO … weight_utils.py:N] …`), and such a log is still SGLang's. The log's
 * first lines decide only when the folder holds both (a site-packages with both installed).
 */
async function engineForCheckout(dir: string, input: LogInput): Promise<Engine | null> {
  const fromLog = (): Engine | null => detectEngine(input.head.toString('utf8').split('\n'));
  let detect: ((d: string, e?: Engine) => { engine: Engine } | null) | undefined;
  try { detect = (await import('../core/source/index')).detectCheckout; } catch { return fromLog(); }
  if (!detect) return fromLog();
  const held = ENGINE_IDS.filter((e) => detect(dir, e) !== null);
  if (held.length === 1) return held[0];
  return fromLog();
}

/**
 * Output: each line is encoded into one byte buffer as soon as it is built (the short-lived
 * strings die young) and the byte-level fast path writes into the same buffer, so the order
 * holds; the terminal or pipe sees a few large writes.
 */
class Out {
  readonly bytes: ByteOut;
  constructor(io: CliIO) {
    // Raw bytes when the output takes them; else pure-ASCII output (the common case) decodes as latin1, a plain copy.
    const toBytes = io.outBytes?.bind(io);
    const take = io.outBytesTake?.bind(io);
    const sink: (b: Buffer, ascii: boolean) => Buffer | void = take ? (b) => take(b) ?? undefined
      : toBytes ? (b: Buffer) => toBytes(b)
      : (b: Buffer, ascii: boolean) => io.out(b.toString(ascii ? 'latin1' : 'utf8'));
    this.bytes = new ByteOut(sink, 4 << 20);
  }
  line(s: string): void {
    const o = this.bytes;
    o.room(s.length * 3 + 1);
    o.text(s);
    o.byte(10);
  }
  flush(): void { this.bytes.flush(); }
}

/** The `{"kind":"summary"}` after the statements of a whole log: what the statements add up to (no request index was built). */
function statementsSummary(statements: StatementTable, run: { file: string; compression: string | undefined | null; engine: Engine | null; lines: number;
  bytes: number; otherLines: number; truncatedLines: number; found: boolean }): Record<string, unknown> {
  const counts = new Map<string, number>();
  let hopLines = 0, unmatched = 0;
  for (const st of statements.sorted()) {
    if (st.hop !== null) { hopLines += st.count; counts.set(st.hop, (counts.get(st.hop) ?? 0) + st.count); }
    else if (st.source === null) unmatched += st.count;
  }
  return {
    kind: 'summary', file: run.file, ...(run.compression ? { compression: run.compression } : {}), engine: run.engine, lines: run.lines, bytes: run.bytes,
    statements: statements.size, hopLines, unmatched, otherLines: run.otherLines, truncatedLines: run.truncatedLines,
    counts: Object.fromEntries(counts), message: run.found ? null : 'no statement with a file:line or a hop',
  };
}

/** The `--summary` table: one row per statement, most lines first. */
function printStatements(statements: StatementTable, out: Out, width: number): void {
  const when = (t: string | null): string => (t === null ? '' : t.replace('T', ' '));
  out.line(`${padStart('count', 9)}  ${padEnd('hop', 4)} ${padEnd('level', 8)} ${padEnd('file:line', 40)} ${padEnd('source', 56)} `
    + `${padEnd('first', 19)}  ${padEnd('last', 19)}  example`);
  for (const st of statements.sorted()) {
    const site = st.fileinfo === null ? '' : `${st.fileinfo}:${st.lineno}`;
    const src = st.source === null ? '' : `${st.source.path}:${st.source.line}${st.source.verified ? ' ✓' : ''}`;
    out.line(`${padStart(String(st.count), 9)}  ${padEnd(st.hop ?? '', 4)} ${padEnd(forTerminal(st.level ?? ''), 8)} ${padEnd(forTerminal(site), 40)} `
      + `${padEnd(forTerminal(src), 56)} ${padEnd(when(statementTime(st, 'first')), 19)}  ${padEnd(when(statementTime(st, 'last')), 19)}  `
      + `${forTerminal(st.example.slice(0, width))}`);
  }
}

function padEnd(s: string, n: number): string { return s.length >= n ? s : s + ' '.repeat(n - s.length); }
function padStart(s: string, n: number): string { return s.length >= n ? s : ' '.repeat(n - s.length) + s; }

export async function runAnnotate(argv: string[], io: CliIO): Promise<number> {
  const args = parseArgs(argv, io);
  if (typeof args === 'number') return args;
  if (args.fleet.logs.length) return annotateStores(args, io);
  let input: LogInput;
  try {
    input = await openLogInput(args.log);
  } catch (e) {
    if (e instanceof LogInputError) { io.err(`hoplens annotate: ${forTerminal(e.message)}\n`); return 2; }
    throw e;
  }
  try {
    return await annotateInput(args, input, io);
  } finally { input.close(); }
}

/** The checkout (or release) a run resolves into, chosen before the log is read. */
interface CheckoutChoice {
  resolver: CheckoutResolver | null;
  release: ReleaseSpec | null;
  /** The folder resolved into: --checkout's, or the release's own source; null without one. */
  checkoutDir: string | null;
}

/**
 * --checkout DIR or ENGINE==VERSION made into a resolver (or none, with one line why), and the
 * hint when no --checkout was given but the log states its release; a number is the exit code.
 */
async function chooseCheckout(args: Args, input: LogInput, io: CliIO): Promise<CheckoutChoice | number> {
  let resolver: CheckoutResolver | null = null;
  const release = args.checkout ? parseReleaseSpec(args.checkout) : null;
  let checkoutDir = args.checkout;
  if (release) {
    if (args.engine !== 'auto' && args.engine !== release.engine) {
      io.err(`hoplens annotate: --engine ${args.engine} and --checkout ${release.engine}==${forTerminal(release.version)} disagree\n`);
      return 2;
    }
    checkoutDir = await releaseFolder(release, io);
  } else if (args.checkout === null) {
    const stated = statedRelease(input.head.toString('utf8').split('\n'));
    if (stated) {
      io.err(`hoplens annotate: the log states ${releaseLabel(stated)} (line ${stated.line}); `
        + `--checkout ${stated.engine}==${stated.version} resolves against that release's own source\n`);
    }
  }
  if (checkoutDir) {
    const engine = release ? release.engine : args.engine !== 'auto' ? args.engine : await engineForCheckout(checkoutDir, input);
    if (!engine) {
      // Not a vLLM or SGLang log as far as its first lines tell: annotate it anyway (it may have
      // no engine line at all), without a checkout to resolve into.
      io.err('hoplens annotate: cannot tell the engine from the first lines, so --checkout is not used '
        + `(pass --engine ${ENGINE_IDS.join('|')} to use it)\n`);
    } else {
      try {
        resolver = await loadResolver(checkoutDir, engine, io);
        if (release) io.err(`hoplens annotate: ${releaseLabel(release)} · release source (${forTerminal(checkoutDir)})\n`);
      } catch (e) {
        io.err(`hoplens annotate: --checkout ${forTerminal(checkoutDir)}: ${forTerminal((e as Error).message)}\n`);
        return 2;
      }
    }
  }
  return { resolver, release, checkoutDir };
}

/** The join key annotate's transfer-id pairing gives the request asked for (as a store search's does). */
const WANTED = ASKED_KEY;

/** What one pass over the log counted and kept, and the index its session built. */
interface ScanResult {
  result: { engine: Engine | null; lines: number; bytes: number };
  tracker: LogSession['tracker'];
  hopLines: number; unmatched: number; otherLines: number; truncatedLines: number; ridLines: number;
  unmatchedSample: LogRecord[];
  statements: StatementTable | null;
  wanted: ((rid: string) => boolean) | null;
  /** A summary of the whole log, counted by statement only, with no request index. */
  summaryOnly: boolean;
}

/**
 * Reads the log once, writing each line's row (or JSON object) as it is parsed, counting hop,
 * unmatched, other and truncated lines, and feeding the request index and statement table.
 * A number is the exit code of an input that failed mid-read.
 */
async function scanLog(args: Args, input: LogInput, io: CliIO, out: Out, resolver: CheckoutResolver | null,
  seed?: TransferPairs): Promise<ScanResult | number> {
  const json = new RecordJsonWriter();
  // One locator for the run: the checkout when one was given (its answer or nothing), else the citation.
  const sources = new RecordSourceLocator({ ready: () => resolver });
  let hopLines = 0, unmatched = 0, otherLines = 0, truncatedLines = 0, ridLines = 0;
  const unmatchedSample: LogRecord[] = [];
  const ridFilter = args.rid;
  const wanted = ridFilter === null ? null : ridQueryMatcher(ridFilter);
  const needles = ridFilter === null ? [] : [idNeedle(ridFilter)];
  const width = args.width;
  const statements = args.summary ? new StatementTable() : null;
  if (!args.json && !statements) out.line(`${padStart('line', 7)}  ${padEnd('hop', 4)} ${padEnd('process', 16)} ${padEnd('file:line', 52)} observed`);

  // With --rid, a line naming only the request's transfer id (SGLang's bootstrap_room) is one of its lines when a line
  // of the log pairs that id with the request and no other: shown after the others, once the whole log has been read.
  const pairs = new TransferPairs();
  const alone = new TransferLines();
  const keyOf = (printed: string): string => (wanted !== null && wanted(printed) ? WANTED : printed);
  const isWanted = (key: string): boolean => key === WANTED;
  const onRecord = (rec: LogRecord): void => {
    // A line of a wrapper's `module.func:` layout the checkout shows to be its engine's is counted as the engine's.
    if (rec.engine === 'other' && (resolver === null || !sources.claim(rec))) otherLines++;
    if (rec.truncated) truncatedLines++;
    if (wanted !== null) {
      const hit = rec.rid !== null
        ? wanted(rec.rid) || (rec.rids?.some(wanted) ?? false)
        // Any other line naming the request is one of its lines too (a KV connector's, a router's).
        : !rec.continuation && mentionsRequest(rec.message, needles, wanted);
      noteTransferIds(rec, hit ? WANTED : null, keyOf, pairs, alone, isWanted);
      if (!hit) return;
      ridLines++;
    }
    show(rec);
  };
  const show = (rec: LogRecord): void => {
    const src = sources.location(rec);
    const isHop = rec.hop !== null;
    if (isHop) hopLines++;
    else if (src === null) {
      unmatched++;
      if (args.unmatched && !args.json && unmatchedSample.length < 100000) unmatchedSample.push(rec);
    }
    if (statements) statements.addRecord(rec, src);
    else if (args.json) {
      if (!args.unmatched || (!isHop && src === null)) out.line(json.line(rec, src));
    } else if (isHop || wanted !== null) {
      // With --rid every line of the request is shown, hop or not (a line naming it without being a hop shows `-`).
      const drift = src?.drift ? ` (drift ${src.drift > 0 ? '+' : ''}${src.drift})` : '';
      const cite = src ? `${src.path}:${src.line}${src.verified ? ' ✓' : ''}${drift}` : '';
      out.line(`${padStart(String(rec.line), 7)}  ${padEnd(rec.hop ?? '-', 4)} ${padEnd(forTerminal(rec.process ?? rec.role ?? ''), 16)} `
        + `${padEnd(forTerminal(cite), 52)} ${forTerminal(rec.message.slice(0, width))}`);
    }
  };

  // An engine's common lines (its grammar's fast path: vLLM's) skip the string parser entirely: with plain `--json` the fast path writes
  // their output itself; with `--rid` it only feeds the tracker (every line counts towards the
  // summary) and leaves the request's own lines to the parser, which prints them as before.
  const fastCounters: FastPathCounters = { handled: 0, unmatched: 0 };
  // With --summary it counts each line under its statement instead of writing it (with --rid: only the request's lines, which it leaves to the parser).
  const useFast = (wanted !== null || ((args.json || statements !== null) && !args.unmatched && resolver === null));
  const fastOut = wanted === null && statements === null ? out.bytes : null;
  // A summary of the whole log needs no request index: the fast path counts statements only (its summary says no more).
  const summaryOnly = statements !== null && wanted === null;
  const session = new LogSession({
    engine: args.engine,
    referenceTime: input.referenceTime,
    keepRecords: false,
    keepContext: true,
    onRecord,
    fast: useFast ? (state, tracker) => fastPathFor(state, {
      tracker: summaryOnly ? null : tracker, out: fastOut, counters: fastCounters, leaveToParser: wanted,
      leaveMentions: wanted === null ? null : needles.map((n) => Buffer.from(n, 'latin1')), statements: summaryOnly ? statements : null,
    }) : undefined,
  });
  let result;
  try {
    result = await readLogStream(session, pacedByOutput(input.chunks(), io));
  } catch (e) {
    out.flush();
    if (e instanceof LogInputError) { io.err(`hoplens annotate: ${forTerminal(e.message)}\n`); return 2; }
    throw e;
  }
  // With --rid only the request's lines count as unmatched, and those never take the fast path.
  if (wanted === null) unmatched += fastCounters.unmatched;
  if (seed) pairs.merge(seed);
  const joined = wanted === null ? [] : alone.of(pairs, WANTED);
  if (joined.length && !args.json && !statements) {
    const ids = pairs.idsOf(WANTED).filter((id) => pairs.owner(id) === WANTED);
    out.line(`${' '.repeat(9)}by ${pairs.label ?? 'transfer id'} ${ids.join(', ')} (a line of the request names it beside its id):`);
  }
  for (const rec of joined) { ridLines++; show(rec); }
  return {
    result, tracker: session.tracker, hopLines, unmatched, otherLines, truncatedLines, ridLines, unmatchedSample, statements, wanted, summaryOnly,
  };
}

/** The hops a run's requests lack (or the one request's, with --rid), and the table's hops with no line in the log. */
interface MissingHops {
  requests: string[];
  detail: RequestGroup | null;
  missingAgg: Map<string, { requests: number; kind: string; reason: string }>;
  notInLog: { hop: string; kind: string; reason: string }[];
}

function missingHops(scan: ScanResult, ridFilter: string | null): MissingHops {
  const { tracker, wanted } = scan;
  const engine = scan.result.engine;
  // Per-hop: how many requests lack it, and why.
  const requests = [...tracker.rids()];
  let detail: RequestGroup | null = null;
  if (ridFilter !== null) {
    const rid = requests.find(wanted!);
    detail = rid ? tracker.get(rid) : null;
  }
  const missingAgg = new Map<string, { requests: number; kind: string; reason: string }>();
  for (const m of detail ? detail.missing.map((x) => ({ ...x, requests: 1 })) : tracker.missingSummary()) {
    missingAgg.set(m.hop, { requests: m.requests, kind: m.kind, reason: m.reason });
  }
  const notInLog = engine
    ? getHopTable(engine).hops.filter((h) => !h.legacy && !tracker.counts.has(h.id)).map((h) => ({ hop: h.id, kind: h.missing.kind, reason: h.missing.text }))
    : [];
  return { requests, detail, missingAgg, notInLog };
}

async function annotateInput(args: Args, input: LogInput, io: CliIO, seed?: TransferPairs): Promise<number> {
  const shownName = forTerminal(input.name);
  const checkout = await chooseCheckout(args, input, io);
  if (typeof checkout === 'number') return checkout;
  const out = new Out(io);
  const scan = await scanLog(args, input, io, out, checkout.resolver, seed);
  if (typeof scan === 'number') return scan;
  const { result, tracker, ridLines, statements } = scan;
  const engine = result.engine;
  const ridFilter = args.rid;
  const totalHops = [...tracker.counts.values()].reduce((a, b) => a + b, 0);
  const missing = missingHops(scan, ridFilter);
  const found = statements !== null ? statements.sorted().some((st) => st.fileinfo !== null || st.hop !== null)
    : ridFilter !== null ? ridLines > 0 : totalHops > 0;
  if (statements !== null && !args.json) {
    printStatements(statements, out, args.width);
    out.flush();
    const ofRequest = ridFilter !== null ? ` (${ridLines} of request ${forTerminal(ridFilter)})` : '';
    io.out(`\n${shownName}: ${engine ?? 'unknown engine'}, ${result.lines} line(s)${ofRequest}, `
      + `${statements.size} statement(s)${found ? '' : ' (none with a file:line or a hop)'}\n`);
    return found ? 0 : 1;
  }
  if (args.json) {
    writeJsonSummary(args, input, out, scan, missing, checkout, { totalHops, found });
    return found ? 0 : 1;
  }
  out.flush();
  if (!found) {
    io.out(ridFilter !== null
      ? `\nNo lines for request ${forTerminal(ridFilter)} in ${shownName} (${result.lines} lines scanned, ${missing.requests.length} requests).\n`
      : `\nNo hops found in ${shownName} (${result.lines} lines scanned${engine ? `, ${engine} log` : ', not a vLLM or SGLang log?'}).\n`);
    return 1;
  }
  io.out(textSummary(args, shownName, scan, missing, totalHops).join('\n') + '\n');
  return 0;
}

/** `--json`'s closing objects: the statements (with --summary), then the `{"kind":"summary"}`. */
function writeJsonSummary(args: Args, input: LogInput, out: Out, scan: ScanResult, missing: MissingHops, checkout: CheckoutChoice,
  totals: { totalHops: number; found: boolean }): void {
  const { result, tracker, statements } = scan;
  const { requests, detail } = missing;
  const { release, checkoutDir } = checkout;
  const { found } = totals;
  const ridFilter = args.rid;
  const LIST_CAP = 1000;
  const listed = (detail ? [detail.rid] : requests.slice(0, LIST_CAP)).map((r) => tracker.brief(r));
  if (statements !== null) for (const st of statements.sorted()) out.line(JSON.stringify(statementJson(st)));
  if (scan.summaryOnly) {
    out.line(JSON.stringify(statementsSummary(statements!, {
      file: args.log, compression: input.compression, engine: result.engine, lines: result.lines, bytes: result.bytes,
      otherLines: scan.otherLines, truncatedLines: scan.truncatedLines, found,
    })));
    out.flush();
    return;
  }
  const summary = {
    kind: 'summary', file: args.log, ...(input.compression ? { compression: input.compression } : {}),
    engine: result.engine, lines: result.lines, bytes: result.bytes,
    hopLines: ridFilter !== null ? scan.hopLines : totals.totalHops, unmatched: scan.unmatched,
    otherLines: scan.otherLines, truncatedLines: scan.truncatedLines,
    counts: Object.fromEntries(tracker.counts),
    requests: { count: requests.length, listed, truncated: !detail && requests.length > LIST_CAP },
    request: detail,
    missing: [...missing.missingAgg].map(([hop, m]) => ({ hop, ...m })),
    notInLog: missing.notInLog,
    checkout: args.checkout,
    ...(release ? { release: { engine: release.engine, version: release.version, source: checkoutDir } } : {}),
    ...(statements !== null ? { statements: statements.size } : {}),
    message: found ? null : ridFilter !== null ? `no lines for request ${ridFilter}` : 'no hops found',
  };
  out.line(JSON.stringify(summary));
  out.flush();
}

/** The text summary after the table: totals, the request (or the first requests), missing hops, unmatched lines. */
function textSummary(args: Args, shownName: string, scan: ScanResult, missing: MissingHops, totalHops: number): string[] {
  const { result, tracker, unmatchedSample } = scan;
  const { requests, detail, missingAgg, notInLog } = missing;
  const ridFilter = args.rid;
  const lines: string[] = [];
  lines.push('');
  lines.push(`${shownName}: ${result.engine ?? 'unknown engine'}, ${result.lines} line(s), ${ridFilter !== null ? scan.hopLines : totalHops} hop line(s), `
    + `${requests.length} request(s), ${scan.unmatched} line(s) with no known emitter`);
  const counts = [...tracker.counts].map(([h, n]) => `${h}×${n}`).join('  ');
  if (counts) lines.push(`hops: ${counts}`);
  if (detail) {
    lines.push('', `Request ${forTerminal(detail.rid)}`);
    for (const h of detail.hops) {
      const def = findHop(detail.engine, h.hop);
      const t = h.time !== null && h.resolution ? formatTime(h.time, h.resolution, false).replace('T', ' ') : '';
      lines.push(`  ${padStart(String(h.line), 7)}  ${padEnd(h.hop, 4)} ${padEnd(forTerminal(h.process ?? h.role ?? ''), 16)} ${padEnd(t, 24)} `
        + `${padEnd(h.sincePrevious?.text ?? '', 8)} ${def ? def.file : ''}`);
    }
    if (detail.span) lines.push(`  span ${detail.span.text}`);
    if (detail.context.length) lines.push(`  context: ${detail.context.map((c) => `${c.hop}@${c.line}`).join(' ')}`);
  } else if (requests.length) {
    lines.push('', 'Requests');
    const SHOW = 50;
    for (const rid of requests.slice(0, SHOW)) {
      const b = tracker.brief(rid)!;
      lines.push(`  ${padEnd(forTerminal(rid), 48)} line ${padStart(String(b.firstLine), 7)}  span ${padEnd(b.span?.text ?? '?', 8)} ${b.hops.join(' ')}`);
    }
    if (requests.length > SHOW) lines.push(`  … ${requests.length - SHOW} more (use --rid ID or --json)`);
  }
  if (missingAgg.size) {
    lines.push('', 'Lines that will be missing, and why');
    for (const [hop, m] of missingAgg) lines.push(`  ${padEnd(hop, 4)} ${padStart(String(m.requests), 6)} request(s)  ${m.kind}: ${m.reason}`);
  }
  if (notInLog.length) lines.push('', `Hops with no line in this log: ${notInLog.map((n) => n.hop).join(', ')}`);
  if (args.unmatched && unmatchedSample.length) {
    lines.push('', 'Lines with no known emitter');
    for (const r of unmatchedSample) lines.push(`${padStart(String(r.line), 7)}  ${forTerminal(r.message.slice(0, args.width))}`);
  }
  return lines;
}

/** A store's stream as the byte input annotate reads (its lines in order, one per line). */
function streamInput(name: string, stream: RemoteLogStream, referenceTime: number): LogInput {
  const bytes = Buffer.from(stream.entries.map((e) => `${e.text.replace(/\r?\n/g, ' ')}\n`).join(''), 'utf8');
  return {
    name, referenceTime, head: bytes.subarray(0, 64 * 1024), compression: null,
    chunks: async function* () { for (let i = 0; i < bytes.length; i += 1024 * 1024) yield bytes.subarray(i, i + 1024 * 1024); },
    close: () => undefined,
  };
}

/** `annotate --logs URL --rid ID`: the request's lines from each store, each pod's stream annotated as a log. */
async function annotateStores(args: Args, io: CliIO): Promise<number> {
  let fleet;
  try {
    fleet = await queryFleet(args.fleet, args.rid!, process.env);
  } catch (e) {
    if (e instanceof FleetError) { io.err(`hoplens annotate: ${forTerminal(e.message)}\n`); return 2; }
    throw e;
  }
  const found = foundAnything(fleet.result);
  for (const m of fleetMessages(fleet.result, found)) io.err(`hoplens annotate: ${forTerminal(m)}\n`);
  if (!found) {
    const problems = fleet.result.problems.map((p) => p.message);
    if (args.json) io.out(`${JSON.stringify({ kind: 'summary', request: args.rid, streams: 0, asked: fleet.result.asked, problems })}\n`);
    else {
      io.out(`No line of request ${forTerminal(args.rid!)} in the store(s).\n`);
      for (const q of fleet.result.asked) io.out(`asked ${forTerminal(q)}\n`);
    }
    return 1;
  }
  let best = 1;
  // A line of one pod naming only the request's bootstrap_room is the request's when another pod's line pairs the two.
  const names = namesRequestText(args.rid!);
  const seed = pairsInTexts([...fleet.streams.values()].flatMap((s) => s.stream.entries.map((e) => e.text)), names);
  for (const name of fleet.names) {
    const { endpoint, stream } = fleet.streams.get(name)!;
    const store = `${endpoint.kind}+${endpoint.baseUrl}`;
    const labels = Object.entries(stream.labels).map(([k, v]) => `${k}=${v}`).join(', ');
    if (args.json) io.out(`${JSON.stringify({ kind: 'stream', name, store, labels: stream.labels, lines: stream.entries.length })}\n`);
    else io.out(`\n== ${forTerminal(name)} (${forTerminal(labels)}; ${endpoint.kind} at ${forTerminal(endpoint.baseUrl)}) ==\n`);
    const code = await annotateInput(args, streamInput(name, stream, fleet.window.endMs), io, seed);
    if (code === 2) return 2;
    best = Math.min(best, code);
  }
  return best;
}
