// The timeline fixtures (test/fixtures/timeline, see its README), staged in a temp folder the
// way the run left them on disk: vLLM stamps carry no year, so a log's year is taken from its
// modification time, which a checkout sets to the day of the checkout instead.
import { cpSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../../harness/tempDirs';

export const REPO = join(__dirname, '..', '..', '..', '..');
export const TIMELINE_FIXTURES = join(REPO, 'test', 'fixtures', 'timeline');

function touchLogs(dir: string, when: Date): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) touchLogs(p, when);
    else if (name.endsWith('.log')) utimesSync(p, when, when);
  }
}

/** A copy of test/fixtures/timeline/<name> whose logs were last written at `lastWritten`. */
export function stage(name: 'engine-run' | 'pd-run' | 'sglang-run', lastWritten?: Date): string {
  const dir = makeTempDir(`hoplens-timeline-${name}-`).path;
  cpSync(join(TIMELINE_FIXTURES, name), dir, { recursive: true });
  const when = lastWritten ?? (name === 'engine-run' ? new Date(engineRun(dir).finishedEpochMs + 3_600_000) : new Date(Date.UTC(2026, 7, 22, 1, 0, 0)));
  touchLogs(dir, when);
  return dir;
}

export interface EngineRunFacts {
  enginePid: number;
  apiServerPid: number;
  request: string;
  traceFile: string;
  /** [call, return] of each traced `step`, epoch ms. */
  steps: [number, number][];
  arrivalEpochMs: number;
  finishedEpochMs: number;
}

export function engineRun(dir: string): EngineRunFacts {
  return JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as EngineRunFacts;
}

export interface PdTruth {
  trueOffsetsMs: Record<'router.log' | 'prefill.log' | 'decode.log', number>;
  requests: Record<string, { routerReceived: number; prefillReceived: number; decodeReceived: number }>;
}

export function pdTruth(dir: string): PdTruth {
  return JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')) as PdTruth;
}
