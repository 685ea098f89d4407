// The real-shapes corpus (test/fixtures/real-logs): lines shaped as engines and the tools around
// them print them, each with the answer expected of `hoplens annotate --json --checkout`. Read
// by the unit test (test/unit/logs/corpus.test.ts) and by the scorer (bench/corpus.mjs).
//
// A corpus file holds one class of the issue:
//   #! checkout: NAME      the mini checkout the lines resolve into (checkouts/NAME.json, or vllm-pin / sglang-pin)
//   #! eol: crlf           the log is written with CR LF line endings
//   #! bom                 the log starts with a UTF-8 byte order mark
//   #! source: TEXT        where the next lines come from (for the README; not read)
//   <engine> <hop|-> <path:line|~path:line|-|none> [rid=ID] [time=T] [moved=PATH] [similar] [changed] [candidates=N] [known-miss] | <the line as printed>
// engine is vllm, sglang or other; `-` leaves that part unjudged; `none` means no source at all;
// `~path:line` means shown there but NOT verified (moved=, similar, changed, candidates= say how).
// `time=T`: the line's time as `annotate --json` prints it (`2025-03-04T10:11:12`, `…12.250000Z`; the log
// written as of 2026-08-22, the year a year-less stamp takes when nothing else on the line gives one).
// `known-miss`: the label is the truth and the tool is known to miss it (the scorer counts the miss; the unit test
// asserts the miss, so a fix shows up and the marker is then removed).
// Several records pasted onto one line are labelled in order, joined by ` && `.
// ⟨ESC⟩ ⟨CR⟩ ⟨TAB⟩ in a line stand for those bytes.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initRepo, pythonFile, SGLANG_FILES, VLLM_FILES } from '../unit/source/fixtureCheckout';

export type EngineLabel = 'vllm' | 'sglang' | 'other';

export interface CorpusLine {
  /** 1-based line number in the written log. */
  n: number;
  /** Record on that line: 1, or 2, 3, … for records pasted onto the same line. */
  part: number;
  engine: EngineLabel;
  hop: string | null;
  /** `path:line`, `none` (no source), or null (not judged). */
  statement: string | null;
  rid: string | null;
  /** The line's time as annotate --json prints it, when labelled. */
  time?: string;
  /** With a `~path:line` statement: how the unverified answer must be qualified. */
  expect?: { movedFrom?: string; similar?: boolean; changed?: boolean; candidates?: number };
  /** The tool is known to miss this label (see the file's header). */
  knownMiss?: boolean;
  text: string;
}

export interface CorpusFile {
  name: string;
  checkout: string | null;
  crlf: boolean;
  bom: boolean;
  lines: CorpusLine[];
}

export const CORPUS_DIR = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'real-logs');

const TOKENS: Record<string, string> = { '⟨ESC⟩': '\x1b', '⟨CR⟩': '\r', '⟨TAB⟩': '\t' };

export function readCorpus(dir = CORPUS_DIR): CorpusFile[] {
  return readdirSync(dir).filter((f) => f.endsWith('.corpus')).sort().map((f) => readCorpusFile(join(dir, f), f.replace(/\.corpus$/, '')));
}

function readCorpusFile(path: string, name: string): CorpusFile {
  const file: CorpusFile = { name, checkout: null, crlf: false, bom: false, lines: [] };
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    if (raw.startsWith('#!')) {
      const m = /^#!\s*(\w+)(?::\s*(.*))?$/.exec(raw);
      if (m?.[1] === 'checkout') file.checkout = m[2].trim();
      else if (m?.[1] === 'eol') file.crlf = m[2].trim() === 'crlf';
      else if (m?.[1] === 'bom') file.bom = true;
      continue;
    }
    if (raw.startsWith('#') || raw.trim() === '') continue;
    const bar = raw.indexOf(' | ');
    if (bar < 0) throw new Error(`${name}: no ' | ' in ${raw}`);
    let text = raw.slice(bar + 3);
    for (const [token, byte] of Object.entries(TOKENS)) text = text.split(token).join(byte);
    const n = file.lines.length === 0 ? 1 : file.lines[file.lines.length - 1].n + 1;
    raw.slice(0, bar).split(' && ').forEach((part, i) => {
      const labels = part.trim().split(/\s+/);
      const [engine, hop, statement] = labels;
      if (engine !== 'vllm' && engine !== 'sglang' && engine !== 'other') throw new Error(`${name}: engine label ${engine}`);
      const extra = labels.slice(3);
      const rid = extra.find((l) => l.startsWith('rid='))?.slice(4) ?? null;
      const line: CorpusLine = { n, part: i + 1, engine, hop: hop === '-' ? null : hop, statement: statement === '-' ? null : statement, rid, text };
      if (extra.includes('known-miss')) line.knownMiss = true;
      const time = extra.find((l) => l.startsWith('time='))?.slice(5);
      if (time) line.time = time;
      if (statement.startsWith('~')) {
        const moved = extra.find((l) => l.startsWith('moved='))?.slice(6);
        const cands = extra.find((l) => l.startsWith('candidates='))?.slice(11);
        line.expect = { movedFrom: moved, similar: extra.includes('similar') || undefined, changed: extra.includes('changed') || undefined, candidates: cands ? Number(cands) : undefined };
      }
      file.lines.push(line);
    });
  }
  return file;
}

/** When a corpus log was last written (its mtime): the year a year-less stamp takes, for `time=` labels. */
export const CORPUS_WRITTEN = new Date(Date.UTC(2026, 7, 22, 12, 0, 0));

/** The log exactly as the corpus file describes it (line endings, BOM). */
export function logText(f: CorpusFile): string {
  const eol = f.crlf ? '\r\n' : '\n';
  return (f.bom ? '\ufeff' : '') + f.lines.filter((l) => l.part === 1).map((l) => l.text).join(eol) + eol;
}

interface CheckoutSpec { engine: string; files: Record<string, string | Record<string, string>> }

/** Writes the named mini checkout into `root` as a git repository; returns its engine. */
export function buildCheckout(name: string, root: string, dir = CORPUS_DIR): 'vllm' | 'sglang' {
  mkdirSync(root, { recursive: true });
  if (name === 'vllm-pin') { initRepo(root, VLLM_FILES); return 'vllm'; }
  if (name === 'sglang-pin') { initRepo(root, SGLANG_FILES); return 'sglang'; }
  const spec = JSON.parse(readFileSync(join(dir, 'checkouts', `${name}.json`), 'utf8')) as CheckoutSpec;
  const files: Record<string, string> = {};
  for (const [path, body] of Object.entries(spec.files)) {
    if (typeof body === 'string') { files[path] = body; continue; }
    const placed = Object.fromEntries(Object.entries(body).map(([k, v]) => [Number(k), v]));
    files[path] = path.endsWith('.rs') ? rustFile(placed) : pythonFile(placed);
  }
  initRepo(root, files);
  writeFileSync(join(root, '.corpus-checkout'), name);
  return spec.engine === 'sglang' ? 'sglang' : 'vllm';
}

/** A Rust source file with each statement at its line (the router's sources), filler between. */
function rustFile(placed: Record<number, string>): string {
  const lines: string[] = ['use tracing::{debug, error, info, warn};', ''];
  for (const start of Object.keys(placed).map(Number).sort((a, b) => a - b)) {
    if (lines.length >= start) throw new Error(`statement for line ${start} would overlap line ${lines.length}`);
    while (lines.length < start - 1) lines.push(lines.length % 7 === 0 ? '' : `    let x_${lines.length} = ${lines.length}; // filler`);
    lines.push(...placed[start].split('\n'));
  }
  return lines.join('\n') + '\n';
}

/** What `annotate --json` said about one line. */
export interface Outcome {
  engine: string;
  hop: string | null;
  rid: string | null;
  time?: string | null;
  source: {
    path: string; line: number; verified: boolean; movedFrom?: string; similar?: boolean; changed?: boolean;
    candidates?: Array<{ path: string; line: number }>;
  } | null;
}

export interface Score {
  lines: number;
  /** Lines labelled as an engine's, and those parsed as that engine's. */
  engineLines: number;
  parsed: number;
  /** Lines labelled with a hop, and those tagged with it (and its rid, when labelled). */
  hopLines: number;
  tagged: number;
  /** Lines labelled with a statement, and those resolved (verified) to it. */
  statementLines: number;
  resolved: number;
  /** Lines labelled with a time, and those given that time. */
  timeLines: number;
  timed: number;
  /** Lines where the tool claimed anything (an engine, a hop, a source), and those with a wrong claim. */
  claims: number;
  wrong: number;
  /** Line numbers with a miss or a wrong claim, for reports. */
  misses: Array<{ n: string; why: string }>;
}

export function emptyScore(): Score {
  return {
    lines: 0, engineLines: 0, parsed: 0, hopLines: 0, tagged: 0, statementLines: 0, resolved: 0, timeLines: 0, timed: 0, claims: 0, wrong: 0, misses: [],
  };
}

/** Scores one line's outcome against its labels. */
export function scoreLine(score: Score, l: CorpusLine, o: Outcome | undefined): void {
  const got: Outcome = o ?? { engine: 'other', hop: null, rid: null, source: null };
  score.lines++;
  const why: string[] = [];
  if (l.engine !== 'other') {
    score.engineLines++;
    if (got.engine === l.engine) score.parsed++; else why.push(`engine ${got.engine}`);
  }
  if (l.hop) {
    score.hopLines++;
    const ridOk = l.rid === null || got.rid === l.rid;
    if (got.hop === l.hop && ridOk) score.tagged++; else why.push(`hop ${got.hop} rid ${got.rid}`);
  }
  if (l.time !== undefined) {
    score.timeLines++;
    if (got.time === l.time) score.timed++; else why.push(`time ${got.time ?? null}`);
  }
  const src = got.source && got.source.verified ? `${got.source.path}:${got.source.line}` : null;
  if (l.statement?.startsWith('~')) {
    // Shown at that place, unverified, qualified as labelled; verified anywhere is a wrong claim.
    score.statementLines++;
    const g = got.source;
    const e = l.expect ?? {};
    const ok = g !== null && !g.verified && `~${g.path}:${g.line}` === l.statement && g.movedFrom === e.movedFrom && (g.similar ?? undefined) === e.similar
      && (g.changed ?? undefined) === e.changed && (g.candidates?.length ?? undefined) === e.candidates;
    if (ok) score.resolved++; else why.push(`source ${g ? `${g.path}:${g.line}${g.verified ? ' (verified)' : ''} ${JSON.stringify({ movedFrom: g.movedFrom, similar: g.similar, changed: g.changed, candidates: g.candidates?.length })}` : 'null'}`);
  } else if (l.statement && l.statement !== 'none') {
    score.statementLines++;
    if (src === l.statement) score.resolved++; else why.push(`source ${got.source ? `${got.source.path}:${got.source.line}${got.source.verified ? '' : ' (unverified)'}` : 'null'}`);
  }
  const claimed = got.engine !== 'other' || got.hop !== null || got.source !== null;
  if (claimed) {
    score.claims++;
    const wrongEngine = got.engine !== 'other' && got.engine !== l.engine;
    const wrongHop = got.hop !== null && got.hop !== l.hop;
    const wrongSource = l.statement === 'none' ? got.source !== null : l.statement !== null && src !== null && src !== l.statement;
    // `~path:line`: src is null unless something was verified, which is wrong.
    if (wrongEngine || wrongHop || wrongSource) { score.wrong++; why.push('wrong claim'); }
  }
  if (why.length) score.misses.push({ n: outcomeKey(l), why: why.join(', ') });
}

/** Records the tool found that no label names (a line split where it holds one record): wrong claims. */
export function scoreUnlabelled(score: Score, f: CorpusFile, outcomes: Map<string, Outcome>): void {
  const labelled = new Set(f.lines.map(outcomeKey));
  for (const [key, o] of outcomes) {
    if (labelled.has(key)) continue;
    if (o.engine === 'other' && o.hop === null && o.source === null) continue;
    score.claims++; score.wrong++;
    score.misses.push({ n: key, why: 'a record no label names (wrong claim)' });
  }
}

export function addScore(into: Score, s: Score): void {
  into.lines += s.lines; into.engineLines += s.engineLines; into.parsed += s.parsed; into.hopLines += s.hopLines;
  into.tagged += s.tagged; into.statementLines += s.statementLines; into.resolved += s.resolved; into.claims += s.claims; into.wrong += s.wrong;
  into.timeLines += s.timeLines; into.timed += s.timed;
}

/** The key of a record in outcomesFromJson: its line, with `.part` for a record pasted onto a line. */
export function outcomeKey(l: { n: number; part: number }): string {
  return l.part > 1 ? `${l.n}.${l.part}` : String(l.n);
}

/** Outcomes by record (outcomeKey) from `annotate --json` output (JSON Lines). */
export function outcomesFromJson(stdout: string): Map<string, Outcome> {
  const out = new Map<string, Outcome>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{"kind":"line"')) continue;
    const o = JSON.parse(line) as { line: number; part?: number; engine: string; hop: string | null; rid: string | null; time?: string | null; source: Outcome['source'] };
    out.set(outcomeKey({ n: o.line, part: o.part ?? 1 }), { engine: o.engine, hop: o.hop, rid: o.rid, time: o.time, source: o.source });
  }
  return out;
}
