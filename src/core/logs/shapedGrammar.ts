// The generic header reader for an engine whose profile carries line shapes (LineShape, in
// src/engines/registry.ts) instead of a hand-written grammar: a new engine's lines parse, and its
// hops are tagged, from its folder alone. The built-in engines never come here (no shapes), so the
// hot path pays one length check.
import type { LogRecord } from './model';
import type { ParseState } from './parseState';
import { SHAPED_PROFILES, type EngineProfile } from '../../engines/registry';
import { fractionMs, fractionResolution, inferYear } from './outerPrefix';

/** Whether any registered engine reads its lines through shapes (the parser asks before trying). */
export function anyShapedEngine(): boolean {
  return SHAPED_PROFILES.length > 0;
}

/** Try every shaped engine's header shapes at the start of `s`; fill `rec` and return true on a match. */
export function parseShaped(s: string, rec: LogRecord, state: ParseState): boolean {
  for (const profile of SHAPED_PROFILES) {
    if (state.forced !== null && state.forced !== profile.id) continue;
    for (const shape of profile.lineShapes ?? []) {
      const m = shape.pattern.exec(s);
      if (m?.index !== 0 || m.groups === undefined) continue;
      fillRecord(rec, m[0].length, m.groups, s, shape.format, profile, state);
      return true;
    }
  }
  return false;
}

function fillRecord(
  rec: LogRecord, headerEnd: number, g: Record<string, string | undefined>, s: string, format: string, profile: EngineProfile, state: ParseState,
): void {
  rec.engine = profile.id;
  rec.format = format;
  rec.level = g.level ?? null;
  if (g.month !== undefined && g.day !== undefined && g.hour !== undefined) {
    const month = Number(g.month);
    const year = g.year !== undefined ? Number(g.year) : inferYear(state, month, Number(g.day));
    rec.time = Date.UTC(year, month - 1, Number(g.day), Number(g.hour), Number(g.minute ?? 0), Number(g.second ?? 0)) + fractionMs(g.fraction);
    rec.timeResolution = fractionResolution(g.fraction);
  }
  if (g.file !== undefined) rec.fileinfo = g.file;
  if (g.lineno !== undefined) rec.lineno = Number(g.lineno);
  if (g.pid !== undefined) rec.pid = Number(g.pid);
  if (g.process !== undefined) {
    rec.process = g.process;
    for (const [rule, role] of profile.processRoles) if (rule.test(g.process)) { rec.role = role; break; }
  }
  rec.message = s.slice(headerEnd);
}
