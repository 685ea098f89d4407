// The fake vLLM server's engine core, traced as `VLLM_TRACE_FUNCTION=1` traces it (spec §C): with
// TP=1 the worker runs in the EngineCore process's main thread, so that thread's busy loop is
// what the trace file holds. The fake engine is one Node process; it plays an EngineCore
// process with its own pid, prints that process's two tracer lines into the server log, and
// appends the calls of each engine step to the trace file in the tracer's exact line format
// and file naming, at the times the steps ran. The demo ships it, so that a request's timeline
// shows the calls that ran during it.
import { appendFileSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { pad2 as p2 } from '../fake';
import { vllmTime } from './fakeFrames';

/** Where a pip-installed vLLM lives in a container; HopLens maps it to the checkout by the package folder. */
const SITE = '/usr/local/lib/python3.12/site-packages';

// Functions of vllm/v1/engine/core.py (names as in vLLM; line numbers illustrative, and the
// test checkout's core.py has each `def` at its line): where each starts, the line it calls its
// callee from, and the line it returns at.
const F = {
  busyLoop: { fn: 'run_busy_loop', def: 880, calls: 893 },
  inputQueue: { fn: '_process_input_queue', def: 899, calls: 918, ret: 918 },
  addRequest: { fn: 'add_request', def: 239, ret: 271 },
  engineStep: { fn: '_process_engine_step', def: 924, calls: 927, ret: 940 },
  step: { fn: 'step', def: 372, calls: 389, ret: 396 },
  execute: { fn: 'execute_model_with_error_logging', def: 344, ret: 352 },
} as const;

/** `datetime.now().strftime("%Y-%m-%d %H:%M:%S.%f")`: local time, microseconds. */
export function tracerTime(epochMs: number): string {
  const d = new Date(Math.floor(epochMs));
  const us = Math.floor((epochMs - Math.floor(epochMs / 1000) * 1000) * 1000);
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}.${p2(us, 6)}`;
}

export class EngineCoreTrace {
  readonly path: string;
  readonly instanceDir: string;
  /** The traced file: core.py under `sourceRoot` (the demo passes its checkout, so every cited line exists). */
  private readonly core: string;

  constructor(traceRoot: string, readonly pid: number, readonly threadId: number, log: (line: string) => void, now = Date.now(), sourceRoot = SITE) {
    this.core = join(sourceRoot, 'vllm', 'v1', 'engine', 'core.py');
    let user = 'root';
    try { user = userInfo().username; } catch { /* no passwd entry: vLLM would fail here; keep root */ }
    this.instanceDir = join(traceRoot, user, 'vllm', `vllm-instance-${BigInt(Math.floor(now)) * 1_000_000n}`);
    mkdirSync(this.instanceDir, { recursive: true });
    this.path = join(this.instanceDir, `VLLM_TRACE_FUNCTION_for_process_${pid}_thread_${threadId}_at_${tracerTime(now)}.log`.replace(/ /g, '_'));
    appendFileSync(this.path, '');
    const at = vllmTime(new Date(now));
    log(`(EngineCore_DP0 pid=${pid}) WARNING ${at} [logger.py:301] VLLM_TRACE_FUNCTION is enabled. `
      + 'It will record every function executed by Python. This will slow down the code. '
      + 'It is suggested to be used for debugging hang or crashes only.');
    log(`(EngineCore_DP0 pid=${pid}) INFO ${at} [logger.py:308] Trace frame log is saved to ${this.path}`);
  }

  private call(t: number, callee: { fn: string; def: number }, caller: { fn: string; calls: number }): string {
    return `${tracerTime(t)} Call to ${callee.fn} in ${this.core}:${callee.def} from ${caller.fn} in ${this.core}:${caller.calls}\n`;
  }

  private ret(t: number, callee: { fn: string; ret: number }, caller: { fn: string; calls: number }): string {
    return `${tracerTime(t)} Return from ${callee.fn} in ${this.core}:${callee.ret} to ${caller.fn} in ${this.core}:${caller.calls}\n`;
  }

  /** The busy loop takes a new request off its input queue. */
  addRequest(startMs: number, endMs: number): void {
    const mid = startMs + (endMs - startMs) / 2;
    appendFileSync(this.path, this.call(startMs, F.inputQueue, F.busyLoop) + this.call(mid, F.addRequest, F.inputQueue)
      + this.ret(endMs - 0.002, F.addRequest, F.inputQueue) + this.ret(endMs, F.inputQueue, F.busyLoop));
  }

  /** One engine step (schedule, run the model, update), from `startMs` to `endMs` (epoch ms). */
  step(startMs: number, endMs: number): void {
    const us = 0.001;
    appendFileSync(this.path, this.call(startMs, F.engineStep, F.busyLoop) + this.call(startMs + 2 * us, F.step, F.engineStep)
      + this.call(startMs + 40 * us, F.execute, F.step) + this.ret(endMs - 30 * us, F.execute, F.step)
      + this.ret(endMs - 10 * us, F.step, F.engineStep) + this.ret(endMs, F.engineStep, F.busyLoop));
  }
}
