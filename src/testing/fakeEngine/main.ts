// Starts the fake engine from a shell (--engine: an engine it imitates, src/engines/fakes.ts; the first by default):
//   node dist/fakeEngine.js --port 0 --log FILE|- --engine vllm|sglang [--schedule "first=150,frames=40,every=20"] [--model M] [--api-key-env VAR] [--otlp URL]
//     [--trace-dir DIR [--trace-source-root DIR]]
// and prints `listening on http://127.0.0.1:PORT` once it accepts connections. `--log -` prints the
// server's log lines on stdout, as a container does.
import { IMITATIONS, imitationOf } from '../../engines/fakes';
import { startFakeEngine } from './server';
import { parseSchedule } from './schedule';

const IDS = IMITATIONS.map((m) => m.id);
const USAGE = `usage: fakeEngine --engine ${IDS.join('|')} [--port 0] [--log FILE] [--schedule SPEC] [--model NAME] [--api-key-env VAR] `
  + '[--otlp http://127.0.0.1:4318/v1/traces] [--trace-dir DIR [--trace-source-root DIR]]';

async function main(argv: string[]): Promise<number> {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { process.stdout.write(USAGE + '\n'); return 0; }
    if (!a.startsWith('--') || i + 1 >= argv.length) { process.stderr.write(`fakeEngine: bad argument '${a}'\n${USAGE}\n`); return 2; }
    args.set(a.slice(2), argv[++i]);
  }
  const imitation = imitationOf(args.get('engine') ?? IDS[0]);
  if (!imitation) { process.stderr.write(`fakeEngine: --engine must be ${IDS.join(' or ')}\n`); return 2; }
  const engine = imitation.id;
  const port = Number(args.get('port') ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65535) { process.stderr.write(`fakeEngine: --port must be 0..65535\n`); return 2; }
  let schedule;
  try { schedule = parseSchedule(args.get('schedule')); } catch (e) { process.stderr.write(`fakeEngine: ${(e as Error).message}\n`); return 2; }
  const keyEnv = args.get('api-key-env');
  const handle = await startFakeEngine({
    engine, port, schedule, logFile: args.get('log') === '-' ? null : args.get('log') ?? null,
    ...(args.get('log') === '-' ? { logSink: (line: string) => { process.stdout.write(line + '\n'); } } : {}),
    ...(args.get('model') ? { model: args.get('model')! } : {}),
    ...(keyEnv && process.env[keyEnv] ? { apiKey: process.env[keyEnv] } : {}),
    ...(args.get('otlp') ? { otlpEndpoint: args.get('otlp')! } : {}),
    ...(args.get('trace-dir') ? { traceDir: args.get('trace-dir')! } : {}),
    ...(args.get('trace-source-root') ? { traceSourceRoot: args.get('trace-source-root')! } : {}),
  });
  if (handle.engineCoreTrace) process.stdout.write(`engine core pid ${handle.engineCoreTrace.pid} traced to ${handle.engineCoreTrace.instanceDir}\n`);
  process.stdout.write(`listening on ${handle.url}\n`);
  const stop = () => { void handle.close().then(() => process.exit(0)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return -1; // keep running
}

main(process.argv.slice(2)).then((code) => { if (code >= 0) process.exitCode = code; },
  (e: unknown) => { process.stderr.write(`fakeEngine: ${e instanceof Error ? e.message : String(e)}\n`); process.exitCode = 2; });
