// A host whose wall clock is off by a fixed amount, for the fleet demo's pods: every `new Date()`
// and `Date.now()` in this process reads `skewMs` ahead (or behind, when negative), as on a node
// whose NTP has drifted. The log lines a pod prints and the span times it exports then carry the
// same error, which is what HopLens's per-pod clock-offset estimate has to find. Monotonic time
// (performance.now) is untouched: timers and measured durations stay true.

let installed = false;

/** Skews this process's wall clock by `skewMs` (once; a second call with another value is an error). */
export function installClockSkew(skewMs: number): void {
  if (!Number.isFinite(skewMs)) throw new Error(`clock skew must be a number of ms, not ${skewMs}`);
  if (installed) throw new Error('the clock skew is already installed');
  installed = true;
  if (skewMs === 0) return;
  const TrueDate = Date;
  const skewedNow = () => TrueDate.now() + skewMs;
  class SkewedDate extends TrueDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(skewedNow());
      else super(...(args as [string | number | Date]));
    }
    static now(): number { return skewedNow(); }
  }
  globalThis.Date = SkewedDate as DateConstructor;
}
