import type { CliIO } from './io';

export async function runAnnotate(_argv: string[], io: CliIO): Promise<number> {
  io.err('hoplens annotate: not available yet\n');
  return 2;
}
