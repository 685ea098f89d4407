// The seam between log records and a checkout of the engine's source.
import type { Engine } from '../logs/model';

export interface SourceQuery {
  engine: Engine;
  /** vLLM fileinfo as printed (basename, shrunk path with `...`, or full path); null for SGLang. */
  fileinfo: string | null;
  lineno: number | null;
  /** The message as printed, used to verify the statement and to find it when it moved. */
  message: string;
  /** Hop id, when the line matched the hop table: its citation is a strong hint. */
  hop: string | null;
  /** A continuation line of a multi-line record (vLLM repeats the header after each `\n`). */
  continuation?: boolean;
  /** A custom logging layout's %(name)s (`sglang.srt.managers.scheduler`): a module path names the file. */
  module?: string | null;
  /**
   * The level as printed (`INFO`, `WARNING`): of the files a basename names, the call at the
   * printed line whose level it is (two `utils.py` with a call at line 92 that can print anything).
   */
  level?: string | null;
}

export interface SourceLocation {
  /** Path relative to the checkout root, forward slashes (e.g. "vllm/v1/engine/async_llm.py"). */
  path: string;
  /** 1-based line of the logging call in this checkout. */
  line: number;
  /** True when that line holds a logging call whose literal parts match the message. */
  verified: boolean;
  /** Lines between the printed lineno and where the statement is in this checkout (0 = same). */
  drift: number;
  /** How it was found: "fileinfo" | "fileinfo+literal" | "hop-table" | "statement-index". */
  method: string;
  /** Why an unverified location could not be verified, in words for a hover. */
  note?: string;
  /**
   * The line names another file, and the statement moved here from it since the release that
   * printed the line (`vllm/entrypoints/logger.py`): shown as moved, never verified, no drift claimed.
   */
  movedFrom?: string;
  /**
   * A statement of another file or code path prints text like this line's (V0's `engine.py`
   * "Added request" against V1's `async_llm.py`): a similar statement, not the one that printed it.
   */
  similar?: boolean;
  /** The statement prints fewer literal parts than the line shows (a field removed or renamed since). */
  changed?: boolean;
  /** Several statements print this text and nothing tells which: all of them, best first (this location is the first). */
  candidates?: Array<{ path: string; line: number }>;
}

/**
 * A line another program's layout printed that names only a module and a function
 * (NVIDIA Dynamo's `<ISO>Z  INFO module.func: msg`): nothing in it names the engine.
 */
export interface ClaimQuery {
  /** The module's name as printed (`multiproc_worker_utils`): a file of that name, `.py`. */
  module: string;
  /** The function as printed (`run`). */
  func: string;
  /** The message after the layout's header. */
  message: string;
  /** The level as printed, when the layout prints one. */
  level: string | null;
}

/** Whose line a ClaimQuery is, and its statement. */
export interface ClaimedSource {
  engine: Engine;
  location: SourceLocation;
}

export interface SourceResolver {
  resolve(q: SourceQuery): SourceLocation | null;
}
