// The engines HopLens knows, one profile each, and the one registry the rest of the code asks:
// which engines there are, an engine's hop table, its process roles, how its ids print, and (for
// an engine without a hand-written grammar in src/core/logs) the shapes of its log lines. A new
// engine is a folder src/engines/<id>/ with a profile registered here (ARCHITECTURE.md).
import type { Engine, EngineCheckout, EngineClockTraits, EngineLogging, EnginePin, EngineRequestApi, EngineTracing, HopTable, MissingReason } from './types';
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
}

const BUILT_IN: readonly EngineProfile[] = [VLLM_PROFILE, SGLANG_PROFILE];
const profiles = new Map<string, EngineProfile>(BUILT_IN.map((p) => [p.id, p]));
/** Hop tables by engine; kept in step with the registry (the hop matcher reads it on every line). */
export const HOP_TABLES: Record<Engine, HopTable> = Object.fromEntries(BUILT_IN.map((p) => [p.id, p.hops])) as Record<Engine, HopTable>;
/** Pins by engine, for the engines whose profile has one; kept in step with the registry. */
export const PINS: Record<Engine, EnginePin> = Object.fromEntries(BUILT_IN.flatMap((p) => (p.pin ? [[p.id, p.pin]] : []))) as Record<Engine, EnginePin>;
/** The registered profiles that carry line shapes (none of the built-ins): what the generic reader tries. */
export const SHAPED_PROFILES: EngineProfile[] = [];

/** The engines known, built-in first, in the order they were registered (kept in step; read it, do not change it). */
export const ENGINE_IDS: Engine[] = BUILT_IN.map((p) => p.id);
/** Their profiles, in the same order (kept in step, for the parser's per-line questions; read it, do not change it). */
export const ENGINE_PROFILES: EngineProfile[] = [...BUILT_IN];

/** The engines known, built-in first, in the order they were registered. */
export function engineIds(): Engine[] {
  return [...ENGINE_IDS];
}

/** The engines as a flag's choices in words (`vllm or sglang`); with `auto` first: `auto, vllm or sglang`. */
export function engineChoiceWords(withAuto = false): string {
  const ids: string[] = withAuto ? ['auto', ...ENGINE_IDS] : [...ENGINE_IDS];
  return ids.length < 2 ? ids.join('') : `${ids.slice(0, -1).join(', ')} or ${ids[ids.length - 1]}`;
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
  return ENGINE_IDS.map((id) => profiles.get(id)!);
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
  ENGINE_IDS.push(profile.id);
  ENGINE_PROFILES.push(profile);
  HOP_TABLES[profile.id] = profile.hops;
  if (profile.lineShapes?.length) SHAPED_PROFILES.push(profile);
  if (profile.pin) PINS[profile.id] = profile.pin;
  return () => {
    delete PINS[profile.id];
    profiles.delete(profile.id);
    ENGINE_IDS.splice(ENGINE_IDS.indexOf(profile.id), 1);
    ENGINE_PROFILES.splice(ENGINE_PROFILES.indexOf(profile), 1);
    delete HOP_TABLES[profile.id];
    const i = SHAPED_PROFILES.indexOf(profile);
    if (i >= 0) SHAPED_PROFILES.splice(i, 1);
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
