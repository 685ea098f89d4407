// The statements of a log by how often they printed (`hoplens annotate --summary`): every line
// counted under the statement that printed it, `fileinfo:lineno` as the log names it with its
// hop and level, and when it first and last printed. It answers "which statement floods my
// log" in one pass, the work a user otherwise asks of lnav's `GROUP BY src_file, src_line`.
// Both an engine's byte fast path (its StatementSink, src/engines/fastPath.ts) and records from
// parseLine count into one table.
import type { LogRecord, TimeResolution } from './model';
import { formatTime } from './jsonText';
import type { StatementSink, StatementSource } from '../../engines/fastPath';

export type { StatementSource };

/** One statement: the lines that share fileinfo, lineno, hop and level. */
export interface Statement {
  readonly fileinfo: string | null;
  readonly lineno: number | null;
  readonly hop: string | null;
  readonly level: string | null;
  /** Where the first line's source is; `verified` holds only while every line was verified there. */
  source: StatementSource | null;
  count: number;
  firstLine: number;
  lastLine: number;
  firstTime: number | null;
  firstRes: TimeResolution | null;
  firstUtc: boolean;
  lastTime: number | null;
  lastRes: TimeResolution | null;
  lastUtc: boolean;
  /** The message of the first line (prefixes removed). */
  readonly example: string;
}

export class StatementTable implements StatementSink<Statement> {
  private readonly byKey = new Map<string, Statement>();
  /** Lines counted. */
  lines = 0;

  get size(): number { return this.byKey.size; }

  /** The statement for these four values, made on first sight with the line that opened it. */
  open(fileinfo: string | null, lineno: number | null, hop: string | null, level: string | null,
    source: StatementSource | null, line: number, example: string): Statement {
    const key = `${fileinfo}\u0000${lineno}\u0000${hop}\u0000${level}`;
    let st = this.byKey.get(key);
    if (st === undefined) {
      st = {
        fileinfo, lineno, hop, level, source: source === null ? null : { path: source.path, line: source.line, verified: source.verified },
        count: 0, firstLine: line, lastLine: line, firstTime: null, firstRes: null, firstUtc: false, lastTime: null, lastRes: null, lastUtc: false, example,
      };
      this.byKey.set(key, st);
    }
    return st;
  }

  /** One more line of `st`; `time` null when the line carries none. */
  count(st: Statement, line: number, time: number | null, res: TimeResolution | null, utc: boolean): void {
    st.count++;
    st.lastLine = line;
    this.lines++;
    if (time === null || res === null) return;
    if (st.firstTime === null) { st.firstTime = time; st.firstRes = res; st.firstUtc = utc; }
    st.lastTime = time; st.lastRes = res; st.lastUtc = utc;
  }

  /** A record from parseLine, with the source the run gave it. */
  addRecord(rec: LogRecord, source: StatementSource | null): void {
    const st = this.open(rec.fileinfo, rec.lineno, rec.hop, rec.level, source, rec.line, rec.message);
    // A line resolved elsewhere, or not verified, leaves the statement's source unverified.
    if (st.count > 0 && st.source !== null && st.source.verified
      && (source === null || !source.verified || source.path !== st.source.path || source.line !== st.source.line)) st.source.verified = false;
    this.count(st, rec.line, rec.time, rec.timeResolution, rec.timeIsUtc === true);
  }

  /** Most lines first; among equals, the one that printed first. */
  sorted(): Statement[] {
    return [...this.byKey.values()].sort((a, b) => b.count - a.count || a.firstLine - b.firstLine);
  }
}

/** The statement's first or last time as annotate --json prints a line's time, or null. */
export function statementTime(st: Statement, which: 'first' | 'last'): string | null {
  const t = which === 'first' ? st.firstTime : st.lastTime;
  const res = which === 'first' ? st.firstRes : st.lastRes;
  return t === null || res === null ? null : formatTime(t, res, which === 'first' ? st.firstUtc : st.lastUtc);
}

/** The `--summary --json` object of one statement. */
export function statementJson(st: Statement): Record<string, unknown> {
  return {
    kind: 'statement', fileinfo: st.fileinfo, lineno: st.lineno, count: st.count, source: st.source, hop: st.hop, level: st.level,
    first: statementTime(st, 'first'), last: statementTime(st, 'last'), firstLine: st.firstLine, lastLine: st.lastLine, example: st.example,
  };
}
