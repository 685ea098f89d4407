import type { CliIO } from './io';

export async function runCalltrace(_argv: string[], io: CliIO): Promise<number> {
  io.err('hoplens calltrace: not available yet\n');
  return 2;
}
