// Public shapes of the call-trace index: what the view and the command line read.

/** Which tracer wrote a file, from its name: a `flavor` of an engine profile's `tracing.files` (vLLM's, its legacy frame tracer's, SGLang diffusion's). */
export type TraceFlavor = string;

export interface TraceFileInfo {
  /** Absolute path. */
  path: string;
  pid: number;
  /** `threading.get_ident()` of the traced thread (can exceed 2^53 in theory; kept as text too). */
  tid: number;
  tidText: string;
  /** The `at_<datetime>` part as written (underscore for the space). */
  startedAt: string;
  flavor: TraceFlavor;
  /** Folder name `vllm-instance-<id>` → `<id>`; otherwise the parent folder's name. */
  instanceId: string;
  size: number;
}

export interface IgnoredFile {
  path: string;
  reason: string;
}

export interface TraceInstance {
  id: string;
  dir: string;
  files: TraceFileInfo[];
}

export interface DiscoveryResult {
  instances: TraceInstance[];
  ignored: IgnoredFile[];
  /** Folders that could not be read, with the reason. */
  errors: IgnoredFile[];
  /** Folders and links not walked into: deeper than the depth limit, or a link out of the root. */
  skipped: IgnoredFile[];
}

/** Counters every thread index keeps about what it read. */
export interface ThreadStats {
  bytesRead: number;
  lines: number;
  calls: number;
  returns: number;
  /** Lines that are neither a call nor a return in any known format. */
  garbledLines: number;
  /** Returns with no matching call (tracing started mid-stack); each gets a synthetic parent. */
  orphanReturns: number;
  /** Returns that closed a call deeper than the top of the stack: the calls above it lost their return. */
  mismatchedReturns: number;
  /** Calls closed by a later mismatched return (their real return line is missing). */
  unterminatedCalls: number;
  maxDepth: number;
  /** Calls beyond the node cap: counted, not stored as nodes. */
  droppedCalls: number;
  /** The file ends in a line with no newline (being written, or cut off): not an error. */
  partialLastLine: boolean;
  /** First few garbled lines, for the report. */
  garbledSamples: Array<{ offset: number; text: string }>;
  /** Line format seen: "current" (from/to), "legacy" (no caller part), or "mixed". */
  format: 'current' | 'legacy' | 'mixed' | 'none';
  firstTs: number;
  lastTs: number;
}

/** A process role guessed from the functions the thread ran. */
export type ProcessRole = 'engine-core' | 'worker' | 'api-server' | 'unknown';

/** One row of a lazily expanded tree level: a call, or a run of identical consecutive sibling calls (×N). */
export interface CallRow {
  /** Node id of the (first) call of the row. */
  nodeId: number;
  /** 1 for a single call; N for a collapsed run of N identical consecutive sibling calls. */
  count: number;
  fn: string;
  /** Absolute path as the tracer wrote it. */
  file: string;
  /** Definition line (the function's first line, from the call event). */
  line: number;
  /** Where it was called from (the caller's file and current line); null for an initial frame. */
  callSite: { fn: string; file: string; line: number } | null;
  /** Start of the (first) call, µs since the epoch of the naive local timestamps. */
  startUs: number;
  /** Return − call, summed over the run; null when (any call of the run is) still open. */
  durationUs: number | null;
  /** Duration minus the children's durations, summed over the run; null when open. */
  selfUs: number | null;
  /** Children of the (first) call. For a run, the total over the run. */
  childCount: number;
  /** Depth in the thread's call tree (0 = top level). */
  depth: number;
  /** True when the call never returned before the end of the file: the "where is it stuck" mark. */
  open: boolean;
  /** True when the call was synthesised from a return without a call (tracing began inside it). */
  synthetic: boolean;
  /** True when the call's return line is missing (closed by a return further out). */
  unterminated: boolean;
  /** Byte offset of the call line in the trace file (-1 for a synthetic call). */
  offset: number;
}

export interface ChildrenPage {
  rows: CallRow[];
  /** Total number of rows at this level (after ×N collapsing and filtering). */
  total: number;
}

export interface PageOptions {
  offset?: number;
  limit?: number;
  /** Collapse consecutive identical sibling calls into one ×N row (default true). */
  collapse?: boolean;
  /** Show only calls whose function is in this list, plus their ancestors (empty/undefined = all). */
  filter?: readonly string[];
}

export interface ThreadSummary {
  key: string;
  file: TraceFileInfo;
  role: ProcessRole;
  stats: ThreadStats;
  /** Top-level calls (children of the thread root). */
  topLevelCount: number;
  /** The calls still open at the end of the file, outermost first. */
  openStack: Array<{ nodeId: number; fn: string; file: string; line: number; startUs: number }>;
}

export interface IndexProgress {
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
  currentFile: string | null;
}
