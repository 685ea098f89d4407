// How a long piece of work shares the thread it runs on (the editor's extension host): the
// budget of a slice, the turn the event loop gets between slices, and the bookkeeping of both.
// One pace for the editor (SHARED_THREAD) serves the document reads, the stream reads and the
// timeline's search alike.
import { monotonicClock, type Clock } from '../clock';

/**
 * How a long piece of work shares the thread it runs on (the editor's extension host): it works
 * for about `budgetMs`, then gives the event loop a turn (`turn`: setImmediate, which timers and
 * I/O get in before, and which is never clamped as a chain of `setTimeout(0)` is).
 */
export interface Pace {
  budgetMs: number;
  clock: Clock;
  turn(): Promise<void>;
}

/** 12 ms of work a turn: well under the 50 ms a user notices, with room for a slice that runs long on a busy machine. */
export const SHARED_THREAD: Pace = { budgetMs: 12, clock: monotonicClock, turn: () => new Promise<void>((r) => setImmediate(r)) };

/** A pace's turns: `due()` says this turn's budget is spent, `take()` gives the event loop its turn. */
export class Turns {
  private since: number;
  /** Turns given so far. */
  taken = 0;
  constructor(readonly pace: Pace = SHARED_THREAD) { this.since = pace.clock.now(); }
  due(): boolean { return this.pace.clock.now() - this.since >= this.pace.budgetMs; }
  async take(): Promise<void> {
    await this.pace.turn();
    this.taken++;
    this.since = this.pace.clock.now();
  }
  /** Gives a turn when one is due. */
  async breathe(): Promise<void> { if (this.due()) await this.take(); }
}

