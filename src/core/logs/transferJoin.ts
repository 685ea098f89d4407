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

/** requestsOf's work on some logs: the ids of log `index`'s room-only lines, those looked at, the answer so far. */
interface Assembly { logs: LogRecords[]; index: number; seen: number[]; ids: string[]; at: number; out: Map<string, Joined>; done: boolean }

/** A log's records (record i is line i + 1); a hole (a record not kept) is passed over. */
export type LogRecords = readonly (LogRecord | undefined)[];

/** Records read between looks at the clock. */
const SLICE = 2048;

/** The logs (their indexes) whose lines paired transfer id `id` with request `key`. */
function pairedInLogs(all: readonly TransferPairs[], id: string, key: string): number[] {
  return all.flatMap((p, i) => (p.owner(id) === key ? [i] : []));
}

/** Joined lines in line order, a line naming two of the request's transfer ids once. */
function inLineOrder(lines: JoinedLine[]): JoinedLine[] {
  lines.sort((a, b) => a.record.line - b.record.line);
  return lines.filter((j, i) => i === 0 || lines[i - 1].record !== j.record);
}

export class LogTransferJoins {
  /** Per records array (a log's session starts over with a new one). */
  private readonly scans = new WeakMap<LogRecords, Scan>();
  /** requestsOf's last answer, or the part of it worked out so far, for the logs as far as they were read. */
  private assembly: Assembly | null = null;

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
    const scans = this.scansWithin(logs, this.budget(budgetMs));
    if (scans === null) return 'reading';
    // The request's transfer ids in any log (the pairs index them by key), kept when no log gives them another request.
    const ids = new Set<string>();
    for (const scan of scans) for (const id of scan.pairs.idsOf(key)) ids.add(id);
    if (ids.size === 0) return scans.map(() => null);
    const all = scans.map((s) => s.pairs);
    const own = [...ids].filter((id) => TransferPairs.ownerIn(all, id) === key);
    const label = all.find((p) => p.label !== null)?.label ?? 'transfer id';
    const pairedIn = new Map(own.map((id) => [id, pairedInLogs(all, id, key)]));
    // Then their lines in each log: a look costs what it lists.
    return scans.map((scan) => {
      if (scan.alone.empty) return null;
      const lines: JoinedLine[] = [];
      for (const id of own) for (const record of scan.alone.linesOf(id)) lines.push({ record, id, pairedIn: pairedIn.get(id)! });
      return lines.length === 0 ? null : { label, lines: inLineOrder(lines) };
    });
  }

  /**
   * Every request log `index`'s lines naming only a transfer id join, by key: the requests any of
   * `logs` paired those ids with (one request an id), each with its lines in line order. A
   * prefill log whose only lines of a request are its transfer's has the request here, though it
   * has no hop of it. 'reading' as for `across`: the answer is worked out in slices of the budget
   * too (60,000 rooms are about 0.1 s of it), and kept until a log has new records.
   */
  requestsOf(logs: readonly LogRecords[], index: number, budgetMs = Infinity): Map<string, Joined> | 'reading' {
    const budget = this.budget(budgetMs);
    const scans = this.scansWithin(logs, budget);
    if (scans === null) return 'reading';
    const mine = scans[index];
    if (mine === undefined || mine.alone.empty) return new Map();
    const seen = scans.map((s) => s.scanned);
    let a = this.assembly;
    if (!a || a.index !== index || a.logs.length !== logs.length || a.logs.some((l, i) => l !== logs[i]) || a.seen.some((n, i) => n !== seen[i])) {
      a = { logs: [...logs], index, seen, ids: [...mine.alone.ids()], at: 0, out: new Map(), done: false };
      this.assembly = a;
    }
    if (a.done) return a.out;
    const all = scans.map((s) => s.pairs);
    const label = all.find((p) => p.label !== null)?.label ?? 'transfer id';
    while (a.at < a.ids.length) {
      if (budget.read && budget.until !== Infinity && this.now() >= budget.until) return 'reading';
      const end = Math.min(a.ids.length, a.at + SLICE);
      for (; a.at < end; a.at++) {
        const id = a.ids[a.at];
        const key = TransferPairs.ownerIn(all, id);
        if (key === null) continue;
        const pairedIn = pairedInLogs(all, id, key);
        let joined = a.out.get(key);
        if (!joined) { joined = { label, lines: [] }; a.out.set(key, joined); }
        for (const record of mine.alone.linesOf(id)) joined.lines.push({ record, id, pairedIn });
      }
      budget.read = true;
    }
    for (const joined of a.out.values()) joined.lines = inLineOrder(joined.lines);
    a.done = true;
    return a.out;
  }

  /** One call's budget of `budgetMs` from now. */
  private budget(budgetMs: number): Budget {
    return { until: budgetMs === Infinity ? Infinity : this.now() + budgetMs, read: false };
  }

  /** Each log's scan, every record read; null when the call's budget ran out first. */
  private scansWithin(logs: readonly LogRecords[], budget: Budget): Scan[] | null {
    const scans: Scan[] = [];
    for (const records of logs) {
      const scan = this.catchUp(records, budget);
      if (scan === null) return null;
      scans.push(scan);
    }
    return scans;
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
