// The pd-run fixture (test/fixtures/timeline/pd-run) as the store-clock tests ship it: its three
// pods, the request they follow, the true clock offsets, and each line's printed stamp.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../cli/cliProcess';

export const PD = join(REPO, 'test', 'fixtures', 'timeline', 'pd-run');
export const RID = 'pd-0003';
export const truth = JSON.parse(readFileSync(join(PD, 'truth.json'), 'utf8')) as {
  trueOffsetsMs: Record<string, number>;
  requests: Record<string, { routerReceived: number; prefillReceived: number; decodeReceived: number }>;
};
export const PODS = [
  ['router.log', 'router-0', 'routerReceived'], ['prefill.log', 'prefill-0', 'prefillReceived'], ['decode.log', 'decode-0', 'decodeReceived'],
] as const;

/** The printed stamp of a line (UTC; vLLM's has no year: the run's, 2026), epoch ms. */
export function printedMs(line: string): number | null {
  const router = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/.exec(line);
  const vllm = /\b(?:INFO|DEBUG|WARNING) (\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/.exec(line);
  if (router) return Date.UTC(+router[1], +router[2] - 1, +router[3], +router[4], +router[5], +router[6]);
  if (vllm) return Date.UTC(2026, +vllm[1] - 1, +vllm[2], +vllm[3], +vllm[4], +vllm[5]);
  return null;
}
