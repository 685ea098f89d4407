// Every request's lines in one log that name only its transfer id (SGLang's bootstrap_room), for
// a view of the whole log (the Requests view) rather than of one request asked for (the timeline,
// annotate --rid). The rules are transferIds.ts': a line naming a request and one transfer id
// pairs them; a transfer id paired with two requests joins neither; one nothing pairs stays
// unjoined. The log's records are read once, in slices of a time budget (a 300,000-line log whose
// every request has room lines takes about 0.4 s), then only those appended since.
import type { LogRecord } from './model';
import { noteTransferIds, TransferLines, TransferPairs } from './transferIds';

/** A line joined to a request by the transfer id it names. */
export interface JoinedLine { record: LogRecord; id: string }

interface Scan { pairs: TransferPairs; alone: TransferLines; scanned: number }

/** Records read between looks at the clock. */
const SLICE = 2048;

export class LogTransferJoins {
  /** Per records array (a log's session starts over with a new one). */
  private readonly scans = new WeakMap<readonly LogRecord[], Scan>();

  /** `keyOf` makes a printed request id the key the caller asks by. */
  constructor(private readonly keyOf: (printedRid: string) => string, private readonly now: () => number = () => performance.now()) {}

  /**
   * The lines of `records` (record i is line i + 1) that name only a transfer id request `key`
   * alone was paired with, in line order, and what the engine calls that id; null when none;
   * 'reading' when the records not read yet took more than `budgetMs` (ask again to go on).
   */
  of(records: readonly LogRecord[], key: string, budgetMs = Infinity): { label: string; lines: JoinedLine[] } | null | 'reading' {
    const scan = this.catchUp(records, budgetMs);
    if (scan === null) return 'reading';
    if (scan.alone.empty) return null;
    // The request's own transfer ids (the pairs index them by key), then their lines: a look costs what it lists.
    const lines: JoinedLine[] = [];
    for (const id of scan.pairs.idsOf(key)) {
      if (scan.pairs.owner(id) === key) for (const record of scan.alone.linesOf(id)) lines.push({ record, id });
    }
    if (lines.length === 0) return null;
    lines.sort((a, b) => a.record.line - b.record.line);
    // A line naming two of the request's transfer ids, once.
    return { label: scan.pairs.label ?? 'transfer id', lines: lines.filter((j, i) => i === 0 || lines[i - 1].record !== j.record) };
  }

  /** The scan of `records`, every record read; null when the budget ran out first. */
  private catchUp(records: readonly LogRecord[], budgetMs: number): Scan | null {
    let scan = this.scans.get(records);
    if (!scan || scan.scanned > records.length) {
      scan = { pairs: new TransferPairs({ byKey: true }), alone: new TransferLines(), scanned: 0 };
      this.scans.set(records, scan);
    }
    if (scan.scanned === records.length) return scan;
    const until = budgetMs === Infinity ? Infinity : this.now() + budgetMs;
    while (scan.scanned < records.length) {
      const end = Math.min(records.length, scan.scanned + SLICE);
      for (let i = scan.scanned; i < end; i++) {
        const rec = records[i];
        if (rec.continuation || rec.engine === 'other' || rec.role === 'router') continue;
        noteTransferIds(rec, null, this.keyOf, scan.pairs, scan.alone);
      }
      scan.scanned = end;
      if (scan.scanned < records.length && this.now() >= until) return null;
    }
    return scan;
  }
}
