// A made-up engine, "toyllm", with two hops: ARCHITECTURE.md's "How to add an engine" followed for
// real, in one folder. Used by the tests only (madeUpEngine.test.ts registers it); nothing outside
// this folder knows it. Its lines look like:
//   2026-12-02 17:20:01.123 toyllm[frontend:4242] INFO serve.py:88 | accepted request req-7
import { engineId, type EngineProfile, type LineShape } from '../../../../src/engines/registry';
import type { HopDef, HopTable } from '../../../../src/engines/types';

/** The engine's id: a name no built-in engine has (the profile is registered at run time). */
export const TOYLLM = engineId('toyllm');

const hop = (h: Pick<HopDef, 'id' | 'role' | 'process' | 'file' | 'line' | 'format' | 'startsWith' | 'patterns' | 'meaning'>): HopDef => ({
  engine: TOYLLM, labId: null, level: 'INFO', fileBasenames: [h.file.split('/').pop()!], ridKind: 'external', scope: 'request',
  flags: [], gate: 'always', missing: { kind: 'path', text: 'the request never reached this step' }, ...h,
});

export const TOYLLM_TABLE: HopTable = {
  engine: TOYLLM,
  pinnedSha: '0123456789abcdef0123456789abcdef01234567',
  shaRead: '0123456789abcdef0123456789abcdef01234567',
  pinNote: 'A made-up engine for the tests.',
  repoUrl: 'https://example.invalid/toyllm',
  launchHint: 'toyllm serve --log-requests',
  hops: [
    hop({
      id: 'T1', role: 'frontend', process: 'frontend', file: 'toyllm/serve.py', line: 88, format: 'accepted request %s',
      startsWith: ['accepted request '], patterns: [/^accepted request (?<rid>[\w-]+)$/], meaning: 'The frontend took the request.',
    }),
    hop({
      id: 'T2', role: 'runner', process: 'runner', file: 'toyllm/run.py', line: 31, format: 'finished request %s in %d ms',
      startsWith: ['finished request '], patterns: [/^finished request (?<rid>[\w-]+) in \d+ ms$/], meaning: 'The runner sent the last token.',
    }),
  ],
};

const TOYLLM_LINE: LineShape = {
  format: 'toyllm',
  pattern: new RegExp(String.raw`^(?<year>\d{4})-(?<month>\d\d)-(?<day>\d\d) (?<hour>\d\d):(?<minute>\d\d):(?<second>\d\d)\.(?<fraction>\d{3}) `
    + String.raw`toyllm\[(?<process>\w+):(?<pid>\d+)\] (?<level>DEBUG|INFO|WARNING|ERROR) (?<file>[\w./]+\.py):(?<lineno>\d+) \| `),
};

export const TOYLLM_PROFILE: EngineProfile = {
  id: TOYLLM,
  label: 'ToyLLM',
  hops: TOYLLM_TABLE,
  processRoles: [[/^frontend$/, 'frontend'], [/^runner$/, 'runner']],
  ridsVerbatim: true,
  lineShapes: [TOYLLM_LINE],
};
