// What the demo E2Es check after Ctrl+C: that a process, a process group or a URL is gone.
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';

export function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** Live (non-zombie) processes of a process group, from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && Number(fields[2]) === pgid) out.push(Number(p));
    } catch { /* gone */ }
  }
  return out;
}

/** Whether anything answers HTTP at `url` (within 3 s). */
export function answers(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { timeout: 3_000 }, (res) => { res.resume(); resolve(true); });
    req.on('error', () => resolve(false));
    req.on('timeout', () => { req.destroy(); resolve(false); });
    req.end();
  });
}
