import type { CliIO } from './io';

export async function runMap(_argv: string[], io: CliIO): Promise<number> {
  io.err('hoplens map: not available yet\n');
  return 2;
}
