// A hop is one logging statement of an engine that a request (or the batch it rides in)
// passes through. Tables are data: the parser matches messages against them, the CLI and
// the editor render them.
/** The engines built into HopLens (each a folder src/engines/<id>/ whose profile registry.ts lists). */
export type BuiltInEngine = 'vllm' | 'sglang';
/** The request APIs only one built-in engine's server answers (its profile's `request.ownApis`): SGLang's /generate. */
export type BuiltInOwnApi = 'sglang-generate';
declare const registeredEngine: unique symbol;
/**
 * The id of an engine added at run time: a string only `engineId` (registry.ts) makes, so a typo
 * does not pass for an engine. Nothing in the code knows these ids; it asks the registry.
 */
export type RegisteredEngine = string & { readonly [registeredEngine]: true };
/**
 * An engine HopLens knows: a built-in one or one registered (open: a new engine needs no change
 * here). Declared in the bottom layer: hop tables and every core module name it.
 */
export type Engine = BuiltInEngine | RegisteredEngine;

/** The commit an engine's hop table was read at, and where its code lives. */
export interface EnginePin {
  engine: Engine;
  /** The commit the hop table is pinned to. */
  sha: string;
  /** The commit the citations were actually read at (vLLM's pin was not available as a git object). */
  citationsReadAt: string;
  /** Public repository, owner/name. */
  repo: string;
  /** Path inside the checkout of the engine's Python package. */
  packageDir: string;
  /** Folders of a repository checkout holding Rust sources whose log lines are the engine's (SGLang's router). */
  rustDirs: string[];
}

/** A path under a folder that shows what the folder is: a file or a folder. */
export interface PathMark {
  path: string;
  kind: 'file' | 'dir';
}

/** One way an engine's code sits in a folder on disk (a git clone, an installed package's parent). */
export interface CheckoutShape {
  /** Folder of the Python package, relative to the root. */
  packageDir: string;
  /** Any of these under the root shows this shape. */
  marks: PathMark[];
  /** "repo": a git clone; "site-packages": an installed package's parent; or "repo" when any of these marks is under the root. */
  layout: 'repo' | 'site-packages' | { repoWhenAny: PathMark[] };
}

/** How an engine's code looks on disk: what finds a checkout of it, and what a release's tree holds. */
export interface EngineCheckout {
  /** The shapes, tried in order. */
  shapes: CheckoutShape[];
  /** In the package folder itself (a user chose …/site-packages/vllm): any of these shows it is the package. */
  packageMarks: PathMark[];
  /** What a folder that is not this engine's checkout is, in the message: `an SGLang checkout (no python/sglang/ folder)`. */
  notFound: string;
  /** The folder a release's package files go under in its unpacked tree (SGLang's python/), '' for the root. */
  releasePrefix: string;
  /** A release to name in an example (`0.8.5`: the usage's `vllm==0.8.5`). */
  exampleRelease: string;
  /** The lines that state the engine's version, given the version's pattern (one group). */
  releaseStated: (version: string) => RegExp[];
  /** Files whose statements moved to another file between releases, where no path rule can tell (src/core/source/moves.ts). */
  moves?: FileMove[];
  /**
   * Folders holding another implementation kept beside the old one (vLLM's `vllm/v1/`): a statement there is at most
   * similar for a line whose printed name does not show the folder.
   */
  parallelTrees?: string[];
}

/** A statement's file renamed between releases. */
export interface FileMove {
  /** The file the older releases printed from (repository-relative). */
  from: string;
  /** Where the statement is now. */
  to: string;
  /** The releases of the move, for the hover. */
  when: string;
}

/**
 * How HopLens's "Create Logging Config" sets an engine's Python logging up so its lines carry
 * milliseconds, a year and the full source path (the parser reads the result).
 */
export interface EngineLogging {
  /** The formatter's format string. */
  format: string;
  /** The level the config sets when the user names none. */
  defaultLevel: 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';
  /** The logger the config configures; null: the root logger. */
  logger: string | null;
  /** The environment variable that points the engine at the file. */
  envVar: string;
  /** The launch line, given the variable's assignment (`VAR=path`). */
  launchLine: (assignment: string) => string;
  /** The launch flag that turns its request logger on (`--log-requests`); absent: its requests are logged without one. */
  requestLogFlag?: string;
}

/**
 * What an engine's own code paths guarantee about the order of one request's lines across its
 * logs, for the timeline's clock estimate (src/core/timeline/clockRules.ts reads these).
 */
export interface EngineClockTraits {
  /** P/D: without kv params in the printed request, the prefill instance's copy is the one with max_tokens=1. */
  prefillSentWithOneToken?: boolean;
  /** P/D: the proxy sends to the decode instance only after the prefill instance answered (else: decode finishes after prefill had it). */
  decodeAfterPrefillAnswered?: boolean;
  /** Its request logger may write to a file of its own: Receive ≤ ReqTimeStats ≤ Finish across the two. */
  requestLoggerApart?: boolean;
  /** Its request span starts at arrival, before the line that admits the request (the span ↔ log ordering). */
  spanStartsBeforeAdmit?: boolean;
}

/** How an engine is pointed at an OTLP/HTTP traces endpoint (the trace receiver's launch hint). */
export interface EngineOtlp {
  /** The launch flag (or variable) that takes the endpoint (`--otlp-traces-endpoint`): what a message about the endpoint names. */
  endpointFlag: string;
  /** A whole launch line exporting its spans to `url` (what Copy Launch Line copies, what `hoplens otlp` prints). */
  launchLine: (url: string) => string;
  /** The same as words in a sentence: what to launch it with (`--otlp-traces-endpoint <url> and …`). */
  launchWith: (url: string) => string;
  /** The resource attribute its spans carry the exporting process's pid in (`vllm.process_id`), if any: ties a span to its log's process. */
  processIdAttribute?: string;
}

/** How a traced request talks to an engine's server: how the server is recognised, where the request's id goes. */
export interface EngineRequestApi {
  /** Paths only this engine answers with a JSON object (its version in `version`); asked before `answersAlso`. */
  answersOnly?: string[];
  /** A 200 to this path names the engine when no engine's `answersOnly` did (other servers may answer it too). */
  answersAlso?: string;
  /** The engine assumed, with a warning, when the server answered none of these. */
  assumedWhenUnknown?: boolean;
  /** The header that carries the request's id to the server's log lines, if any. */
  idHeader?: string;
  /** The body field that carries the request's id. */
  idBodyField: string;
  /** How its server is started, in short (`vllm serve …`): what a refused connection's hint names. */
  startCommand: string;
  /** The request APIs (Send Traced Request's `api`) only this engine's server answers. */
  ownApis?: readonly OwnApi[];
  /** The ids the server prints for a request whose id the client chose; absent: printed as chosen (`<id>_<i>` children). */
  serverIds?: (base: string, api: ApiKind) => ServerIds;
}

/** A request API only one engine's server answers (SGLang's /generate): where it is and what it is sent. */
export interface OwnApi {
  /** Send Traced Request's `api` (`sglang-generate`). */
  id: string;
  /** Its path at the server's root. */
  path: string;
  /** Which kind of call it is, for the ids the server prints. */
  kind: ApiKind;
  /** Whether the body names a model (asked of /v1/models when none is set). */
  needsModel: boolean;
  /** The streaming request's body (the request's id and any extra fields are added after). */
  body: (p: { prompt: string; temperature: number; maxTokens: number; model: string }) => Record<string, unknown>;
}

/** The API a traced request calls: the ids its server prints depend on it. */
export type ApiKind = 'chat' | 'completions' | 'generate';

/** The ids a server prints for one request whose id the client chose. */
export interface ServerIds {
  /** The key HopLens groups this request under (what `rid` will be in records). */
  normalised: string;
  /** Ids the server prints verbatim for this request. */
  exact: string[];
  /** Shapes with server-chosen parts (random suffix, child index). */
  patterns: RegExp[];
  /** The id in the SSE frames / meta_info. */
  streamId: string;
}

/** One tracer's file names: `<prefix>_for_process_<pid>_thread_<tid>_at_<datetime>.log`. */
export interface TraceFileName {
  prefix: string;
  /** Which tracer wrote the file (a call trace's `flavor`). */
  flavor: string;
}

/** Where an engine's call tracer (VLLM_TRACE_FUNCTION and its copies) writes, and how it names its files. */
export interface EngineTracing {
  files: TraceFileName[];
  /** The folder of one engine instance's traces (`vllm-instance-<id>`): its id in the first group. */
  instanceDir?: RegExp;
  /** The folders it writes to by default, under Python's temp folder, as path segments. */
  defaultDirs?: (user: string) => string[][];
}

/** What a request's missing hop means in this engine beyond the hop table's words, given what the log showed. */
export type MissingReason = (
  hop: HopDef, request: { rid: string; startupSeen: ReadonlySet<string> },
) => { kind: MissingKind; text: string } | null;

/** Why a hop may be absent from a request's lines. */
/**
 * The id a prefill/decode pair carries a request's KV transfer under (SGLang's `bootstrap_room`), as
 * its lines print it. Some lines name the request id and the transfer id both (they pair them), some
 * only the transfer id: those belong to the request the pairing names.
 */
export interface TransferIds {
  /** What the id is called in a message a user reads (`bootstrap_room`). */
  label: string;
  /** Text every message naming one holds (a cheap test before the forms are tried). */
  hint: string;
  /** The transfer ids a message names, by the engine's printed forms, each once, in order. */
  idsOf(message: string): string[];
  /** The request id a message names beside its transfer id (`req.rid='…'`), as printed; null when none. */
  ridOf(message: string): string | null;
}

export type MissingKind = 'gate' | 'level' | 'path' | 'frequency' | 'startup' | 'context';

export interface HopDef {
  /** Stable id from the spec (`V2`, `S5`); legacy wordings have their own id. */
  id: string;
  /**
   * The first release of the real-release matrix (test/unit/source/releaseMatrix.test.ts) whose
   * source prints this hop; null when none of them does (only later commits, or not the engine's
   * own statement). The matrix samples releases, so the hop may be a few releases older.
   * Absent: not measured against the releases yet (a hop added since).
   */
  since?: string | null;
  /** The last release of the matrix that prints it, when a later one no longer does. */
  until?: string;
  engine: Engine;
  /** The lab's hop number, when the lab table has this hop. */
  labId: string | null;
  /** Owning process role: "api-server" | "engine-core" | "tokenizer" | "scheduler". */
  role: string;
  /** Process as printed in the log prefix, in words. */
  process: string;
  level: string;
  /** Citation at the pinned commit: path relative to the repository root. */
  file: string;
  /** 1-based line of the logging call at the pin (the `[file:line]` vLLM prints), or null. */
  line: number | null;
  /** The format string at the pin. */
  format: string;
  /** vLLM only: basenames the `[fileinfo]` may end with (current and older file names). */
  fileBasenames: string[] | null;
  /** Cheap literal tests: the message must start with one of these before a pattern runs. */
  startsWith: string[];
  /** Message patterns (no prefix; anchored). Named groups: rid, rids, internal_rid. */
  patterns: RegExp[];
  /** How a request id in the message relates to the request. */
  ridKind: 'external' | 'internal' | 'list' | 'sglang' | null;
  /** "request": the line belongs to one request; "batch": a periodic line about many; "startup": once. */
  scope: 'request' | 'batch' | 'startup' | 'http';
  /** Flags / env that make the line appear. */
  flags: string[];
  gate: string;
  /** One paragraph, in our words. */
  meaning: string;
  /** Why a request may not have this line. */
  missing: { kind: MissingKind; text: string };
  /**
   * Prefill/decode disaggregation: the instance that prints this hop (the prefill instance sends
   * the request's KV cache, the decode instance loads it). Absent on every other hop. A P/D hop is
   * listed as missing only when other requests of the same log have it.
   */
  pd?: 'prefill' | 'decode';
  /** An older wording of a hop (still accepted, not expected in a pinned-version log). */
  legacy?: boolean;
  /** Every wording the patterns accept, with the versions that print it (current first). */
  wordings?: HopWording[];
}

/** One wording of a hop's message and where it is printed. */
export interface HopWording {
  /** The format as printed, values as `…`. */
  text: string;
  /** Engine versions (and file) that print it, with the public log it was checked against when there is one. */
  versions: string;
  /** A message printed in this wording (header removed). */
  example: string;
}

export interface HopTable {
  engine: Engine;
  /** The commit the citations are for. */
  pinnedSha: string;
  /** The commit the citations were actually read at (vLLM's pin was not available). */
  shaRead: string;
  pinNote: string;
  repoUrl: string;
  hops: HopDef[];
  /** Shell lines that launch the server so the hops appear. */
  launchHint: string;
}
