// The extensionTestsPath of the untrusted-workspace run (test/harness/untrustedRun.ts).
import { runMochaIn } from '../index';

export function run(): Promise<void> {
  return runMochaIn(__dirname, 'integration (untrusted workspace)');
}
