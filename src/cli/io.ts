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
