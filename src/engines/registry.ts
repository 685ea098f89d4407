// The engines HopLens knows, one profile each, and the one registry the rest of the code asks:
// which engines there are, an engine's hop table, its process roles, how its ids print, and (for
// an engine without a hand-written grammar in src/core/logs) the shapes of its log lines. A new
// engine is a folder src/engines/<id>/ with a profile registered here (ARCHITECTURE.md).
import type {
  Engine, EngineCheckout, EngineClockTraits, EngineLogging, EngineOtlp, EnginePin, EngineRequestApi, EngineTracing, HopDef, HopTable,
  MissingReason, OwnApi, TransferIds,
} from './types';
import type { EngineGrammar } from './grammar';
import { VLLM_PROFILE } from './vllm/profile';
import { SGLANG_PROFILE } from './sglang/profile';

/**
 * A header shape of an engine whose lines the generic reader (src/core/logs/shapedGrammar.ts) reads.
 * `pattern` is anchored at the line's start; named groups it may have: level, year, month, day,
 * hour, minute, second, fraction (digits after the second), file, lineno, process, pid. The message
 * is what follows the match.
 */
export interface LineShape {
  /** The record's `format` (e.g. `toyllm`). */
  format: string;
  pattern: RegExp;
}

export interface EngineProfile {
  id: Engine;
  /** As users write it (`vLLM`, `SGLang`). */
  label: string;
  hops: HopTable;
  /**
   * The id of the hop in its table that its server's uvicorn access-log lines are (records of format `uvicorn`:
   * `INFO:     127.0.0.1:5000 - "POST /v1/… HTTP/1.1" 200 OK`); absent: such a line is none of its hops.
   */
  accessLogHop?: string;
  /** The role a process name stands for: the first rule that fits. */
  processRoles: ReadonlyArray<readonly [RegExp, string]>;
  /** The process a hop's line names when its header names none (SGLang's lines carry no process). */
  processOfRole?: (role: string) => string;
  /** Request ids print as the client or the server chose them, with no engine suffix to take off. */
  ridsVerbatim: boolean;
  /** The commit the hop table was read at and the engine's repository (an engine with source to open). */
  pin?: EnginePin;
  /** How its code looks on disk (checkouts, installed packages, release trees); absent: none is looked for. */
  checkout?: EngineCheckout;
  /** How "Create Logging Config" sets its logging up; absent: it offers none. */
  logging?: EngineLogging;
  /** How a traced request recognises its server and carries its id; absent: Send Traced Request does not know it. */
  request?: EngineRequestApi;
  /** What its code paths guarantee about the order of a request's lines (the timeline's clock rules). */
  clock?: EngineClockTraits;
  /** Header shapes for the generic reader; the built-in engines' grammars are hand-written (<id>/grammar.ts). */
  lineShapes?: readonly LineShape[];
  /**
   * Its stamp on a line read alone, with no log around it (a traced request's lines in the server log,
   * src/core/request/logLink.ts): anchored, named groups month, day, hour, minute, second, and where printed
   * year (absent: the year nearest the request) and fraction (digits after the second); read as local time.
   * Absent: the stamps its `lineShapes` read.
   */
  stampShape?: RegExp;
  /** How it is pointed at an OTLP traces endpoint (the trace receiver's launch hint); absent: it exports no spans HopLens knows. */
  otlp?: EngineOtlp;
  /**
   * Where on a line its header stands (`[from, to)` in `text`, after `start`), for a line it prints
   * without file:line whose statement was found by its text (`resolvesUnplacedLines`): the link goes
   * there (SGLang's `[time rank]`). Null: no place for one.
   */
  headerSpan?: (text: string, start: number, message: string) => readonly [number, number] | null;
  /**
   * A hand-written header grammar of its own (src/engines/grammar.ts: EngineGrammar), tried after
   * the built-in ones, for an engine registered at run time (the built-in engines' are listed in grammars.ts).
   */
  grammar?: EngineGrammar;
  /** A Python logger name or a path whose module is this engine's (a custom layout's %(name)s or %(pathname)s). */
  loggerNames?: RegExp;
  /** The Rust crates whose tracing targets are this engine's lines (SGLang's router: `sglang_router_rs`, …). */
  rustCrates?: readonly string[];
  /** The role of a process its rank tags name (`TP0` in a custom layout's line). */
  rankRole?: string;
  /** The path inside its repository that a printed file (`[fileinfo:lineno]`, `%(pathname)s`) names, when the text alone says it. */
  pathFromFileinfo?: (fileinfo: string) => string | null;
  /** A hop's citation takes the line number the log printed (the server's own release), not the table's line at the pin. */
  citesPrintedLine?: boolean;
  /** Its lines print no file:line, so a checkout is asked about every line of its own (by hop, else by text). */
  resolvesUnplacedLines?: boolean;
  /** Its call tracer's files and folders (the Call Traces view, `hoplens calltrace`). */
  tracing?: EngineTracing;
  /** Why a hop is missing from a request beyond the table's words (a startup notice, the API path the request took). */
  missingReason?: MissingReason;
  /** The id its prefill/decode lines carry a request's KV transfer under (SGLang's bootstrap_room); absent: none. */
  transferIds?: TransferIds;
}

const BUILT_IN: readonly EngineProfile[] = [VLLM_PROFILE, SGLANG_PROFILE];
/** The registry itself: the profiles by id, built-in first, then in the order they were registered. */
const profiles = new Map<string, EngineProfile>(BUILT_IN.map((p) => [p.id, p]));

// Views of the map for the code that asks on every line (derived from it by `derive`; read them, do not change them).
/** Hop tables by engine (the hop matcher reads it on every line). */
export const HOP_TABLES = {} as Record<Engine, HopTable>;
/** The uvicorn access-log hop by engine, for the engines whose profile names one (`accessLogHop`). */
export const ACCESS_LOG_HOPS = new Map<Engine, HopDef>();
/** Pins by engine, for the engines whose profile has one. */
export const PINS = {} as Record<Engine, EnginePin>;
/** The registered profiles that carry line shapes (none of the built-ins): what the generic reader tries. */
export const SHAPED_PROFILES: EngineProfile[] = [];
/** The engines known, built-in first, in the order they were registered. */
export const ENGINE_IDS: Engine[] = [];
/** Their profiles, in the same order (for the parser's per-line questions). */
export const ENGINE_PROFILES: EngineProfile[] = [];

let generation = 0;
const listeners: (() => void)[] = [];

/** Rebuilds every view above from the map, in place (their readers hold them), and tells the listeners. */
function derive(): void {
  const all = [...profiles.values()];
  ENGINE_PROFILES.splice(0, ENGINE_PROFILES.length, ...all);
  ENGINE_IDS.splice(0, ENGINE_IDS.length, ...all.map((p) => p.id));
  SHAPED_PROFILES.splice(0, SHAPED_PROFILES.length, ...all.filter((p) => p.lineShapes?.length));
  // Only what left is deleted (a delete slows the object's property reads: the built-ins never leave).
  for (const id of Object.keys(HOP_TABLES) as Engine[]) if (!profiles.has(id)) delete HOP_TABLES[id];
  for (const id of Object.keys(PINS) as Engine[]) if (profiles.get(id)?.pin === undefined) delete PINS[id];
  ACCESS_LOG_HOPS.clear();
  for (const p of all) {
    HOP_TABLES[p.id] = p.hops;
    const access = p.accessLogHop !== undefined ? p.hops.hops.find((h) => h.id === p.accessLogHop) : undefined;
    if (access !== undefined) ACCESS_LOG_HOPS.set(p.id, access);
    if (p.pin) PINS[p.id] = p.pin;
  }
  generation++;
  for (const listener of listeners) listener();
}
derive();

/** How many times the registry changed: a cache built from the profiles is stale when this moved. */
export function registryGeneration(): number {
  return generation;
}

/** Calls `listener` after each registration and removal (what src/engines/grammars.ts rebuilds its tables with). */
export function onRegistryChange(listener: () => void): void {
  listeners.push(listener);
}

/** The engines known, built-in first, in the order they were registered. */
export function engineIds(): Engine[] {
  return [...ENGINE_IDS];
}

/** Choices in words: `a`, `a or b`, `a, b or c`. */
function orWords(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** The engines as a flag's choices in words (`vllm or sglang`); with `auto` first: `auto, vllm or sglang`. */
export function engineChoiceWords(withAuto = false): string {
  return orWords(withAuto ? ['auto', ...ENGINE_IDS] : ENGINE_IDS);
}

/** The engines whose releases HopLens fetches (a profile with a checkout shape): their ids. */
function releaseEngineIds(): Engine[] {
  return ENGINE_PROFILES.filter((p) => p.checkout !== undefined).map((p) => p.id);
}

/** A release spec's forms in words: `vllm==VERSION or sglang==VERSION` (`|` between them with `sep`). */
export function releaseSpecWords(sep?: string): string {
  const forms = releaseEngineIds().map((id) => `${id}==VERSION`);
  return sep === undefined ? orWords(forms) : forms.join(sep);
}

/** Example release specs, one per engine with releases (`vllm==0.8.5`, `sglang==0.5.1`). */
export function releaseExamples(): string[] {
  return ENGINE_PROFILES.flatMap((p) => (p.checkout ? [`${p.id}==${p.checkout.exampleRelease}`] : []));
}

/**
 * A new engine's id, for its profile and hop table (`engineId('toyllm')`): a lower-case word, as
 * `--engine` takes it and a record's `engine` prints it. Registering the profile makes it known.
 */
export function engineId(name: string): Engine {
  if (!/^[a-z][a-z0-9_-]*$/.test(name) || name === 'auto' || name === 'other') {
    throw new Error(`'${name}' cannot be an engine's id (a lower-case word, not auto or other)`);
  }
  return name as Engine;
}

/** Whether `name` is a known engine's id (a CLI flag, a setting, a stored index). */
export function isEngine(name: unknown): name is Engine {
  return typeof name === 'string' && profiles.has(name);
}

/** The registered profiles, built-in first, in the order they were registered. */
export function engineProfiles(): EngineProfile[] {
  return [...ENGINE_PROFILES];
}

/**
 * The launch flags that turn request logging on, by engine label: a known engine's own (none when it
 * needs none), every registered engine's that has one for an engine not known (a record of one since removed).
 */
export function requestLogFlags(engine: string | null | undefined): { label: string; flag: string }[] {
  const of = (p: EngineProfile) => (p.logging?.requestLogFlag !== undefined ? [{ label: p.label, flag: p.logging.requestLogFlag }] : []);
  return isEngine(engine) ? of(engineProfile(engine)) : ENGINE_PROFILES.flatMap(of);
}

/** The paths a traced request asks to tell the engine (`--engine auto`): each engine's own first, then those others answer too. */
export function probePaths(): string[] {
  const own = ENGINE_PROFILES.flatMap((p) => p.request?.answersOnly?.slice(0, 1) ?? []);
  const also = ENGINE_PROFILES.flatMap((p) => (p.request?.answersAlso !== undefined ? [p.request.answersAlso] : []));
  return [...own, ...also];
}

/** How each engine's server is started, in short (`vllm serve …`), for the engines a traced request knows. */
export function startCommands(): string[] {
  return ENGINE_PROFILES.flatMap((p) => (p.request ? [p.request.startCommand] : []));
}

/** The request APIs Send Traced Request calls: the OpenAI ones every engine answers, then each engine's own (`sglang-generate`). */
export function requestApis(): string[] {
  return ['chat', 'completions', ...ENGINE_PROFILES.flatMap((p) => p.request?.ownApis?.map((a) => a.id) ?? [])];
}

/** The request APIs in words: `chat, completions or sglang-generate`. */
export function requestApiWords(): string {
  return orWords(requestApis());
}

/** The engine whose server alone answers a request API (`sglang-generate`), if one does. */
export function apiOwner(api: string): EngineProfile | undefined {
  return ENGINE_PROFILES.find((p) => p.request?.ownApis?.some((a) => a.id === api) === true);
}

/** A request API only one engine's server answers (`sglang-generate`), as its profile has it; undefined for chat, completions or none known. */
export function ownApi(api: string): OwnApi | undefined {
  for (const p of ENGINE_PROFILES) {
    const found = p.request?.ownApis?.find((a) => a.id === api);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** An engine's clock traits; none for a log of no known engine. */
export function clockTraits(engine: string | null): EngineClockTraits {
  return engine !== null && isEngine(engine) ? engineProfile(engine).clock ?? {} : {};
}

export function engineProfile(id: Engine): EngineProfile {
  const p = profiles.get(id);
  if (p === undefined) throw new Error(`no engine profile '${id}'`);
  return p;
}

/**
 * Adds an engine's profile (a made-up engine in the tests; a new engine's folder). Returns what
 * takes it away again. A profile's id names no built-in engine.
 */
export function registerEngine(profile: EngineProfile): () => void {
  if (profiles.has(profile.id)) throw new Error(`engine '${profile.id}' is already registered`);
  profiles.set(profile.id, profile);
  derive();
  return () => {
    if (profiles.get(profile.id) !== profile) return;
    profiles.delete(profile.id);
    derive();
  };
}

/**
 * The folder of an engine's repository that holds its Python package's folder (`python/` for
 * SGLang's python/sglang, '' for vLLM's vllm/), with its slash; '' for an engine with no pin.
 */
export function packageParent(id: Engine): string {
  const dir = profiles.get(id)?.pin?.packageDir ?? '';
  return dir.slice(0, dir.lastIndexOf('/') + 1);
}

/**
 * A repository path as engineers say it, under its engine's package (`vllm/v1/engine/core.py` →
 * `v1/engine/core.py`, `python/sglang/srt/…` → `srt/…`): the first pinned engine's package folder
 * the path starts with is taken off; a path under none is kept as is.
 */
export function packageRelativePath(path: string): string {
  for (const p of ENGINE_PROFILES) {
    const dir = p.pin?.packageDir;
    if (dir !== undefined && path.startsWith(`${dir}/`)) return path.slice(dir.length + 1);
  }
  return path;
}
