// How long HopLens itself takes to its first lens on a log, written to the output channel so a
// user (and the browser E2E) can tell HopLens's share from VS Code's: from the moment the
// extension host has the document (VS Code handed it over) to the first hops read, to the first
// time VS Code asked for lenses, and to the first non-empty list of lenses returned. The time
// before the hand-over is VS Code's copy of the document; after the list, the workbench's drawing.
// The hand-over line carries the host's clock (UTC, to the millisecond): the output channel
// stamps a line when it writes it, which during HopLens's activation is later than the moment.
import { monotonicClock, type Clock } from '../../core/clock';
import type { Logger } from '../../logging';

interface Times {
  readonly name: string;
  readonly at: number;
  firstHops: boolean;
  readAt: number | null;
  asks: number;
  firstAskAt: number | null;
  listed: boolean;
  resolved: boolean;
}

/** The file's name, as the output channel names a log. */
export function logName(uri: { path: string }): string {
  return uri.path.split('/').pop() ?? uri.path;
}

const ms = (n: number) => Math.max(0, Math.round(n));

export class FirstLensTimes {
  private readonly docs = new Map<string, Times>();

  constructor(private readonly log: Logger, private readonly clock: Clock = monotonicClock, private readonly wallClock: () => number = Date.now) {}

  /**
   * The extension host has the document: VS Code opened it, or (`beforeActivation`) it was open
   * before HopLens activated, when this moment is HopLens's activation, not VS Code's hand-over.
   */
  handedOver(uri: { path: string; toString(): string }, lines: number, beforeActivation = false): void {
    const name = logName(uri);
    this.docs.set(uri.toString(), { name, at: this.clock.now(), firstHops: false, readAt: null, asks: 0, firstAskAt: null, listed: false, resolved: false });
    const at = new Date(this.wallClock()).toISOString();
    this.log.info(beforeActivation
      ? `${name}: VS Code handed over ${lines} lines before HopLens activated (timed from the activation, at ${at} on the host's clock)`
      : `${name}: VS Code handed over ${lines} lines at ${at} on the host's clock`);
  }

  /** The session's first read of the document begins (its first slice is parsed next). */
  readBegins(uri: { toString(): string }): void {
    const t = this.docs.get(uri.toString());
    if (t) t.readAt ??= this.clock.now();
  }

  /** The session read its first hop lines (`lines`: lines read so far). */
  firstHops(uri: { toString(): string }, lines: number): void {
    const t = this.docs.get(uri.toString());
    if (!t || t.firstHops) return;
    t.firstHops = true;
    this.log.info(`${t.name}: first hops read ${ms(this.clock.now() - t.at)} ms after VS Code handed it over `
      + `(${lines} lines read; the read began at +${ms((t.readAt ?? t.at) - t.at)} ms)`);
  }

  /** VS Code asks for the document's lenses; returns when it asked. */
  asked(uri: { toString(): string }): number {
    const now = this.clock.now();
    const t = this.docs.get(uri.toString());
    if (t && !t.listed) {
      t.asks++;
      t.firstAskAt ??= now;
    }
    return now;
  }

  /** The provider answered the ask made at `askedAt` with `lenses` lenses, `titled` of them with their titles. */
  listed(uri: { toString(): string }, askedAt: number, lenses: number, titled: number): void {
    const t = this.docs.get(uri.toString());
    if (!t || t.listed || lenses === 0) return;
    t.listed = true;
    const now = this.clock.now();
    this.log.info(`${t.name}: first lens listed ${ms(now - t.at)} ms after VS Code handed it over `
      + `(VS Code asked ${t.asks} time(s), first at +${ms((t.firstAskAt ?? askedAt) - t.at)} ms; this answer took ${ms(now - askedAt)} ms: `
      + `${lenses} lenses, ${titled} titled when listed)`);
  }

  /** VS Code asked for a lens's title (it was listed without one). */
  resolved(uri: { toString(): string }): void {
    const t = this.docs.get(uri.toString());
    if (!t || t.resolved) return;
    t.resolved = true;
    this.log.info(`${t.name}: first lens resolved ${ms(this.clock.now() - t.at)} ms after VS Code handed it over`);
  }

  closed(uri: { toString(): string }): void {
    this.docs.delete(uri.toString());
  }
}
