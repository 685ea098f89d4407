// Words shared by the lens, the hop column, the hover, the tree and exports: how a hop and a
// source read. No `vscode` here: unit-tested in plain Node.
import { getHopTable, type HopDef } from '../../engines/index';
import { packageRelativePath } from '../../engines/registry';
import type { Engine, LogRecord } from '../../core/logs/model';
import type { SourceLocation } from '../../core/source/types';
import type { LocatedSource } from '../../core/source/locate';

/** "v1/engine/async_llm.py:439" — the path under the engine's package, as engineers say it. */
export function displaySource(loc: SourceLocation): string {
  return `${packageRelativePath(loc.path)}:${loc.line}`;
}

/** The hop's short name: the lab's number when it has one ("hop 2"), else the table id ("hop V9"). */
export function hopLabel(def: HopDef): string {
  return `hop ${def.labId ?? def.id}`;
}

/** The hops of one line's records in their order: "hop 2", or "hops 2, 7" when a paste put several on the line; "" for none. */
export function hopLabels(defs: HopDef[]): string {
  if (defs.length <= 1) return defs.length ? hopLabel(defs[0]) : '';
  return `hops ${defs.map((d) => d.labId ?? d.id).join(', ')}`;
}

/**
 * A source as a lens names it: `2 candidates` when several statements print the text, else the
 * place, marked when it is not the statement that printed the line (moved from another file, a
 * similar statement of another code path, changed since).
 */
export function sourceWords(loc: SourceLocation): string {
  if (loc.candidates && loc.candidates.length > 1) return `${loc.candidates.length} candidates`;
  const mark = loc.verified ? '' : loc.movedFrom ? ' (moved)' : loc.similar ? ' (similar)' : loc.changed ? ' (changed since)' : '';
  return displaySource(loc) + mark;
}

export function driftText(loc: SourceLocation): string {
  if (loc.drift === 0) return '';
  const n = Math.abs(loc.drift);
  return `${loc.drift > 0 ? '+' : '−'}${n} line${n === 1 ? '' : 's'}`;
}

/**
 * What a lens (or, where VS Code shows no lens, the note at the start of the line) says about a
 * hop: `hop 2 · api-server · v1/engine/async_llm.py:439`, with drift, and ↗ when it opens the
 * pinned file on the public repository; and the tooltip of its action.
 */
export function hopTitle(rec: LogRecord, def: HopDef, src: LocatedSource | null): { title: string; tooltip: string | undefined } {
  const where = src ? sourceWords(src.location) : `${def.process}, no source line`;
  const drift = src ? driftText(src.location) : '';
  const title = `${hopLabel(def)} · ${rec.role ?? def.role} · ${where}${drift ? ` (${drift})` : ''}${src && src.file === null ? ' ↗' : ''}`;
  const tooltip = !src ? undefined : src.location.candidates ? `Pick one of ${src.location.candidates.length} statements that print this text`
    : src.file !== null ? `Open ${src.file}:${src.location.line}` : `Open ${src.url} (no local checkout)`;
  return { title, tooltip };
}

/** Characters of the longest label of an engine's hops ("hop V0b"): the width of a column of them. */
export function hopLabelWidth(engine: Engine): number {
  return Math.max(...getHopTable(engine).hops.map((h) => hopLabel(h).length));
}
