// `hoplens` — the same core as the extension, for terminals over SSH and for benchmarks.
// Exit codes: 0 ok, 1 nothing found, 2 bad input or usage (or output that cannot be written).
import type { CliIO } from './cli/io';
import { processIO } from './cli/io';
import { forTerminal } from './core/text/terminal';

/** The commands' usage; the engines' choices as the registry lists them (loaded only for the help). */
async function usage(): Promise<string> {
  const { ENGINE_IDS, releaseExamples, releaseSpecWords } = await import('./engines/registry');
  const engines = ENGINE_IDS.join('|');
  const map = `map --engine ${engines} [--json]`;
  return `usage: hoplens <command> [options]

commands:
  ${map.padEnd(41)}  print the hop table and the launch flags
  annotate LOG|- [--engine auto|${engines}] [--checkout DIR|${releaseExamples()[0].replace(/==.*/, '==VER')}] [--rid ID] [--unmatched] [--json]
                                             label every log line with the source that printed it
  source fetch ${releaseSpecWords('|').replace(/VERSION/g, 'VER')} | list | clean
                                             the release's own source, fetched once through your pip
  send [--url URL] [--engine E] [--api A] [--model M] [--prompt P] [--max-tokens N] [--rid ID] [--frames] [--json]
                                             one streaming request, timed from the socket
  calltrace DIR [--filter a,b] [--limit N] [--json] [--perfetto OUT.json]
                                             VLLM_TRACE_FUNCTION files as call trees
  otlp --listen 127.0.0.1:4318 [--out spans.jsonl] | --file export.json [--json]
                                             receive or read OpenTelemetry spans (vLLM --otlp-traces-endpoint)
  timeline --rid ID LOG... [--otlp FILE] [--trace-dir DIR] [--client SEND.json] [--offset FILE=MS] [--perfetto OUT] [--json]
                                             one request across every log, its spans and calls, on one time axis

Run 'hoplens <command> --help' for a command's options.`;
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    // Each command's code is loaded when it runs: a start-up pays only for its own (the OTLP
    // decoder, say, is not set up for `annotate`).
    case 'map': return (await import('./cli/map')).runMap(rest, io);
    case 'annotate': return (await import('./cli/annotate')).runAnnotate(rest, io);
    case 'send': return (await import('./cli/send')).runSend(rest, io);
    case 'calltrace': return (await import('./cli/calltrace')).runCalltrace(rest, io);
    case 'otlp': return (await import('./cli/otlp')).runOtlp(rest, io);
    case 'timeline': return (await import('./cli/timeline')).runTimeline(rest, io);
    case 'source': return (await import('./cli/source')).runSource(rest, io);
    case undefined: case '-h': case '--help': case 'help':
      io.out(await usage() + '\n');
      return cmd === undefined ? 2 : 0;
    default:
      io.err(`hoplens: unknown command '${forTerminal(cmd)}'\n\n${await usage()}\n`);
      return 2;
  }
}

/** One line for an error nobody expected; the stack only when asked (a bundled dependency's stack is unreadable). */
function internalError(e: unknown): string {
  const debug = process.env.HOPLENS_DEBUG === '1';
  const text = e instanceof Error ? (debug ? e.stack ?? e.message : e.message) : String(e);
  return `hoplens: internal error: ${text}${debug ? '' : ' (HOPLENS_DEBUG=1 shows where)'}\n`;
}

if (require.main === module) {
  process.on('uncaughtException', (e) => { process.stderr.write(internalError(e)); process.exit(2); });
  main(process.argv.slice(2), processIO()).then(
    (code) => { process.exitCode = code; },
    (e: unknown) => { process.stderr.write(internalError(e)); process.exitCode = 2; },
  );
}
