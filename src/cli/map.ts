// `hoplens map --engine <engine> [--json]`: the hop table with its launch flags.
import type { CliIO } from './io';
import { hopTableJson, renderHopTable, getHopTable } from '../engines/index';
import type { Engine } from '../core/logs/model';
import { ENGINE_IDS, engineChoiceWords, isEngine } from '../engines/registry';

const USAGE = `usage: hoplens map --engine ${ENGINE_IDS.join('|')} [--json] [--legacy]

Print the hop table of an engine at the pinned commit (which line of which file prints each
request-path log line, which process, which flag turns it on) and the launch lines that make
them appear. --json prints one JSON object per hop, then a summary object. --legacy also lists
older wordings HopLens still recognises.
`;

export async function runMap(argv: string[], io: CliIO): Promise<number> {
  let engine: Engine | null = null;
  let json = false;
  let legacy = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { io.out(USAGE); return 0; }
    if (a === '--json') { json = true; continue; }
    if (a === '--legacy') { legacy = true; continue; }
    const eq = a.startsWith('--engine=') ? a.slice('--engine='.length) : null;
    if (a === '--engine' || eq !== null) {
      const v = eq ?? argv[++i];
      if (!isEngine(v)) {
        io.err(`hoplens map: --engine must be ${engineChoiceWords()} (got ${v === undefined ? 'nothing' : `'${v}'`})\n\n${USAGE}`);
        return 2;
      }
      engine = v;
      continue;
    }
    io.err(`hoplens map: unknown option '${a}'\n\n${USAGE}`);
    return 2;
  }
  if (!engine) { io.err(`hoplens map: --engine ${ENGINE_IDS.join('|')} is required\n\n${USAGE}`); return 2; }
  if (json) {
    const rows = hopTableJson(engine).filter((h) => legacy || !(h as { legacy: boolean }).legacy);
    for (const h of rows) io.out(JSON.stringify(h) + '\n');
    const t = getHopTable(engine);
    const summary = { kind: 'summary', engine, pinnedSha: t.pinnedSha, shaRead: t.shaRead, note: t.pinNote, hops: rows.length, launch: t.launchHint };
    io.out(JSON.stringify(summary) + '\n');
    return 0;
  }
  io.out(renderHopTable(engine, { includeLegacy: legacy }));
  return 0;
}
