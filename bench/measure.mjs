// Timing a command the way the benchmarks report it: wall time, CPU time and peak RSS from
// /usr/bin/time -v (wall time only where it is missing), and the median of alternating runs.
// (The older benchmarks each carry a copy of `timed`; new ones import it from here.)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Runs `cmd args` with stdout discarded; wall seconds, CPU seconds, peak RSS in MB, exit status, stderr. */
export function timed(cmd, args) {
  const hasTime = existsSync('/usr/bin/time');
  const t0 = process.hrtime.bigint();
  const r = hasTime
    ? spawnSync('/usr/bin/time', ['-v', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 })
    : spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const err = r.stderr.toString();
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
  const user = /User time \(seconds\): ([\d.]+)/.exec(err);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
  return { wall, cpu: user && sys ? Number(user[1]) + Number(sys[1]) : null, rssMB: rss ? Number(rss[1]) / 1024 : null, status: r.status, err };
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
