// ToyLLM's header grammar, hand-written: step 4 of ARCHITECTURE.md's "How to add an engine"
// followed for real, in this folder only. Its profile hands it to the registry (`grammar`), and
// the parser then reads ToyLLM's lines through it as it reads vLLM's and SGLang's: at a line's start
// by its first character (`starts`), further into a line where its `anchor` finds it. The same lines
// as the line shapes in ./profile.ts describe:
//   2026-12-02 17:20:01.123 toyllm[frontend:4242] INFO serve.py:88 | accepted request req-7
import { fractionMs, fractionResolution, type EngineGrammar, type GrammarState } from '../../../../src/engines/grammar';
import { stampUtc } from '../../../../src/engines/civilTime';
import type { LogRecord } from '../../../../src/engines/record';
import type { EngineProfile } from '../../../../src/engines/registry';
import { TOYLLM, TOYLLM_PROFILE } from './profile';

const HEADER = new RegExp(String.raw`^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) toyllm\[(\w+):(\d+)\] `
  + String.raw`(DEBUG|INFO|WARNING|ERROR) ([\w./]+\.py):(\d+) \| `);

/** Its header at the start of `s`, into `rec`. */
function readHeader(s: string, rec: LogRecord, state: GrammarState): boolean {
  const m = HEADER.exec(s);
  if (m === null || (state.forced !== null && state.forced !== TOYLLM)) return false;
  rec.engine = TOYLLM;
  rec.format = 'toyllm';
  rec.time = stampUtc(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])) + fractionMs(m[7]);
  rec.timeResolution = fractionResolution(m[7]);
  rec.process = m[8];
  rec.pid = Number(m[9]);
  rec.role = TOYLLM_PROFILE.processRoles.find(([rule]) => rule.test(m[8]))?.[1] ?? null;
  rec.level = m[10];
  rec.fileinfo = m[11];
  rec.lineno = Number(m[12]);
  rec.message = s.slice(m[0].length);
  return true;
}

export const TOYLLM_GRAMMAR: EngineGrammar = {
  engine: TOYLLM,
  starts: [{ chars: '0123456789', read: readHeader }],
  // Further into a line (behind a pod's name, a paste): its date, when `toyllm[` follows the stamp.
  anchor: String.raw`(?<!\d)\d{4}(?=-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} toyllm\[)`,
};

/** The engine with its hand-written grammar instead of its line shapes (what the grammar test registers). */
export const TOYLLM_WITH_GRAMMAR: EngineProfile = { ...TOYLLM_PROFILE, lineShapes: undefined, grammar: TOYLLM_GRAMMAR };
