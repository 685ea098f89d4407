// Every request's lines in one log that name only its transfer id (SGLang's bootstrap_room), for
// a view of the whole log (the Requests view) rather than of one request asked for (the timeline,
// annotate --rid). The rules are transferIds.ts': a line naming a request and one transfer id
// pairs them; a transfer id paired with two requests joins neither; one nothing pairs stays
// unjoined. The log's records are read once, then only those appended since.
import type { LogRecord } from './model';
import { noteTransferIds, TransferLines, TransferPairs } from './transferIds';

/** A line joined to a request by the transfer id it names. */
export interface JoinedLine { record: LogRecord; id: string }

interface Scan { pairs: TransferPairs; alone: TransferLines; scanned: number }

export class LogTransferJoins {
  /** Per records array (a log's session starts over with a new one). */
  private readonly scans = new WeakMap<readonly LogRecord[], Scan>();

  /** `keyOf` makes a printed request id the key the caller asks by. */
  constructor(private readonly keyOf: (printedRid: string) => string) {}

  /**
   * The lines of `records` (record i is line i + 1) that name only a transfer id request `key`
   * alone was paired with, in line order, and what the engine calls that id; null when none.
   */
  of(records: readonly LogRecord[], key: string): { label: string; lines: JoinedLine[] } | null {
    const scan = this.catchUp(records);
    if (scan.alone.empty) return null;
    const lines = scan.alone.joinedOf(scan.pairs, key);
    return lines.length ? { label: scan.pairs.label ?? 'transfer id', lines } : null;
  }

  private catchUp(records: readonly LogRecord[]): Scan {
    let scan = this.scans.get(records);
    if (!scan || scan.scanned > records.length) {
      scan = { pairs: new TransferPairs(), alone: new TransferLines(), scanned: 0 };
      this.scans.set(records, scan);
    }
    for (let i = scan.scanned; i < records.length; i++) {
      const rec = records[i];
      if (rec.continuation || rec.engine === 'other' || rec.role === 'router') continue;
      noteTransferIds(rec, null, this.keyOf, scan.pairs, scan.alone);
    }
    scan.scanned = records.length;
    return scan;
  }
}
