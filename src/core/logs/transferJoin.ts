// Every request's lines that name only its transfer id (SGLang's bootstrap_room), for a view of
// whole logs (the Requests view, the choice of open logs for a timeline) rather than of one request
// asked for (the timeline, annotate --rid). The rules are transferIds.ts': a line naming a request
// and one transfer id pairs them; a transfer id paired with two requests joins neither; one nothing
// pairs stays unjoined. The pairing may be in another log than the line (a prefill instance's
// Mooncake line names the room, the decode instance's line pairs it with the rid): `across` asks
// several logs at once, the rules holding across them. Each log's records are read once, in slices
// of a time budget (a 300,000-line log whose every request has room lines takes about 0.4 s), then
// only those appended since.
import type { LogRecord } from './model';
import { noteTransferIds, TransferLines, TransferPairs } from './transferIds';

/** A line joined to a request by the transfer id it names; `pairedIn`: the logs (their indexes) whose lines paired that id with it. */
export interface JoinedLine { record: LogRecord; id: string; pairedIn: number[] }

/** A log's lines joined to one request: what the engine calls the transfer id, and the lines. */
export interface Joined { label: string; lines: JoinedLine[] }

interface Scan { pairs: TransferPairs; alone: TransferLines; scanned: number }
/** One call's time: its deadline, and whether a slice was read yet (each call reads one at least). */
interface Budget { until: number; read: boolean }

/** A log's records (record i is line i + 1); a hole (a record not kept) is passed over. */
export type LogRecords = readonly (LogRecord | undefined)[];

/** Records read between looks at the clock. */
const SLICE = 2048;

export class LogTransferJoins {
  /** Per records array (a log's session starts over with a new one). */
  private readonly scans = new WeakMap<LogRecords, Scan>();

  /** `keyOf` makes a printed request id the key the caller asks by. */
  constructor(private readonly keyOf: (printedRid: string) => string, private readonly now: () => number = () => performance.now()) {}

  /**
   * The lines of `records` (record i is line i + 1) that name only a transfer id request `key`
   * alone was paired with, in line order, and what the engine calls that id; null when none;
   * 'reading' when the records not read yet took more than `budgetMs` (ask again to go on).
   */
  of(records: LogRecords, key: string, budgetMs = Infinity): Joined | null | 'reading' {
    const found = this.across([records], key, budgetMs);
    return found === 'reading' ? found : found[0];
  }

  /**
   * As `of` for several logs at once (a prefill and a decode instance's), by their index in
   * `logs`: each log's lines naming only a transfer id that any of the logs paired with request
   * `key` and none with another request. One budget for them all: 'reading' when the records not
   * read yet, in any log, took more than `budgetMs` (ask again to go on; each log goes on where it
   * stopped, and a log appended to is read from its new records on).
   */
  across(logs: readonly LogRecords[], key: string, budgetMs = Infinity): (Joined | null)[] | 'reading' {
    const budget: Budget = { until: budgetMs === Infinity ? Infinity : this.now() + budgetMs, read: false };
    const scans: Scan[] = [];
    for (const records of logs) {
      const scan = this.catchUp(records, budget);
      if (scan === null) return 'reading';
      scans.push(scan);
    }
    // The request's transfer ids in any log (the pairs index them by key), kept when no log gives them another request.
    const ids = new Set<string>();
    for (const scan of scans) for (const id of scan.pairs.idsOf(key)) ids.add(id);
    if (ids.size === 0) return scans.map(() => null);
    const all = scans.map((s) => s.pairs);
    const own = [...ids].filter((id) => TransferPairs.ownerIn(all, id) === key);
    const label = all.find((p) => p.label !== null)?.label ?? 'transfer id';
    const pairedIn = new Map(own.map((id) => [id, all.flatMap((p, i) => (p.owner(id) === key ? [i] : []))]));
    // Then their lines in each log: a look costs what it lists.
    return scans.map((scan) => {
      if (scan.alone.empty) return null;
      const lines: JoinedLine[] = [];
      for (const id of own) for (const record of scan.alone.linesOf(id)) lines.push({ record, id, pairedIn: pairedIn.get(id)! });
      if (lines.length === 0) return null;
      lines.sort((a, b) => a.record.line - b.record.line);
      // A line naming two of the request's transfer ids, once.
      return { label, lines: lines.filter((j, i) => i === 0 || lines[i - 1].record !== j.record) };
    });
  }

  /** The scan of `records`, every record read; null when the budget ran out first (after at least one slice of the call). */
  private catchUp(records: LogRecords, budget: Budget): Scan | null {
    let scan = this.scans.get(records);
    if (!scan || scan.scanned > records.length) {
      scan = { pairs: new TransferPairs({ byKey: true }), alone: new TransferLines(), scanned: 0 };
      this.scans.set(records, scan);
    }
    while (scan.scanned < records.length) {
      if (budget.read && budget.until !== Infinity && this.now() >= budget.until) return null;
      const end = Math.min(records.length, scan.scanned + SLICE);
      for (let i = scan.scanned; i < end; i++) {
        const rec = records[i];
        if (rec === undefined || rec.continuation || rec.engine === 'other' || rec.role === 'router') continue;
        noteTransferIds(rec, null, this.keyOf, scan.pairs, scan.alone);
      }
      scan.scanned = end;
      budget.read = true;
    }
    return scan;
  }
}
