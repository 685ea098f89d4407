// Custom logging layouts (a logging config's own format): whose engine a layout's line is (its
// logger or path, a line of the same layout, the hop tables, a look ahead), and the lines a relay
// (dynamo-run) passed on in tracing's layout.
import type { Engine, LogRecord } from './model';
import { createParseState, tagRanks, type ParseState } from './parseState';
import { matchHop, soleHopEngine } from '../../engines/index';
import { ENGINE_IDS, engineProfile } from '../../engines/registry';
import { GRAMMARS, grammarOf } from '../../engines/grammars';
import { layoutTime, readLayoutHeader, type LayoutHeader } from './pythonLayout';
import { nextRecordAt } from './onOneLine';
import { parseSample } from './parseLine';

// A relay's target in tracing's layout whose lines are an engine subprocess's output, stripped.
const RELAY_TARGET = 'dynamo_run::subprocess';

/** A line dynamo-run relayed (`…Z DEBUG dynamo_run::subprocess: [llm_engine.py:507] …`); rec filled. */
function parseRelayed(h: LayoutHeader, message: string, rec: LogRecord, state: ParseState): boolean {
  // An engine's own relayed forms first (vLLM's `[file.py:N]`, which the header reader may have taken for the layout's location field).
  let engine: Engine | null = null;
  for (const g of GRAMMARS) if (g.relayed?.(h.file, h.lineno, message, rec, state)) { engine = g.engine; break; }
  if (engine === null) {
    // A header the relay did not strip (SGLang's tagged one, uvicorn's lines) is not a relayed line.
    if (message.charCodeAt(0) === 91 /* [ */ || /^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):\s/.test(message)) return false;
    // Else the engine whose hop the message is (no message is two engines' hop: their opening words differ).
    for (const id of ENGINE_IDS) {
      if (state.forced !== null && state.forced !== id && hasGrammar(state.forced)) continue;
      if (matchHop(id, message, null, `${id}-relayed`, nextRecordAt) !== null) { engine = id; break; }
    }
    if (engine === null) return false;
    rec.engine = engine; rec.format = `${engine}-relayed`; rec.message = message;
  }
  rec.time = layoutTime(h, state); rec.timeResolution = h.timeResolution;
  if (h.timeIsUtc) rec.timeIsUtc = true;
  if (state.detected === null) state.detected = engine;
  return true;
}

/** Whether an engine reads its lines with a grammar of its own (a log forced to it tries no other engine's). */
function hasGrammar(engine: Engine): boolean {
  return grammarOf(engine) !== undefined;
}


/**
 * NVIDIA Dynamo's own `module.funcName` in the layout its engine workers share (`<ISO>Z  INFO module.func: msg`):
 * its SDK's and circus's modules, none an engine's (ai-dynamo/dynamo#1280, #1683, #1871, #847, #839, #938). A line of the
 * layout an engine's line taught is not the engine's when it names one of these.
 */
const WRAPPER_OWN = new RegExp(String.raw`^(?:(?:serve_dynamo|arbiter|sighandler|watcher|planner_service|allocator)\.\w+`
  + String.raw`|serving\.(?:serve_dynamo_graph|create_dynamo_watcher)|loader\.(?:find_and_load_service|_do_import)`
  + String.raw`|config\.as_args|serve\.serve|frontend\.start_http_server|worker\.async_init|logging\.check_required_workers)$`);

/**
 * The engine a custom-layout line belongs to: the one its logger or path names; else the one
 * a line of the same layout was shown to be; else the one engine whose hop table knows the message.
 * Another library's line in another layout (httpx, a user's service) stays no engine's line.
 */
function layoutEngine(h: LayoutHeader, message: string, state: ParseState): Engine | null {
  // A Rust line is its target crate's: SGLang's router, or another program's (Dynamo, hyper) in the same layout.
  if (h.rust) return h.engine !== null && (state.forced === null || h.engine === state.forced) ? h.engine : null;
  if (h.engine === null && h.logger !== null && WRAPPER_OWN.test(h.logger)) return null;
  let engine = h.engine ?? state.layouts.get(h.signature) ?? null;
  if (engine === null) engine = soleHopEngine(message, h.file, (id) => state.forced === null || state.forced === id || !hasGrammar(state.forced), nextRecordAt);
  if (engine === null || (state.forced !== null && engine !== state.forced)) return null;
  if (!state.layouts.has(h.signature) && state.layouts.size < 64) state.layouts.set(h.signature, engine);
  return engine;
}

/** Characters and lines looked ahead when a layout is first seen partway (as primeState does at the start). */
const AHEAD_CHARS = 256 * 1024;
const AHEAD_LINES = 2000;

/**
 * A custom layout first seen partway through a log (a logging config that takes over after
 * start-up, a second process with a layout of its own): learn from the lines that follow whether
 * it is an engine's, as primeState does for the first lines. Once per layout; true when learnt.
 */
function learnLayoutAhead(state: ParseState, signature: string): boolean {
  if (state.ahead === null) return false;
  // Once per layout; again only when the last look was cut short by the end of what the reader held.
  const last = state.probedLayouts.get(signature);
  if (last === -1 || last === state.aheadEpoch || (last === undefined && state.probedLayouts.size >= 64)) return false;
  const sample = state.ahead(AHEAD_CHARS);
  state.probedLayouts.set(signature, sample.length >= AHEAD_CHARS ? -1 : state.aheadEpoch);
  if (sample.length === 0) return false;
  const probe = createParseState({ engine: state.forced ?? 'auto' });
  probe.detected = state.detected;
  const found = (): boolean => probe.layouts.has(signature);
  // A full window of lines without the layout proven: no later look will do better.
  if (parseSample(sample, AHEAD_LINES, probe, found) === AHEAD_LINES && !found()) state.probedLayouts.set(signature, -1);
  for (const [layout, engine] of probe.layouts) if (!state.layouts.has(layout) && state.layouts.size < 64) state.layouts.set(layout, engine);
  return state.layouts.has(signature);
}

/** Fill `rec` from a custom logging layout found at `at` in `s`; false when it is no engine's line. */
export function parseLayout(s: string, at: number, rec: LogRecord, state: ParseState): boolean {
  const h = readLayoutHeader(s, at);
  if (!h) return false;
  const message = s.slice(h.msgStart);
  if (h.rust && h.logger === RELAY_TARGET) return parseRelayed(h, message, rec, state);
  let engine = layoutEngine(h, message, state);
  if (!engine && learnLayoutAhead(state, h.signature)) engine = layoutEngine(h, message, state);
  if (!engine) { state.unknownLayouts++; return false; }
  applyLayout(rec, h, engine, message, state);
  return true;
}

export function applyLayout(rec: LogRecord, h: LayoutHeader, engine: Engine, message: string, state: ParseState): void {
  rec.engine = engine;
  rec.format = `${engine}-custom`;
  rec.time = layoutTime(h, state); rec.timeResolution = h.timeResolution;
  if (h.timeIsUtc) rec.timeIsUtc = true;
  rec.level = h.level ?? rec.level;
  rec.pid = h.pid ?? rec.pid;
  rec.fileinfo = h.file; rec.lineno = h.lineno;
  if (h.logger) rec.logger = h.logger;
  if (h.func) rec.func = h.func;
  if (h.ranks) {
    rec.process = h.ranks; rec.ranks = tagRanks(h.ranks);
    const role = engineProfile(engine).rankRole;
    if (role !== undefined) rec.role = role;
  }
  if (h.rust) { rec.format = `${engine}-router`; rec.role = 'router'; if (h.span) rec.span = h.span; }
  rec.message = message;
  if (h.engine && state.detected === null) state.detected = h.engine;
}
