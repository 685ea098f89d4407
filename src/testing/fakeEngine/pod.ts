// One pod of the fleet demo (`npm run demo:fleet`), as its own process with its own wall clock:
//   node pod.js --clock-skew-ms MS engine <fake engine arguments, see main.ts>
//   node pod.js --clock-skew-ms MS router --prefill URL --decode URL [--port 0]
// The clock skew is installed first (skewedClock.ts), so every line the pod prints and every span
// it exports carries its host's clock error. Like a container, it prints its log on stdout (the
// engine with `--log -`), where the demo's log shipper reads it; `listening on URL`
// comes first, as main.ts prints it.
import { installClockSkew } from './skewedClock';
import { startFakeRouter } from './router';

const USAGE = 'usage: pod --clock-skew-ms MS (engine FAKE-ENGINE-ARGS… | router --prefill URL --decode URL [--port 0])';

function fail(message: string): void {
  process.stderr.write(`pod: ${message}\n${USAGE}\n`);
  process.exitCode = 2;
}

async function runRouter(argv: string[]): Promise<void> {
  const args = new Map<string, string>();
  for (let i = 0; i + 1 < argv.length; i += 2) args.set(argv[i].replace(/^--/, ''), argv[i + 1]);
  const prefillUrl = args.get('prefill');
  const decodeUrl = args.get('decode');
  if (!prefillUrl || !decodeUrl) return fail('the router needs --prefill URL and --decode URL');
  const handle = await startFakeRouter({
    prefillUrl, decodeUrl, port: Number(args.get('port') ?? '0'), writeLine: (line) => process.stdout.write(line + '\n'),
  });
  process.stdout.write(`listening on ${handle.url}\n`);
  const stop = () => { void handle.close().then(() => process.exit(0)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function main(argv: string[]): void {
  if (argv[0] !== '--clock-skew-ms' || argv.length < 3) return fail('--clock-skew-ms MS and a role come first');
  const skew = Number(argv[1]);
  if (!Number.isFinite(skew)) return fail(`--clock-skew-ms takes a number, not '${argv[1]}'`);
  installClockSkew(skew);
  const [role, ...rest] = argv.slice(2);
  if (role === 'router') {
    runRouter(rest).catch((e: unknown) => { process.stderr.write(`pod: ${(e as Error).message}\n`); process.exitCode = 2; });
  } else if (role === 'engine') {
    // main.ts reads its arguments from process.argv when it loads.
    process.argv = [process.argv[0], process.argv[1], ...rest];
    void import('./main');
  } else {
    fail(`unknown role '${role}'`);
  }
}

main(process.argv.slice(2));
