// Words shared by the lens, the hover, the tree and exports: how a hop and a source read.
import { findHop, type HopDef } from '../../hops/index';
import type { LogRecord } from '../../core/logs/model';
import type { SourceLocation } from '../../core/source/types';

/** "v1/engine/async_llm.py:439" — the path under the engine's package, as engineers say it. */
export function displaySource(loc: SourceLocation): string {
  const path = loc.path.replace(/^vllm\//, '').replace(/^python\/sglang\//, '');
  return `${path}:${loc.line}`;
}

export function hopDef(rec: LogRecord): HopDef | undefined {
  return rec.engine !== 'other' && rec.hop ? findHop(rec.engine, rec.hop) : undefined;
}

/** The hop's short name: the lab's number when it has one ("hop 2"), else the table id ("hop V9"). */
export function hopLabel(def: HopDef): string {
  return `hop ${def.labId ?? def.id}`;
}

export function driftText(loc: SourceLocation): string {
  if (loc.drift === 0) return '';
  const n = Math.abs(loc.drift);
  return `${loc.drift > 0 ? '+' : '−'}${n} line${n === 1 ? '' : 's'}`;
}
