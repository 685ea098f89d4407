import type { CliIO } from './io';

export async function runOtlp(_argv: string[], io: CliIO): Promise<number> {
  io.err('hoplens otlp: not available yet\n');
  return 2;
}
