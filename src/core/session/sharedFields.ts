// What a kept record holds, shared with the records before it. A record the editor keeps for each
// line of an open log lives as long as the document; the parser gives each one its own copies of
// the few names a log repeats line after line (the level, the source file, the request id, the
// stamp), each a heap object of its own, and the long ones views into the text they were cut
// from. Kept, a 50 MB log's 257 K records were 5.9 heap objects each; every young-generation
// collection during the first read copied all of them, 30–100 ms at a time (issue 28). Sharing
// the names leaves a record its own object and its message: the same values, fewer objects.
import type { LogRecord } from '../logs/model';

/** Names longer than this are not shared (a message-sized "name" is a line's own text). */
const MAX_SHARED_CHARS = 256;
/** Distinct names kept for sharing; past it new names stay the record's own (a log of random file names). */
const MAX_SHARED_NAMES = 100_000;

/** A copy of `s` that is not a view into a longer string (a view keeps all of that string alive). */
export function ownCopy(s: string): string {
  // Joining the string's code points builds a new string; lone surrogates stay as they are.
  return s.length < 2 ? s : [...s].join('');
}

export class SharedFields {
  private readonly names = new Map<string, string>();
  private time: number | null = null;

  /** `s` as the first record that had it had it (its own copy), or `s` when it is not shared. */
  name(s: string): string {
    const had = this.names.get(s);
    if (had !== undefined) return had;
    if (s.length > MAX_SHARED_CHARS || this.names.size >= MAX_SHARED_NAMES) return s;
    const own = ownCopy(s);
    this.names.set(own, own);
    return own;
  }

  /**
   * Points `rec`'s repeated fields at the strings and number earlier records hold (`ridOf`: the
   * copy of a request id the caller keeps already, if any). Nothing it reads changes.
   */
  share(rec: LogRecord, ridOf: (rid: string) => string | undefined): void {
    if (rec.level !== null) rec.level = this.name(rec.level);
    if (rec.fileinfo !== null) rec.fileinfo = this.name(rec.fileinfo);
    if (rec.process !== null) rec.process = this.name(rec.process);
    if (rec.role !== null) rec.role = this.name(rec.role);
    if (rec.rid !== null) rec.rid = ridOf(rec.rid) ?? this.name(rec.rid);
    if (rec.logger !== undefined) rec.logger = this.name(rec.logger);
    if (rec.func !== undefined) rec.func = this.name(rec.func);
    // A stamp of whole seconds repeats for hundreds of lines: one number for all of them.
    const t = rec.time;
    if (t !== null) {
      if (t === this.time) rec.time = this.time;
      else this.time = t;
    }
  }
}
