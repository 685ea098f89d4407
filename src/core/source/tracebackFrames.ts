// A Python traceback frame in a log line (`  File "/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 700, in run`,
// with whatever prefix the engine or a wrapper put before it): the path is the machine's that ran
// the engine, and names the engine by its package folder. The same file in the source the log's
// lines resolve in (a checkout or the release's own source) is found by its package-relative path,
// as Call Traces' paths are (calltrace/paths.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { engineRelativePath, packageRelativeCandidates } from '../calltrace/paths';
import type { BuiltInEngine } from '../../engines/types';

export interface TracebackFrame {
  /** The path as printed. */
  file: string;
  line: number;
  /** Columns of `"path", line N` in the text. */
  start: number;
  end: number;
  /** The engine whose package the path is in, and its path relative to a checkout's root. */
  engine: BuiltInEngine;
  relative: string;
}

const FRAME = /File "([^"\n]+\.py)", line (\d+)/;

/** The line's traceback frame in an engine's package, or null (none, or another program's file). */
export function tracebackFrame(text: string): TracebackFrame | null {
  const at = text.indexOf('File "');
  if (at < 0) return null;
  const m = FRAME.exec(text.slice(at));
  if (!m || m.index !== 0) return null;
  const line = Number(m[2]);
  if (!Number.isSafeInteger(line) || line < 1) return null;
  const ep = engineRelativePath(m[1]);
  if (!ep) return null;
  const start = at + 'File '.length;
  return { file: m[1], line, start, end: at + m[0].length, engine: ep.engine, relative: ep.relative };
}

/** The frame's file in the source at `root`, or null when that source has no such file. */
export function frameFileIn(frame: TracebackFrame, root: string, exists: (path: string) => boolean = existsSync): string | null {
  for (const rel of [frame.relative, ...packageRelativeCandidates(frame.file, frame.engine)]) {
    const p = join(root, rel);
    if (exists(p)) return p;
  }
  return null;
}
