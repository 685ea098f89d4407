// Output seam for the command line, so tests can capture what a command prints.
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export function processIO(): CliIO {
  return {
    out: (t) => { process.stdout.write(t); },
    err: (t) => { process.stderr.write(t); },
  };
}

/** Collects output in memory (tests). */
export function bufferIO(): CliIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out(t: string) { io.stdout += t; }, err(t: string) { io.stderr += t; } };
  return io;
}

/** Batches output so a long listing is a few large writes, not one per line. */
export function batchedOut(io: CliIO): { line(s: string): void; flush(): void } {
  let buf: string[] = [];
  let size = 0;
  return {
    line(s: string) { buf.push(s, '\n'); size += s.length + 1; if (size > 1 << 16) { io.out(buf.join('')); buf = []; size = 0; } },
    flush() { if (buf.length) io.out(buf.join('')); buf = []; size = 0; },
  };
}
