// Time as the core reads it: a seam, so tests drive it and the editor, the CLI and workers share it.

/** Monotonic milliseconds (performance.now() in production; a fake in tests). */
export interface Clock {
  now(): number;
}

export const monotonicClock: Clock = { now: () => performance.now() };
