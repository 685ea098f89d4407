// Hop tables by engine, the matcher the parser calls on every message, and the table
// rendering shared by `hoplens map` and the editor's "Show Hop Table". The tables come from the
// engines' profiles (registry.ts).
import type { Engine, HopDef, HopTable } from './types';
import { ACCESS_LOG_HOPS, ENGINE_IDS, HOP_TABLES } from './registry';
import { cutHopMatch } from './cut';

export type { Engine, HopDef, HopTable, MissingKind } from './types';
export { HOP_TABLES } from './registry';

export function getHopTable(engine: Engine): HopTable {
  return HOP_TABLES[engine];
}

// Hops by id, per table (a profile registered later gets its own on first use).
const hopsById = new WeakMap<HopTable, Map<string, HopDef>>();

/** The hop with this id (a record keeps only the id; every renderer looks it up here, in O(1)). */
export function findHop(engine: Engine, id: string): HopDef | undefined {
  const table = HOP_TABLES[engine];
  let byId = hopsById.get(table);
  if (byId === undefined) { byId = new Map(table.hops.map((h) => [h.id, h])); hopsById.set(table, byId); }
  return byId.get(id);
}

export interface HopMatch {
  hop: HopDef;
  groups: Record<string, string | undefined>;
  /** Only the beginning of a wording fits (the line was cut short: cut.ts). */
  cut?: true;
}

function basenameOf(fileinfo: string): string {
  const slash = fileinfo.lastIndexOf('/');
  return slash < 0 ? fileinfo : fileinfo.slice(slash + 1);
}

/**
 * Where a message's own words end when another record was pasted after it on its line, or -1
 * (the parser's nextRecordAt: it knows what a record's header is).
 */
export type RecordEnd = (message: string) => number;

/**
 * Match one message (all prefixes removed) against an engine's hop table.
 * `fileinfo` (vLLM) must end in one of the hop's basenames when it is known;
 * `format` restricts the uvicorn access hop to uvicorn lines. `recordEnd`: where the message's own
 * words end (a paste that lost its line breaks), looked at only when the whole message fit no hop.
 */
export function matchHop(engine: Engine, message: string, fileinfo: string | null, format: string, recordEnd?: RecordEnd): HopMatch | null {
  if (format === 'uvicorn') {
    const access = ACCESS_LOG_HOPS.get(engine);
    if (access === undefined) return null;
    const m = access.patterns[0].exec(message);
    return m ? { hop: access, groups: m.groups ?? {} } : null;
  }
  const candidates = candidatesByFirstChar(engine).get(message.charCodeAt(0));
  if (candidates === undefined) return null;
  const base = fileinfo ? basenameOf(fileinfo) : null;
  let tried = false;
  for (const hop of candidates) {
    if (!opensLike(hop, message, base)) continue;
    tried = true;
    for (const re of hop.patterns) {
      const m = re.exec(message);
      if (m) return { hop, groups: m.groups ?? {} };
    }
  }
  // A hop's words with another record glued on (a paste that lost its line breaks): the
  // message ends where the next header begins. Only lines that opened like a hop pay for this.
  if (tried) {
    const at = recordEnd ? recordEnd(message) : -1;
    if (at > 0) return matchHop(engine, message.slice(0, at), fileinfo, format, recordEnd);
    return matchCutHop(candidates, message, base);
  }
  // Cut inside the opening words themselves (`Finished reque`): the cut matcher wants enough of them.
  if (message.length >= 12 && message.length < 40) return matchCutHop(candidates, message, base, true);
  return null;
}

/**
 * The one engine whose hop a message in a layout that names no engine is (a custom layout no line has
 * taught yet, a JSON record with only its `message`), among the engines `may` allows; null when none is,
 * or more than one. Read as that engine's custom layout (`<id>-custom`); `recordEnd` as for matchHop.
 */
export function soleHopEngine(message: string, fileinfo: string | null, may: (id: Engine) => boolean, recordEnd?: RecordEnd): Engine | null {
  let found: Engine | null = null;
  for (const id of ENGINE_IDS) {
    if (!may(id) || matchHop(id, message, fileinfo, `${id}-custom`, recordEnd) === null) continue;
    if (found !== null) return null;
    found = id;
  }
  return found;
}

/** The message opens with one of the hop's first words, and the printed file (if any) is one of the hop's. */
function opensLike(hop: HopDef, message: string, base: string | null): boolean {
  if (base && hop.fileBasenames && !hop.fileBasenames.includes(base)) return false;
  for (const p of hop.startsWith) if (message.startsWith(p)) return true;
  return false;
}

/** One of the hop's own patterns fits the whole message (not only its cut beginning). */
export function fitsWhole(hop: HopDef, message: string): boolean {
  for (const re of hop.patterns) if (re.test(message)) return true;
  return false;
}

/**
 * Whether a message that fits no hop stops inside a hop's opening words (`Added request`,
 * `Received`): a line a terminal or an editor wrapped, its rest on the next line.
 */
export function stopsInOpening(engine: Engine, message: string, fileinfo: string | null): boolean {
  if (message.length < 5 || message.length > 40) return false;
  const candidates = candidatesByFirstChar(engine).get(message.charCodeAt(0));
  if (candidates === undefined) return false;
  const base = fileinfo ? basenameOf(fileinfo) : null;
  for (const hop of candidates) {
    if (base && hop.fileBasenames && !hop.fileBasenames.includes(base)) continue;
    for (const p of hop.startsWith) if (p.length > message.length && p.startsWith(message)) return true;
  }
  return false;
}

/** The message is the beginning of one of the hop's opening words (the printed file, if any, one of the hop's). */
function stopsInOpeningOf(hop: HopDef, message: string, base: string | null): boolean {
  if (base && hop.fileBasenames && !hop.fileBasenames.includes(base)) return false;
  for (const p of hop.startsWith) if (p.length > message.length && p.startsWith(message)) return true;
  return false;
}

/** A hop's line cut short: the beginning of one of its wordings (cut.ts). */
function matchCutHop(candidates: HopDef[], message: string, base: string | null, inOpening = false): HopMatch | null {
  for (const hop of candidates) {
    if (!(inOpening ? stopsInOpeningOf(hop, message, base) : opensLike(hop, message, base))) continue;
    const cut = cutHopMatch(hop, message);
    if (!cut) continue;
    const groups: Record<string, string | undefined> = {};
    // The id is the first value when the words before it name it (`Received request `, `rid=`).
    if (hop.ridKind && hop.ridKind !== 'list' && cut.firstValue && /(?:[Rr]equest |response |rid=')$|rid=$/.test(cut.firstValueAfter)) {
      const key = hop.patterns.some((p) => p.source.includes('(?<internal_rid>')) ? 'internal_rid' : 'rid';
      const id = cut.firstValue.split(/\s/)[0].replace(/^'|'$/g, '');
      if (id) groups[key] = id;
    }
    return { hop, groups, cut: true };
  }
  return null;
}

// Hops indexed by the first character of their literal prefixes: most lines test none.
const byFirstChar = new WeakMap<HopTable, Map<number, HopDef[]>>();

function candidatesByFirstChar(engine: Engine): Map<number, HopDef[]> {
  const table = HOP_TABLES[engine];
  let idx = byFirstChar.get(table);
  if (!idx) {
    idx = new Map();
    for (const hop of table.hops) {
      for (const p of hop.startsWith) {
        const c = p.charCodeAt(0);
        const list = idx.get(c) ?? [];
        if (!list.includes(hop)) list.push(hop);
        idx.set(c, list);
      }
    }
    byFirstChar.set(table, idx);
  }
  return idx;
}

/** `owner/repo` file URL at the pinned commit, with the line anchor (for links with no checkout). */
export function pinnedUrl(table: HopTable, hop: HopDef): string {
  return `${table.repoUrl}/blob/${table.pinnedSha}/${hop.file}${hop.line ? `#L${hop.line}` : ''}`;
}

export function citation(hop: HopDef): string {
  return hop.line ? `${hop.file}:${hop.line}` : hop.file;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Plain-text hop table like the lab's `--mode map`, plus gates and the launch lines. */
export function renderHopTable(engine: Engine, opts: { includeLegacy?: boolean } = {}): string {
  const table = HOP_TABLES[engine];
  const hops = table.hops.filter((h) => opts.includeLegacy || !h.legacy);
  const rows = hops.map((h) => [h.id, h.role, citation(h), h.level, h.gate, h.meaning]);
  const widths = [3, 7, 9, 5].map((min, i) => Math.max(min, ...rows.map((r) => r[i].length)));
  const out: string[] = [];
  out.push(`Hop table — ${engine} at ${table.pinnedSha.slice(0, 12)}`);
  out.push(table.pinNote);
  out.push('');
  out.push(`${pad('hop', widths[0])}  ${pad('process', widths[1])}  ${pad('file:line', widths[2])}  ${pad('level', widths[3])}  meaning`);
  out.push('-'.repeat(widths.reduce((a, b) => a + b + 2, 0) + 40));
  for (const r of rows) {
    out.push(`${pad(r[0], widths[0])}  ${pad(r[1], widths[1])}  ${pad(r[2], widths[2])}  ${pad(r[3], widths[3])}  ${r[5]}`);
    out.push(`${' '.repeat(widths[0] + 2)}${' '.repeat(widths[1] + 2)}turned on by: ${r[4]}`);
  }
  const worded = table.hops.filter((h) => h.wordings?.length);
  if (worded.length) {
    out.push('');
    out.push('Wordings across versions (each is recognised):');
    for (const h of worded) for (const w of h.wordings!) out.push(`  ${pad(h.id, widths[0])}  ${w.text}\n  ${' '.repeat(widths[0])}    ${w.versions}`);
  }
  out.push('');
  out.push('Start the server so these lines actually appear:');
  out.push('');
  out.push(table.launchHint);
  return out.join('\n') + '\n';
}

/** Markdown version for the editor (webview or preview). */
/** What a hop id says, for the hop table's readers (the ids appear in lenses, hovers and the Requests view). */
const HOP_ID_LEGEND = '**Hop ids.** The letter is the engine (`V` vLLM, `S` SGLang); the number is the step along a request\'s path, '
  + 'shown on lenses as `hop 2` for `V2`; a letter after it (`V1b`) is another line at that step; `V0a`, `V0b` are notices printed once '
  + 'at startup, not per request. The table below says what each one means and which flag turns it on.';

export function renderHopTableMarkdown(engine: Engine): string {
  const table = HOP_TABLES[engine];
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `# ${engine} hop table`,
    '',
    `Pinned at [\`${table.pinnedSha.slice(0, 12)}\`](${table.repoUrl}/tree/${table.pinnedSha}). ${table.pinNote}`,
    '',
    HOP_ID_LEGEND,
    '',
    '| hop | process | file:line | level | turned on by | meaning |',
    '|---|---|---|---|---|---|',
  ];
  for (const h of table.hops.filter((x) => !x.legacy)) {
    lines.push(`| ${h.id} | ${esc(h.role)} | [${esc(citation(h))}](${pinnedUrl(table, h)}) | ${esc(h.level)} | ${esc(h.gate)} | ${esc(h.meaning)} |`);
  }
  lines.push('', '## Wordings across versions', '', 'Each hop is recognised in every wording below, whatever the engine version that printed it.', '');
  lines.push('| hop | wording | printed by |', '|---|---|---|');
  for (const h of table.hops) {
    for (const w of h.wordings ?? []) lines.push(`| ${h.id} | \`${esc(w.text).replace(/`/g, "'")}\` | ${esc(w.versions)} |`);
  }
  lines.push('', '## Launch', '', '```sh', table.launchHint, '```', '');
  return lines.join('\n');
}

/** JSON form (for `hoplens map --json`): one object per hop. */
export function hopTableJson(engine: Engine): object[] {
  const table = HOP_TABLES[engine];
  return table.hops.map((h) => ({
    kind: 'hop', engine, id: h.id, labId: h.labId, role: h.role, process: h.process, level: h.level,
    file: h.file, line: h.line, pinnedSha: table.pinnedSha, url: pinnedUrl(table, h), format: h.format,
    patterns: h.patterns.map((p) => p.source), scope: h.scope, flags: h.flags, gate: h.gate,
    meaning: h.meaning, missing: h.missing, legacy: h.legacy ?? false, wordings: h.wordings ?? [],
  }));
}
