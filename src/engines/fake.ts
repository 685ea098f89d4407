// What the fake engine (src/testing/fakeEngine: tests, the demo, the benchmarks) asks of an engine
// it imitates: the routes its server answers, the ids it prints, its frames' JSON, its log lines,
// and when it writes each. Each engine's imitation lives in its own folder (src/engines/<id>/fake.ts)
// and is listed in fakes.ts; the server and its stream code ask the imitation and never name an
// engine. Nothing the product bundles imports these files (they are test tooling beside the engine's
// facts, so a new engine's imitation needs no file outside its folder but that list).
// The helpers below are the parts every imitation shares: Python's repr() of what an engine's
// logger prints, and Starlette's compact error body.
import type { ApiKind, Engine } from './types';

export interface Usage { prompt: number; completion: number }

/** What one server shares with its imitation when it starts. */
export interface FakeServerSetup {
  /** Appends one line to the server's log. */
  write(line: string): void;
  /** The API server's process id (printed where the engine prints one). */
  pid: number;
  /** Like a function tracer turned on: trace the engine core's steps under `dir` (an engine without one ignores it). */
  trace?: { dir: string; pid?: number; sourceRoot?: string };
  /** Exports a finished request's span to the receiver the server was given (absent: none given). */
  exportSpan?: (span: ImitatedSpan) => void;
  /** Epoch ms now, at sub-ms precision. */
  epochNow(): number;
}

/** One span a server exports when a request finishes (OTLP/HTTP), as its engine names it. */
export interface ImitatedSpan {
  /** service.name when OTEL_SERVICE_NAME names none. */
  defaultService: string;
  /** The resource attribute that carries the process id. */
  processAttribute: string;
  scope: string;
  name: string;
  /** OTLP's SpanKind number (2: SERVER). */
  kind: number;
  startEpochMs: number;
  endEpochMs: number;
  /** The request's valid W3C `traceparent`: the span joins that trace. */
  traceparent?: { traceId: string; parentId: string };
  attributes: Array<[string, number | string]>;
}

/** A request as the server read it, with the numbers the stream code derived from its body. */
export interface ImitatedRequest {
  api: ApiKind;
  body: Record<string, unknown>;
  /** The id the client chose (or the server drew). */
  clientRid: string;
  model: string;
  path: string;
  client: string;
  created: number;
  maxTokens: number;
  temperature: number;
  promptText: string;
  promptTokens: number;
  includeUsage: boolean;
  /** Usage on every chunk (`stream_options.continuous_usage_stats`), as the engine honours it. */
  continuous: boolean;
  /** The id in the SSE frames, and the one in the server's request lines. */
  externalId: string;
  loggedId: string;
  /** The engine core's id (the external one with a random suffix). */
  internalId: string;
  traceparent?: { traceId: string; parentId: string };
}

/** One content frame as the schedule writes it. */
export interface ContentFrame {
  /** Its index, and whether it is the reply's last. */
  i: number;
  last: boolean;
  /** Why the reply ends, and its length in tokens. */
  finish: 'stop' | 'length';
  replyTokens: number;
  /** Its text, and the reply's text and token ids up to and including it. */
  text: string;
  full: string;
  ids: number[];
  /** Tokens before it, and up to the end of it. */
  from: number;
  upTo: number;
  /** `incremental`: SGLang's /generate sends only the new text and ids (else the whole so far). */
  incremental: boolean;
  tokensPerFrame: number;
  everyMs: number;
  /** ms since the request arrived. */
  sinceArrival: number;
}

/** How a reply ended, for the lines (and span) of a completed request. */
export interface Completion {
  finish: 'stop' | 'length';
  completionTokens: number;
  full: string;
  ids: number[];
  arrivedEpochMs: number;
  /** ms the schedule put the first content frame and the tail at (after arrival). */
  firstMs: number;
  endAtMs: number;
  /** ms since the request arrived, asked when a line is written. */
  sinceArrival(): number;
  /** Calls `f` once the response has gone out. */
  whenSent(f: () => void): void;
}

/** One request's imitation: its frames' JSON and the lines the engine writes as it serves it. */
export interface ImitatedReply {
  /** The request has arrived: the lines that say so. */
  arrived(): void;
  /** A scripted HTTP error's body. */
  httpError(status: number, type: string, message: string): string;
  /** The client went away before the reply ended. */
  aborted(): void;
  /** Chat's role frame. */
  role(): string;
  /** Before the first content frame. */
  beforeContent(): void;
  /** A content frame's JSON (and the lines the engine writes for it). */
  content(f: ContentFrame): string;
  /** A content write went out (an engine core's step). */
  written(): void;
  /** The mid-stream error frame's JSON, and its lines. */
  error(internal: boolean): string;
  /** The frames between the last content frame and [DONE]. */
  tail(end: Completion): string[];
  /** The request completed: its lines, its span. */
  completed(end: Completion): void;
}

/** One running server's imitation. */
export interface ImitatedServer {
  /** The traced engine core's files, when the server was started traced. */
  engineCore: { pid: number; instanceDir: string; path: string } | null;
  /** An answer was written (the access line, for an engine that prints one). */
  answered(client: string, path: string, status: number, reason: string): void;
  /** The ids the engine gives a request whose id the client chose. */
  ids(api: ApiKind, clientRid: string): { externalId: string; loggedId: string };
  /** Whether usage on every chunk also needs `include_usage`. */
  continuousNeedsIncludeUsage: boolean;
  reply(r: ImitatedRequest): ImitatedReply;
}

export interface EngineImitation {
  id: Engine;
  /** The POST paths its server answers, and the API each one is. */
  apis: ReadonlyMap<string, ApiKind>;
  /** Its own GET routes (beside /v1/models and /health): the JSON each answers. */
  getRoutes: ReadonlyMap<string, (s: { model: string; tokensPerFrame: number }) => string>;
  /** The 404 body when a request names a model the server does not serve; null: it serves any name. */
  unknownModel(api: ApiKind, requested: unknown, model: string): string | null;
  start(setup: FakeServerSetup): ImitatedServer;
}

const j = JSON.stringify;

/** A non-streaming HTTP error body (Starlette JSONResponse: compact). */
export function starletteError(message: string, type: string, code: number, param: string | null = null): string {
  return `{"error":{"message":${j(message)},"type":${j(type)},"param":${param === null ? 'null' : j(param)},"code":${code}}}`;
}

/** Python's repr() of a str: single quotes unless the text has ' and no ". */
export function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + quote;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of JSON-like data (dicts, lists, str, numbers, True/False/None). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return pyStr(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Record<string, unknown>).map(([k, x]) => `${pyStr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

/** Python float repr for a temperature etc.: 0 → 0.0. */
export function pyFloat(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** Two digits (or `w`), zero-padded. */
export const pad2 = (n: number, w = 2): string => String(n).padStart(w, '0');
