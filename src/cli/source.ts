// `hoplens source fetch vllm==0.8.5 | list | clean`: the release's own source, fetched once through
// the user's pip into the tool cache (core/source/release.ts), so `--checkout vllm==0.8.5` resolves
// a log against the files that printed it. Progress on stderr; the folder on stdout (for scripts).
import type { CliIO } from './io';
import { forTerminal } from '../core/text/terminal';
import { releaseExamples, releaseSpecWords } from '../engines/registry';
import {
  fetchRelease, listReleaseSources, parseReleaseSpec, releaseCacheRoot, removeReleaseSources, ReleaseSourceError,
} from '../core/source/release';

const usage = () => `usage: hoplens source fetch ${releaseSpecWords('|')} [--python PY]
       hoplens source list
       hoplens source clean

The source of the release that printed a log, from the package index through your own pip
(its index and proxy settings hold): the release's wheel, of which only the Python files are
kept, unpacked once into ${'$'}{XDG_CACHE_HOME:-~/.cache}/hoplens/releases/<engine>-<version>/.
\`hoplens annotate --checkout ${releaseExamples()[0]}\` uses it (and fetches it when it is not there yet).

  fetch SPEC   fetch one release (progress on stderr); prints its folder
  --python PY  the Python whose pip fetches (default python3)
  list         the release sources in the cache, one folder a line
  clean        remove every release source from the cache

Exit codes: 0 ok, 1 the release could not be fetched (offline, no such release), 2 bad usage.
`;

export async function runSource(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help') { io.out(usage()); return sub === undefined ? 2 : 0; }
  if (sub === 'list') {
    for (const r of listReleaseSources()) io.out(`${r.dir}\t${r.engine}==${r.version}\t${r.files} files\n`);
    return 0;
  }
  if (sub === 'clean') {
    const removed = removeReleaseSources();
    io.err(`hoplens source: removed ${removed.length} release source(s) from ${forTerminal(releaseCacheRoot())}\n`);
    return 0;
  }
  if (sub !== 'fetch') { io.err(`hoplens source: unknown subcommand '${forTerminal(sub)}'\n\n${usage()}`); return 2; }
  let spec = null;
  let python: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--python' || a.startsWith('--python=')) {
      python = a.includes('=') ? a.slice(a.indexOf('=') + 1) : rest[++i];
      if (!python) { io.err('hoplens source: --python needs an interpreter\n'); return 2; }
    } else if (spec === null && !a.startsWith('-')) {
      spec = parseReleaseSpec(a);
      if (!spec) { io.err(`hoplens source: '${forTerminal(a)}' is not ${releaseSpecWords()}\n`); return 2; }
    } else { io.err(`hoplens source: unexpected argument '${forTerminal(a)}'\n`); return 2; }
  }
  if (!spec) { io.err(`hoplens source fetch: which release? (${releaseExamples()[0]})\n\n${usage()}`); return 2; }
  try {
    const got = await fetchRelease(spec, { python, onProgress: (l) => io.err(`hoplens source: ${forTerminal(l.trim())}\n`) });
    io.err(got.fromCache
      ? `hoplens source: ${spec.engine}==${spec.version} is already in the cache\n`
      : `hoplens source: ${got.manifest.files} Python files of ${forTerminal(got.manifest.wheel)}\n`);
    io.out(`${got.root}\n`);
    return 0;
  } catch (e) {
    if (e instanceof ReleaseSourceError) { io.err(`hoplens source: ${forTerminal(e.message)}\n`); return 1; }
    throw e;
  }
}
