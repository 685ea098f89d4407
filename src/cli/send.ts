import type { CliIO } from './io';

export async function runSend(_argv: string[], io: CliIO): Promise<number> {
  io.err('hoplens send: not available yet\n');
  return 2;
}
