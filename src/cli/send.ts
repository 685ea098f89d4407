// `hoplens send`: one streaming request timed from the socket (the lab's --mode send).
// Exit codes: 0 a complete stream, 1 the server or network failed, 2 bad input.
import { stat } from 'node:fs/promises';
import {
  aggregateRuns, countLinesUpTo, DEFAULTS, findRequestLogLines, runsReport, secondStampRangeText, sendRepeated, textReport, toJson,
  type RequestLogLine, type TraceOptions,
} from '../core/request';
import { MAX_TIMER_MS, validateOptions } from '../core/request/build';
import { forTerminal } from '../core/text/terminal';
import { warmUpRequestPath } from '../core/request/warmUp';
import { outputRoom, type CliIO } from './io';
import { ENGINE_IDS, probePaths, requestApis } from '../engines/registry';

const USAGE = `usage: hoplens send [options]

  --url URL              server base URL (default ${DEFAULTS.url}; a trailing /v1, as the OpenAI SDK writes it, is fine;
                         user:password@ is sent as Basic auth and shown as ***)
  --engine E             ${['auto', ...ENGINE_IDS].join(' | ')} (default auto: asks ${probePaths().join(', then ')})
  --api A                ${requestApis().join(' | ')} (default chat)
  --model M              default: the first model of GET /v1/models
  --prompt TEXT          (default "${DEFAULTS.prompt}")
  --max-tokens N         (default ${DEFAULTS.maxTokens})
  --temperature T        (default ${DEFAULTS.temperature})
  --extra JSON           extra body fields, e.g. '{"top_p":0.9}'
  --rid ID               request id to send (default hoplens-<time>-<random>)
  --api-key-env VAR      read the API key from this environment variable (never pass keys on the command line)
  --timeout-ms N         whole-request budget (default ${DEFAULTS.timeoutMs}, at most ${MAX_TIMER_MS})
  --idle-timeout-ms N    longest silence allowed mid-stream (default ${DEFAULTS.idleTimeoutMs})
  --connect-timeout-ms N (default ${DEFAULTS.connectTimeoutMs})
  --repeat N             send N requests in sequence and report the distribution (a 429/503 with
                         Retry-After makes the next run wait as asked, up to 5 minutes)
  --log FILE             the server's log (a regular file): print this request's lines beside the client's times;
                         only what the server wrote after the request started is searched
  --frames               print every frame (#, t, dt, chars, kind, text)
  --json                 print one JSON object (with --repeat: one per run, then a summary)
`;

const VALUE_FLAGS = new Set(['url', 'engine', 'api', 'model', 'prompt', 'max-tokens', 'temperature', 'extra', 'rid', 'api-key-env',
  'timeout-ms', 'idle-timeout-ms', 'connect-timeout-ms', 'repeat', 'log']);
const BOOL_FLAGS = new Set(['frames', 'json']);

function parseArgs(argv: string[]): { values: Map<string, string>; flags: Set<string> } | string {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) return `unexpected argument '${a}'`;
    const eq = a.indexOf('=');
    const name = a.slice(2, eq > 0 ? eq : undefined);
    if (BOOL_FLAGS.has(name)) { flags.add(name); continue; }
    if (!VALUE_FLAGS.has(name)) return `unknown option '--${name}'`;
    const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (v === undefined) return `--${name} needs a value`;
    values.set(name, v);
  }
  return { values, flags };
}

function numberOpt(values: Map<string, string>, name: string, problems: string[]): number | undefined {
  const v = values.get(name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) { problems.push(`--${name} needs a number (got '${v}')`); return undefined; }
  return n;
}

export async function runSend(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) { io.out(USAGE); return 0; }
  const parsed = parseArgs(argv);
  if (typeof parsed === 'string') { io.err(`hoplens send: ${parsed}\n\n${USAGE}`); return 2; }
  const { values, flags } = parsed;
  const problems: string[] = [];
  const o: TraceOptions = { url: values.get('url') ?? DEFAULTS.url };
  const engine = values.get('engine');
  if (engine !== undefined) o.engine = engine as TraceOptions['engine'];
  const api = values.get('api');
  if (api !== undefined) o.api = api as TraceOptions['api'];
  if (values.has('model')) o.model = values.get('model')!;
  if (values.has('prompt')) o.prompt = values.get('prompt')!;
  if (values.has('rid')) o.requestId = values.get('rid')!;
  const maxTokens = numberOpt(values, 'max-tokens', problems);
  if (maxTokens !== undefined) o.maxTokens = maxTokens;
  const temperature = numberOpt(values, 'temperature', problems);
  if (temperature !== undefined) o.temperature = temperature;
  const timeout = numberOpt(values, 'timeout-ms', problems);
  if (timeout !== undefined) o.timeoutMs = timeout;
  const idle = numberOpt(values, 'idle-timeout-ms', problems);
  if (idle !== undefined) o.idleTimeoutMs = idle;
  const connect = numberOpt(values, 'connect-timeout-ms', problems);
  if (connect !== undefined) o.connectTimeoutMs = connect;
  const repeat = numberOpt(values, 'repeat', problems) ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 10_000) problems.push(`--repeat needs a whole number from 1 to 10000 (got ${repeat})`);
  const extra = values.get('extra');
  if (extra !== undefined) {
    try {
      const v: unknown = JSON.parse(extra);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
      o.extraBody = v as Record<string, unknown>;
    } catch { problems.push(`--extra needs a JSON object, e.g. '{"top_p":0.9}' (got '${extra}')`); }
  }
  const keyEnv = values.get('api-key-env');
  if (keyEnv !== undefined) {
    const key = process.env[keyEnv];
    if (!key) problems.push(`--api-key-env ${keyEnv}: that environment variable is empty or not set`);
    else o.apiKey = key;
  }
  const logFile = values.get('log');
  let logSizeAtStart = 0;
  if (logFile !== undefined) {
    // A FIFO or a device (/dev/zero) would be read forever: only a regular file is a server log here.
    const st = await stat(logFile).catch(() => null);
    if (!st) problems.push(`--log ${logFile}: no such file`);
    else if (!st.isFile()) {
      const kind = st.isFIFO() ? 'a FIFO' : st.isCharacterDevice() ? 'a character device' : st.isDirectory() ? 'a folder' : 'not a file';
      problems.push(`--log ${logFile}: not a regular file (${kind}); give the file the server writes its log to`);
    } else logSizeAtStart = st.size;
  }
  // The same checks the request makes, before anything is sent, so a bad option is one line and exit 2.
  if (!problems.length) problems.push(...validateOptions(o));
  if (problems.length) { io.err(`hoplens send: ${problems.map(forTerminal).join('\n')}\n`); return 2; }

  const ac = new AbortController();
  o.signal = ac.signal;
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    // A fresh process would measure its first TTFT on a cold HTTP path: warm it on loopback first.
    await warmUpRequestPath().catch(() => undefined);
    const results = await sendRepeated(o, repeat, { onRun: () => { /* printed below, with log lines */ } });
    // The request's lines were written after it started: count the lines before that point once
    // (newlines only), then search only the part written since.
    const logMark = logFile ? await countLinesUpTo(logFile, logSizeAtStart).catch(() => ({ offset: 0, lines: 0 })) : null;
    for (const [i, res] of results.entries()) {
      // The server writes its last lines just after the stream ends; give it a moment.
      const lines = logFile && logMark ? await waitForLogLines(logFile, res.record, logMark) : null;
      if (flags.has('json')) {
        const serverLogLines = lines?.map((l) => ({ line: l.line, sinceRequestStartMs: l.sinceRequestStartMs, resolution: l.resolution, text: l.text }));
        io.out(JSON.stringify({ ...toJson(res.record, res.metrics), ...(serverLogLines ? { serverLogLines } : {}) }) + '\n');
      } else {
        if (repeat > 1) io.out(`\n=== run ${i + 1} of ${repeat}\n`);
        io.out(textReport(res.record, res.metrics, { frames: flags.has('frames') }));
        if (lines) io.out(serverLinesReport(logFile!, lines));
        await outputRoom(io);
      }
    }
    if (repeat > 1) {
      const summary = aggregateRuns(results);
      if (flags.has('json')) io.out(JSON.stringify({ summary }) + '\n');
      else io.out('\n' + runsReport(summary));
    }
    const errors = results.map((r) => r.record.error).filter((e) => e !== null);
    if (errors.some((e) => e!.kind === 'bad-input')) {
      // The report already went to stdout; stderr gets the one line a script would grep.
      for (const e of errors) if (e!.kind === 'bad-input') io.err(`hoplens send: ${forTerminal(e!.message)}\n`);
      return 2;
    }
    return errors.length ? 1 : 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

async function waitForLogLines(path: string, record: Parameters<typeof findRequestLogLines>[1],
  from: { offset: number; lines: number }): Promise<RequestLogLine[]> {
  let lines: RequestLogLine[] = [];
  for (let i = 0; i < 5; i++) {
    // A log that shrank since (rotated, truncated) is searched from its start.
    const size = (await stat(path).catch(() => null))?.size ?? 0;
    const mark = size >= from.offset ? from : { offset: 0, lines: 0 };
    lines = await findRequestLogLines(path, record, { fromOffset: mark.offset, linesBefore: mark.lines });
    if (lines.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return lines;
}

function serverLinesReport(path: string, lines: RequestLogLine[]): string {
  if (!lines.length) {
    return `\nNo line of ${forTerminal(path)} mentions this request ` +
      '(is request logging on? vLLM: --enable-log-requests; SGLang: --log-requests).\n';
  }
  const out = [`\nServer log ${forTerminal(path)}: ${lines.length} line(s) for this request ` +
    "(server clock, from the request's start; a whole-second stamp is the second-long range it allows)"];
  for (const l of lines) {
    const t = l.sinceRequestStartMs === null ? ''.padStart(15)
      : l.resolution === 'ms' ? `${(l.sinceRequestStartMs / 1000).toFixed(3)} s`.padStart(15) : secondStampRangeText(l.sinceRequestStartMs).padStart(15);
    out.push(`${String(l.line).padStart(7)}  ${t}  ${forTerminal(l.text.length > 160 ? l.text.slice(0, 159) + '…' : l.text)}`);
  }
  return out.join('\n') + '\n';
}
